"""A bounded, thread-safe least-recently-used map (the retriever's query and result caches, the
assistant's kept first turns)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any


class LRU:
    """At most `size` entries; `get` returns None for a missing key and marks a hit as recent."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._data: OrderedDict[Any, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Any) -> Any:
        with self._lock:
            if key in self._data:
                self._data.move_to_end(key)
                return self._data[key]
        return None

    def put(self, key: Any, value: Any) -> None:
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.size:
                self._data.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()

    def __len__(self) -> int:
        return len(self._data)
