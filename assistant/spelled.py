"""Money written in words or shorthand, as digits, for the grounding check (issue 25).

    spelled_amounts("about four grand a month")           -> "about 4000 dollars a month"
    spelled_amounts("forty-one hundred dollars")          -> "4100 dollars"
    spelled_amounts("rund viertausend Dollar im Monat")   -> "rund 4000 Dollar im Monat"
    spelled_amounts("3,9 Tsd. $")                          -> "3900 $"

An amount is the run of number words, figures and scale words (hundred, thousand, grand,
Tausend, Tsd., Mio.) right before a currency (or the word "grand", which is one). English and
German, German compounds too ("dreitausendneunhundert"). Figures alone ("4,395 $") are left to
the grounding check's own parser.
"""

from __future__ import annotations

import re
from functools import lru_cache

_UNITS = {
    "zero": 0, "one": 1, "a": 1, "an": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90,
    "null": 0, "ein": 1, "eins": 1, "eine": 1, "einen": 1, "einem": 1, "einer": 1, "zwei": 2,
    "drei": 3, "vier": 4, "fünf": 5, "sechs": 6, "sieben": 7, "acht": 8, "neun": 9, "zehn": 10,
    "elf": 11, "zwölf": 12, "dreizehn": 13, "vierzehn": 14, "fünfzehn": 15, "sechzehn": 16,
    "siebzehn": 17, "achtzehn": 18, "neunzehn": 19, "zwanzig": 20, "dreißig": 30,
    "vierzig": 40, "fünfzig": 50, "sechzig": 60, "siebzig": 70, "achtzig": 80, "neunzig": 90,
}  # fmt: skip
_SCALES = {
    "hundred": 100, "hundert": 100, "thousand": 1000, "tausend": 1000, "tsd": 1000,
    "tsd.": 1000, "grand": 1000, "k": 1000, "million": 1_000_000, "millionen": 1_000_000,
    "mio": 1_000_000, "mio.": 1_000_000,
}  # fmt: skip
_JOINERS = {"and", "und"}
# German compounds: the morphemes a number word is made of, longest first
_MORPHEMES = sorted(
    [w for w in _UNITS if len(w) > 2 and w not in ("eine", "einen", "einem", "einer")]
    + ["hundert", "tausend", "und", "ein"],
    key=len,
    reverse=True,
)

_ANCHOR_RX = re.compile(
    r"(?P<cur>US\$|\$|\bUSD\b|\bUS-Dollars?\b|\bDollars?\b|\bbucks?\b|\bEuros?\b|\bEUR\b|€)|"
    r"(?P<grand>\bgrand\b)",
    re.IGNORECASE,
)
_A_BEFORE_RX = re.compile(r"\ban?\s*$", re.IGNORECASE)
_TOKEN_RX = re.compile(r"(\d+(?:[.,]\d+)?|[^\W\d_]+(?:-[^\W\d_]+)*\.?)\s*$")


@lru_cache(maxsize=4096)
def _compound(word: str) -> tuple[str, ...] | None:
    """A German number word split into morphemes ('dreitausendneunhundert' -> drei tausend
    neun hundert), or None when it is not one."""
    if not word:
        return ()
    for m in _MORPHEMES:
        if word.startswith(m):
            rest = _compound(word[len(m) :])
            if rest is not None:
                return (m, *rest)
    return None


def _parts(token: str) -> tuple[str, ...] | None:
    """A token as number parts (words, scales, joiners, a figure), or None."""
    low = token.lower()
    if low[0].isdigit():
        return (low,)
    if low in _SCALES or low in _JOINERS or low in _UNITS:
        return (low,)
    if "-" in low:  # forty-one
        pieces = low.split("-")
        return tuple(pieces) if all(p in _UNITS for p in pieces) else None
    return _compound(low.rstrip("."))


def _figure(text: str) -> float:
    """'3,9' / '3.9' -> 3.9; '4,395' -> 4395 (a scale word follows either way)."""
    m = re.fullmatch(r"(\d+)[.,](\d{1,2})", text)
    if m:
        return float(f"{m.group(1)}.{m.group(2)}")
    return float(re.sub(r"[.,]", "", text))


def _value(parts: list[str]) -> float | None:
    total, current, seen_word = 0.0, 0.0, False
    for part in parts:
        if part in _JOINERS:
            continue
        if part[0].isdigit():
            current += _figure(part)
        elif part in _SCALES:
            seen_word = True
            scale = _SCALES[part]
            if scale == 100:
                current = (current or 1) * 100
            else:
                total += (current or 1) * scale
                current = 0.0
        else:
            seen_word = True
            current += _UNITS[part]
    return total + current if seen_word else None


def _amount_before(text: str, end: int) -> tuple[int, float] | None:
    """The spelled amount that ends at `end` (its start and value), if any."""
    parts: list[str] = []
    start = end
    window = text[max(0, end - 120) : end]
    offset = end - len(window)
    while True:
        m = _TOKEN_RX.search(window)
        if m is None:
            break
        found = _parts(m.group(1))
        if found is None:
            break
        parts[:0] = found
        start = offset + m.start(1)
        window = window[: m.start()]
    while parts and parts[0] in _JOINERS:
        parts.pop(0)
    if not parts or (len(parts) == 1 and parts[0] in ("a", "an")):
        return None
    value = _value(parts)
    return None if value is None else (start, value)


def spelled_amounts(text: str) -> str:
    """The text with every spelled or shorthand money amount written as digits."""
    out: list[str] = []
    last = 0
    for m in _ANCHOR_RX.finditer(text):
        if m.start() < last:
            continue
        if m.group("grand"):
            found = _amount_before(text, m.start())
            article = _A_BEFORE_RX.search(text[: m.start()])
            if found is None and article:  # "a grand a month": one thousand
                found = (article.start(), 1.0)
            if found is None:
                continue
            start, value = found
            out += [text[last:start], f"{value * 1000:.0f} dollars"]
            last = m.end()
            continue
        found = _amount_before(text, m.start())
        if found is None:
            continue
        start, value = found
        digits = f"{value:.2f}".rstrip("0").rstrip(".")
        gap = text[start : m.start()]
        out += [text[last:start], digits + (" " if gap.endswith((" ", "\u00a0")) else "")]
        last = m.start()
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


_WORD_RX = re.compile(r"(?<!\w)[^\W\d_]+(?:-[^\W\d_]+)*(?!\w)")
_ARTICLES = frozenset({"a", "an", "ein", "eine", "einer", "einem", "einen", "one", "eins"})


def spelled_counts(text: str) -> str:
    """The text with every count written in words as digits ("zweihundert Texte" -> "200
    Texte", "a thousand answers" -> "1000 answers"); an article alone ("a", "eine") stays."""
    out: list[str] = []
    last = 0
    run: list[tuple[int, int, tuple[str, ...]]] = []

    def flush() -> None:
        nonlocal last
        while run and run[-1][2][-1] in _JOINERS:
            run.pop()
        words = [p for _, _, parts in run for p in parts]
        value = _value(words) if words else None
        # ("2 mio token", "5 thousand": a scale after a figure is the figure's, read there)
        counted = any(w in _UNITS and w not in _ARTICLES for w in words) or (
            any(w in _ARTICLES for w in words) and any(w in _SCALES for w in words)
        )
        if value is not None and counted:
            out.extend((text[last : run[0][0]], f"{value:g}"))
            last = run[-1][1]
        run.clear()

    for m in _WORD_RX.finditer(text):
        parts = _parts(m.group())
        joined = bool(run) and not text[run[-1][1] : m.start()].strip()
        if parts is None or (parts[0] in _JOINERS and not run) or (run and not joined):
            flush()
        if parts is not None and not (parts[0] in _JOINERS and not run):
            run.append((m.start(), m.end(), parts))
    flush()
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)
