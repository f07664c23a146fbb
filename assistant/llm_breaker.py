"""A circuit breaker and a hard deadline for the LLM provider.

Without them a hanging provider costs every answer the client's timeouts times its retries (90 s
and more), and a `Retry-After: 120` makes the openai client sleep past any deadline; nothing
remembers that the provider is down. Here:

- every model call runs in a helper thread and is waited for only until the answer's deadline
  (`SIZING_LLM_DEADLINE_S`): a provider that hangs or asks to be retried later costs at most that,
  whatever the client's timeouts, retries or `Retry-After` (the abandoned call finishes on its own);
- `SIZING_LLM_BREAKER_FAILURES` consecutive failures open the breaker: answers are then offline at
  once (with the notice), no call is made; after `SIZING_LLM_BREAKER_RESET_S` one request probes
  the provider (half-open) while the others stay offline; a success closes the breaker, a failure
  opens it again.

    breaker = breaker_for(deps)            # one per Deps (process), created on first use
    result = guarded_call(breaker, fn, deadline)   # raises LLMDown when open, late or failed

Under concurrency (issue 27):
- when the breaker opens, every call still waiting on the provider is released at once (LLMDown,
  the offline answer), not left to wait out its own deadline;
- a surface may set the request's deadline when the request arrives (`request_deadline`, a
  context variable the API's answer runner sets before a request waits for an answer slot):
  every call of that request, the LLM reader's and the answer's, ends by then, so time spent
  waiting for a slot or in an earlier phase counts against the same deadline.
"""

from __future__ import annotations

import contextvars
import math
import threading
import time
from collections.abc import Callable
from typing import Any, Literal, TypeVar

T = TypeVar("T")

#: the time.monotonic() by which the current request must be answered (None: no such bound)
request_deadline: contextvars.ContextVar[float | None] = contextvars.ContextVar(
    "sizing_request_deadline", default=None
)

State = Literal["closed", "open", "half_open"]


class LLMDown(RuntimeError):
    """The provider is not called (breaker open, deadline passed) or did not answer in time."""


class CircuitBreaker:
    def __init__(
        self, failures: int = 3, reset_s: float = 30.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.threshold = max(1, failures)
        self.reset_s = reset_s
        self._clock = clock
        self._lock = threading.Lock()
        self._state: State = "closed"
        self._failures = 0
        self._opened_at = 0.0
        self._probing = False
        self._waiting: set[threading.Event] = set()  # calls waiting on the provider
        self.opened_count = 0  # times the breaker opened (a metric)
        self.released = 0  # waiting calls released when it opened (a metric)

    @property
    def state(self) -> State:
        with self._lock:
            if self._state == "open" and self._clock() - self._opened_at >= self.reset_s:
                return "half_open"
            return self._state

    def allow(self) -> bool:
        """May a call go out now? Closed: yes. Open: no, until reset_s has passed; then exactly
        one caller gets to probe (half-open) and the others are refused until it reports."""
        with self._lock:
            if self._state == "closed":
                return True
            if self._state == "open" and self._clock() - self._opened_at >= self.reset_s:
                self._state = "half_open"
            if self._state == "half_open" and not self._probing:
                self._probing = True
                return True
            return False

    def success(self) -> None:
        with self._lock:
            self._state, self._failures, self._probing = "closed", 0, False

    def failure(self) -> None:
        with self._lock:
            self._failures += 1
            if self._state == "half_open" or self._failures >= self.threshold:
                if self._state != "open":
                    self.opened_count += 1
                self._state, self._opened_at, self._probing = "open", self._clock(), False
                waiting, self._waiting = self._waiting, set()
            else:
                waiting = set()
        self.released += len(waiting)
        for event in waiting:  # they see no result and raise LLMDown (guarded_call)
            event.set()

    def wait(self, done: threading.Event, seconds: float) -> bool:
        """Wait up to `seconds` for `done`; False when the time ran out or the breaker opened
        meanwhile (the call is abandoned)."""
        with self._lock:
            self._waiting.add(done)
        try:
            return done.wait(seconds)
        finally:
            with self._lock:
                self._waiting.discard(done)


def breaker_for(deps: Any) -> CircuitBreaker:
    """The breaker of this Deps (i.e. of this process's LLM client)."""
    extras = deps.extras
    breaker = extras.get("llm_breaker")
    if breaker is None:
        settings = deps.settings
        breaker = extras.setdefault(
            "llm_breaker",
            CircuitBreaker(settings.llm_breaker_failures, settings.llm_breaker_reset_s),
        )
    return breaker


def guarded_call(breaker: CircuitBreaker, fn: Callable[[], T], deadline: float) -> T:
    """`fn()` if the breaker allows it, waited for until `deadline` (a time.monotonic() value)
    or the request's deadline (`request_deadline`), whichever is earlier. Raises LLMDown when
    the breaker is open or opens while waiting, or the deadline passes; re-raises fn's own
    error. A late or failed call counts as a failure; a result counts as a success."""
    deadline = min(deadline, request_deadline.get() or math.inf)
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise LLMDown("the answer's deadline has passed")
    if not breaker.allow():
        raise LLMDown("the language model is marked unavailable (circuit breaker open)")
    box: dict[str, Any] = {}
    done = threading.Event()

    def run() -> None:
        try:
            box["result"] = fn()
        except BaseException as exc:
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=run, name="llm-call", daemon=True).start()
    finished = breaker.wait(done, remaining)
    if not box:  # neither a result nor an error
        if finished:  # released: another call's failure opened the breaker
            raise LLMDown("the language model is marked unavailable (circuit breaker opened)")
        breaker.failure()
        raise LLMDown(f"no answer from the language model within the deadline ({remaining:.0f} s)")
    if "error" in box:
        breaker.failure()
        raise box["error"]
    breaker.success()
    return box["result"]
