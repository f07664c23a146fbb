"""The answer path's caches (issue 15) change no result: a repeated tool call is the recorded
call of the same catalog, a repeated question is read afresh for each caller, the grounding
check of a text seen before still judges it against this answer's facts, and a compactly
stored turn reads back as the answer it was (older plain-JSON rows too)."""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path

import pytest

from assistant.answer import Answer, Citation, ToolCall
from assistant.deps import Deps, build_deps
from assistant.grounding import GroundingFacts, catalog_prices, check_answer, facts_of
from assistant.registry import ToolError, call_tool
from assistant.sessions import SessionStore, Slots
from assistant.settings import Settings
from knowledge.catalog import load_catalog


@pytest.fixture(scope="module")
def deps(tmp_path_factory: pytest.TempPathFactory) -> Deps:
    return build_deps(Settings(data_dir=tmp_path_factory.mktemp("caches")))


def test_a_repeated_tool_call_is_the_recorded_call_of_that_catalog(deps: Deps) -> None:
    first = call_tool(deps, "fit_check", {"model": "Llama 3.3 70B", "precision": "bf16"})
    again = call_tool(deps, "fit_check", {"precision": "bf16", "model": "Llama 3.3 70B"})
    assert again is first
    other = call_tool(deps, "fit_check", {"model": "Llama 3.3 70B", "precision": "fp8"})
    assert other is not first and other.result != first.result
    reloaded = dataclasses.replace(deps, catalog=load_catalog(deps.settings.catalog))
    fresh = call_tool(reloaded, "fit_check", {"model": "Llama 3.3 70B", "precision": "bf16"})
    assert fresh is not first and fresh.result == first.result
    for _ in range(2):  # a failing call fails every time
        with pytest.raises(ToolError, match="invalid arguments"):
            call_tool(deps, "fit_check", {"model": "Llama 3.3 70B", "nonsense": 1})


def test_each_caller_gets_its_own_reading_of_a_repeated_question(deps: Deps) -> None:
    from assistant.nlu import Understander

    nlu = Understander(deps.catalog)
    question = "Do I need NVLink for Llama 3.3 70B in BF16 on four cards for real traffic?"
    first = nlu.understand(question)
    first.workloads.append("training")
    first.language = "de"
    again = nlu.understand(question)
    assert again == Understander(deps.catalog).understand(question)
    assert "training" not in again.workloads and again.language == "en"
    assert nlu.understand(question, language="de").language == "de"


def _answer(text: str, calls: list[ToolCall]) -> Answer:
    return Answer(
        question="How much memory?",
        language="en",
        answer=text,
        mode="offline",
        tool_calls=calls,
        session_id="s",
        message_id="m",
    )


def test_a_text_seen_before_is_judged_against_this_answers_facts(deps: Deps) -> None:
    prices = catalog_prices(deps.catalog)
    text = "The weights need 141.1 GB in BF16."
    grounded = _answer(text, [ToolCall(name="memory_need", arguments={}, result={"gb": 141.1})])
    made_up = _answer(text, [ToolCall(name="memory_need", arguments={}, result={"gb": 16.0})])
    for _ in range(2):
        assert check_answer(grounded, prices) == []
        assert [v.kind for v in check_answer(made_up, prices)] == ["number"]
    assert facts_of(grounded).numbers != facts_of(made_up).numbers


def test_a_compact_turn_reads_back_as_the_answer_it_was(tmp_path: Path, deps: Deps) -> None:
    call = call_tool(deps, "fit_check", {"model": "Llama 3.3 70B", "precision": "bf16"})
    answer = _answer("It fits on 2x H100 [1].", [call]).model_copy(
        update={
            "citations": [
                Citation(n=1, guide="g", title="T", section="S", url="https://x/#a", quote="Q")
            ],
            "session_id": "other",  # an answer saved under another session id keeps its own
        }
    )
    store = SessionStore.in_data_dir(tmp_path)
    store.save_turn("s", answer, Slots(model="llama-3.3-70b"), facts=facts_of(answer))
    with sqlite3.connect(tmp_path / "sessions.sqlite3") as con:
        stored, facts, slots = con.execute(
            "SELECT answer_json, facts, slots FROM sessions JOIN turns ON turns.session_id = id"
        ).fetchone()
    assert stored.startswith("z1:") and facts.startswith("z1:")
    assert len(stored) + len(facts) < len(answer.model_dump_json()) / 3
    assert slots == '{"model":"llama-3.3-70b"}'
    without_results = [call.model_copy(update={"result": None})]
    assert store.answer("m") == answer.model_copy(update={"tool_calls": without_results})
    session = store.get("s")
    assert session is not None and session.turns[0].facts == facts_of(answer)
    assert session.slots == Slots(model="llama-3.3-70b")


def test_turns_stored_as_plain_json_are_still_read(tmp_path: Path) -> None:
    store = SessionStore.in_data_dir(tmp_path)
    old = _answer("An older answer.", [ToolCall(name="fit_check", arguments={"model": "x"})])
    facts = GroundingFacts(numbers=[1.0, 2.5])
    with store.db.transaction() as tx:
        tx.execute(
            "INSERT INTO sessions (id, created_at, updated_at, language, slots) "
            "VALUES ('s', 1, 1, 'en', ?)",
            (Slots(count=4).model_dump_json(),),
        )
        tx.execute(
            "INSERT INTO turns (session_id, message_id, created_at, question, answer, language, "
            "mode, answer_json, facts) VALUES ('s', 'm', 1, ?, ?, 'en', 'offline', ?, ?)",
            (old.question, old.answer, old.model_dump_json(), facts.model_dump_json()),
        )
    assert store.answer("m") == old
    session = store.get("s")
    assert session is not None and session.turns[0].facts == facts
    assert session.slots.count == 4


def test_a_reading_without_the_neighbours_is_not_kept(deps: Deps) -> None:
    from assistant.nlu import Understander
    from assistant.nlu.neighbours import Neighbours

    class Flaky(Neighbours):
        down = True

        def scores(self, question: str) -> tuple[tuple[str, float], ...]:
            if self.down:
                raise RuntimeError("embedder busy")
            return (("speed", 0.95), ("_best", 0.95))

    neighbours = Flaky()
    nlu = Understander(deps.catalog, neighbours)
    question = "Does Llama 3.1 8B fit on one L4?"
    assert nlu.understand(question).intent == "fit"  # the keyword intent
    neighbours.down = False
    assert nlu.understand(question).intent == "speed"  # the neighbours', once they answer
    neighbours.down = True
    assert nlu.understand(question).intent == "speed"  # a good reading is kept
