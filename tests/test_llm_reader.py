"""The LLM reader (assistant/reading/llm.py) and LLM mode's two paths (assistant/reading/paths.py).

Replayed: tests/transcripts/reader/*.json, recorded through ../shared/tools/llm_relay.py with the
model played by hand (the reader's JSON, and the free answers' tool calls and texts). The scripted
server (tests/llm_server.py) plays them back to the real openai client through LangChain; the
real reader validation, planner, tools, retrieval and grounding answer. Each turn asserts the
path, the reading's fields, the tools called, the prices (exact catalog figures) and the verdict
and figures of the first line.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.llm_server import ScriptedLLMServer, replay_steps, status, text, tool_call

# fixtures: api_data_dir
pytest_plugins = ["tests.server"]

HERE = Path(__file__).parent / "transcripts" / "reader"
RECORDED = sorted(HERE.glob("*.json"))


def _assistant(data_dir: Path, server: ScriptedLLMServer, index: Any = None, **extra: Any) -> Any:
    from assistant.deps import build_deps
    from assistant.service import Assistant
    from assistant.settings import Settings

    settings = Settings(
        data_dir=data_dir,
        openai_api_key="test-key",
        openai_base_url=server.base_url,
        llm_model="scripted-model",
        llm_timeout_s=5.0,
        llm_max_retries=0,
        **{"llm_reader": True, **extra},
    )
    deps = build_deps(settings)
    if index is not None:
        deps = dataclasses.replace(deps, index=index)
    return Assistant(deps)


@pytest.fixture(scope="module")
def replay(api_data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Any:
    from knowledge.retrieval import open_retriever

    server = ScriptedLLMServer([]).start()
    assistant = _assistant(
        tmp_path_factory.mktemp("reader-replay"), server, open_retriever(api_data_dir)
    )
    yield server, assistant
    server.stop()


def test_the_recorded_set_is_varied() -> None:
    records = [json.loads(p.read_text(encoding="utf-8")) for p in RECORDED]
    turns = [t for r in records for t in r["turns"]]
    assert len(records) >= 15
    assert {r["language"] for r in records} == {"de", "en"}
    assert {t["expect"]["path"] for t in turns} == {"planner", "free"}
    assert any(len(r["turns"]) > 2 for r in records), "a follow-up conversation"
    assert any(t["expect"]["reading"].get("budget_currency") == "EUR" for t in turns)
    assert any(t["expect"]["reading"].get("refers_to") for t in turns), "'that' / 'the cheaper one'"
    both = [t for t in turns if {"users", "concurrent_sequences"} <= set(t["expect"]["reading"])]
    assert both, "users kept apart from the requests at once"


def _unmarked(text: str) -> str:
    return re.sub(r"\[\d+\]", "[n]", text)


def _check_first_line(answer: Any, expect: dict[str, Any], where: str) -> None:
    first = answer.answer.split("\n")[0]
    if expect["verdict"]:
        assert expect["verdict"] in first, (where, first)
    for figure in expect["figures"]:
        assert figure in first, (where, figure, first)


def _check_prices(assistant: Any, answer: Any, expect: dict[str, Any], where: str) -> None:
    assert [p.configuration for p in answer.prices] == expect["prices"], where
    configs = assistant.deps.catalog.configurations
    for quote in answer.prices:
        assert float(quote.usd_per_month) == float(configs[quote.configuration].usd_per_month)


def _check_reading(answer: Any, expect: dict[str, Any], where: str) -> None:
    reading = answer.reading.model_dump(mode="json")
    for field, value in expect["reading"].items():
        assert reading[field] == value, (where, field, reading[field])
    assert [a["kind"] for a in reading["asks"]] == expect["asks"], where
    assert reading["intents"] == expect["intents"], where
    assert reading["unread"] == expect["unread"], where


@pytest.mark.parametrize("path", RECORDED, ids=[p.stem for p in RECORDED])
def test_recorded_reader_transcript_replays(replay: Any, path: Path) -> None:
    server, assistant = replay
    record = json.loads(path.read_text(encoding="utf-8"))
    session_id = None
    for n, turn in enumerate(record["turns"]):
        where = f"{path.stem} turn {n + 1}"
        before = len(server.requests)
        server.add(*replay_steps(turn["responses"]))
        answer = assistant.ask(turn["question"], session_id=session_id)
        session_id = answer.session_id
        expect = turn["expect"]
        sent = server.requests[before:]
        reader_request = sent[0]
        assert reader_request["response_format"]["type"] == "json_schema", where
        assert reader_request["max_tokens"] == assistant.deps.settings.llm_max_tokens
        assert "max_completion_tokens" not in reader_request
        assert "tools" not in reader_request, "a reader never calls a sizing tool"
        if n:  # a follow-up's reader sees the previous reading
            assert any("previous" in str(m["content"]) for m in reader_request["messages"]), where
        assert [a.outcome for a in answer.attempts] == expect["outcomes"], where
        assert answer.mode == expect["mode"], where
        assert [c.name for c in answer.tool_calls] == expect["tool_calls"], where
        if expect["path"] == "planner":
            assert answer.reading.reader == "llm", where
            assert "LLM reader -> planner" in (answer.attempts[-1].detail or "")
            assert len(sent) == 1, "the planner path makes one model call"
        else:
            assert answer.reading.reader == "rules", where
            # the model's text as written (citation markers are renumbered by first use)
            recorded = turn["responses"][-1]["content"]
            assert _unmarked(answer.answer) == _unmarked(recorded), where
            assert answer.violations == [], where
        _check_reading(answer, expect, where)
        _check_prices(assistant, answer, expect, where)
        _check_first_line(answer, expect, where)
    assert server.remaining == 0


# --------------------------------------------------------------------------- reader behaviour


READING = {
    "task": "serve",
    "asks": [{"kind": "fit", "claim": "fits"}],
    "model": "llama-3.3-70b",
    "cards": ["h100"],
    "count": 1,
}


def test_invalid_output_is_sent_back_once_with_the_error(tmp_path: Path) -> None:
    bad = dict(READING, model="llama-70b")  # not a catalog id
    with ScriptedLLMServer([text(json.dumps(bad)), text(json.dumps(READING))]) as server:
        answer = _assistant(tmp_path, server).ask("Does Llama 3.3 70B fit on one H100?")
        retry = server.requests[1]["messages"][-1]["content"]
    assert "'llama-70b' is not a catalog model id" in retry
    assert [a.outcome for a in answer.attempts] == ["invalid", "read"]
    assert answer.reading.reader == "llm" and answer.reading.model == "llama-3.3-70b"
    assert answer.answer.startswith("**No")


def test_invalid_twice_keeps_the_rule_reading_and_the_free_answer(tmp_path: Path) -> None:
    script = [text("{bad"), text("Llama fits, I think."), text("It does not fit on one H100.")]
    with ScriptedLLMServer(script) as server:
        answer = _assistant(tmp_path, server).ask("Does Llama 3.3 70B fit on one H100?")
        assert server.remaining == 0
    assert answer.reading.reader == "rules"
    assert answer.mode in ("llm", "offline")
    assert not any(a.outcome == "read" for a in answer.attempts)


def test_reader_down_answers_offline_at_once(tmp_path: Path) -> None:
    with ScriptedLLMServer([status(500), status(500)]) as server:
        answer = _assistant(tmp_path, server).ask("Does Llama 3.3 70B fit on one H100?")
        calls = len(server.requests)
    assert calls == 1, "no free-answer call after the reader found the provider down"
    assert answer.mode == "offline" and answer.notice
    assert [a.outcome for a in answer.attempts] == ["unavailable"]
    assert answer.reading.reader == "rules"
    assert answer.answer.startswith("**No")


def test_function_calling_method(tmp_path: Path) -> None:
    with ScriptedLLMServer([tool_call("reading", READING)]) as server:
        assistant = _assistant(tmp_path, server, llm_reader_method="function_calling")
        answer = assistant.ask("Does Llama 3.3 70B fit on one H100?")
        request = server.requests[0]
    assert request["tool_choice"]["function"]["name"] == "reading"
    assert request["max_tokens"] == 800 and "max_completion_tokens" not in request
    assert answer.reading.reader == "llm" and answer.attempts[-1].outcome == "read"


def test_reader_off_makes_no_reader_call(tmp_path: Path) -> None:
    with ScriptedLLMServer([text("**No.** It does not fit on one H100 here.")]) as server:
        answer = _assistant(tmp_path, server, llm_reader=False).ask("Hello there, who are you?")
        assert "response_format" not in server.requests[0]
    assert not any(a.outcome == "read" for a in answer.attempts)


def test_euro_budget_and_users_apart(tmp_path: Path) -> None:
    reading = {
        "task": "serve",
        "asks": [{"kind": "cheapest"}],
        "model": "qwen2.5-72b",
        "precision": "FP8",
        "users": 80,
        "concurrent_sequences": 12,
        "budget": {"amount": 5000, "currency": "EUR"},
    }
    question = "80 Nutzer, 12 gleichzeitig, Qwen2.5 72B in FP8, höchstens 5.000 € im Monat?"
    with ScriptedLLMServer([text(json.dumps(reading))]) as server:
        answer = _assistant(tmp_path, server).ask(question)
    r = answer.reading
    assert (r.users, r.concurrent_sequences, r.precision) == (80, 12, "fp8")
    assert (r.budget_usd_per_month, r.budget_currency) == (5000, "EUR")
    assert r.intents == ["cheapest"]
    assert "€" in (answer.understood or "")
    assert all(float(p.usd_per_month) <= 5000 for p in answer.prices[:1])


def test_users_without_requests_at_once_are_sized_as_the_share_at_once(tmp_path: Path) -> None:
    """The reader keeps people apart from requests at once; with only people said, the planner
    sizes for the share of them generating at once, marked assumed, as the rule reading does
    (50 staff on an L4: 5 sequences at once of 8k, which the L4's 21.6 GB do not hold)."""
    from tools.load import concurrent_sequences, traffic_of

    reading = {
        "task": "serve",
        "asks": [{"kind": "fit", "claim": "fits"}],
        "model": "llama-3.1-8b",
        "users": 50,
        "cards": ["l4"],
        "count": 1,
    }
    question = "Llama 3.1 8B for our 50 staff: is one L4 enough?"
    with ScriptedLLMServer([text(json.dumps(reading))]) as server:
        answer = _assistant(tmp_path, server).ask(question)
    r = answer.reading
    assert (r.users, r.concurrent_sequences) == (50, concurrent_sequences(50)) == (50, 5)
    # 5 at once is a few parallel requests (fewer than 10): tools.load.traffic_of
    assert r.assumed == ["concurrent_sequences"]
    assert [w for w in r.workloads if w in ("traffic", "low_concurrency")] == [traffic_of(5)]
    assert traffic_of(5) == "low_concurrency"
    fit = next(c for c in answer.tool_calls if c.name == "fit_check")
    assert fit.arguments["concurrency"] == 5
    row = next(x for x in fit.result["rows"] if x["configuration"] == "1x-l4")
    assert row["verdict"] == "does_not_fit"
    assert answer.answer.lstrip("*").startswith("No"), answer.answer
    assert "5 at once (assumed) of 50 users" in (answer.understood or "")


def test_an_nvlink_yes_for_training_gives_the_training_reason(tmp_path: Path) -> None:
    """A training job's NVLink yes beside a memory ask says why for training (gradients every
    step), not the serving reason (data on every token)."""
    reading = {
        "task": "fine_tune",
        "asks": [{"kind": "memory"}, {"kind": "nvlink", "claim": "nvlink_needed"}],
        "model": "llama-3.1-8b",
        "workloads": ["fine_tuning"],
    }
    question = "Full fine-tuning of Llama 3.1 8B: how much memory, and is NVLink a must?"
    with ScriptedLLMServer([text(json.dumps(reading))]) as server:
        answer = _assistant(tmp_path, server).ask(question)
    advice = [c.result for c in answer.tool_calls if c.name == "purchase_advice"]
    assert advice and all(a["needs_nvlink"] for a in advice)
    assert "gradients on every training step" in answer.answer, answer.answer
    assert "every token" not in answer.answer


def test_a_context_ask_with_the_requests_at_once_leads_with_the_longest_context(
    tmp_path: Path,
) -> None:
    """The reader's one `context` ask (implied by the intent, so no stated ask) with the
    requests at once given: the planner leads with the longest context, not with sequences at
    the default 8k."""
    reading = {
        "task": "serve",
        "asks": [{"kind": "context"}],
        "model": "mistral-7b",
        "concurrent_sequences": 1,
        "cards": ["rtx-4090"],
        "count": 1,
    }
    question = "What's the biggest prompt Mistral 7B takes on one RTX 4090, one request at a time?"
    with ScriptedLLMServer([text(json.dumps(reading))]) as server:
        answer = _assistant(tmp_path, server).ask(question)
    cap = next(c for c in answer.tool_calls if c.name == "capacity_check").result
    first = answer.answer.split("\n")[0]
    assert f"{cap['max_context_capped']:,}" in first, first
    assert "concurrent sequences of" not in first


def test_planner_covers() -> None:
    from assistant.reading.llm import ReaderResult, planner_covers
    from assistant.reading.model import Reading

    sized = Reading(model="llama-3.3-70b", task="serve", reader="llm")
    assert planner_covers(ReaderResult(sized, ["fit", "price"]))
    assert planner_covers(ReaderResult(sized, ["nvlink"]))
    assert not planner_covers(ReaderResult(sized, ["fit", "explain"]))
    assert not planner_covers(ReaderResult(sized.model_copy(update={"unread": ["x"]}), ["fit"]))
    assert not planner_covers(ReaderResult(sized.model_copy(update={"task": "diagnose"}), ["fit"]))
    assert not planner_covers(ReaderResult(Reading(task="serve"), ["fit"])), "nothing to size"
    assert not planner_covers(ReaderResult(None, ["fit"]))
    # a load without a model: the planner sizes a starting point for a price or cheapest ask
    load = Reading(task="serve", reader="llm", users=120)
    assert planner_covers(ReaderResult(load, ["price"]))
    assert planner_covers(ReaderResult(Reading(task="serve", concurrent_sequences=8), ["cheapest"]))
    assert not planner_covers(ReaderResult(load, ["fit"])), "a fit of no model"
    assert not planner_covers(ReaderResult(load, ["price", "nvlink"]))
    assert not planner_covers(ReaderResult(Reading(task="serve", users=1), ["price"])), "no load"


def test_a_load_without_a_model_is_priced_at_the_rules_starting_point(tmp_path: Path) -> None:
    """The LLM reading of '150 staff, no model yet, what would it cost' goes to the planner,
    which sizes the same starting point as for the rule reading, at the same prices (before
    issue 25's relay run over blind-11: a free answer sizing models of its own choosing)."""
    from assistant.deps import build_deps
    from assistant.service import Assistant
    from assistant.settings import Settings
    from tools.load import concurrent_sequences

    question = "We have 150 staff and want a private chat assistant, no model picked yet. Cost?"
    reading = {"task": "serve", "asks": [{"kind": "price"}], "users": 150}
    with ScriptedLLMServer([text(json.dumps(reading))]) as server:
        answer = _assistant(tmp_path / "llm", server).ask(question)
        assert server.remaining == 0, "no free-answer call: the planner answers"
    r = answer.reading
    assert r.reader == "llm" and answer.attempts[-1].outcome == "read"
    assert r.concurrent_sequences == concurrent_sequences(150) > 1
    assert "concurrent_sequences" in r.assumed
    offline = Assistant(build_deps(Settings(data_dir=tmp_path / "rules"))).ask(question)
    assert offline.reading.concurrent_sequences == r.concurrent_sequences
    assert offline.reading.workloads == r.workloads  # 15 at once: the same load either way
    assert [p.configuration for p in answer.prices] == [p.configuration for p in offline.prices]
    assert answer.prices and answer.prices[0].usd_per_month == offline.prices[0].usd_per_month


def test_said_requests_at_once_are_kept(deps: Any) -> None:
    from assistant.reading.llm import LLMReading, to_reading
    from assistant.reading.model import Reading

    out = LLMReading.model_validate(
        {"task": "serve", "asks": [{"kind": "price"}], "users": 150, "concurrent_sequences": 30,
         "workloads": ["low_concurrency"]}
    )  # fmt: skip
    r, _ = to_reading(out, Reading(), deps.catalog)
    assert (r.concurrent_sequences, r.assumed) == (30, [])
    out = out.model_copy(update={"concurrent_sequences": None})
    r, _ = to_reading(out, Reading(), deps.catalog)
    assert "concurrent_sequences" in r.assumed and "traffic" not in r.workloads, "said low"


@pytest.mark.parametrize(
    "ask",
    [
        {"kind": "nvlink", "claim": "pcie_enough"},
        {"kind": "nvlink", "claim": "nvlink_needed", "negated": True},
    ],
    ids=["pcie_enough", "nvlink_needed-negated"],
)
def test_is_pcie_enough_is_answered_no_however_the_reader_fills_it(
    tmp_path: Path, ask: dict[str, Any]
) -> None:
    """'Is PCIe enough?' read as pcie_enough, or as nvlink_needed asked the other way round
    (the schema's old wording suggested it): either way the planner's first word is No for a
    70B BF16 model under traffic on 4x H100 PCIe (rule 4: rent SXM). Before issue 25's relay
    run the negated reading led with 'Yes — … rent an SXM node'."""
    question = "Is PCIe enough for Llama 3.3 70B in BF16 on 4x H100 PCIe for a busy public chat?"
    reading = {
        "task": "serve",
        "asks": [ask],
        "model": "llama-3.3-70b",
        "precision": "bf16",
        "configurations": ["4x-h100-pcie"],
        "workloads": ["traffic"],
    }
    with ScriptedLLMServer([text(json.dumps(reading))]) as server:
        answer = _assistant(tmp_path, server).ask(question)
    assert (answer.reading.claim, answer.reading.claim_negated) == ("pcie_enough", False)
    assert answer.attempts[-1].outcome == "read"
    assert answer.answer.lstrip("*").startswith("No"), answer.answer
    advice = next(c for c in answer.tool_calls if c.name == "purchase_advice")
    assert advice.result["rule"]["number"] == 4


def test_a_negated_fit_claim_is_too_small(deps: Any) -> None:
    from assistant.reading.llm import LLMReading, to_reading
    from assistant.reading.model import Reading

    out = LLMReading.model_validate(
        {"task": "serve", "asks": [{"kind": "fit", "claim": "fits", "negated": True}],
         "model": "qwen3-32b", "cards": ["rtx-5090"], "count": 1}
    )  # fmt: skip
    r, _ = to_reading(out, Reading(), deps.catalog)
    assert (r.claim, r.claim_negated, r.yes_no) == ("too_small", False, True)
    out = out.model_copy(update={"asks": [out.asks[0].model_copy(update={"claim": "faster"})]})
    r, _ = to_reading(out, Reading(), deps.catalog)
    assert (r.claim, r.claim_negated) == ("faster", True), "no converse: kept negated"


def test_a_speed_threshold_from_the_llm_reader_is_answered_from_the_tokens_per_second(
    tmp_path: Path,
) -> None:
    """'Does Llama 3.1 8B in FP8 on one H100 PCIe do at least 50 tokens/s?' filled by the LLM
    reader with min_tokens_per_s: the planner's first word follows throughput_estimate."""
    reading = {
        "task": "serve",
        "asks": [{"kind": "speed", "claim": "faster"}],
        "model": "llama-3.1-8b",
        "precision": "fp8",
        "configurations": ["1x-h100-pcie"],
        "min_tokens_per_s": 50,
    }
    question = "Does Llama 3.1 8B in FP8 on one H100 PCIe do at least 50 tokens/s?"
    with ScriptedLLMServer([text(json.dumps(reading))]) as server:
        answer = _assistant(tmp_path, server).ask(question)
    assert answer.reading.min_tokens_per_s == 50
    tps = next(c for c in answer.tool_calls if c.name == "throughput_estimate").result
    first = answer.answer.lstrip("*").split()[0].strip(".,—*")
    assert first == ("Yes" if tps["tokens_per_s"] > 50 else "No"), answer.answer


def test_reader_prompt_lists_the_catalog_ids(deps: Any) -> None:
    from assistant.reading.llm import SCHEMA, reader_prompt

    prompt = reader_prompt(deps.catalog)
    assert all(m in prompt for m in deps.catalog.models)
    assert all(c in prompt for c in deps.catalog.configurations)
    fields = set(SCHEMA["properties"])
    assert {"task", "asks", "model", "users", "concurrent_sequences", "refers_to"} <= fields
    assert not re.search(r"answer|prose", ",".join(fields))


def _planned(tmp_path: Path, question: str, reading: dict[str, Any]) -> Any:
    with ScriptedLLMServer([text(json.dumps(reading))]) as server:
        answer = _assistant(tmp_path, server).ask(question)
    assert answer.attempts[-1].outcome == "read", answer.attempts
    return answer


def test_a_single_ask_the_lead_does_not_make_is_answered(tmp_path: Path) -> None:
    """An NVLink yes/no with a price ask: the price is not implied by the NVLink flow, so the
    node named is priced after the lead (it was dropped as implied, and the answer priced
    only the one card the model fits on)."""
    reading = {
        "task": "images_video",
        "asks": [{"kind": "nvlink", "claim": "nvlink_needed"}, {"kind": "price"}],
        "model": "sdxl",
        "configurations": ["4x-l40s"],
        "workloads": ["diffusion", "independent"],
    }
    question = "SDXL on 4x L40S, one job per card: must we have NVLink? And that box's price?"
    answer = _planned(tmp_path, question, reading)
    assert [a.kind for a in answer.reading.asks] == ["price"]
    assert answer.reading.asks[0].at == 0, "stated, not implied"
    assert answer.answer.startswith("**No")
    assert "price_quote" in [c.name for c in answer.tool_calls]
    assert "4x-l40s" in [p.configuration for p in answer.prices]
    assert "$2,705/month" in answer.answer
    # a single ask its lead makes stays implied: a price question is answered by the price flow
    priced = {"task": "price", "asks": [{"kind": "price"}], "configurations": ["4x-l40s"]}
    assert _planned(tmp_path / "p", "Price of 4x L40S?", priced).reading.asks[0].at == -2


def test_configurations_compared_without_a_model_compare_prices(tmp_path: Path) -> None:
    """'compare' with two configurations and no model compares their prices (the difference),
    not the cheapest node of the catalog with a question back for a model."""
    reading = {
        "task": "compare",
        "asks": [{"kind": "compare"}, {"kind": "price"}],
        "configurations": ["2x-h100-pcie", "4x-l40s"],
    }
    answer = _planned(tmp_path, "Compare the prices of 2x H100 PCIe and 4x L40S.", reading)
    assert answer.reading.intents == ["price"]
    assert [c.name for c in answer.tool_calls][:1] == ["price_quote"]
    assert [p.configuration for p in answer.prices] == ["2x-h100-pcie", "4x-l40s"]
    assert "$443 more per month" in answer.answer
    sized = {**reading, "model": "llama-3.3-70b", "precision": "fp8"}
    answer = _planned(tmp_path / "m", "Compare them for Llama 3.3 70B in FP8.", sized)
    assert answer.reading.intents[0] == "cheapest", "with a model: the nodes compared for it"


def test_the_llm_reader_states_a_one_card_pick_and_a_large_difference(tmp_path: Path) -> None:
    """The reader schema holds the one-card pick and "much faster?": the planner picks among
    one-card nodes and needs a quarter's difference for a yes."""
    one = {
        "task": "serve",
        "asks": [{"kind": "cheapest"}],
        "model": "qwen3-30b-a3b",
        "precision": "bf16",
        "one_card": True,
    }
    much = {
        "task": "compare",
        "asks": [{"kind": "speed", "claim": "faster"}],
        "model": "deepseek-r1-distill-qwen-32b",
        "configurations": ["1x-h100-pcie", "1x-a100-pcie"],
        "by_much": True,
    }
    with ScriptedLLMServer([text(json.dumps(one)), text(json.dumps(much))]) as server:
        assistant = _assistant(tmp_path, server)
        a = assistant.ask("cheapest box for qwen3 30b a3b in bf16, only one card please")
        b = assistant.ask("is the h100 pcie much faster than the a100 pcie for r1 distill 32b?")
    assert a.reading.reader == "llm" and a.reading.one_card
    (pick,) = [c.result for c in a.tool_calls if c.name == "cheapest_fit"]
    assert pick["cheapest"][0]["verdict"] == "fits_one_card"
    assert b.reading.reader == "llm" and b.reading.claim_by_much
    speeds = [c.result["tokens_per_s"] for c in b.tool_calls if c.name == "throughput_estimate"]
    assert len(speeds) == 2 and speeds[0] < 1.25 * speeds[1]
    assert b.answer.lstrip("*").lower().startswith("no")
