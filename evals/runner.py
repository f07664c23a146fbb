"""Run question sets through the assistant (the same `Assistant.ask` the API calls) and score them.

    result = run_eval(datasets, settings, RunOptions(mode="offline"))
    result["pass_rate"], result["metrics"], result["cases"]

Each run gets its own data folder (sessions, and a guide index built from `settings.guides_dir`,
so a changed guide is what gets evaluated); `RunOptions.data_dir` reuses a folder (its index
built or brought up to date the same way, so a new folder works too).
"""

from __future__ import annotations

import contextlib
import json
import math
import statistics
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal

from evals.checks import TurnChecks, check_turn
from evals.diff import diff_reports, turn_facts
from evals.reading_checks import check_reading, reader_result
from evals.schema import Case, Dataset, Turn, given_reading_model

REPORT_VERSION = 1
SUMMARY_MAX_WORDS = 60  # assistant.summary.MAX_WORDS (evals read answers, not the builder)
RESULT_TRUNCATE = 3000


class EvalError(RuntimeError):
    """The run cannot start (e.g. LLM mode without an LLM configured)."""


@dataclass
class RunOptions:
    mode: Literal["offline", "llm"] = "offline"
    concurrency: int = 1
    judge: bool | None = None  # None: judge when an LLM is configured
    data_dir: Path | None = None  # reuse this data folder (index + sessions) instead of a fresh one
    # builds the assistant from deps (default: assistant.service.Assistant); tests inject a
    # deliberately broken flow here to prove the checks catch it
    assistant_factory: Callable[[Any], Any] | None = None
    # answer each question from its gold reading laid over the rule reading (evals/gold.py)
    gold_readings: bool = False


def _percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    s = sorted(values)
    k = max(0, min(len(s) - 1, math.ceil(q * len(s)) - 1))
    return s[k]


def _ratio(ok: int, total: int) -> float | None:
    return round(ok / total, 4) if total else None


def prepare_deps(settings: Any, options: RunOptions, workdir: Path) -> Any:
    """Deps for the run: offline mode never builds an LLM client, LLM mode requires one."""
    from assistant.deps import build_deps

    if options.mode == "llm":
        if not settings.llm_enabled:
            raise EvalError("--mode llm needs an LLM: set OPENAI_API_KEY (and OPENAI_BASE_URL)")
        run_settings = settings
    else:
        run_settings = settings.model_copy(update={"openai_api_key": None})
    from knowledge.testing import build_shipped_index

    if options.data_dir is not None:
        data = Path(options.data_dir)
        if not run_settings.chroma_url:
            # a new folder has no index: without one every guide search the model makes is an
            # error; an existing one is brought up to date (idempotent, from the vector cache)
            build_shipped_index(data, guides_dir=Path(run_settings.guides_dir))
        run_settings = run_settings.model_copy(update={"data_dir": data})
    else:
        data = workdir / "data"
        data.mkdir(parents=True, exist_ok=True)
        build_shipped_index(data, guides_dir=Path(run_settings.guides_dir))
        run_settings = run_settings.model_copy(update={"data_dir": data})
    deps = build_deps(run_settings)
    deps.warm()
    return deps


def _tool_calls(answer: Any, with_results: bool) -> list[dict[str, Any]]:
    out = []
    for c in answer.tool_calls:
        d: dict[str, Any] = {"name": c.name, "arguments": c.arguments}
        if with_results:
            r = json.dumps(c.result, ensure_ascii=False, default=str)
            d["result"] = r if len(r) <= RESULT_TRUNCATE else r[:RESULT_TRUNCATE] + " …"
        out.append(d)
    return out


def llm_turn(answer: Any) -> dict[str, Any]:
    """LLM mode: was the model's answer shown or did the turn fall back to the offline answer;
    the attempts and the violations of the rejected ones (never counted as the shown answer's)."""
    attempts = list(answer.attempts)
    shown = answer.mode == "llm"
    rejected = [a for a in attempts if a.outcome not in ("accepted", "read")]
    last = attempts[-1] if attempts else None
    # the LLM reader's reading answered by the planner (docs/llm-mode.md, "Two paths"): no
    # model wrote a word of it, and nothing fell back
    planner = not shown and last is not None and last.outcome == "read"
    if shown:
        tools = [c.name for c in answer.tool_calls]
    else:
        tools = list(last.tool_calls) if last is not None else []
    return {
        "shown": shown,
        "planner": planner,
        "reason": None if shown or planner else (last.outcome if last else "not_asked"),
        "attempts": [
            {
                "n": a.n,
                "outcome": a.outcome,
                "violations": [v.model_dump() for v in a.violations],
                "detail": a.detail,
                "tool_calls": list(a.tool_calls),
            }
            for a in attempts
        ],
        "rejected_violations": sum(len(a.violations) for a in rejected),
        "tool_calls": tools,
    }


def _llm_case(turns: list[dict[str, Any]]) -> dict[str, int]:
    llm = [t["llm"] for t in turns if t.get("llm")]
    return {
        "shown": sum(x["shown"] for x in llm),
        "planner": sum(x.get("planner", False) for x in llm),
        "fallbacks": sum(not x["shown"] and not x.get("planner") for x in llm),
        "rejected_violations": sum(x["rejected_violations"] for x in llm),
        "tool_calls": sum(len(x["tool_calls"]) for x in llm),
    }


def _summary_fields(answer: Any) -> dict[str, Any]:
    """The turn's summary and its length, and the first-sentence check of an offline answer:
    what it still gets wrong (shown) and what the service repaired before showing it."""
    from assistant.first_sentence import disagreement
    from assistant.summary import word_count

    summary = str(getattr(answer, "summary", "") or "")
    return {
        "summary": summary,
        "summary_words": word_count(summary),
        "summary_missing": not summary and not getattr(answer, "violations", None),
        "first_sentence_disagrees": disagreement(answer),
        "first_sentence_repaired": str(getattr(answer, "_repaired", "") or ""),
    }


def answer_turn(assistant: Any, turn: Turn, session: str | None, language: str) -> Any:
    """Ask the turn's question, or (a planner turn) answer its given reading with no parse: the
    reading's language is the case's unless the reading says one."""
    if turn.given_reading is None:
        if hasattr(assistant, "use_gold"):  # --gold-readings: the planner on the gold reading
            assistant.use_gold(turn.reading)
        return assistant.ask(turn.question, session_id=session)
    reading = given_reading_model({"language": language, **turn.given_reading})
    return assistant.answer_reading(reading, session_id=session)


def _layer_fields(turn: Turn, reading: Any, *, shown: bool) -> dict[str, Any]:
    """A turn's reader result (when it gives a gold reading) and, for tracing, what was read."""
    out: dict[str, Any] = {}
    if turn.reading is not None:
        out["reader"] = reader_result(check_reading(turn.reading, reading))
        out["reader"]["no_reading"] = reading is None
    if turn.given_reading is not None:
        out["given_reading"] = turn.given_reading
    if shown and reading is not None:
        out["reading"] = reading.model_dump(mode="json", exclude_defaults=True, exclude={"text"})
    return out


def _case_reader(turns: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The case's reader result over its turns with gold readings (None: no gold reading)."""
    scored = [(i, t["reader"]) for i, t in enumerate(turns) if t.get("reader")]
    if not scored:
        return None
    return {
        "right": sum(r["right"] for _, r in scored),
        "total": sum(r["total"] for _, r in scored),
        "wrong": [{"turn": i + 1, **w} for i, r in scored for w in r["wrong"]],
        "no_reading": [i + 1 for i, r in scored if r.get("no_reading")],
    }


#: where a failing case goes wrong: the reader (a gold field of it is wrong), else what plans and
#: writes the answer; a question case without a gold reading cannot be traced
LAYERS = ("reader", "planner/renderer", "no gold reading")


def _attribution(planner: bool, reader: dict[str, Any] | None) -> str:
    if planner:
        return "planner/renderer"
    if reader is None:
        return "no gold reading"
    return "reader" if reader["wrong"] else "planner/renderer"


def _run_case(
    assistant: Any,
    case: Case,
    dataset: str,
    prices: dict[str, Decimal],
    deps: Any = None,
    *,
    llm: bool = False,
) -> dict[str, Any]:
    turns_out: list[dict[str, Any]] = []
    session: str | None = None
    all_ok = True
    error: str | None = None
    for turn in case.turns():
        lang = turn.language or case.language
        t0 = time.perf_counter()
        try:
            answer = answer_turn(assistant, turn, session, lang)
        except Exception as exc:  # an answer that raises is a failed case, never a crashed run
            error = f"{type(exc).__name__}: {exc}"
            turns_out.append(
                {
                    "question": turn.text,
                    "latency_ms": round((time.perf_counter() - t0) * 1000, 2),
                    "checks": [{"kind": "error", "ok": False, "detail": error}],
                    "error": error,
                }
            )
            all_ok = False
            break
        latency = (time.perf_counter() - t0) * 1000
        session = answer.session_id
        checks: TurnChecks = check_turn(answer, turn.expect, lang, prices, deps)
        all_ok = all_ok and checks.ok
        reading = getattr(answer, "reading", None)
        turns_out.append(
            {
                "question": turn.text,
                **_layer_fields(turn, reading, shown=turn.reading is not None or not checks.ok),
                "language": lang,
                "expect": turn.expect.model_dump(mode="json", exclude_defaults=True),
                "answer": answer.answer,
                "answer_language": answer.language,
                "mode": answer.mode,
                "notice": answer.notice,
                "citations": [
                    {"guide": c.guide, "section": c.section, "url": c.url} for c in answer.citations
                ],
                "prices": {p.configuration: str(p.usd_per_month) for p in answer.prices},
                "chart": answer.chart.model_dump(mode="json") if answer.chart else None,
                "tool_calls": _tool_calls(answer, with_results=not checks.ok),
                "latency_ms": round(latency, 2),
                "facts": turn_facts(answer),
                "checks": [c.as_dict() for c in checks.checks],
                "citation_score": vars(checks.citations),
                "grounding_violations": checks.grounding_violations,
                "first_sentence": checks.first_sentence,
                "first_sentence_detail": checks.first_sentence_detail,
                **_summary_fields(answer),
                **({"llm": llm_turn(answer)} if llm else {}),
                "_answer": answer,
            }
        )
    if case.xfail:
        status = "xpass" if all_ok else "xfail"
    else:
        status = "pass" if all_ok else ("error" if error else "fail")
    reader = _case_reader(turns_out)
    out = {
        "id": case.id,
        "dataset": dataset,
        "tags": list(case.tags),
        "language": case.language,
        "status": status,
        "passed": all_ok,
        "planner": case.planner,
        "reader": reader,
        "layer": None if all_ok else _attribution(case.planner, reader),
        "xfail": case.xfail,
        "failures": [
            f"turn {i + 1}: [{c['kind']}] {c['detail']}"
            for i, t in enumerate(turns_out)
            for c in t["checks"]
            if not c["ok"]
        ],
        "turns": turns_out,
        "latency_ms": round(sum(t["latency_ms"] for t in turns_out), 2),
    }
    if llm:
        out["llm"] = _llm_case(turns_out)
    return out


def run_eval(
    datasets: list[Dataset],
    settings: Any,
    options: RunOptions | None = None,
    *,
    on_case: Callable[[dict[str, Any]], None] | None = None,
    dataset_names: list[str] | None = None,
) -> dict[str, Any]:
    """Run every case; return the report (a JSON-able dict, see `metrics`)."""
    from assistant.grounding import catalog_prices
    from assistant.service import Assistant

    options = options or RunOptions()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="sizing-eval-") as tmp:
        t0 = time.perf_counter()
        deps = prepare_deps(settings, options, Path(tmp))
        setup_s = time.perf_counter() - t0
        factory = options.assistant_factory or Assistant
        if options.gold_readings:
            from evals.gold import GoldReadingAssistant

            factory = GoldReadingAssistant
        assistant = factory(deps)
        prices = catalog_prices(deps.catalog)
        jobs = [
            (case, (dataset_names or [d.name for d in datasets])[i])
            for i, d in enumerate(datasets)
            for case in d.cases
        ]
        lock = threading.Lock()

        def one(job: tuple[Case, str]) -> dict[str, Any]:
            res = _run_case(assistant, job[0], job[1], prices, deps, llm=options.mode == "llm")
            if on_case is not None:
                with lock:
                    on_case(res)
            return res

        workers = max(1, options.concurrency)
        if workers == 1:
            results = [one(j) for j in jobs]
        else:
            with ThreadPoolExecutor(max_workers=workers) as pool:
                results = list(pool.map(one, jobs))

        judge_info: dict[str, Any]
        judge = options.judge if options.judge is not None else settings.llm_enabled
        if judge and settings.llm_enabled:
            from evals.judge import judge_results

            judge_info = judge_results(settings, results)
        elif judge:
            judge_info = {
                "enabled": False,
                "note": "LLM-judged metrics need an LLM (OPENAI_API_KEY)",
            }
        else:
            judge_info = {
                "enabled": False,
                "note": "skipped: no LLM configured (faithfulness and answer relevancy need one)"
                if not settings.llm_enabled
                else "skipped (--no-judge)",
            }
        if hasattr(deps.sessions, "close"):
            with contextlib.suppress(Exception):  # closing is best effort
                deps.sessions.close()
    for r in results:
        for t in r["turns"]:
            t.pop("_answer", None)
    report = {
        "version": REPORT_VERSION,
        "created": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "mode": options.mode,
        "datasets": dataset_names or [d.name for d in datasets],
        "concurrency": max(1, options.concurrency),
        "catalog": {
            "path": str(settings.catalog),
            "prices": {k: str(v) for k, v in prices.items()},
        },
        **summarise(results),
        "judge": judge_info,
        "timing": {
            "setup_s": round(setup_s, 3),
            "wall_s": round(time.perf_counter() - started, 3),
        },
        "cases": results,
    }
    return report


def summarise(results: list[dict[str, Any]]) -> dict[str, Any]:
    """Overall metrics and the pass rate by tag."""
    counts = {k: 0 for k in ("pass", "fail", "error", "xfail", "xpass")}
    for r in results:
        counts[r["status"]] += 1
    scored = len(results) - counts["xfail"]
    passed = counts["pass"] + counts["xpass"]
    by_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    cit = {"expected": 0, "matched_expected": 0, "cited": 0, "relevant_cited": 0}
    grounding = 0
    latencies: list[float] = []
    tool_turns = [0, 0]
    yes_no = [0, 0]
    words: list[float] = []
    over = disagrees = repaired = 0
    for r in results:
        for t in r["turns"]:
            latencies.append(t["latency_ms"])
            if "summary_words" in t:
                words.append(t["summary_words"])
                over += t["summary_words"] > SUMMARY_MAX_WORDS or bool(t.get("summary_missing"))
                disagrees += bool(t.get("first_sentence_disagrees"))
                repaired += bool(t.get("first_sentence_repaired"))
            if t.get("first_sentence") is not None:
                yes_no[1] += 1
                yes_no[0] += bool(t["first_sentence"])
            grounding += t.get("grounding_violations", 0)
            for k, v in (t.get("citation_score") or {}).items():
                cit[k] += v
            tool_checks = [c for c in t["checks"] if c["kind"] == "tools"]
            if tool_checks:
                tool_turns[1] += 1
                tool_turns[0] += all(c["ok"] for c in tool_checks)
            for c in t["checks"]:
                by_kind[c["kind"]][1] += 1
                by_kind[c["kind"]][0] += c["ok"]

    def acc(*kinds: str) -> float | None:
        ok = sum(by_kind[k][0] for k in kinds if k in by_kind)
        total = sum(by_kind[k][1] for k in kinds if k in by_kind)
        return _ratio(ok, total)

    layers = summarise_layers(results)
    metrics = {
        "verdict_accuracy": acc("verdict", "rule"),
        "number_accuracy": acc("number"),
        "price_exactness": acc("price"),
        "citation_precision": _ratio(cit["relevant_cited"], cit["cited"]),
        "citation_recall": _ratio(cit["matched_expected"], cit["expected"]),
        "grounding_violations": grounding,
        "language_match": acc("language"),
        "tool_call_correctness": _ratio(*tool_turns),
        "phrase_accuracy": acc("contains", "pattern", "forbidden"),
        "first_sentence_answers": _ratio(*yes_no),
        "first_sentence_disagrees": disagrees,
        "first_sentence_repaired": repaired,
        "summary_words_max": int(max(words)) if words else 0,
        "summary_words_p50": int(_percentile(words, 0.5) or 0),
        "summaries_over_limit": over,
        "reader_accuracy": layers["reader"]["accuracy"],
        "planner_accuracy": layers["planner"]["accuracy"],
        "latency_ms_p50": _round(_percentile(latencies, 0.5)),
        "latency_ms_p95": _round(_percentile(latencies, 0.95)),
        "latency_ms_mean": _round(statistics.fmean(latencies)) if latencies else None,
    }
    checks = {k: {"ok": v[0], "total": v[1]} for k, v in sorted(by_kind.items())}
    tags: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in results:
        if r["status"] == "xfail":
            continue
        for tag in r["tags"] or ["(untagged)"]:
            tags[tag][1] += 1
            tags[tag][0] += r["passed"]
    by_tag = {
        t: {"passed": v[0], "total": v[1], "pass_rate": _ratio(v[0], v[1])}
        for t, v in sorted(tags.items())
    }
    datasets: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in results:
        if r["status"] != "xfail":
            datasets[r["dataset"]][1] += 1
            datasets[r["dataset"]][0] += r["passed"]
    by_dataset = {
        d: {"passed": v[0], "total": v[1], "pass_rate": _ratio(v[0], v[1])}
        for d, v in datasets.items()
    }
    llm = summarise_llm(results)
    return {
        **({"llm": llm} if llm else {}),
        "layers": layers,
        "pass_rate": _ratio(passed, scored) if scored else 0.0,
        "counts": {"cases": len(results), "scored": scored, "passed": passed, **counts},
        "metrics": metrics,
        "checks": checks,
        "by_tag": by_tag,
        "by_dataset": by_dataset,
    }


def summarise_layers(results: list[dict[str, Any]]) -> dict[str, Any]:
    """The layers apart (issue 23): reader accuracy per gold field and over all gold fields,
    planner accuracy (planner cases: a given reading, no parse), the end-to-end pass rate of the
    question cases, each failing case's layer, and yes/no first sentences that fail."""
    fields: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in results:
        for t in r["turns"]:
            for name, ok in (t.get("reader") or {}).get("fields", {}).items():
                fields[name][1] += 1
                fields[name][0] += ok
    right, total = sum(v[0] for v in fields.values()), sum(v[1] for v in fields.values())
    scored = [r for r in results if r["status"] != "xfail"]
    planner = [r for r in scored if r.get("planner")]
    e2e = [r for r in scored if not r.get("planner")]
    attribution: dict[str, list[str]] = {layer: [] for layer in LAYERS}
    for r in scored:
        if not r["passed"]:
            layer = r.get("layer") or _attribution(bool(r.get("planner")), r.get("reader"))
            attribution[layer].append(r["id"])
    yes_no = [t["first_sentence"] for r in results for t in r["turns"] if "first_sentence" in t]
    yes_no = [x for x in yes_no if x is not None]

    def rate(ok: int, n: int) -> dict[str, Any]:
        return {"right": ok, "total": n, "accuracy": _ratio(ok, n)}

    return {
        "reader": {
            **rate(right, total),
            "cases": sum(r.get("reader") is not None for r in results),
            "fields": {k: rate(*v) for k, v in sorted(fields.items())},
        },
        "planner": rate(sum(r["passed"] for r in planner), len(planner)),
        "end_to_end": {
            "passed": sum(r["passed"] for r in e2e),
            "total": len(e2e),
            "pass_rate": _ratio(sum(r["passed"] for r in e2e), len(e2e)),
        },
        "attribution": attribution,
        "first_sentence_wrong": {"count": yes_no.count(False), "of": len(yes_no)},
    }


def summarise_llm(results: list[dict[str, Any]]) -> dict[str, Any] | None:
    """LLM mode over all turns: answers shown vs fallbacks (and why), the violations of the
    rejected attempts by kind, tool calls and latency. None when no turn ran in LLM mode."""
    turns = [t for r in results for t in r["turns"] if t.get("llm")]
    if not turns:
        return None
    reasons: dict[str, int] = defaultdict(int)
    kinds: dict[str, int] = defaultdict(int)
    for t in turns:
        x = t["llm"]
        if not x["shown"] and not x.get("planner"):
            reasons[x["reason"]] += 1
        for a in x["attempts"]:
            if a["outcome"] not in ("accepted", "read"):
                for v in a["violations"]:
                    kinds[v["kind"]] += 1
    shown = [t for t in turns if t["llm"]["shown"]]
    planner = [t for t in turns if t["llm"].get("planner")]
    n_tools = sum(len(t["llm"]["tool_calls"]) for t in turns)
    lat = [t["latency_ms"] for t in turns]
    return {
        "turns": len(turns),
        "shown": len(shown),
        "planner": len(planner),
        "fallbacks": len(turns) - len(shown) - len(planner),
        "shown_rate": _ratio(len(shown), len(turns)),
        "fallback_reasons": dict(sorted(reasons.items())),
        "attempts": sum(len(t["llm"]["attempts"]) for t in turns),
        "rejected_violations": sum(kinds.values()),
        "rejected_violations_by_kind": dict(sorted(kinds.items())),
        "tool_calls": n_tools,
        "tool_calls_per_turn": round(n_tools / len(turns), 2),
        "latency_ms_p50": _round(_percentile(lat, 0.5)),
        "latency_ms_p95": _round(_percentile(lat, 0.95)),
    }


def _round(v: float | None) -> float | None:
    return None if v is None else round(v, 2)


def compare(current: dict[str, Any], baseline: dict[str, Any]) -> dict[str, Any]:
    """What got better and worse against a baseline report.json."""
    base = {c["id"]: c for c in baseline.get("cases", [])}
    cur = {c["id"]: c for c in current.get("cases", [])}
    fixed, broken, new, removed = [], [], [], []
    for cid, c in cur.items():
        b = base.get(cid)
        if b is None:
            new.append(cid)
        elif c["passed"] and not b["passed"]:
            fixed.append(cid)
        elif b["passed"] and not c["passed"]:
            broken.append(cid)
    removed = [cid for cid in base if cid not in cur]
    metrics = {}
    keys = ["pass_rate"] + [f"metrics.{k}" for k in current.get("metrics", {})]
    for key in keys:
        a = _get(baseline, key)
        b = _get(current, key)
        if isinstance(a, int | float) and isinstance(b, int | float) and not isinstance(a, bool):
            metrics[key] = {"baseline": a, "current": b, "delta": round(b - a, 4)}
    from evals.metric_help import COUNT_METRICS

    lower_is_better = {f"metrics.{k}" for k in COUNT_METRICS} | {
        k for k in metrics if k.startswith("metrics.latency")
    }
    better = [
        k for k, v in metrics.items() if (v["delta"] < 0) == (k in lower_is_better) and v["delta"]
    ]
    worse = [
        k for k, v in metrics.items() if (v["delta"] > 0) == (k in lower_is_better) and v["delta"]
    ]
    return {
        "answers": diff_reports(baseline, current),
        "baseline_created": baseline.get("created"),
        "fixed": sorted(fixed),
        "broken": sorted(broken),
        "new": sorted(new),
        "removed": sorted(removed),
        "metrics": metrics,
        "better": better,
        "worse": worse,
    }


def _get(d: dict[str, Any], dotted: str) -> Any:
    node: Any = d
    for part in dotted.split("."):
        if not isinstance(node, dict):
            return None
        node = node.get(part)
    return node
