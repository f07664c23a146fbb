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
