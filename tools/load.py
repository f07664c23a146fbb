"""From people to load: how many sequences a service for N users generates at once.

Users of a chat or API service are mostly reading or typing; only some are waiting for tokens at
any moment. Sizing for every user as a simultaneous 8K-token stream overstates the KV cache by an
order of magnitude, so a user count is turned into concurrent sequences with a stated share. The
share is an assumption (a typical interactive service at its busy hour), said in every answer
that uses it; a user who knows the peak concurrency gives it instead.
"""

from __future__ import annotations

import math

# share of users generating at the same moment at the busy hour (an assumption, stated)
ACTIVE_SHARE = 0.1
# tokens per request assumed when a question names no context (a chat turn with some history;
# an assumption, stated in every answer that uses it)
DEFAULT_CONTEXT_TOKENS = 8192
# requests at once from which a service is real traffic (the guide's "many parallel
# requests"), and up to which it is a few (its "low concurrency"); people count through
# `concurrent_sequences` (100 users: 10 at once, traffic; 40 users: 4 at once, a few). One
# threshold: "8 at the same time in the chat" and "5 requests at once" are a few (blind writers
# b43-23, b57-15), where an undecided band asked back about a load the user had said
TRAFFIC_AT_ONCE = 10
FEW_AT_ONCE = 9


def traffic_of(at_once: int) -> str | None:
    """'traffic', 'low_concurrency', or None (in between: the workload is not decided)."""
    if at_once >= TRAFFIC_AT_ONCE:
        return "traffic"
    return "low_concurrency" if at_once <= FEW_AT_ONCE else None


def concurrent_sequences(users: int, active_share: float = ACTIVE_SHARE) -> int:
    """Concurrent sequences for `users` people: at least one."""
    if users < 1:
        raise ValueError("users must be at least 1")
    return max(1, math.ceil(users * active_share))
