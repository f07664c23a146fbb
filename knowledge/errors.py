"""Errors shared by the retrieval code and its callers, importable without numpy or Chroma."""

from __future__ import annotations


class DenseUnavailable(RuntimeError):
    """The embedder will not take a query now (raised by a wrapper such as the API's fairness
    gate: its lane is busy, or the asking client used its share). Callers search again with
    mode="bm25" and say that the answer was found by keywords only."""
