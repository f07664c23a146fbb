"""A local stand-in for Slack's Web API and response URLs, for tests.

A small HTTP server on a free loopback port. Point `WebClient(base_url=stub.base_url)` at it
and use `stub.response_url("name")` as the `response_url` of slash commands. It records every
call (method, parameters, headers) and answers like Slack: `auth.test`, `chat.postMessage`,
`chat.postEphemeral`, `chat.update`, `views.open` (the view echoed back with an id),
`conversations.replies` (from `stub.threads`, paged by
`stub.page_size`), response
URL posts, and `apps.connections.open` handing out a local WebSocket for Socket Mode
(`stub.start_socket_mode()`, then `stub.send_envelope(...)`). Tests wait for calls with
`stub.wait_for(...)` because answers are posted asynchronously after the acknowledgement.
"""

import itertools
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

BOT_TOKEN = "xoxb-test-token"
APP_TOKEN = "xapp-1-test-token"
BOT_USER_ID = "U0SIZINGBOT"
BOT_ID = "B0SIZINGBOT"
TEAM_ID = "T0TEAM"


@dataclass
class Call:
    method: str  # Web API method ("chat.postMessage") or "response_url"
    params: dict[str, Any]
    headers: dict[str, str]
    path: str = ""
    at: float = field(default_factory=time.time)
    reply: Any = None  # what the stub answered (e.g. the posted message's ts)

    @property
    def blocks(self) -> list[dict[str, Any]]:
        blocks = self.params.get("blocks") or []
        return json.loads(blocks) if isinstance(blocks, str) else blocks


class SlackStub:
    def __init__(self, token: str = BOT_TOKEN, app_token: str = APP_TOKEN) -> None:
        self.token = token
        self.app_token = app_token
        self.calls: list[Call] = []
        self.socket_received: list[dict[str, Any]] = []  # what clients sent over Socket Mode
        self._socket_server: Any = None
        self._sockets: list[Any] = []
        self.threads: dict[tuple[str, str], list[dict[str, Any]]] = {}
        self.page_size = 200  # conversations.replies page size (Slack's maximum)
        self._cond = threading.Condition()
        self._ts = itertools.count(1)
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def do_GET(self) -> None:
                stub._handle(self, b"")

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                stub._handle(self, self.rfile.read(length) if length else b"")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    # --- lifecycle
    def start(self) -> "SlackStub":
        self._thread.start()
        return self

    def close(self) -> None:
        if self._socket_server is not None:
            self._socket_server.shutdown()
        self.server.shutdown()
        self.server.server_close()

    # --- Socket Mode: a WebSocket endpoint handed out by apps.connections.open
    def start_socket_mode(self) -> None:
        from websockets.sync.server import serve

        def session(ws: Any) -> None:
            with self._cond:
                self._sockets.append(ws)
                self._cond.notify_all()
            ws.send(json.dumps({"type": "hello", "num_connections": 1,
                                "connection_info": {"app_id": "A0SIZING"}}))  # fmt: skip
            try:
                for raw in ws:
                    with self._cond:
                        self.socket_received.append(json.loads(raw))
                        self._cond.notify_all()
            except Exception:  # the client went away
                pass

        self._socket_server = serve(session, "127.0.0.1", 0)
        threading.Thread(target=self._socket_server.serve_forever, daemon=True).start()

    @property
    def socket_url(self) -> str:
        port = self._socket_server.socket.getsockname()[1]
        return f"ws://127.0.0.1:{port}/link"

    def send_envelope(self, envelope: dict[str, Any], timeout: float = 30.0) -> None:
        """Send a Socket Mode envelope to the (first) connected client."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not self._sockets:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError("no Socket Mode client connected")
                self._cond.wait(left)
            ws = self._sockets[0]
        ws.send(json.dumps(envelope))

    def wait_for_socket_ack(self, envelope_id: str, timeout: float = 30.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for message in self.socket_received:
                    if message.get("envelope_id") == envelope_id:
                        return message
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no Socket Mode ack for {envelope_id}")
                self._cond.wait(left)

    def __enter__(self) -> "SlackStub":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- addresses
    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/"

    def response_url(self, name: str) -> str:
        return f"http://127.0.0.1:{self.port}/response/{name}"

    # --- inspection
    @staticmethod
    def _matches(call: Call, method: str, match: dict[str, Any]) -> bool:
        """`path=` matches the request path; any other keyword a request parameter."""
        return call.method == method and all(
            (call.path if k == "path" else call.params.get(k)) == v for k, v in match.items()
        )

    def calls_to(self, method: str, **match: Any) -> list[Call]:
        with self._cond:
            return [c for c in self.calls if self._matches(c, method, match)]

    def wait_for(
        self, method: str, count: int = 1, timeout: float = 30.0, **match: Any
    ) -> list[Call]:
        """Wait until at least `count` calls to `method` (matching the given params) arrived."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                found = [c for c in self.calls if self._matches(c, method, match)]
                if len(found) >= count:
                    return found
                left = deadline - time.monotonic()
                if left <= 0:
                    seen = [(c.method, c.path) for c in self.calls]
                    raise AssertionError(
                        f"timed out waiting for {count} x {method} {match or ''}; calls: {seen}"
                    )
                self._cond.wait(left)

    def reset(self) -> None:
        with self._cond:
            self.calls.clear()

    # --- the fake Slack
    def _handle(self, request: BaseHTTPRequestHandler, body: bytes) -> None:
        url = urlsplit(request.path)
        params: dict[str, Any] = dict(parse_qsl(url.query))
        content_type = request.headers.get("Content-Type", "")
        if body:
            if "json" in content_type:
                params.update(json.loads(body))
            else:
                params.update(parse_qsl(body.decode()))
        headers = {k.lower(): v for k, v in request.headers.items()}
        if url.path.startswith("/response/"):
            method = "response_url"
            reply: dict[str, Any] | str = "ok"
        elif url.path.startswith("/api/"):
            method = url.path[len("/api/") :]
            reply = self._api(method, params, headers)
        else:
            request.send_response(404)
            request.end_headers()
            return
        with self._cond:
            self.calls.append(Call(method, params, headers, url.path, reply=reply))
            self._cond.notify_all()
        payload = (reply if isinstance(reply, str) else json.dumps(reply)).encode()
        request.send_response(200)
        request.send_header(
            "Content-Type", "text/plain" if isinstance(reply, str) else "application/json"
        )
        request.send_header("Content-Length", str(len(payload)))
        request.end_headers()
        request.wfile.write(payload)

    def _api(self, method: str, params: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
        if method == "apps.connections.open":
            if headers.get("authorization") != f"Bearer {self.app_token}":
                return {"ok": False, "error": "invalid_auth"}
            if self._socket_server is None:
                return {"ok": False, "error": "socket_mode_not_enabled"}
            return {"ok": True, "url": self.socket_url}
        if headers.get("authorization") != f"Bearer {self.token}":
            return {"ok": False, "error": "invalid_auth"}
        ts = f"{1_700_000_000 + next(self._ts)}.000100"
        if method == "auth.test":
            return {
                "ok": True,
                "url": "https://stub.slack.com/",
                "team": "Stub",
                "user": "sizing",
                "team_id": TEAM_ID,
                "user_id": BOT_USER_ID,
                "bot_id": BOT_ID,
                "is_enterprise_install": False,
            }
        if method == "chat.postMessage":
            message = {"type": "message", "text": params.get("text", ""), "ts": ts}
            message.update(bot_id=BOT_ID, user=BOT_USER_ID)
            return {"ok": True, "channel": params.get("channel"), "ts": ts, "message": message}
        if method == "chat.postEphemeral":
            return {"ok": True, "message_ts": ts}
        if method == "chat.update":
            return {"ok": True, "channel": params.get("channel"), "ts": params.get("ts")}
        if method == "views.open":
            view = params.get("view") or {}
            view = json.loads(view) if isinstance(view, str) else view
            if not params.get("trigger_id"):
                return {"ok": False, "error": "invalid_trigger_id"}
            return {"ok": True, "view": {"id": f"V{next(self._ts):08d}", **view}}
        if method == "conversations.replies":
            key = (params.get("channel", ""), params.get("ts", ""))
            if key not in self.threads:
                return {"ok": False, "error": "thread_not_found"}
            start = int(params.get("cursor") or 0)
            page = self.threads[key][start : start + self.page_size]
            more = start + self.page_size < len(self.threads[key])
            reply: dict[str, Any] = {"ok": True, "messages": page, "has_more": more}
            if more:
                reply["response_metadata"] = {"next_cursor": str(start + self.page_size)}
            return reply
        return {"ok": False, "error": "unknown_method"}


# --- material staff paste
GERMAN_TOPO_QUESTION = (
    "Der Kunde hat 8x H100 SXM5 gemietet und meldet, dass das Training deutlich langsamer ist"
    " als erwartet, vor allem beim All-Reduce über alle acht Karten. Er hat uns diese Ausgabe"
    " geschickt. Ist die Topologie in Ordnung?"
)


def topo_8x_h100(bad: tuple[str, str] = ("GPU2", "GPU5"), bad_label: str = "NV12") -> str:
    """A full `nvidia-smi topo -m` of an 8 x H100 SXM5 node with 10 NICs and both legends
    (2,501 characters), one card pair showing fewer NVLinks than the others."""
    gpus = [f"GPU{i}" for i in range(8)]
    nics = [f"NIC{i}" for i in range(10)]

    def nic_path(nic: int, gpu: int) -> str:
        return "PIX" if nic == gpu else ("NODE" if (nic < 4) == (gpu < 4) else "SYS")

    lines = ["\t" + "\t".join(gpus + nics) + "\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID"]
    for i, g in enumerate(gpus):
        cells = [
            " X " if i == j else (bad_label if {g, h} == set(bad) else "NV18")
            for j, h in enumerate(gpus)
        ]
        cells += [nic_path(k, i) for k in range(10)]
        affinity = "0-55,112-167\t0\t\tN/A" if i < 4 else "56-111,168-223\t1\t\tN/A"
        lines.append(g + "\t" + "\t".join(cells) + "\t" + affinity)
    for k, n in enumerate(nics):
        cells = [nic_path(k, i) for i in range(8)]
        cells += [" X " if k == m else ("PIX" if {k, m} == {8, 9} else "SYS") for m in range(10)]
        lines.append(n + "\t" + "\t".join(cells))
    lines += [
        "",
        "Legend:",
        "",
        "  X    = Self",
        "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes"
        " (e.g., QPI/UPI)",
        "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host"
        " Bridges within a NUMA node",
        "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)",
        "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host"
        " Bridge)",
        "  PIX  = Connection traversing at most a single PCIe bridge",
        "  NV#  = Connection traversing a bonded set of # NVLinks",
        "",
        "NIC Legend:",
        "",
        *[f"  NIC{k}: mlx5_{k}" for k in range(10)],
    ]
    return "\n".join(lines)
