"""A 👎 says what was wrong (issue 26): reasons stored with the vote, cleared by a later 👍,
an unknown reason refused; an existing store gains the column by migration."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from store.feedback import FEEDBACK_FILE, FeedbackError, FeedbackStore


def test_reasons_are_stored_replaced_and_cleared(tmp_path: Path) -> None:
    store = FeedbackStore.open(tmp_path)
    row = store.record("s1", "m1", "down", reasons=["too-long", "unclear", "unclear"])
    assert row.reasons == ["too_long", "unclear"]
    again = store.record("s1", "m1", "down", "what about FP8?")  # the text box, sent later
    assert again.reasons == ["too_long", "unclear"] and again.comment == "what about FP8?"
    assert store.record("s1", "m1", "up").reasons == []  # a 👍 has no reasons
    assert store.record("s2", "m2", "up", reasons=["wrong"]).reasons == []
    with pytest.raises(FeedbackError, match="reason must be one of"):
        store.record("s1", "m1", "down", reasons=["boring"])
    assert [f.reasons for f in store.all()] == [[], []]


def test_a_store_written_before_reasons_gains_the_column(tmp_path: Path) -> None:
    path = tmp_path / FEEDBACK_FILE
    old = FeedbackStore(path)
    old.record("s0", "m0", "down", "kept")
    with sqlite3.connect(path) as db:  # as a version-2 store left it: no reasons column
        db.execute("ALTER TABLE feedback DROP COLUMN reasons")
        db.execute("DELETE FROM schema_migrations WHERE component = 'feedback' AND version = 3")
    store = FeedbackStore(path)
    assert store.get("s0", "m0").comment == "kept"  # type: ignore[union-attr]
    assert store.record("s0", "m0", "down", reasons=["missed_question"]).reasons == [
        "missed_question"
    ]
