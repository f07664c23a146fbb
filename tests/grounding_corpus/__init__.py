"""The grounding corpus: answers an LLM could write, each a scenario (question, real tool calls,
guide passages, optionally the previous turn) plus a text that must pass (`correct.yaml`) or must
be rejected (`wrong.yaml`, with the trick it uses).

    for case in load_corpus():
        violations = check_answer(case.answer, prices, prior=case.prior, user_text=case.user_text)

Tool results are computed by the real registry over the real catalog when the corpus loads, and
prices are attached the way LLM mode attaches them (`assistant.llm_answer.quotes_for`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from assistant.answer import Answer, Citation
from assistant.grounding import GroundingFacts, facts_of_calls

HERE = Path(__file__).parent


@dataclass(frozen=True)
class Case:
    id: str
    kind: str  # "correct" | "wrong"
    trick: str  # what makes a wrong answer wrong ("" for correct ones)
    answer: Answer
    prior: GroundingFacts | None
    user_text: str


def _load(name: str) -> Any:
    return yaml.safe_load((HERE / name).read_text(encoding="utf-8"))


def _citations(keys: list[str], passages: dict[str, str]) -> list[Citation]:
    return [
        Citation(
            n=i,
            guide=key.rsplit("_", 1)[0],
            title="guide",
            section=key,
            url=f"https://gpuserver.io/en/guides/x#{key}",
            quote=passages[key],
        )
        for i, key in enumerate(keys, start=1)
    ]


@lru_cache(maxsize=1)
def load_corpus() -> tuple[Case, ...]:
    from assistant.deps import build_deps
    from assistant.lc_tools import ToolSession
    from assistant.llm_answer import quotes_for
    from assistant.registry import call_tool
    from assistant.settings import Settings

    deps = build_deps(Settings())
    spec = _load("scenarios.yaml")
    passages, scenarios = spec["passages"], spec["scenarios"]

    def calls(items: list[list[Any]]) -> list[Any]:
        return [call_tool(deps, name, args) for name, args in items]

    cases: list[Case] = []
    for kind in ("correct", "wrong"):
        for item in _load(f"{kind}.yaml"):
            sc = scenarios[item["scenario"]]
            language = item.get("language") or ("de" if item["scenario"].endswith("_de") else "en")
            session = ToolSession(language=language)
            session.tool_calls = calls(sc.get("calls") or [])
            prior = sc.get("prior")
            prior_facts = facts_of_calls(calls(prior["calls"])) if prior else None
            text = item["text"].strip()
            answer = Answer(
                question=sc["question"],
                language=language,
                answer=text,
                mode="llm",
                citations=_citations(sc.get("passages") or [], passages),
                prices=quotes_for(deps, session, text, language),
                tool_calls=list(session.tool_calls),
                session_id="corpus",
                message_id=item["id"],
            )
            cases.append(
                Case(
                    id=item["id"],
                    kind=kind,
                    trick=item.get("trick", ""),
                    answer=answer,
                    prior=prior_facts,
                    user_text=prior["question"] if prior else "",
                )
            )
    return tuple(cases)
