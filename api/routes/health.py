"""GET /healthz (process up), /readyz (catalog and index loaded), /metrics (Prometheus)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response
from fastapi.responses import JSONResponse
from prometheus_client import CONTENT_TYPE_LATEST

from api.dependencies import MetricsDep, State
from api.readiness import readiness
from api.responses import errors

router = APIRouter(tags=["operations"])


@router.get("/healthz", summary="Liveness")
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


@router.get(
    "/readyz",
    summary="Readiness: catalog and index loaded",
    responses={503: {"description": "not ready: the same report, naming what failed"}},
)
async def readyz(state: State) -> JSONResponse:
    report: dict[str, Any] = readiness(state)
    return JSONResponse(report, status_code=200 if report["ready"] else 503)


@router.get(
    "/metrics",
    summary="Prometheus metrics",
    response_class=Response,
    responses={
        200: {"content": {"text/plain": {"schema": {"type": "string"}}}},
        **errors(401, 404, e404="metrics are off (SIZING_EXPOSE_METRICS)"),
    },
)
async def metrics(metrics: MetricsDep) -> Response:
    return Response(metrics.render(), media_type=CONTENT_TYPE_LATEST)
