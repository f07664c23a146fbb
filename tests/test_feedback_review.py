"""The review loop (issue 17): rated answers, draft eval cases, content gaps — over a store with a
few hundred turns recorded through the real assistant (offline)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from assistant.answer import Answer
from assistant.sessions import SessionStore, Slots
from assistant.settings import Settings

SIZING = str(Path(sys.executable).parent / "sizing")


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


# --------------------------------------------------------------------------- a recorded store


QUESTIONS = [
    ("What will 4 x A100 SXM4 cost?", "up"),
    ("Was kostet 4x A100 PCIe?", "up"),
    ("Does Llama 3.3 70B fit on 4x A100 SXM4?", "up"),
    ("Do I need NVLink for Llama 3.3 70B with real traffic?", "down"),
    ("Passt Llama 3.1 8B auf eine L4?", None),
    ("How fast is Llama 3.3 70B on 4x H100 SXM5?", "down"),
    # content gaps
    ("Does Falcon-9000 Ultra fit on one H100?", "down"),  # unknown model
    ("Passt Falcon-9000 Mega auf eine H100?", None),  # unknown model
    ("What's the weather in Berlin?", "down"),  # off-topic
    ("What's the weather in Munich today?", None),  # off-topic
    ("Which GPU should I take?", "down"),  # a clarifying question back
    ("Welche GPU soll ich nehmen?", None),
]
REPEAT = 25  # 12 questions x 25 sessions + follow-ups + fallbacks: a few hundred turns


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A data folder with a few hundred turns answered by the real assistant (offline), votes
    from three surfaces, follow-ups, and LLM fallbacks as the LLM path stores them."""
    from assistant.llm_answer import NOTICES
    from assistant.service import Assistant
    from evals.runner import RunOptions, prepare_deps
    from store.feedback import FeedbackStore

    tmp = tmp_path_factory.mktemp("review")
    data = tmp / "data"
    settings = Settings(data_dir=data)
    deps = prepare_deps(settings, RunOptions(), tmp)
    assistant = Assistant(deps)
    votes = FeedbackStore.from_settings(deps.settings)
    surfaces = ["web", "slack", "api"]
    counts = {"turns": 0, "down": 0, "up": 0, "fallback": 0}
    for i in range(REPEAT):
        for j, (q, rating) in enumerate(QUESTIONS):
            a = assistant.ask(q)
            counts["turns"] += 1
            if rating and (i + j) % 3 == 0:
                votes.record(a.session_id, a.message_id, rating, f"c{i}", surfaces[i % 3])
                counts[rating] += 1
        assistant.ask("and in FP8?", session_id=a.session_id)  # after a German clarify
        first = assistant.ask("Does Llama 3.3 70B fit on 4x A100 SXM4?")
        second = assistant.ask("und auf 8x H200?", session_id=first.session_id)
        votes.record(  # a 👎 with its reasons (issue 26)
            second.session_id,
            second.message_id,
            "down",
            "wrong node?",
            "web",
            reasons=["wrong", "missed_question"],
        )
        counts["down"] += 1
        counts["turns"] += 3
        if (
            i % 5 == 0
        ):  # an LLM answer that fell back to the offline one, stored as the LLM path does
            off = assistant.ask("Does Mistral Small 24B fit on one L40S?")
            fb = off.model_copy(
                update={"notice": NOTICES["unavailable"]["en"], "message_id": f"fb{i}"}
            )
            deps.sessions.save_turn(off.session_id, fb, Slots())
            counts["turns"] += 1
            counts["fallback"] += 1
    return {"data": data, "settings": deps.settings, "deps": deps, "counts": counts}


def test_rated_answers_filters(recorded: dict[str, Any]) -> None:
    from assistant.review import ReviewFilter, rated_answers
    from store.feedback import FeedbackStore

    c = recorded["counts"]
    assert c["turns"] >= 300
    fb = FeedbackStore.from_settings(recorded["settings"])
    sessions = recorded["deps"].sessions
    downs = rated_answers(fb, sessions, ReviewFilter(rating=-1, limit=10_000))
    ups = rated_answers(fb, sessions, ReviewFilter(rating=1, limit=10_000))
    assert len(downs) == c["down"] and len(ups) == c["up"] and c["up"] > 10
    assert all(r.rating == -1 and r.answer and r.mode == "offline" for r in downs)
    assert any(r.citations for r in ups) and all(r.question for r in downs)
    follow = [r for r in downs if r.question == "und auf 8x H200?"]
    assert follow and follow[0].conversation == ["Does Llama 3.3 70B fit on 4x A100 SXM4?"]
    de = rated_answers(fb, sessions, ReviewFilter(language="de", limit=10_000))
    assert de and all(r.language == "de" for r in de)
    slack = rated_answers(fb, sessions, ReviewFilter(surface="slack", limit=10_000))
    assert slack and all(r.surface == "slack" for r in slack)
    today = downs[0].rated_at[:10]
    assert len(rated_answers(fb, sessions, ReviewFilter(since=today, limit=10_000))) == len(
        downs
    ) + len(ups)
    assert rated_answers(fb, sessions, ReviewFilter(until="2000-01-01")) == []
    assert len(rated_answers(fb, sessions, ReviewFilter(limit=5))) == 5


def _sizing(data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SIZING_DATA_DIR": str(data)}
    return subprocess.run([SIZING, *args], capture_output=True, text=True, env=env, timeout=240)


def test_cli_list_and_export_loads_as_a_dataset(recorded: dict[str, Any], tmp_path: Path) -> None:
    from evals.schema import load_dataset

    data = recorded["data"]
    out = _sizing(data, "feedback", "list", "--rating", "down", "--json", "--limit", "1000")
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    assert len(rows) == recorded["counts"]["down"]
    assert {"question", "answer", "mode", "citations", "violations", "notice", "rating"} <= set(
        rows[0]
    )
    text = _sizing(data, "feedback", "list", "--surface", "slack", "--lang", "en")
    assert (text.returncode == 0 and "👎" in text.stdout) or "👍" in text.stdout
    bad = _sizing(data, "feedback", "list", "--rating", "meh")
    assert bad.returncode == 2 and "rating" in bad.stderr
    target = tmp_path / "from-feedback.yaml"
    exp = _sizing(data, "feedback", "export", "--to", str(target), "--limit", "1000")
    assert exp.returncode == 0, exp.stderr
    ds = load_dataset(target)
    assert len(ds.cases) == recorded["counts"]["down"]
    assert all("from-feedback" in c.tags and "rated-down" in c.tags for c in ds.cases)
    why = [r for r in rows if r["question"] == "und auf 8x H200?"]
    assert why and all(r["reasons"] == ["wrong", "missed_question"] for r in why)
    assert all(r["reasons"] == [] for r in rows if r["question"] != "und auf 8x H200?")
    shown = _sizing(data, "feedback", "list", "--rating", "down", "--limit", "5")
    assert "why: wrong, missed_question" in shown.stdout
    conv = [c for c in ds.cases if c.conversation]
    assert conv and conv[0].conversation[-1].question == "und auf 8x H200?"
    assert "the rated answer said" in target.read_text(encoding="utf-8")
    # the draft runs as an eval dataset (grounding and language are checked even before expect)
    run = _sizing(data, "eval", str(target), "--case", ds.cases[0].id, "--json")
    assert run.returncode in (0, 1) and json.loads(run.stdout)["counts"]["cases"] == 1


def test_content_gaps_grouped_with_counts(recorded: dict[str, Any]) -> None:
    out = _sizing(recorded["data"], "feedback", "gaps", "--json", "--limit", "100")
    assert out.returncode == 0, out.stderr
    groups = json.loads(out.stdout)
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for g in groups:
        by_kind.setdefault(g["kind"], []).append(g)
    assert {"clarify", "unknown_model", "off_topic", "llm_fallback", "no_citation"} <= set(by_kind)
    assert sum(g["count"] for g in by_kind["llm_fallback"]) == recorded["counts"]["fallback"]
    weather = [g for g in by_kind["off_topic"] if "weather" in g["example"]]
    assert len(weather) == 1 and weather[0]["count"] == 2 * REPEAT  # Berlin + Munich, one group
    unknown = sum(g["count"] for g in by_kind["unknown_model"])
    assert unknown >= 2 * REPEAT
    assert groups == sorted(groups, key=lambda g: -g["count"])
    table = _sizing(recorded["data"], "feedback", "gaps", "--kind", "off_topic")
    assert table.returncode == 0 and "weather" in table.stdout
    # 👎 votes feed the report by the reason they gave (issue 26), with what they wrote
    for kind in ("rated_wrong", "rated_missed"):
        rated = [g for g in by_kind[kind] if g["example"] == "und auf 8x H200?"]
        assert rated and rated[0]["count"] == REPEAT and rated[0]["comments"] == ["wrong node?"]
    assert "rated_unclear" not in by_kind
    downs_without_reason = recorded["counts"]["down"] - REPEAT
    assert sum(g["count"] for g in by_kind["rated_down"]) == downs_without_reason


def test_api_feedback_route_needs_the_token(recorded: dict[str, Any]) -> None:
    import httpx

    from api.app import create_app
    from tests.server import LiveServer

    base = {"data_dir": recorded["data"], "rate_limit_per_minute": 0}
    with LiveServer(create_app(Settings(**base, feedback_api_token="s3cret"))) as server:
        url = server.url + "/api/feedback"
        assert httpx.get(url).status_code == 401
        assert httpx.get(url, headers={"Authorization": "Bearer wrong"}).status_code == 401
        ok = httpx.get(
            url,
            params={"rating": "down", "limit": 1000},
            headers={"Authorization": "Bearer s3cret"},
        )
        assert ok.status_code == 200
        rows = ok.json()
        assert len(rows) == recorded["counts"]["down"] and rows[0]["rating"] == -1
        de = httpx.get(url, params={"language": "de"}, headers={"Authorization": "Bearer s3cret"})
        assert all(r["language"] == "de" for r in de.json())
    with LiveServer(create_app(Settings(**base))) as server:
        assert httpx.get(server.url + "/api/feedback").status_code == 404
