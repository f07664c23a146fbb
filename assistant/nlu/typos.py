"""Typos in the words that carry a sizing question ("nvlnk", "lama", "bandwith", "mistal"):
each letter token that is not a domain word but is one edit or so away from exactly one is read
as that word. German and English inflections are left alone (a token that extends a domain word
or that a domain word extends is not a typo: "parallele", "günstigsten").
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher, get_close_matches
from functools import lru_cache

# the words whose misspelling changes what a question asks (models, links, formats, intents)
DOMAIN_WORDS = [
    "nvlink",
    "nvswitch",
    "pcie",
    "nvidia",
    "llama",
    "mistral",
    "mixtral",
    "qwen",
    "deepseek",
    "gemma",
    "falcon",
    "ollama",
    "vllm",
    "tensor",
    "parallelism",
    "pipeline",
    "quantization",
    "quantisation",
    "quantisierung",
    "inference",
    "inferenz",
    "training",
    "finetuning",
    "throughput",
    "durchsatz",
    "cheapest",
    "günstigste",
    "billigste",
    "context",
    "kontext",
    "budget",
    "bandwidth",
    "bandbreite",
    "topology",
    "topologie",
    "allreduce",
    "gguf",
    "gptq",
    "awq",
    "diffusion",
    "flux",
    "sdxl",
    "blackwell",
    "hopper",
    "ampere",
    "geforce",
    "tokens",
    "latency",
    "speicher",
    "memory",
    "grafikspeicher",
    "vram",
    "single",  # "singel card": the card count
    "small",  # "mistral smal 24b": Mistral Small
    "einzelne",
    "precision",
    "präzision",
]
_VOCAB = frozenset(DOMAIN_WORDS)
# real words one edit away from a domain word: never "corrected"
COMMON_WORDS = frozenset(
    [
        "difference",
        "different",
        "conference",
        "reference",
        "preference",
        "interference",
        "concurrent",
        "current",
        "table",
        "stable",
        "latent",
        "talent",
        "sensor",
        "shopper",
        "sampler",
        "decent",
        "recent",
        "training",
        "trainings",
        "ample",
        "sample",
        "example",
        "memo",
        "mentor",
        "lender",
        "render",
        "switch",  # "if we switch the KV cache to FP8": to change, not "nvswitch"
        "switches",
        "sicher",  # "will sicher sein": sure, not "speicher"
        "sicherer",
    ]
)
_TOKEN_RX = re.compile(r"[a-zäöüß]{4,}")
CUTOFF = 0.8


# domain words cut short by a typo that no inflection produces ("the full 128k contex??")
CUT_WORDS = {"smal": "small", "contex": "context", "kontex": "kontext", "bandwidt": "bandwidth"}


@lru_cache(maxsize=4096)
def _fix(token: str) -> str:
    if token in CUT_WORDS:
        return CUT_WORDS[token]
    if token in _VOCAB or token in COMMON_WORDS:
        return token
    hits = get_close_matches(token, DOMAIN_WORDS, n=2, cutoff=CUTOFF)
    if not hits:
        return token
    best = hits[0]
    if best.startswith(token) or token.startswith(best):
        return token  # an inflection or a cut word, not a typo
    if SequenceMatcher(None, token, best).ratio() <= CUTOFF:
        return token
    if len(hits) > 1 and SequenceMatcher(None, token, hits[1]).ratio() > CUTOFF:
        return token  # two words equally close: don't guess
    return best


#: chat shorthand for the words that make an ask ("hw much vram do i ned"): too short for the
#: edit distance, so listed
#: ("our hw is 4x a100": "hw" is the hardware unless a question word follows)
SHORT_WORDS = {"hw": "how", "hwo": "how", "ned": "need", "nedd": "need", "wat": "what"}
_SHORT_RX = re.compile(
    r"\b(hwo|ned|nedd|wat|hw(?= (?:much|many|long|fast|big|do|does|can|to)\b))\b"
)


def correct_typos(folded: str) -> str:
    """The folded question with misspelt domain words replaced (same text otherwise)."""
    folded = _SHORT_RX.sub(lambda m: SHORT_WORDS[m.group(1)], folded)
    return _TOKEN_RX.sub(lambda m: _fix(m.group(0)), folded)


# ---------------------------------------------------------------- shorthand model names

#: "l3.3 70b", "q2.5 72b", "q3 235b": a family's first letter before its version, with a size
_LETTER_FAMILY_RX = re.compile(r"\b([lq])(\d(?:\.\d)?)(?=[\s-]*\d+(?:\.\d+)?\s*b\b)")
_LETTER_FAMILIES = {"l": "llama ", "q": "qwen"}
#: what a bare number must not be followed by to be a model size (a count, money, a context)
_NOT_A_SIZE = (
    r"(?![.,]?\d|\s*(?:b\b|k\b|x\b|gb|%|€|\$|users?|leute|nutzer|people|mal|times|cards?|karten?|"
    r"gpus?|tokens?|token))"
)
#: "qwen 2.5 72", "llama 3.1 8": a versioned family with its size said without the "b"
_BARE_SIZE_RX = re.compile(
    r"\b(qwen|llama|gemma|phi|mistral)[\s-]?(\d(?:\.\d)?)[\s-]+(\d{1,3})\b" + _NOT_A_SIZE
)
# "llama 70", "qwen 72": a family and a two- or three-digit size without its B (no version
# has two digits; "llama 3" and "qwen 2" stay versions)
_FAMILY_SIZE_RX = re.compile(r"\b(qwen|llama|gemma|mistral)[\s-]?(\d{2,3})\b" + _NOT_A_SIZE)


def expand_shorthand(folded: str) -> str:
    """Model names as people shorten them, written out: "l3.3 70b" -> "llama 3.3 70b",
    "q3 235b" -> "qwen3 235b", "qwen 2.5 72 in fp8" -> "qwen 2.5 72b in fp8", "llama 70" ->
    "llama 70b"."""
    text = _LETTER_FAMILY_RX.sub(lambda m: _LETTER_FAMILIES[m.group(1)] + m.group(2), folded)
    text = _BARE_SIZE_RX.sub(lambda m: f"{m.group(1)} {m.group(2)} {m.group(3)}b", text)
    return _FAMILY_SIZE_RX.sub(lambda m: f"{m.group(1)} {m.group(2)}b", text)
