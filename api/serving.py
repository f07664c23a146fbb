"""How uvicorn holds connections: bounded header and idle time, a connection cap below the
open-file limit (issue 27, connection starvation).

uvicorn by itself closes a connection only after a response (`timeout_keep_alive`): a client
that connects and sends nothing, or trickles a header every few seconds, holds a file
descriptor for ever, and enough of them leave the process no descriptor for `/healthz`.

`GuardedHttp` (uvicorn's HTTP protocol with two additions):

- **header timeout**: a connection must deliver a request's headers within
  `SIZING_HEADER_TIMEOUT_S` of being opened or of its previous response; otherwise it is closed.
  A request whose headers are in is not affected (its body has `request_body_timeout_s`, its
  answer the answer deadline).
- **connection cap**: at most `SIZING_MAX_CONNECTIONS` connections per process (default: the
  open-file limit less a reserve for the stores, the index and the logs). A new connection past
  the cap closes the connection that has been idle longest (no request in progress); when every
  connection is busy, the new one is closed instead. So a flood of idle connections cannot lock
  new clients out: each new client pushes the oldest idle one out.

`raise_file_limit()` raises the soft open-file limit to the hard one at start (`sizing serve`).

    uvicorn.run(..., **uvicorn_options(settings))       # in-process: the limits of `settings`
    uvicorn.run(..., http="api.serving:GuardedHttp")     # workers: the limits from SIZING_* env
"""

from __future__ import annotations

import asyncio
import functools
import logging
import resource
from dataclasses import dataclass
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

try:  # uvicorn's faster parser when httptools is installed, as uvicorn's "auto" picks
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as _Base
except ImportError:  # pragma: no cover - httptools is installed with uvicorn[standard]
    _Base = H11Protocol  # type: ignore[assignment,misc]

log = logging.getLogger("api.serving")

# descriptors kept free for everything that is not a client connection (stores, index, logs,
# outgoing connections to the LLM, PostgreSQL or Chroma)
FD_RESERVE_SHARE = 0.1
FD_RESERVE_MIN = 128


@dataclass(frozen=True)
class ConnectionLimits:
    header_timeout_s: float
    max_connections: int


def raise_file_limit() -> int:
    """Raise the soft open-file limit to the hard limit; the (new) soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft != hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError) as exc:  # pragma: no cover - a sandbox may refuse
            log.warning("could not raise the open-file limit from %d: %s", soft, exc)
    return soft


def default_max_connections() -> int:
    """The open-file limit less a reserve (10 %, at least 128 descriptors)."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        soft = 1_000_000
    reserve = max(FD_RESERVE_MIN, int(soft * FD_RESERVE_SHARE))
    return max(16, soft - reserve)


def limits_of(settings: Any) -> ConnectionLimits:
    return ConnectionLimits(
        header_timeout_s=settings.header_timeout_s,
        max_connections=settings.max_connections or default_max_connections(),
    )


@functools.cache
def _env_limits() -> ConnectionLimits:
    from assistant.settings import Settings

    return limits_of(Settings())


class GuardedHttp(_Base):
    """uvicorn's HTTP protocol with a header timeout and a connection cap (module docstring)."""

    limits: ConnectionLimits | None = None  # None: read from the SIZING_* environment

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._limits = type(self).limits or _env_limits()
        self._header_timer: asyncio.TimerHandle | None = None

    # -- the idle registry, shared by the connections of one server (oldest first)
    def _idle(self) -> dict[GuardedHttp, None]:
        idle: dict[GuardedHttp, None] | None = getattr(self.server_state, "sizing_idle", None)
        if idle is None:
            idle = {}
            self.server_state.sizing_idle = idle  # type: ignore[attr-defined]
        return idle

    def _busy(self) -> bool:
        cycle = self.cycle
        return cycle is not None and not cycle.response_complete

    def _arm(self) -> None:
        """(Re)start the header clock and mark the connection idle (newest)."""
        if self._header_timer is not None:
            self._header_timer.cancel()
        self._header_timer = self.loop.call_later(
            self._limits.header_timeout_s, self._header_timeout
        )
        idle = self._idle()
        idle.pop(self, None)
        idle[self] = None

    def _header_timeout(self) -> None:
        self._header_timer = None
        if not self._busy() and not self.transport.is_closing():
            self.transport.close()

    def _make_room(self) -> None:
        """Past the cap: close the longest-idle connection, or this one when none is idle."""
        if len(self.connections) <= self._limits.max_connections:
            return
        idle = self._idle()
        while idle:
            oldest = next(iter(idle))
            del idle[oldest]
            if oldest is self:
                continue
            if not oldest._busy() and not oldest.transport.is_closing():
                oldest.transport.close()
                return
        self.transport.close()
        idle[self] = None  # removed again by connection_lost

    # -- uvicorn's protocol hooks
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()
        self._make_room()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None
        self._idle().pop(self, None)
        super().connection_lost(exc)


def guarded_http(limits: ConnectionLimits) -> type[GuardedHttp]:
    """`GuardedHttp` with these limits (for a server in this process: tests, benches)."""
    return type("GuardedHttpWithLimits", (GuardedHttp,), {"limits": limits})


def uvicorn_options(settings: Any) -> dict[str, Any]:
    """uvicorn.Config keywords for an in-process server with `settings`' connection limits."""
    return {
        "http": guarded_http(limits_of(settings)),
        "timeout_keep_alive": settings.idle_timeout_s,
    }
