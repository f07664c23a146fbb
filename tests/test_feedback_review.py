"""The review loop (issue 17): rated answers, draft eval cases, content gaps — over a store with a
few hundred turns recorded through the real assistant (offline)."""

from __future__ import annotations

from pathlib import Path

from assistant.answer import Answer
from assistant.sessions import SessionStore, Slots


def _answer(i: int) -> Answer:
    return Answer(
        question=f"q{i}",
        language="en",
        answer="a",
        mode="offline",
        session_id="s",
        message_id=f"m{i}",
    )


def test_recent_answers_newest_first(tmp_path: Path) -> None:
    store = SessionStore.in_data_dir(tmp_path)
    for i in range(5):
        assert store.save_turn("s", _answer(i), Slots())
    got = store.recent_answers(limit=3)
    assert [a.message_id for _, a in got] == ["m4", "m3", "m2"]
    assert got[0][0] >= got[-1][0] > 0
    assert len(store.recent_answers(since=got[0][0] + 3600)) == 0
