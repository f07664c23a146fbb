"""Sessions in SQLite: turns and slots survive a new store over the same file."""

from pathlib import Path

import pytest

from assistant.answer import Answer
from assistant.errors import InvalidRequest
from assistant.sessions import InvalidSessionId, SessionStore, Slots


def _answer(q: str, sid: str, mid: str) -> Answer:
    return Answer(
        question=q, language="de", answer=f"A: {q}", mode="offline", session_id=sid, message_id=mid
    )


def test_turns_and_slots_survive_a_restart(tmp_path: Path) -> None:
    store = SessionStore.in_data_dir(tmp_path)
    slots = Slots(model="llama-3.3-70b", precision="bf16", workloads=["traffic"], count=4)
    store.save_turn("s1", _answer("erste", "s1", "m1"), slots)
    store.save_turn("s1", _answer("zweite", "s1", "m2"), slots.model_copy(update={"count": 8}))
    again = SessionStore.in_data_dir(tmp_path)  # a new process over the same data folder
    session = again.get("s1")
    assert session is not None
    assert [t.question for t in session.turns] == ["erste", "zweite"]
    assert session.slots.model == "llama-3.3-70b" and session.slots.count == 8
    assert session.language == "de"
    assert (tmp_path / "sessions.sqlite3").exists()
    stored = again.answer("m2")
    assert stored is not None and stored.answer == "A: zweite"


def test_unknown_session_and_limits(tmp_path: Path) -> None:
    store = SessionStore.in_data_dir(tmp_path)
    assert store.get("nope") is None
    for i in range(5):
        store.save_turn("s", _answer(f"q{i}", "s", f"m{i}"), Slots())
    assert [t.question for t in store.get("s", max_turns=2).turns] == ["q3", "q4"]  # type: ignore[union-attr]
    assert store.delete("s") and store.get("s") is None


@pytest.mark.parametrize("bad", ["", "a b", "x" * 129, "../etc", "id;drop"])
def test_invalid_session_ids(tmp_path: Path, bad: str) -> None:
    store = SessionStore.in_data_dir(tmp_path)
    with pytest.raises(InvalidSessionId):
        store.get(bad)
    assert issubclass(InvalidSessionId, InvalidRequest)


def test_slack_style_ids_are_valid(tmp_path: Path) -> None:
    store = SessionStore.in_data_dir(tmp_path)
    store.save_turn("C123:1712345678.000100", _answer("q", "x", "m"), Slots())
    assert store.get("C123:1712345678.000100") is not None
