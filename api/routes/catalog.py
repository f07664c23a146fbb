"""GET /api/configurations and POST /api/fit: the configurator as JSON."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Query
from fastapi.encoders import jsonable_encoder
from starlette.concurrency import run_in_threadpool

from api.configurator import configuration_rows, fit
from api.dependencies import DepsDep, RateLimited
from api.responses import errors
from assistant.registry import REGISTRY, ToolError

router = APIRouter(tags=["configurator"])

FitArgs = REGISTRY["fit_check"].args_model


@router.get(
    "/api/configurations",
    summary="All rentable configurations with exact prices",
    responses=errors(404, 422, 503, e404="unknown card id (the message lists the known ones)"),
)
async def configurations(
    deps: DepsDep,
    gpu: str | None = Query(default=None, description="only this card id, e.g. a100-sxm4"),
) -> dict[str, Any]:
    rows = configuration_rows(deps.catalog, gpu)
    if gpu and not rows:
        known = ", ".join(sorted(deps.catalog.gpus))
        raise HTTPException(404, f"Unknown card {gpu!r}; known cards: {known}.")
    return jsonable_encoder({"count": len(rows), "configurations": rows})


@router.post(
    "/api/fit",
    dependencies=[RateLimited],
    summary="Does a model fit each configuration? (the configurator, same tool as the assistant)",
    responses=errors(408, 413, 422, 429, 503),
)
async def fit_route(body: FitArgs, deps: DepsDep) -> dict[str, Any]:  # type: ignore[valid-type]
    try:
        result = await run_in_threadpool(fit, deps, body.model_dump(exclude_none=True))  # type: ignore[attr-defined]
    except ToolError as exc:
        raise HTTPException(422, str(exc)) from None
    return jsonable_encoder(result)
