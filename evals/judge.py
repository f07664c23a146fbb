"""Optional LLM-judged metrics: faithfulness and answer relevancy (only with an LLM configured).

For each answered turn the judge model gets the question, the answer and its sources (the cited
passages and the tool results) and returns JSON: {"faithfulness": 0..1, "relevancy": 0..1,
"reason": "..."}. Faithfulness: every claim is supported by the sources. Relevancy: the answer
addresses the question. Unparseable verdicts are counted as `errors`, never guessed.
"""

from __future__ import annotations

import json
import re
import statistics
from typing import Any

MAX_SOURCE_CHARS = 6000

SYSTEM = (
    "You grade answers of a GPU sizing assistant. You get a QUESTION, an ANSWER and the SOURCES "
    "the answer may use (guide passages and tool results). Reply with one JSON object only: "
    '{"faithfulness": <0..1>, "relevancy": <0..1>, "reason": "<one sentence>"}. '
    "faithfulness: share of the answer's claims (figures, verdicts, prices) supported by the "
    "SOURCES. relevancy: how directly the answer addresses the QUESTION."
)


def _sources(answer: Any) -> str:
    parts = [f"[{c.n}] {c.title} › {c.section}: {c.quote}" for c in answer.citations]
    for tc in answer.tool_calls:
        parts.append(
            f"tool {tc.name}({json.dumps(tc.arguments)}) -> {json.dumps(tc.result, default=str)}"
        )
    text = "\n".join(parts) or "(none)"
    return text[:MAX_SOURCE_CHARS]


def parse_verdict(text: str) -> dict[str, Any] | None:
    m = re.search(r"\{.*\}", text or "", re.DOTALL)
    if not m:
        return None
    try:
        data = json.loads(m.group(0))
        f = float(data["faithfulness"])
        r = float(data["relevancy"])
    except (ValueError, KeyError, TypeError):
        return None
    if not (0 <= f <= 1 and 0 <= r <= 1):
        return None
    return {"faithfulness": f, "relevancy": r, "reason": str(data.get("reason", ""))[:300]}


def judge_results(settings: Any, results: list[dict[str, Any]]) -> dict[str, Any]:
    """Judge every answered turn; scores go into each turn (`judge`) and the summary."""
    from langchain_core.messages import HumanMessage, SystemMessage

    from assistant.llm import build_llm

    llm = build_llm(settings)
    if llm is None:
        return {"enabled": False, "note": "skipped: no LLM configured"}
    faith: list[float] = []
    rel: list[float] = []
    errors = 0
    for r in results:
        for t in r["turns"]:
            answer = t.get("_answer")
            if answer is None:
                continue
            prompt = (
                f"QUESTION:\n{t['question']}\n\nANSWER:\n{answer.answer}\n\n"
                f"SOURCES:\n{_sources(answer)}"
            )
            try:
                msg = llm.invoke([SystemMessage(content=SYSTEM), HumanMessage(content=prompt)])
                verdict = parse_verdict(str(msg.content))
            except Exception as exc:  # a failing judge is reported, never fatal
                verdict = None
                t["judge_error"] = f"{type(exc).__name__}: {exc}"[:200]
            if verdict is None:
                errors += 1
                continue
            t["judge"] = verdict
            faith.append(verdict["faithfulness"])
            rel.append(verdict["relevancy"])
    return {
        "enabled": True,
        "model": settings.llm_model,
        "judged": len(faith),
        "errors": errors,
        "faithfulness": round(statistics.fmean(faith), 4) if faith else None,
        "answer_relevancy": round(statistics.fmean(rel), 4) if rel else None,
    }
