"""Benchmark: the grounding check per answer, against the number-level check it replaced.

    .venv/bin/python bench/bench_grounding.py [--rounds 5]

Answers: the offline answers to the bench and eval questions (what the offline path checks on
every answer) plus the committed grounding corpus (tests/grounding_corpus/). Both checkers run in
this process on the same answers, alternating, so machine load affects both alike; the ratio is
what to compare (target: the new check costs no more than the old one did, 1.3 ms of a 3.9 ms
warm answer when it was measured on an idle machine; issue 15: <= 0.3 ms per answer). The check
is timed twice: as the warm path sees it (an answer text seen before is parsed once) and with
its per-text caches emptied before every answer (a new answer text).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))


def offline_answers(data_dir: Path) -> list:  # type: ignore[type-arg]
    from bench_assistant import QUESTIONS, eval_questions

    from assistant.deps import build_deps
    from assistant.service import Assistant
    from assistant.settings import Settings

    assistant = Assistant(build_deps(Settings(data_dir=data_dir)))
    questions = QUESTIONS + [q for q in eval_questions() if q not in QUESTIONS]
    return [assistant.ask(q) for q in questions]


def corpus_answers() -> list:  # type: ignore[type-arg]
    from tests.grounding_corpus import load_corpus

    return [case.answer for case in load_corpus()]


def per_answer_ms(check, answers, prices, rounds: int) -> list[float]:  # type: ignore[no-untyped-def]
    out = []
    for _ in range(rounds):
        t = time.perf_counter()
        for a in answers:
            check(a, prices)
        out.append((time.perf_counter() - t) / len(answers) * 1000)
    return out


def _uncached(new):  # type: ignore[no-untyped-def]
    """The check as for an answer text never seen: its per-text caches emptied first (issue 15:
    a repeated question's answer text is parsed once; the facts of its tool calls stay)."""

    def check(answer, prices):  # type: ignore[no-untyped-def]
        new._parse.cache_clear()
        new._MENTIONS.clear()
        return new.check_answer(answer, prices)

    return check


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()

    import grounding_baseline as old

    from assistant import grounding as new
    from assistant.deps import build_deps
    from assistant.settings import Settings

    with tempfile.TemporaryDirectory() as tmp:
        sets = {"offline answers": offline_answers(Path(tmp))}
    try:
        sets["grounding corpus"] = corpus_answers()
    except ImportError as exc:  # pragma: no cover - corpus not present
        print(f"(no corpus: {exc})")
    prices = new.catalog_prices(build_deps(Settings()).catalog)
    for name, answers in sets.items():
        for a in answers:  # warm both (regex compile, caches)
            old.check_answer(a, prices)
            new.check_answer(a, prices)
        olds, news, fresh = [], [], []
        for _ in range(args.rounds):
            olds += per_answer_ms(old.check_answer, answers, prices, 1)
            news += per_answer_ms(new.check_answer, answers, prices, 1)
            fresh += per_answer_ms(_uncached(new), answers, prices, 1)
        o, n, f = statistics.median(olds), statistics.median(news), statistics.median(fresh)
        print(
            f"{name} ({len(answers)}): claim-level {n:.3f} ms/answer (a text seen before), "
            f"{f:.3f} ms/answer (every text new), number-level baseline {o:.3f} ms/answer, "
            f"ratios {n / o:.2f} / {f / o:.2f}"
        )


if __name__ == "__main__":
    main()
