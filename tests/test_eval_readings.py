"""The layers measured apart (issue 23): gold readings on cases and turns, planner cases that give
a reading instead of a question, the comparison rules, and the reader/planner summary."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from evals.schema import Dataset, DatasetError, load_dataset


def _write(tmp_path: Path, cases: list[dict]) -> Path:
    p = tmp_path / "r.yaml"
    p.write_text(yaml.safe_dump({"name": "r", "cases": cases}), encoding="utf-8")
    return p


# --------------------------------------------------------------------------- format


def test_gold_reading_and_planner_cases_load(tmp_path: Path) -> None:
    ds = load_dataset(
        _write(
            tmp_path,
            [
                {
                    "id": "read-1",
                    "question": "Does Llama 3.3 70B fit on 4x A100 SXM4, and what does it cost?",
                    "language": "en",
                    "reading": {"model": "llama-3.3-70b", "asks": ["fit", "price"], "users": None},
                },
                {
                    "id": "plan-1",
                    "given_reading": {"model": "llama-3.3-70b", "asks": [{"kind": "fit"}]},
                    "language": "en",
                    "expect": {"verdict": "fits_one_card"},
                },
                {
                    "id": "conv-1",
                    "conversation": [
                        {"question": "Llama 3.3 70B on 4x A100?", "reading": {"count": 4}},
                        {"question": "and in FP8?"},
                    ],
                    "reading": {"precision": "fp8"},
                    "language": "en",
                },
            ],
        )
    )
    read, plan, conv = ds.cases
    assert read.turns()[0].reading == {
        "model": "llama-3.3-70b",
        "asks": ["fit", "price"],
        "users": None,
    }
    assert plan.planner and plan.turns()[0].question is None
    assert plan.turns()[0].given_reading == {"model": "llama-3.3-70b", "asks": [{"kind": "fit"}]}
    assert [t.reading for t in conv.turns()] == [{"count": 4}, {"precision": "fp8"}]


@pytest.mark.parametrize(
    ("case", "message"),
    [
        (
            {"id": "bad-field", "question": "q", "language": "en", "reading": {"modell": "x"}},
            r"case 'bad-field'\.reading: .*unknown reading field\(s\) 'modell'",
        ),
        (
            {
                "id": "bad-turn",
                "conversation": [{"question": "a", "reading": {"userz": 3}}, {"question": "b"}],
                "language": "en",
            },
            r"case 'bad-turn'\.conversation\.0\.reading: .*'userz'",
        ),
        (
            {"id": "bad-ask", "question": "q", "language": "en", "reading": {"asks": ["cost"]}},
            r"case 'bad-ask'\.reading: .*reading\.asks\.0\.kind",
        ),
        (
            {"id": "bad-value", "question": "q", "language": "en", "reading": {"users": "many"}},
            r"case 'bad-value'\.reading: .*reading\.users",
        ),
        (
            {"id": "bad-given", "given_reading": {"budget": 5}, "language": "en"},
            r"case 'bad-given'\.given_reading: .*given_reading\.budget",
        ),
        (
            {"id": "both", "question": "q", "given_reading": {}, "language": "en"},
            r"case 'both': .*one of",
        ),
        (
            {"id": "gold-on-given", "given_reading": {}, "reading": {"users": 3}, "language": "en"},
            r"scored on a question",
        ),
    ],
)
def test_bad_readings_are_load_errors_naming_the_case(
    tmp_path: Path, case: dict, message: str
) -> None:
    with pytest.raises(DatasetError, match=message):
        load_dataset(_write(tmp_path, [case]))


def test_schema_lists_the_reading_fields() -> None:
    schema = Dataset.model_json_schema()
    case = schema["$defs"]["Case"]["properties"]
    assert {"reading", "given_reading"} <= set(case)
    assert {"reading", "given_reading"} <= set(schema["$defs"]["Turn"]["properties"])


# --------------------------------------------------------------------------- comparison rules


@pytest.mark.parametrize(
    ("field", "gold", "actual", "ok"),
    [
        ("budget_usd_per_month", 5000, 5040.0, True),  # floats within 1 %
        ("budget_usd_per_month", 5000, 5060.0, False),
        ("users", 80, 80, True),  # ints exactly
        ("users", 80, 81, False),
        ("context_tokens", 8000, 8192, True),  # "8k": 8,000 or 8,192 tokens
        ("context_tokens", 32000, 32768, True),
        ("context_tokens", 8000, 8400, False),
        ("exclude_cards", ["h100-sxm", "A100-PCIE"], ["a100-pcie", "h100-sxm"], True),  # sets
        ("exclude_cards", ["h100-sxm"], ["h100-sxm", "a100-pcie"], False),
        ("asks", ["fit", "price"], ["fit", "price"], True),  # ordered kinds
        ("asks", ["fit", "price"], ["price", "fit"], False),
        ("asks", [{"kind": "speed", "precision": "fp8"}], ["speed@fp8"], True),
        ("asks", [{"kind": "speed", "precision": "fp8"}], ["speed@bf16"], False),
        ("asks", ["speed"], ["speed@bf16"], True),  # precision only where the gold gives it
        ("one_node", True, True, True),  # booleans exactly
        ("one_node", False, None, False),
        ("model", "qwen2.5-72b", "Qwen2.5-72B", True),
        ("budget_usd_per_month", None, None, True),  # None: must be empty
        ("exclude_cards", None, [], True),
        ("exclude_cards", None, ["h100-sxm"], False),
        ("measured", {"busbw_gb_s": 22}, {"busbw_gb_s": 22.1, "topo_label": None}, True),
        ("absent_nodes", [[8, "l40s"]], [[8, "l40s"]], True),
    ],
)
def test_comparison_rules(field: str, gold: object, actual: object, ok: bool) -> None:
    from evals.reading_checks import field_matches

    assert field_matches(field, gold, actual) is ok


def test_check_reading_reads_the_answers_reading() -> None:
    from assistant.nlu.query import Ask
    from assistant.reading.model import Reading
    from evals.reading_checks import check_reading

    reading = Reading(
        model="qwen2.5-72b",
        users=12,
        asks=[Ask(kind="fit"), Ask(kind="price")],
        budget_usd_per_month=5000.0,
    )
    gold = {"model": "qwen2.5-72b", "users": 80, "asks": ["fit", "price"], "precision": None}
    got = {r.field: (r.ok, r.actual) for r in check_reading(gold, reading)}
    assert got == {
        "model": (True, "qwen2.5-72b"),
        "users": (False, 12),
        "asks": (True, ["fit", "price"]),
        "precision": (True, None),
    }
    # an answer without a reading: every field the gold wants filled is wrong
    assert [r.ok for r in check_reading(gold, None)] == [False, False, False, True]


def test_an_answer_without_a_reading_is_said_once() -> None:
    from rich.console import Console

    from cli.eval_cmds import _print_layers
    from evals.runner import summarise

    stub = _Stub()
    stub.read = None  # type: ignore[assignment]
    results = _run(
        stub,
        [{"id": "blind", "question": "q", "language": "en", "reading": {"model": "x", "users": 3}}],
    )
    assert results[0]["reader"]["no_reading"] == [1]
    console = Console(record=True, width=300)
    _print_layers(console, {**summarise(results), "cases": results})
    text = console.export_text()
    assert "blind turn 1: the answer carries no reading" in text and "≠" not in text


# --------------------------------------------------------------------------- runner and summary


class _Stub:
    """A stand-in assistant: `ask` reads every question as `read`, `answer_reading` records the
    reading it is given. Its answer says what the case expects only when `text` says it."""

    def __init__(
        self, read: dict | None = None, text: str = "It fits on one card, with room."
    ) -> None:
        from assistant.reading.model import Reading

        self.read = Reading.model_validate(read or {})
        self.text = text
        self.given: list = []
        self.asked: list[str] = []

    def _answer(self, question: str, reading: object, language: str = "en"):
        from assistant.answer import Answer

        return Answer(
            question=question,
            language=language,  # type: ignore[arg-type]
            answer=self.text,
            mode="offline",
            session_id="s1",
            message_id="m1",
            reading=reading,  # type: ignore[arg-type]
        )

    def ask(self, question: str, session_id: str | None = None):
        self.asked.append(question)
        return self._answer(question, self.read)

    def answer_reading(self, reading, session_id: str | None = None):
        self.given.append(reading)
        return self._answer(reading.text, reading, reading.language)


def _cases(cases: list[dict]) -> list:
    return Dataset.model_validate({"name": "r", "cases": cases}).cases


def _run(stub: _Stub, cases: list[dict]) -> list[dict]:
    from evals.runner import _run_case

    return [_run_case(stub, c, "r", {}) for c in _cases(cases)]


def test_a_wrong_gold_field_is_a_reader_failure_naming_the_field() -> None:
    stub = _Stub(read={"model": "llama-3.3-70b", "users": 12, "concurrent_sequences": None})
    [res] = _run(
        stub,
        [
            {
                "id": "read-load",
                "question": "Llama 3.3 70B for 80 users, 12 at once?",
                "language": "en",
                "reading": {"model": "llama-3.3-70b", "users": 80, "concurrent_sequences": 12},
                "expect": {"contains": ["12 at once"]},  # the stub's answer does not say it
            }
        ],
    )
    assert res["status"] == "fail" and res["layer"] == "reader"
    assert res["reader"]["right"] == 1 and res["reader"]["total"] == 3
    assert [(w["field"], w["gold"], w["actual"]) for w in res["reader"]["wrong"]] == [
        ("users", 80, 12),
        ("concurrent_sequences", 12, None),
    ]
    assert res["turns"][0]["reader"]["fields"] == {
        "model": True,
        "users": False,
        "concurrent_sequences": False,
    }
    assert res["turns"][0]["reading"]["users"] == 12  # what was read, for tracing


def test_a_right_reading_with_a_wrong_answer_is_the_planners() -> None:
    stub = _Stub(read={"model": "llama-3.3-70b"})
    [res] = _run(
        stub,
        [
            {
                "id": "read-ok-answer-wrong",
                "question": "Does Llama 3.3 70B fit?",
                "language": "en",
                "reading": {"model": "llama-3.3-70b"},
                "expect": {"contains": ["does not fit"]},
            }
        ],
    )
    assert res["status"] == "fail" and res["layer"] == "planner/renderer"
    assert res["reader"]["wrong"] == []


def test_a_planner_case_runs_without_a_question() -> None:
    stub = _Stub(text="Ja, es passt auf eine Karte, mit Platz für den Cache.")
    [res] = _run(
        stub,
        [
            {
                "id": "plan-de",
                "given_reading": {"model": "llama-3.3-70b", "asks": ["fit"], "cards": ["h200"]},
                "language": "de",
                "expect": {"contains": ["passt"]},
            }
        ],
    )
    assert stub.asked == []  # nothing parsed
    [given] = stub.given
    assert given.model == "llama-3.3-70b" and given.cards == ["h200"]
    assert [a.kind for a in given.asks] == ["fit"] and given.language == "de"  # the case's
    assert res["planner"] is True and res["status"] == "pass" and res["reader"] is None
    assert res["turns"][0]["question"] == "(given reading)"


def test_the_layer_summary_counts() -> None:
    from evals.runner import summarise

    stub = _Stub(read={"model": "llama-3.3-70b", "users": 12, "precision": "fp8"})
    results = _run(
        stub,
        [
            {  # 3 gold fields, 2 right (users wrong); end to end passes
                "id": "a",
                "question": "q1",
                "language": "en",
                "reading": {"model": "llama-3.3-70b", "users": 80, "precision": "fp8"},
            },
            {  # 2 gold fields, 1 right (model wrong); fails: reader
                "id": "b",
                "question": "q2",
                "language": "en",
                "reading": {"model": "qwen2.5-72b", "users": 12},
                "expect": {"contains": ["nope"]},
            },
            {  # conversation: turn 1 model right; turn 2 (the case's reading) users right
                "id": "c",
                "conversation": [
                    {"question": "q3", "reading": {"model": "llama-3.3-70b"}},
                    {"question": "q4"},
                ],
                "reading": {"users": 12},
                "language": "en",
            },
            {  # no gold reading, fails: not traceable
                "id": "d",
                "question": "q5",
                "language": "en",
                "expect": {"contains": ["nope"]},
            },
            {  # planner cases: one passes, one fails
                "id": "p1",
                "given_reading": {"model": "llama-3.3-70b"},
                "language": "en",
                "expect": {"contains": ["fits"]},
            },
            {
                "id": "p2",
                "given_reading": {"model": "llama-3.3-70b"},
                "language": "en",
                "expect": {"contains": ["split"]},
            },
        ],
    )
    summary = summarise(results)
    layers = summary["layers"]
    assert layers["reader"]["fields"] == {
        "model": {"right": 2, "total": 3, "accuracy": 0.6667},
        "precision": {"right": 1, "total": 1, "accuracy": 1.0},
        "users": {"right": 2, "total": 3, "accuracy": 0.6667},
    }
    assert (layers["reader"]["right"], layers["reader"]["total"]) == (5, 7)
    assert layers["reader"]["accuracy"] == 0.7143 and layers["reader"]["cases"] == 3
    assert layers["planner"] == {"right": 1, "total": 2, "accuracy": 0.5}
    assert layers["end_to_end"] == {"passed": 2, "total": 4, "pass_rate": 0.5}
    assert layers["attribution"] == {
        "reader": ["b"],
        "planner/renderer": ["p2"],
        "no gold reading": ["d"],
    }
    assert summary["metrics"]["reader_accuracy"] == 0.7143
    assert summary["metrics"]["planner_accuracy"] == 0.5

    # the terminal summary of `sizing eval` and report.html show the same numbers
    from rich.console import Console

    from cli.eval_cmds import _print_layers
    from evals.report import to_html

    console = Console(record=True, width=300)
    report = {**summary, "cases": results, "created": "x", "mode": "offline", "datasets": ["r"]}
    _print_layers(console, report)
    text = console.export_text()
    assert "reader 71.4 % (5/7) of gold fields in 3 cases" in text
    assert "planner 50.0 % (1/2)" in text and "end-to-end 50.0 % (2/4)" in text
    assert "reader, weakest fields: model 66.7 % (2/3) · users 66.7 % (2/3)" in text
    assert "every gold value right: precision" in text
    assert "reader a turn 1: users 80 ≠ read 12" in text
    assert "reader 1 (b)" in text and "planner/renderer 1 (p2)" in text
    html = to_html(report)
    assert "Layers: reader, planner, end to end" in html and "2/3" in html


# --------------------------------------------------------------------------- the real assistant

ROOT = Path(__file__).resolve().parent.parent


def test_planner_cases_of_the_training_set_run_through_answer_reading(assistant: object) -> None:
    """The shipped planner cases, answered by the real offline assistant from their readings
    alone; the same reading with a wrong verdict expected fails its verdict check."""
    from assistant.grounding import catalog_prices
    from evals.runner import _run_case

    ds = load_dataset(ROOT / "evals" / "datasets" / "readings.yaml")
    planner = [c for c in ds.cases if c.planner]
    assert len(planner) >= 10
    prices = catalog_prices(assistant.deps.catalog)  # type: ignore[attr-defined]
    by_id = {c.id: c for c in planner}
    case = by_id["plan-70b-fp8-1x-h100-pcie-no-fit-de"]
    res = _run_case(assistant, case, "readings", prices, assistant.deps)  # type: ignore[attr-defined]
    assert res["status"] == "pass", res["failures"]
    assert res["turns"][0]["answer_language"] == "de"
    wrong = case.model_copy(
        update={"expect": case.expect.model_copy(update={"verdict": "fits_one_card"})}
    )
    res = _run_case(assistant, wrong, "readings", prices, assistant.deps)  # type: ignore[attr-defined]
    assert res["status"] == "fail" and res["layer"] == "planner/renderer"
    assert any("[verdict]" in f for f in res["failures"])


def test_gold_readings_mode_answers_from_the_gold_laid_over_the_rule_reading(
    deps: object,
) -> None:
    """`sizing eval --gold-readings`: a question whose gold reading says FP8 (the words say
    nothing of it) is sized in FP8, and the fields the gold leaves out keep the rule reading."""
    from evals.gold import GoldReadingAssistant, overlay

    assistant = GoldReadingAssistant(deps)
    assistant.use_gold({"precision": "fp8", "asks": ["fit"]})
    a = assistant.ask("Does Llama 3.3 70B fit on 2x H100 PCIe?")
    assert (a.reading.precision, a.reading.model) == ("fp8", "llama-3.3-70b")
    fit = next(c for c in a.tool_calls if c.name == "fit_check")
    assert fit.arguments.get("precision") == "fp8"
    assistant.use_gold(None)
    plain = assistant.ask("Does Llama 3.3 70B fit on 2x H100 PCIe?")
    assert plain.reading.precision is None
    # a gold task the rule reader did not see re-derives the intents
    from assistant.reading.model import Reading

    r = overlay(Reading(task="serve", intents=["general"], model="qwen3-8b"), {"task": "price"})
    assert r.intents == [] and r.task == "price"
    # ... unless the gold gives its own (blind-17: `asks: [price]` with `intents: [cheapest]`)
    given = {"asks": ["price"], "intents": ["cheapest"]}
    r = overlay(Reading(task="serve", intents=["fit"], model="qwen3-8b"), given)
    assert r.intents == ["cheapest"]
    # `asks: null` (blind-22's NVLink and paste cases) empties the asks instead of crashing
    from assistant.reading.model import Ask

    asked = Reading(task="serve", intents=["nvlink", "fit"], asks=[Ask(kind="fit")])
    r = overlay(asked, {"asks": None, "intents": ["nvlink"]})
    assert r.asks == [] and r.intents == ["nvlink"]
