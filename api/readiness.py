"""Readiness report: is the catalog loaded and the retrieval index open and non-empty?"""

from __future__ import annotations

from typing import Any

from api.dependencies import AppState


def _passages(index: Any) -> int | None:
    """Passages in the retrieval index, without opening a lazily opened one."""
    if index is None or getattr(index, "opened", True) is False:
        return None
    retriever = index.get() if hasattr(index, "get") else index
    size = getattr(type(retriever), "size", None)
    if size is None:
        return None
    value = retriever.size() if callable(size) else retriever.size
    return int(value)


def readiness(state: AppState) -> dict[str, Any]:
    if state.startup_error is not None or state.deps is None:
        return {"ready": False, "error": state.startup_error or "starting", "checks": {}}
    deps = state.deps
    configurations = len(getattr(deps.catalog, "configurations", None) or {})
    index: dict[str, Any] = {"ok": False}
    if state.index_error:
        index["error"] = state.index_error
    else:
        try:
            passages = _passages(deps.index)
        except Exception as exc:
            index["error"] = f"{type(exc).__name__}: {exc}"
        else:
            index = {"ok": bool(passages), "passages": passages or 0}
    checks = {
        "catalog": {"ok": configurations > 0, "configurations": configurations},
        "index": index,
        "assistant": {"ok": state.assistant is not None},
        "llm": {"ok": True, "configured": deps.llm is not None},
    }
    ready = all(c["ok"] for c in checks.values())
    return {"ready": ready, "checks": checks}
