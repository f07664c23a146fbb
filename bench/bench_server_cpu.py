"""Server CPU per `POST /api/chat` answer against a trivial FastAPI endpoint (issue 15).

In one run: the real `sizing serve` (uvicorn, one worker, its own defaults: access log,
logging, rate limiter, metrics, every middleware) and a trivial FastAPI app (a POST with a
pydantic body returning 2 KB of JSON, under uvicorn with the same defaults) take the same
client load in alternating rounds; each server process's CPU time (utime + stime from
/proc/<pid>/stat, its threads included) is read before and after each round and divided by
the requests it answered. In each round the in-process answer CPU of the same questions
(`Assistant.ask` in this process, thread CPU, warm) is measured right after the servers, so the
overhead outside the answer is the server's CPU per request minus that (median of the rounds;
the box is shared, so a round's figures drift together). Targets: server CPU per answer <= 6x
the trivial endpoint, overhead outside the answer <= 0.5 ms.

With `--distinct` (issue 23) one more `sizing serve` takes questions it has never seen: every
request a new question from `bench/distinct_questions.py` (templates over the catalog's models,
configurations, user counts, contexts and budgets, German and English, a fixed seed), so no kept
answer, no cached search and no cached tool result serves it; its in-process answer CPU is
measured on another stream of the same generator. Kept answers serve only repeats: this row is
what an answer costs the server. Target (issue 23): <= 6x the trivial endpoint.

Also, without HTTP and without the noise of the answer: the app's own CPU per request (the real
app from create_app, its lifespan, middleware and dependencies, called as ASGI in this process
with the assistant's answers replayed), and the default response size over the eval questions.

    .venv/bin/python bench/bench_server_cpu.py                # 3 rounds x 4 s, 4 clients
    .venv/bin/python bench/bench_server_cpu.py --rounds 5 --seconds 6 --clients 8 --json
    .venv/bin/python bench/bench_server_cpu.py --distinct --no-variants   # issue 23's row
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_api import QUESTIONS, RawClient, ensure_index, free_port, wait_ready  # noqa: E402
from distinct_questions import DistinctQuestions  # noqa: E402
from pydantic import BaseModel  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
PAYLOAD_BYTES = 2048


class Question(BaseModel):
    message: str
    language: str | None = None


def trivial_app() -> Any:
    """`uvicorn --factory bench_server_cpu:trivial_app`: POST /api/chat -> 2 KB of JSON."""
    from fastapi import FastAPI

    app = FastAPI()
    filler = "x" * (PAYLOAD_BYTES - 60)

    @app.post("/api/chat")
    async def chat(body: Question) -> dict[str, Any]:
        return {"question": body.message, "language": body.language, "answer": filler}

    @app.get("/readyz")
    async def ready() -> dict[str, Any]:
        return {"status": "ok", "checks": {"index": {}}}

    return app


def replayed_app() -> Any:
    """The real app (`api.app:create_app`, every middleware, dependency and store) whose
    assistant replays each question's answer computed at start-up: the server's CPU per request
    outside the answer, measured directly (no answer, no session write)."""
    from contextlib import asynccontextmanager

    from api.app import create_app

    app = create_app()
    lifespan = app.router.lifespan_context

    @asynccontextmanager
    async def replaying(app_: Any) -> Any:
        async with lifespan(app_):
            assistant = app_.state.sizing.assistant
            answers = {q: assistant.ask(q, language=lang) for q, lang in QUESTIONS}
            assistant.ask = lambda q, **_: answers[q]
            yield

    app.router.lifespan_context = replaying
    return app


REPLAYED = "sizing app, answers replayed"


def start_replayed(data_dir: Path, port: int) -> subprocess.Popen[bytes]:
    """`replayed_app` served exactly as `sizing serve` serves the real one (its uvicorn options
    and logging), by running `sizing serve` with the app import pointed at it."""
    code = (
        "import sys; import cli.serve_cmds as s; "
        "s.APP_IMPORT = 'bench_server_cpu:replayed_app'; "
        "from cli import main; sys.argv = ['sizing', 'serve', '--port', sys.argv[1]]; main()"
    )
    env = _env(data_dir) | {"PYTHONPATH": f"{ROOT / 'bench'}{os.pathsep}{ROOT}"}
    out = subprocess.DEVNULL
    return subprocess.Popen(
        [sys.executable, "-c", code, str(port)], cwd=ROOT, env=env, stdout=out, stderr=out
    )


def _env(data_dir: Path) -> dict[str, str]:
    env = dict(os.environ)
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "SLACK_BOT_TOKEN", "SLACK_APP_TOKEN"):
        env.pop(var, None)
    env.update(
        SIZING_DATA_DIR=str(data_dir),
        # the limiter runs (its buckets, its store) but never refuses the bench's one client
        SIZING_RATE_LIMIT_PER_MINUTE="100000000",
        SIZING_RATE_LIMIT_BURST="100000000",
        SIZING_EMBED_BUDGET_S_PER_MINUTE="0",
        ANONYMIZED_TELEMETRY="False",
        HF_HUB_OFFLINE="1",
    )
    return env


def start_sizing(data_dir: Path, port: int, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """`sizing serve` exactly as a user starts it (its defaults: access log on, log level info),
    with the variant's settings."""
    sizing = Path(sys.executable).parent / "sizing"
    cmd = [str(sizing), "serve", "--port", str(port)]
    out = subprocess.DEVNULL
    full = _env(data_dir) | env
    return subprocess.Popen(cmd, cwd=ROOT, env=full, stdout=out, stderr=out)


def start_trivial(port: int) -> subprocess.Popen[bytes]:
    """The baseline under uvicorn's defaults (access log on, log level info), as `sizing serve`."""
    app_dir = str(ROOT / "bench")
    cmd = [sys.executable, "-m", "uvicorn", "bench_server_cpu:trivial_app", "--factory",
           "--app-dir", app_dir, "--host", "127.0.0.1", "--port", str(port)]  # fmt: skip
    out = subprocess.DEVNULL
    return subprocess.Popen(cmd, cwd=ROOT, env=dict(os.environ), stdout=out, stderr=out)


def cpu_seconds(pid: int) -> tuple[float, float]:
    """(utime, stime) of the process (all its threads) and of its children, in seconds."""
    user = system = 0.0
    for p in [pid, *_children(pid)]:
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        user, system = user + int(fields[11]) / TICK, system + int(fields[12]) / TICK
    return user, system


def _children(pid: int) -> list[int]:
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            out += [int(c) for c in task.read_text().split()]
        except OSError:
            continue
    return out + [g for c in out for g in _children(c)]


Questions = Callable[[int], tuple[str, str]]  # the n-th request's (question, language)


def repeated(n: int) -> tuple[str, str]:
    """The bench's few questions in rotation: after the first round, kept answers serve them."""
    return QUESTIONS[n % len(QUESTIONS)]


def distinct(seed: int) -> Questions:
    """A new question for every request (issue 23), from its own deterministic stream."""
    stream = DistinctQuestions(seed)
    return lambda _n: next(stream)


async def load(
    port: int, clients: int, seconds: float, questions: Questions = repeated
) -> tuple[int, int]:
    """`clients` keep-alive connections posting the questions; (answers, errors)."""
    done = [0, 0]
    stop = time.perf_counter() + seconds

    async def worker(i: int) -> None:
        client = RawClient("127.0.0.1", port)
        n = i
        while time.perf_counter() < stop:
            question, language = questions(n)
            n += 1
            body = json.dumps({"message": question, "language": language}).encode()
            status, content = await client.post("/api/chat", body, "application/json")
            ok = status == 200 and b'"answer":"' in content
            done[0 if ok else 1] += 1
        await client.close()

    await asyncio.gather(*(worker(i) for i in range(clients)))
    return done[0], done[1]


def measure(
    proc: subprocess.Popen[bytes],
    port: int,
    clients: int,
    seconds: float,
    questions: Questions = repeated,
) -> dict:
    user0, sys0 = cpu_seconds(proc.pid)
    answers, errors = asyncio.run(load(port, clients, seconds, questions))
    user1, sys1 = cpu_seconds(proc.pid)
    per = 1000 / max(answers, 1)
    return {"answers": answers, "errors": errors, "cpu_ms": (user1 - user0 + sys1 - sys0) * per,
            "sys_ms": (sys1 - sys0) * per}  # fmt: skip


def in_process_assistant(data_dir: Path, env: dict[str, str]) -> Any:
    """The same assistant `sizing serve` builds (its index opened at start), in this process,
    with the variant's settings, warmed on the questions."""
    from assistant.deps import build_deps
    from assistant.service import Assistant
    from assistant.settings import Settings

    overrides = {k.removeprefix("SIZING_").lower(): v for k, v in env.items()}
    deps = build_deps(Settings(data_dir=data_dir, **overrides))
    deps.warm()
    assistant = Assistant(deps)
    for q, lang in QUESTIONS:
        assistant.ask(q, language=lang)
    return assistant


def answer_cpu(assistant: Any, seconds: float, questions: Questions = repeated) -> float:
    """Thread CPU ms of Assistant.ask over the questions for `seconds` (a new session each, as
    the bench's requests)."""
    n, stop = 0, time.perf_counter() + seconds
    t0 = time.thread_time()
    while time.perf_counter() < stop:
        q, lang = questions(n)
        assistant.ask(q, language=lang)
        n += 1
    return (time.thread_time() - t0) * 1000 / n


def app_overhead(data_dir: Path, requests: int) -> float:
    """Process CPU ms per POST /api/chat through the real app's ASGI callable, the answers
    replayed (computed once per question): what the app spends outside the answer."""
    from api.app import create_app
    from assistant.settings import Settings

    settings = Settings(data_dir=data_dir, rate_limit_per_minute=1e8, rate_limit_burst=10**8)
    app = create_app(settings)
    bodies = [json.dumps({"message": q, "language": lang}).encode() for q, lang in QUESTIONS]

    async def run() -> float:
        async with app.router.lifespan_context(app):
            assistant = app.state.sizing.assistant
            answers = {q: assistant.ask(q, language=lang) for q, lang in QUESTIONS}
            assistant.ask = lambda q, **_: answers[q]
            for i in range(50):
                await _asgi_post(app, bodies[i % len(bodies)])
            t0 = time.process_time()
            for i in range(requests):
                await _asgi_post(app, bodies[i % len(bodies)])
            return (time.process_time() - t0) * 1000 / requests

    return asyncio.run(run())


async def _asgi_post(app: Any, body: bytes) -> None:
    length = str(len(body)).encode()
    headers = [(b"host", b"127.0.0.1"), (b"content-type", b"application/json"),
               (b"accept", b"application/json"), (b"content-length", length)]  # fmt: skip
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
             "scheme": "http", "path": "/api/chat", "raw_path": b"/api/chat", "query_string": b"",
             "root_path": "", "headers": headers, "client": ("127.0.0.1", 50000),
             "server": ("127.0.0.1", 8000), "state": {}}  # fmt: skip
    messages = [{"type": "http.request", "body": body, "more_body": False}]
    status: list[int] = []

    async def receive() -> dict[str, Any]:
        if messages:
            return messages.pop()
        await asyncio.sleep(3600)  # never: the app does not wait for a disconnect here
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            status.append(message["status"])

    await app(scope, receive, send)
    assert status == [200], status


def response_sizes(assistant: Any) -> dict[str, dict[str, float]]:
    """Bytes of the /api/chat answer over every turn of the eval datasets: as sent by default
    and with ?include=tool_calls&include=quotes (tests/test_response_size.py asserts <= 4 KB)."""
    from api.answer_json import answer_json
    from evals.schema import load_datasets

    datasets = load_datasets(sorted((ROOT / "evals" / "datasets").glob("*.yaml")))
    default: list[int] = []
    full: list[int] = []
    for case in (c for d in datasets for c in d.cases):
        session = None
        for turn in case.turns():
            if not isinstance(turn.question, str):  # a planner case: a reading, no question
                break
            answer = assistant.ask(turn.question, session_id=session, language=case.language)
            session = answer.session_id
            default.append(len(answer_json(answer).encode()))
            full.append(len(answer_json(answer, ("tool_calls", "quotes")).encode()))
    return {"default": _distribution(default), "everything": _distribution(full)}


def _distribution(sizes: list[int]) -> dict[str, float]:
    sizes = sorted(sizes)
    n = len(sizes)
    return {"answers": n, "mean": round(statistics.fmean(sizes)), "p50": sizes[n // 2],
            "p95": sizes[int(0.95 * (n - 1))], "max": sizes[-1]}  # fmt: skip


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


# `sizing serve` as shipped, and with one lever of issue 15 turned off (each against the same
# baseline in the same rounds): the environment each variant's server gets, and its in-process
# assistant's settings
VARIANTS: dict[str, dict[str, str]] = {
    "sizing serve": {},
    "  answers not kept (FIRST_TURN_CACHE=0)": {"SIZING_FIRST_TURN_CACHE": "0"},
    "  in threads (INLINE_ANSWERS=false)": {"SIZING_INLINE_ANSWERS": "false"},
}
# issue 23: `sizing serve` as shipped, every request a question it has not seen
DISTINCT = "sizing serve, distinct questions"
SERVER_SEED, IN_PROCESS_SEED = 1, 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=4.0, help="per server and round")
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--app-requests", type=int, default=3000, help="ASGI requests, replayed")
    parser.add_argument("--data-dir", type=Path, default=ROOT / ".data")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.add_argument(
        "--distinct", action="store_true", help="add `sizing serve` taking unseen questions"
    )
    parser.add_argument(
        "--no-variants", action="store_true", help="only `sizing serve`: no lever turned off"
    )
    args = parser.parse_args()
    variants = {k: v for k, v in VARIANTS.items() if not args.no_variants or not v}
    if args.distinct:
        variants[DISTINCT] = {}
    sources: dict[str, tuple[Questions, Questions]] = {
        DISTINCT: (distinct(SERVER_SEED), distinct(IN_PROCESS_SEED))
    }

    data_dir, tmp = ensure_index(args.data_dir)
    app_ms = app_overhead(data_dir, args.app_requests)
    assistants = {name: in_process_assistant(data_dir, env) for name, env in variants.items()}
    servers: dict[str, tuple[subprocess.Popen[bytes], int]] = {}
    rounds: list[dict[str, Any]] = []
    try:
        port = free_port()
        servers["trivial"] = (start_trivial(port), port)
        for name, env in variants.items():
            port = free_port()
            servers[name] = (start_sizing(data_dir, port, env), port)
        port = free_port()
        servers[REPLAYED] = (start_replayed(data_dir, port), port)
        for name, (proc, port) in servers.items():
            wait_ready(f"http://127.0.0.1:{port}", proc)
            server_questions = sources.get(name, (repeated, repeated))[0]
            measure(proc, port, args.clients, 1.0, server_questions)  # warm-up
        for _ in range(args.rounds):
            figures: dict[str, Any] = {}
            for name, (proc, port) in servers.items():
                server_questions = sources.get(name, (repeated, repeated))[0]
                figures[name] = measure(proc, port, args.clients, args.seconds, server_questions)
            for name, assistant in assistants.items():
                own = sources.get(name, (repeated, repeated))[1]
                figures[name]["answer_ms"] = answer_cpu(assistant, args.seconds / 4, own)
            rounds.append(figures)
    finally:
        for proc, _port in servers.values():
            stop(proc)
        if tmp is not None:
            tmp.cleanup()
    report = summarise(rounds, list(variants))
    report["app_cpu_ms_answers_replayed"] = round(app_ms, 3)
    report["response_bytes"] = response_sizes(assistants["sizing serve"])
    report["load_average"] = round(os.getloadavg()[0], 1)
    if args.json:
        print(json.dumps(report, indent=2))
        return
    show(report, args)


def summarise(rounds: list[dict[str, Any]], names: list[str]) -> dict[str, Any]:
    def total(kind: str, field: str = "cpu_ms") -> float:
        answers = sum(r[kind]["answers"] for r in rounds)
        return sum(r[kind][field] * r[kind]["answers"] for r in rounds) / max(answers, 1)

    trivial_ms = total("trivial")
    variants = {}
    for name in names:
        overheads = [r[name]["cpu_ms"] - r[name]["answer_ms"] for r in rounds]
        variants[name] = {
            "cpu_ms": round(total(name), 3),
            "sys_ms": round(total(name, "sys_ms"), 3),
            "ratio": round(total(name) / trivial_ms, 2),
            "ratio_per_round": [
                round(r[name]["cpu_ms"] / r["trivial"]["cpu_ms"], 2) for r in rounds
            ],
            "answer_cpu_ms_in_process": round(
                statistics.median(r[name]["answer_ms"] for r in rounds), 3
            ),
            "overhead_outside_answer_ms": round(statistics.median(overheads), 3),
            "overhead_per_round": [round(o, 3) for o in overheads],
            "answers": sum(r[name]["answers"] for r in rounds),
        }
    replayed = total(REPLAYED)
    return {
        "rounds": rounds,
        "replayed_cpu_ms": round(replayed, 3),
        "replayed_sys_ms": round(total(REPLAYED, "sys_ms"), 3),
        "replayed_per_round": [round(r[REPLAYED]["cpu_ms"], 3) for r in rounds],
        "trivial_cpu_ms": round(trivial_ms, 3),
        "trivial_sys_ms": round(total("trivial", "sys_ms"), 3),
        "variants": variants,
        "ratio": variants["sizing serve"]["ratio"],
        "overhead_outside_answer_ms": variants["sizing serve"]["overhead_outside_answer_ms"],
        "errors": sum(f["errors"] for r in rounds for f in r.values()),
    }


def show(report: dict[str, Any], args: argparse.Namespace) -> None:
    print(f"POST /api/chat, {args.clients} keep-alive clients, {args.rounds} rounds x "
          f"{args.seconds:g} s per server, {len(QUESTIONS)} questions in rotation, "
          f"{os.cpu_count()} CPUs, load average {report['load_average']}")  # fmt: skip
    print(f"{'CPU ms per request':<42}{'server':>8}{'kernel':>8}{'answer':>8}{'rest':>8}"
          f"{'ratio':>8}")  # fmt: skip
    print(f"{'trivial FastAPI (2 KB JSON)':<42}{report['trivial_cpu_ms']:>8.3f}"
          f"{report['trivial_sys_ms']:>8.3f}{'':>16}{1:>7.2f}x")  # fmt: skip
    for name, v in report["variants"].items():
        print(f"{name:<42}{v['cpu_ms']:>8.3f}{v['sys_ms']:>8.3f}"
              f"{v['answer_cpu_ms_in_process']:>8.3f}{v['overhead_outside_answer_ms']:>8.3f}"
              f"{v['ratio']:>7.2f}x")  # fmt: skip
    print(f"{REPLAYED:<42}{report['replayed_cpu_ms']:>8.3f}{report['replayed_sys_ms']:>8.3f}"
          f"{'':>8}{report['replayed_cpu_ms']:>8.3f}"
          f"{report['replayed_cpu_ms'] / report['trivial_cpu_ms']:>7.2f}x")  # fmt: skip
    main = report["variants"]["sizing serve"]
    print(
        "answer: Assistant.ask in process, same questions (thread CPU); rest: server minus "
        "answer (median of the rounds)"
    )
    print(f"sizing serve / trivial: {main['ratio']}x (per round {main['ratio_per_round']}; "
          f"target <= 6x); rest {main['overhead_outside_answer_ms']:.3f} ms (per round "
          f"{main['overhead_per_round']}; target <= 0.5 ms)")  # fmt: skip
    print(f"outside the answer, measured directly (the app served as `sizing serve` serves it, "
          f"answers replayed): {report['replayed_cpu_ms']:.3f} ms (per round "
          f"{report['replayed_per_round']}; target <= 0.5 ms)")  # fmt: skip
    print(f"the app's own CPU per request (ASGI in process, answers replayed): "
          f"{report['app_cpu_ms_answers_replayed']:.3f} ms")  # fmt: skip
    if DISTINCT in report["variants"]:
        d = report["variants"][DISTINCT]
        print(f"issue 23: {DISTINCT} / trivial: {d['ratio']}x (per round "
              f"{d['ratio_per_round']}; target <= 6x); repeated: {main['ratio']}x")  # fmt: skip
    print(f"errors: {report['errors']}")
    for kind, sizes in report["response_bytes"].items():
        print(f"/api/chat answer, {kind:<10} over {sizes['answers']} eval turns: mean "
              f"{sizes['mean'] / 1024:.2f} KB, p50 {sizes['p50'] / 1024:.2f} KB, p95 "
              f"{sizes['p95'] / 1024:.2f} KB, max {sizes['max'] / 1024:.2f} KB"
              + (" (target <= 4 KB)" if kind == "default" else ""))  # fmt: skip


if __name__ == "__main__":
    main()
