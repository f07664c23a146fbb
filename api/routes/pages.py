"""GET /: a demo guide page (like gpuserver.io's) with the chat widget on it."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

router = APIRouter(include_in_schema=False)
templates = Jinja2Templates(directory=Path(__file__).resolve().parent.parent / "templates")


@router.get("/", response_class=HTMLResponse)
async def demo(request: Request, lang: Literal["de", "en"] = "de") -> HTMLResponse:
    return templates.TemplateResponse(request, f"demo_{lang}.html", {"lang": lang})
