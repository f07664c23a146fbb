"""Readiness: can answers be given as they should? Checked on each call of /readyz.

- catalog loaded; retrieval index readable (the embedded index folder is there and non-empty, or
  the Chroma server answers its heartbeat when SIZING_CHROMA_URL is set);
- the session, feedback and shared-state databases readable and writable (a rolled-back write);
- the LLM's circuit breaker state (an open breaker does not make the service unready: answers are
  offline with a notice).

No response names an absolute path: paths under the data folder are shown relative to it, others
by their last component (`redact_paths`).
"""

from __future__ import annotations

import re
import urllib.request
from pathlib import Path
from typing import Any

from api.dependencies import AppState

CHROMA_TIMEOUT_S = 2.0
_ABSOLUTE = re.compile(r"(?<![\w.])/(?:[^\s:'\"/]+/)*([^\s:'\"/]*)")


def redact_paths(text: str, data_dir: Path | None = None) -> str:
    """`<data_dir>/chroma` -> `chroma`; any other absolute path -> its last component."""
    if data_dir is not None:
        text = text.replace(str(Path(data_dir).resolve()) + "/", "").replace(
            str(data_dir) + "/", ""
        )
    return _ABSOLUTE.sub(lambda m: m.group(1) or "<path>", text)


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


def _chroma_heartbeat(url: str) -> str | None:
    """None when the Chroma server answers its heartbeat, else the problem."""
    target = url.rstrip("/") + "/api/v2/heartbeat"
    try:
        with urllib.request.urlopen(target, timeout=CHROMA_TIMEOUT_S) as response:
            if response.status == 200:
                return None
            return f"Chroma server answered HTTP {response.status}"
    except Exception as exc:
        return f"Chroma server unreachable: {type(exc).__name__}"


def index_check(state: AppState) -> dict[str, Any]:
    settings = state.settings
    if state.index_error:
        return {"ok": False, "error": state.index_error}
    if settings.chroma_url:
        problem = _chroma_heartbeat(settings.chroma_url)
        if problem:
            return {"ok": False, "error": problem}
    else:
        folder = Path(settings.data_dir) / "chroma"
        if not folder.is_dir() or not any(folder.iterdir()):
            return {"ok": False, "error": "the index folder chroma/ is missing: run `sizing index`"}
    try:
        passages = _passages(state.deps.index)
    except Exception as exc:
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
    return {"ok": bool(passages), "passages": passages or 0}


def _store_check(store: Any, error: str | None = None) -> dict[str, Any]:
    if store is None or not hasattr(store, "check"):
        return {"ok": False, "error": error or "not open"}
    return dict(store.check())


def readiness(state: AppState) -> dict[str, Any]:
    data_dir = state.settings.data_dir
    if state.startup_error is not None or state.deps is None:
        error = redact_paths(state.startup_error or "starting", data_dir)
        return {"ready": False, "error": error, "checks": {}}
    deps = state.deps
    configurations = len(getattr(deps.catalog, "configurations", None) or {})
    breaker = deps.extras.get("llm_breaker") if hasattr(deps, "extras") else None
    checks: dict[str, Any] = {
        "catalog": {"ok": configurations > 0, "configurations": configurations},
        "index": index_check(state),
        "sessions": _store_check(deps.sessions),
        "feedback": _store_check(state.feedback, state.extras.get("feedback_error")),
        "assistant": {"ok": state.assistant is not None},
        "llm": {
            "ok": True,
            "configured": deps.llm is not None,
            "breaker": breaker.state if breaker is not None else "closed",
        },
    }
    if state.shared_limits is not None:
        checks["rate_limits"] = _store_check(state.shared_limits.db)
    report = {"ready": all(c["ok"] for c in checks.values()), "checks": checks}
    return _redacted(report, data_dir)


def _redacted(value: Any, data_dir: Path) -> Any:
    if isinstance(value, str):
        return redact_paths(value, data_dir)
    if isinstance(value, dict):
        return {k: _redacted(v, data_dir) for k, v in value.items()}
    return value
