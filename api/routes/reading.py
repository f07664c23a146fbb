"""GET /api/reading/options: what a reading's chips may be changed to (the widget's selects)."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Query

from api.dependencies import DepsDep
from api.reading_edits import reading_options
from api.responses import errors

router = APIRouter(tags=["chat"])


@router.get(
    "/api/reading/options",
    summary="The values a reading's model, precision and configurations may take",
    responses=errors(422, 503),
)
async def options(
    deps: DepsDep,
    lang: Literal["de", "en"] = Query(default="en", description="configuration labels' language"),
) -> dict[str, Any]:
    """The catalog's models (id, name, kind), the weight precisions and the configurations (id,
    label, price per month): the options of the chips under an answer, sent back as
    `/api/chat`'s `reading`. `editable` lists every field a reading may change."""
    return reading_options(deps.catalog, lang)
