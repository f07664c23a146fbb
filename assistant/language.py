"""The two answer languages (a module of its own: the answer, the reading and the reader all use
it, and none of them imports another for it)."""

from typing import Literal

Language = Literal["de", "en"]
