"""A scripted OpenAI-compatible chat server for tests: real HTTP on a free loopback port.

The only fake in the LLM tests is the provider. The real `openai` client and LangChain's
`ChatOpenAI` talk to this server over HTTP. Each request to `/v1/chat/completions` takes the next
step of the script; the server answers in the shape the request asked for (JSON or SSE stream) and
records the request body so tests can assert on `max_tokens`, `tools` and `messages`.

    with ScriptedLLMServer([tool_call("fit_check", {...}), text("It fits [1].")]) as server:
        settings = Settings(OPENAI_API_KEY="test", OPENAI_BASE_URL=server.base_url)
        ...
        assert server.requests[0]["max_tokens"] == 800

Steps: `text`, `tool_call` / `tool_calls`, `status` (429, 500, ...), `garbage` (malformed JSON),
`delay` (sleep before answering, for timeouts). When the script runs out the server answers 500
with "script exhausted" (and counts it), so a test never hangs on a missing step.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Step:
    kind: str  # "text" | "tool_calls" | "status" | "garbage"
    content: str = ""
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    status: int = 200
    delay_s: float = 0.0
    retry_after_ms: int | None = 5
    chunk_delay_s: float = 0.0  # SSE: sleep between chunks (a slow model), body sent as it goes
    cut: bool = False  # SSE: the stream closes before the finish reason (and before [DONE])


def text(content: str, delay_s: float = 0.0) -> Step:
    """A final assistant message."""
    return Step("text", content=content, delay_s=delay_s)


def slow_text(content: str, chunk_delay_s: float) -> Step:
    """A final message streamed word by word, `chunk_delay_s` between words (streaming only)."""
    return Step("text", content=content, chunk_delay_s=chunk_delay_s)


def cut_text(content: str) -> Step:
    """A streamed message whose connection closes before the finish reason (a dropped stream)."""
    return Step("text", content=content, cut=True)


def tool_call(name: str, arguments: dict[str, Any], content: str = "") -> Step:
    """The model asks for one tool."""
    return Step("tool_calls", calls=[(name, arguments)], content=content)


def tool_calls(*calls: tuple[str, dict[str, Any]]) -> Step:
    """The model asks for several tools in one turn (parallel tool calls)."""
    return Step("tool_calls", calls=list(calls))


def status(code: int, message: str = "scripted error", retry_after_ms: int | None = 5) -> Step:
    """An HTTP error in OpenAI's error shape (429 rate limit, 500/503 server error, ...)."""
    return Step("status", status=code, content=message, retry_after_ms=retry_after_ms)


def garbage(body: str = '{"id": "chatcmpl-x", "choices": [ {"message": ') -> Step:
    """HTTP 200 with a body that is not valid JSON."""
    return Step("garbage", content=body)


def delay(seconds: float, then: Step | None = None) -> Step:
    """Sleep before answering (longer than the client's timeout makes it time out)."""
    step = then or text("late answer")
    return Step(
        step.kind,
        content=step.content,
        calls=step.calls,
        status=step.status,
        delay_s=seconds,
        retry_after_ms=step.retry_after_ms,
    )


class ScriptedLLMServer:
    """Serves the script over real HTTP; `requests` holds every request body received."""

    def __init__(self, script: list[Step], model: str = "scripted-model") -> None:
        self.script = list(script)
        self.model = model
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.exhausted = 0
        self.written: list[tuple[float, str]] = []  # slow streams: (monotonic time, SSE chunk)
        self._lock = threading.Lock()
        self._counter = 0
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle
    def start(self) -> ScriptedLLMServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    body = {"object": "list", "data": [{"id": server.model, "object": "model"}]}
                    self._send_json(200, body)
                else:
                    self._send_json(404, {"error": {"message": "not found"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send_json(404, {"error": {"message": f"no route {self.path}"}})
                    return
                try:
                    body = json.loads(raw)
                except ValueError:
                    self._send_json(400, {"error": {"message": "request is not JSON"}})
                    return
                step = server._next(body, dict(self.headers))
                # the client may give up (timeout); that is the point of a delay step
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    server._respond(self, step, body)

            def _send_json(self, code: int, body: Any, extra: dict[str, str] | None = None) -> None:
                data = json.dumps(body).encode()
                self._send_raw(code, data, "application/json", extra)

            def _send_raw(
                self, code: int, data: bytes, ctype: str, extra: dict[str, str] | None = None
            ) -> None:
                self.send_response(code)
                self.send_header("content-type", ctype)
                self.send_header("content-length", str(len(data)))
                for key, value in (extra or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)
                self.wfile.flush()

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> ScriptedLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def add(self, *steps: Step) -> None:
        with self._lock:
            self.script.extend(steps)

    @property
    def remaining(self) -> int:
        return len(self.script)

    # --- behaviour
    def _next(self, body: dict[str, Any], headers: dict[str, str]) -> Step:
        with self._lock:
            self.requests.append(body)
            self.headers.append({k.lower(): v for k, v in headers.items()})
            self._counter += 1
            if self.script:
                return self.script.pop(0)
            self.exhausted += 1
            return Step("status", status=500, content="script exhausted", retry_after_ms=1)

    def _respond(self, handler: Any, step: Step, body: dict[str, Any]) -> None:
        if step.delay_s:
            time.sleep(step.delay_s)
        if step.kind == "status":
            extra = {}
            if step.retry_after_ms is not None:
                extra["retry-after-ms"] = str(step.retry_after_ms)
            error = {"error": {"message": step.content, "type": "scripted", "code": step.status}}
            handler._send_json(step.status, error, extra)
            return
        if step.kind == "garbage":
            handler._send_raw(200, step.content.encode(), "application/json")
            return
        completion_id = f"chatcmpl-{self._counter}"
        if body.get("stream") and (step.chunk_delay_s or step.cut):
            self._send_progressively(handler, self._sse(step, completion_id), step.chunk_delay_s)
        elif body.get("stream"):
            data = "".join(self._sse(step, completion_id)).encode()
            handler._send_raw(200, data, "text/event-stream")
        else:
            handler._send_json(200, self._completion(step, completion_id))

    def _tool_call_list(self, step: Step, completion_id: str) -> list[dict[str, Any]]:
        return [
            {
                "id": f"call_{completion_id}_{i}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)},
            }
            for i, (name, args) in enumerate(step.calls)
        ]

    def _completion(self, step: Step, completion_id: str) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": step.content or None}
        finish = "stop"
        if step.kind == "tool_calls":
            message["tool_calls"] = self._tool_call_list(step, completion_id)
            finish = "tool_calls"
        return {
            "id": completion_id,
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
        }

    def _send_progressively(self, handler: Any, chunks: list[str], delay_s: float) -> None:
        """The SSE body chunk by chunk (no content-length: the connection closes at the end)."""
        handler.close_connection = True
        handler.send_response(200)
        handler.send_header("content-type", "text/event-stream")
        handler.send_header("connection", "close")
        handler.end_headers()
        for chunk in chunks:
            handler.wfile.write(chunk.encode())
            handler.wfile.flush()
            self.written.append((time.monotonic(), chunk))
            if delay_s:
                time.sleep(delay_s)

    def _sse(self, step: Step, completion_id: str) -> list[str]:
        def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
            payload = {
                "id": completion_id,
                "object": "chat.completion.chunk",
                "created": int(time.time()),
                "model": self.model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }
            return f"data: {json.dumps(payload)}\n\n"

        out = [chunk({"role": "assistant", "content": ""})]
        if step.content:
            words = step.content.split(" ")
            for i, word in enumerate(words):
                out.append(chunk({"content": word if i == 0 else " " + word}))
        finish = "stop"
        if step.kind == "tool_calls":
            finish = "tool_calls"
            for i, call in enumerate(self._tool_call_list(step, completion_id)):
                args = call["function"]["arguments"]
                half = len(args) // 2
                first = {
                    "index": i,
                    "id": call["id"],
                    "type": "function",
                    "function": {"name": call["function"]["name"], "arguments": args[:half]},
                }
                out.append(chunk({"tool_calls": [first]}))
                rest = {"index": i, "function": {"arguments": args[half:]}}
                out.append(chunk({"tool_calls": [rest]}))
        if step.cut:
            return out
        out.append(chunk({}, finish))
        out.append("data: [DONE]\n\n")
        return out


# --- replayed transcripts ---------------------------------------------------------------------


def replay_steps(responses: list[dict[str, Any]]) -> list[Step]:
    """Recorded model responses (the reply format of ../shared/tools/llm_relay.py:
    {"content": "..."} or {"tool_calls": [{"name": ..., "arguments": {...}}]}) as script steps."""
    steps = []
    for response in responses:
        calls = response.get("tool_calls")
        if calls:
            steps.append(tool_calls(*[(c["name"], dict(c.get("arguments") or {})) for c in calls]))
        else:
            steps.append(text(str(response.get("content") or "")))
    return steps
