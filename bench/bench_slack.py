"""Benchmark: the Slack bot over HTTP — acknowledgement latency (Slack wants it within 3 s) and
time until the answer is posted, for `/sizing` and for @mentions.

    .venv/bin/python bench/bench_slack.py [--rounds 20] [--concurrency 8] [--data-dir DIR]

Runs the real API app (Slack mounted, offline assistant) under uvicorn on a free loopback port,
with Slack's Web API and response URLs pointed at the local stub (tests/slack_stub.py), and sends
signed requests as Slack would. Prints p50/p95/max per measure. Without --data-dir (or when it
holds no index) the shipped guides are indexed into a scratch folder first (not timed), so the
answers carry their citations as in production and the bench's sessions stay out of `.data`.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import socket
import statistics
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SECRET = "bench-signing-secret"
QUESTIONS = [
    "Brauche ich NVLink für Llama 3.3 70B in BF16 auf vier Karten für echten Traffic?",
    "What will 4 x A100 SXM4 cost?",
    "Does Mixtral 8x7B fit on 2 x L40S?",
    "Passt Llama 3.3 70B in BF16 auf eine H100?",
    "How long does the gradient all-reduce take for a 70B model over PCIe vs NVLink?",
]


def _sign(body: str) -> dict[str, str]:
    ts = str(int(time.time()))
    sig = hmac.new(SECRET.encode(), f"v0:{ts}:{body}".encode(), hashlib.sha256).hexdigest()
    return {"X-Slack-Request-Timestamp": ts, "X-Slack-Signature": f"v0={sig}"}


def _stats(name: str, values: list[float]) -> str:
    values = sorted(values)
    p95 = values[min(len(values) - 1, round(0.95 * (len(values) - 1)))]
    return (
        f"{name:<38} n={len(values):>3}  p50={statistics.median(values) * 1000:7.1f} ms  "
        f"p95={p95 * 1000:7.1f} ms  max={values[-1] * 1000:7.1f} ms"
    )


def main() -> None:
    import httpx
    import uvicorn

    from api.app import create_app
    from assistant.settings import Settings
    from tests.slack_stub import BOT_TOKEN, BOT_USER_ID, TEAM_ID, SlackStub

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--data-dir", type=Path, default=None)
    args = parser.parse_args()

    from bench.bench_api import ensure_index

    data_dir, _scratch = ensure_index(args.data_dir)
    stub = SlackStub().start()
    settings = Settings(
        slack_bot_token=BOT_TOKEN,
        slack_signing_secret=SECRET,
        slack_api_base_url=stub.base_url,
        openai_api_key=None,
        data_dir=data_dir,
    )
    app = create_app(settings)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.02)
    if getattr(app.state, "slack", None) is None:
        sys.exit("Slack was not mounted (see the log)")
    url = f"http://127.0.0.1:{port}/slack/events"
    client = httpx.Client(timeout=30)
    counter = iter(range(1_000_000))

    def slash(question: str) -> tuple[float, float]:
        name = f"b{next(counter)}"
        body = urlencode(
            {
                "command": "/sizing",
                "text": question,
                "team_id": TEAM_ID,
                "channel_id": "C0BENCH",
                "user_id": f"U{name}",
                "response_url": stub.response_url(name),
                "trigger_id": "1.2.3",
            }
        )
        start = time.perf_counter()
        response = client.post(
            url,
            content=body,
            headers={**_sign(body), "Content-Type": "application/x-www-form-urlencoded"},
        )
        ack = time.perf_counter() - start
        assert response.status_code == 200, response.text
        stub.wait_for("response_url", path=f"/response/{name}", timeout=60)
        return ack, time.perf_counter() - start

    def mention(question: str) -> tuple[float, float]:
        n = next(counter)
        channel, ts = f"C0B{n}", f"{int(time.time())}.{n:06d}"
        payload = {
            "type": "event_callback",
            "team_id": TEAM_ID,
            "event_id": f"EvB{n}",
            "event": {
                "type": "app_mention",
                "user": "U0BENCH",
                "channel": channel,
                "text": f"<@{BOT_USER_ID}> {question}",
                "ts": ts,
            },
        }
        body = json.dumps(payload)
        start = time.perf_counter()
        response = client.post(
            url, content=body, headers={**_sign(body), "Content-Type": "application/json"}
        )
        ack = time.perf_counter() - start
        assert response.status_code == 200, response.text
        stub.wait_for(
            "chat.update", channel=channel, timeout=60
        )  # the answer replaces the placeholder
        return ack, time.perf_counter() - start

    slash(QUESTIONS[0])  # warm up (imports, first answer)
    mention(QUESTIONS[1])
    results: dict[str, list[float]] = {}
    for kind, fn in (("/sizing", slash), ("@mention", mention)):
        acks, totals = [], []
        for i in range(args.rounds):
            ack, total = fn(QUESTIONS[i % len(QUESTIONS)])
            acks.append(ack)
            totals.append(total)
        results[f"{kind} ack (sequential)"] = acks
        results[f"{kind} answer posted (sequential)"] = totals
    with ThreadPoolExecutor(args.concurrency) as pool:
        pairs = list(pool.map(slash, [QUESTIONS[i % len(QUESTIONS)] for i in range(args.rounds)]))
    results[f"/sizing ack ({args.concurrency} concurrent)"] = [a for a, _ in pairs]
    results[f"/sizing answer posted ({args.concurrency} concurrent)"] = [t for _, t in pairs]
    for name, values in results.items():
        print(_stats(name, values))
    slow = max(max(v) for k, v in results.items() if "ack" in k)
    print(f"slowest acknowledgement: {slow * 1000:.0f} ms (Slack's limit: 3000 ms)")
    server.should_exit = True
    stub.close()


if __name__ == "__main__":
    main()
