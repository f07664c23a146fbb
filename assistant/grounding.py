"""Grounding check: every claim an answer makes must be traceable to a tool result or a passage.

Claims are checked, not loose numbers (issue 13). The text is normalised first (Unicode NFKC,
zero-width and bidi characters removed, number words before a currency: "one dollar" -> "1
dollar", "zwei Euro" -> "2 Euro"). Then, sentence by sentence (a table row is a sentence):

1. *price*: an amount with a currency ($, USD, dollar, €, EUR, Euro, £, ...) or with a period
   ("4.395/Monat"). A US-dollar amount equal to a catalog price is a price claim: it must be the
   catalog price *of the configuration it is attached to* (the nearest configuration or card named
   in its clause, table cell, column header or row), per month. Any other period (year, hour, day)
   or currency is a violation unless a tool returned that figure for that period. Other dollar
   amounts (differences, per card, per million tokens) must be in a money field of a tool result.
   Amounts the user stated (a budget: "innerhalb Ihres Budgets von 2.000 $") are the user's.
2. *verdict*: "fits / does not fit on <configuration>", "needs NVLink / no NVLink needed" and
   "rule n" must agree with the tool results (fit_check / cheapest_fit rows, purchase_advice) for
   that model, precision and configuration, or the sentence cites a guide passage.
3. *number*: every number with a unit (GB, GB/s, tokens/s, s, ms, %, ×) occurs in a tool result,
   in the user's own words, or in a passage *the sentence cites* (the paragraph's markers when the
   sentence has none). Signs count ("-0.8 GB" matches `headroom_gb: -0.8`); a stated figure may be
   rounded, never more than its last digit allows.
4. *citation*: every marker [n] points to a citation of the answer.

Figures from earlier turns of the session count too: pass their `GroundingFacts` as `prior`.

    violations = check_answer(answer, catalog_prices(catalog), prior=facts, user_text=questions)
"""

from __future__ import annotations

import bisect
import json
import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cached_property, lru_cache
from typing import Any, NamedTuple

from pydantic import BaseModel, Field

from assistant.answer import Answer, GroundingViolation, ToolCall, ViolationKind
from assistant.spelled import spelled_amounts

SEARCH_TOOL = "search_guides"
_Money = tuple[int, int, str, str, str]  # start, end, written number, currency, 'k' suffix

# --------------------------------------------------------------------------- normalisation

_INVISIBLE_RX = re.compile(
    "[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\u00ad\u180e]"
)  # zero-width spaces and joiners, LRM/RLM, bidi embeddings, overrides and isolates
_NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "a": 1, "an": 1, "a single": 1,
    "eins": 1, "ein": 1, "eine": 1, "einen": 1, "einem": 1, "einer": 1, "zwei": 2, "drei": 3,
    "vier": 4, "fünf": 5, "sechs": 6, "sieben": 7, "acht": 8, "neun": 9, "zehn": 10,
}  # fmt: skip
_CURRENCY_WORD = (
    r"(?:US[- ]?Dollars?|Dollars?|USD|Euros?|EUR|Cents?|Pounds?|Pfund|GBP|Franken|CHF|Yen|JPY)"
)
_WORD_MONEY_RX = re.compile(
    r"\b("
    + "|".join(sorted(map(re.escape, _NUMBER_WORDS), key=len, reverse=True))
    + r")\s+(?="
    + _CURRENCY_WORD
    + r"\b)",
    re.IGNORECASE,
)


# a money amount in words or shorthand may be in the text: assistant.spelled writes it as digits
_SPELLED_HINT_RX = re.compile(
    r"\bgrand\b|(?:hundred|thousand|hundert|tausend|tsd\.?|million|mio\.?|ty|zig|ßig|\bten|\bzehn|"
    r"\belf|\btwelve|\bzwölf|teen|\b(?:one|two|three|four|five|six|seven|eight|nine|ein\w*|zwei|"
    r"drei|vier|fünf|sechs|sieben|acht|neun))[\s-]*(?:US\$|\$|USD|US-Dollar|Dollar|Euro|EUR|€)",
    re.IGNORECASE,
)
_FREE_RX = re.compile(
    r"\b(?:free\s+of\s+charge|for\s+free|at\s+no\s+cost|kostenlos|kostenfrei|gratis|umsonst)\b",
    re.IGNORECASE,
)


@lru_cache(maxsize=2048)
def normalise(text: str) -> str:
    """NFKC ('＄' -> '$', non-breaking spaces -> ' '), invisible characters out, money in words
    or shorthand as digits ('four grand' -> '4000 dollars', '3,9 Tsd. $' -> '3900 $', 'one
    dollar' -> '1 dollar'), 'free of charge' / 'kostenlos' as '0 $'."""
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
        if _INVISIBLE_RX.search(text):
            text = _INVISIBLE_RX.sub("", text)
    if _SPELLED_HINT_RX.search(text):
        text = spelled_amounts(text)
    if _FREE_RX.search(text):
        text = _FREE_RX.sub("0 $", text)
    if _WORD_MONEY_RX.search(text):
        text = _WORD_MONEY_RX.sub(lambda m: f"{_NUMBER_WORDS[m.group(1).lower()]} ", text)
    return text


# --------------------------------------------------------------------------- numbers


@lru_cache(maxsize=16384)
def _float_candidates(text: str) -> tuple[tuple[float, int], ...]:
    """Every value a written number may mean, with its decimal places (for rounding).

    "4,395" -> 4395 and 4.395; "141,1" -> 141.1; "1.800,5" -> 1800.5; "0.16" -> 0.16.
    """
    if text.isdigit():
        return ((float(text), 0),)
    seps = [c for c in text if c in ".,"]
    groups = re.split(r"[.,]", text)
    out: list[tuple[float, int]] = []
    if all(len(g) == 3 for g in groups[1:]) and len(set(seps)) == 1:
        out.append((float("".join(groups)), 0))  # 4,395 / 1.800 / 1,234,567
    if len(seps) == 1:
        out.append((float(groups[0] + "." + groups[1]), len(groups[1])))
    elif len(set(seps)) == 2:  # mixed: the last separator is the decimal mark (1.800,5)
        whole, frac = text.rsplit(seps[-1], 1)
        out.append((float(re.sub(r"[.,]", "", whole) + "." + frac), len(frac)))
    return tuple(out)


def number_candidates(text: str) -> list[tuple[Decimal, int]]:
    """Every value a written number may mean, as Decimals with their decimal places."""
    return [(Decimal(str(v)), p) for v, p in _float_candidates(text.strip())]


_TEXT_NUMBER_RX = re.compile(r"(?<![\w])(\d+(?:[.,]\d+)*)")


@lru_cache(maxsize=8192)
def _text_numbers(text: str) -> tuple[float, ...]:
    out: list[float] = []
    for raw in _TEXT_NUMBER_RX.findall(text):
        out.extend(v for v, _ in _float_candidates(raw))
    return tuple(out)


def _near(values: Sequence[float], value: float, places: int) -> bool:
    tol = 0.5 * 10.0**-places + 1e-9
    i = bisect.bisect_left(values, value - tol)
    return i < len(values) and values[i] <= value + tol


# --------------------------------------------------------------------------- facts


class GroundingFacts(BaseModel):
    """What tool results established, compactly (a session keeps one per turn for follow-ups).

    verdicts: [model, precision, configuration, fits]; money: [tag, amount] with tag month,
    hour, year, tokens or any (from the result key)."""

    numbers: list[float] = Field(default_factory=list)
    money: list[tuple[str, float]] = Field(default_factory=list)
    configurations: list[str] = Field(default_factory=list)
    models: list[tuple[str, str, float]] = Field(default_factory=list)  # id, name, params_b
    verdicts: list[tuple[str, str, str, bool]] = Field(default_factory=list)
    needs_nvlink: list[bool] = Field(default_factory=list)
    rules: list[int] = Field(default_factory=list)
    # [model, precision, configuration, does one card of it hold the model] (issue 25: a claim
    # about one card is judged by that card, not by its node's verdict)
    one_card: list[tuple[str, str, str, bool]] = Field(default_factory=list)

    def merged(self, other: GroundingFacts | None) -> GroundingFacts:
        if other is None:
            return self
        return GroundingFacts.model_construct(
            numbers=sorted(set(self.numbers) | set(other.numbers)),
            money=sorted(set(self.money) | set(other.money)),
            configurations=sorted(set(self.configurations) | set(other.configurations)),
            models=sorted(set(self.models) | set(other.models)),
            verdicts=sorted(set(self.verdicts) | set(other.verdicts)),
            needs_nvlink=sorted(set(self.needs_nvlink) | set(other.needs_nvlink)),
            rules=sorted(set(self.rules) | set(other.rules)),
            one_card=sorted(set(self.one_card) | set(other.one_card)),
        )


_MONEY_KEY_RX = re.compile(r"usd|price|cost|dollar|preis", re.IGNORECASE)
_FITS = {"fits_one_card": True, "split": True, "fits": True, "does_not_fit": False}


@lru_cache(maxsize=4096)
def _money_key(key: str) -> bool:
    return _MONEY_KEY_RX.search(key) is not None


def _money_tag(key: str) -> str:
    k = key.lower()
    for word, tag in (("month", "month"), ("hour", "hour"), ("year", "year"), ("token", "tokens")):
        if word in k:
            return tag
    return "any"


_JSON_NAME_RX = re.compile(
    r'"(?:name|label|short_name|id|model|query)": "[^"]*"'
)  # names, not figures
_JSON_NUMBER_RX = re.compile(r"(?<![\w.])-?\d+(?:[.,]\d+)*")
# a number under a key: a money figure when the key names money (_money_key); the same pairs as
# r'"(\w*(?:usd|price|cost|dollar|preis)\w*)": (-?\d+(?:\.\d+)?)' (IGNORECASE), in half the time
_JSON_KEYED_NUMBER_RX = re.compile(r'"(\w+)": (-?\d+(?:\.\d+)?)')
_JSON_DOLLAR_RX = re.compile(r"\$\s?(\d+(?:[.,]\d+)*)|(\d+(?:[.,]\d+)*)\s?\$")
_JSON_CONFIG_RX = re.compile(r'"(\d+x-[a-z0-9-]+)"')
_JSON_ROW_RX = re.compile(
    r'"configuration": "([^"]+)"[^{}]*?"(?:verdict|fit_verdict|fits)": "?(\w+)"?'
)
_JSON_NVLINK_RX = re.compile(r'"needs_nvlink": (true|false)')
_JSON_RULE_RX = re.compile(r'"rule": \{[^{}]*?"number": (\d+)')


@dataclass(frozen=True)
class _Indexed:
    numbers: frozenset[float]
    money: frozenset[tuple[str, float]]
    configurations: frozenset[str]
    rows: tuple[tuple[str, bool], ...]
    one_card: tuple[tuple[str, bool], ...]
    needs_nvlink: frozenset[bool]
    rules: frozenset[int]


@lru_cache(maxsize=512)
def _index_blob(blob: str) -> _Indexed:
    """The figures of one tool result (as JSON text), found by C-speed regexes once."""
    numbers: set[float] = set()
    figures = _JSON_NAME_RX.sub("", blob) if '": "' in blob else blob
    for raw in set(_JSON_NUMBER_RX.findall(figures)):
        sign = -1.0 if raw.startswith("-") else 1.0
        numbers.update(sign * v for v, _ in _float_candidates(raw.lstrip("-")))
    money = {
        (_money_tag(k), float(v)) for k, v in _JSON_KEYED_NUMBER_RX.findall(blob) if _money_key(k)
    }
    if "$" in blob:
        for a, b in _JSON_DOLLAR_RX.findall(blob):
            money.update(("any", v) for v, _ in _float_candidates(a or b))
    found_rows = _JSON_ROW_RX.findall(blob)
    rows = tuple(
        (cid, _FITS.get(v, v == "true"))
        for cid, v in found_rows
        if v in _FITS or v in ("true", "false")
    )
    one_card = tuple((cid, v == "fits_one_card") for cid, v in found_rows if v in _FITS)
    return _Indexed(
        numbers=frozenset(numbers),
        money=frozenset(money),
        configurations=frozenset(_JSON_CONFIG_RX.findall(blob)),
        rows=rows,
        one_card=one_card,
        needs_nvlink=frozenset(v == "true" for v in _JSON_NVLINK_RX.findall(blob)),
        rules=frozenset(int(n) for n in _JSON_RULE_RX.findall(blob)),
    )


def _blob(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


_BLOBS: dict[int, tuple[ToolCall, str]] = {}


def _blob_of(call: ToolCall) -> str:
    """The JSON text of a call's result, made once per call (the check and the session both
    index it; tool calls are not changed after they are made)."""
    hit = _BLOBS.get(id(call))
    if hit is not None and hit[0] is call:
        return hit[1]
    blob = _blob(call.result)
    if len(_BLOBS) >= 256:
        _BLOBS.clear()
    _BLOBS[id(call)] = (call, blob)
    return blob


def _model_of(result: Any, arguments: Mapping[str, Any]) -> tuple[str, str, float] | None:
    model = result.get("model") if isinstance(result, Mapping) else None
    if isinstance(model, Mapping) and model.get("id"):
        return (str(model["id"]), str(model.get("name") or ""), float(model.get("params_b") or 0))
    name = arguments.get("model")
    return (str(name).lower(), str(name), 0.0) if isinstance(name, str) else None


_FACTS: dict[tuple[int, ...], tuple[tuple[ToolCall, ...], GroundingFacts]] = {}


def facts_of_calls(calls: Iterable[ToolCall]) -> GroundingFacts:
    """Index tool results once: numbers, money by period, verdict rows, NVLink verdicts, rules.

    Guide search results are passages, not tool figures: they count only where cited. The facts
    of each call, and of each list of calls, are made once (tool calls are not changed after
    they are made; a repeated tool call is the same recorded call, see `call_tool`): the check
    and the session both ask for them. Do not change the returned facts."""
    made = tuple(c for c in calls if c.name != SEARCH_TOOL)
    if not made:
        return _union(())
    key = tuple(map(id, made))
    hit = _FACTS.get(key)
    if hit is not None and all(a is b for a, b in zip(hit[0], made, strict=True)):
        return hit[1]
    facts = _facts_of_call(made[0]) if len(made) == 1 else _union(map(_facts_of_call, made))
    if len(_FACTS) >= 1024:
        _FACTS.clear()
    _FACTS[key] = (made, facts)
    return facts


def _facts_of_call(call: ToolCall) -> GroundingFacts:
    key = (id(call),)
    hit = _FACTS.get(key)
    if hit is not None and hit[0][0] is call:
        return hit[1]
    result = call.result
    found = _index_blob(_blob_of(call))
    args = _index_blob(_blob(call.arguments))
    verdicts: set[tuple[str, str, str, bool]] = set()
    one_card: set[tuple[str, str, str, bool]] = set()
    models: set[tuple[str, str, float]] = set()
    model = _model_of(result, call.arguments)
    if model is not None:
        models.add(model)
        precision = result.get("precision") if isinstance(result, Mapping) else None
        precision = str(precision or call.arguments.get("precision") or "")
        verdicts.update((model[0], precision, c, f) for c, f in found.rows)
        one_card.update((model[0], precision, c, f) for c, f in found.one_card)
    facts = GroundingFacts.model_construct(
        numbers=sorted(found.numbers | args.numbers),
        money=sorted(found.money),
        configurations=sorted(found.configurations | args.configurations),
        models=sorted(models),
        verdicts=sorted(verdicts),
        needs_nvlink=sorted(found.needs_nvlink),
        rules=sorted(found.rules),
        one_card=sorted(one_card),
    )
    if len(_FACTS) >= 1024:
        _FACTS.clear()
    _FACTS[key] = ((call,), facts)
    return facts


def _union(parts: Iterable[GroundingFacts]) -> GroundingFacts:
    numbers: set[float] = set()
    money: set[tuple[str, float]] = set()
    configs: set[str] = set()
    models: set[tuple[str, str, float]] = set()
    verdicts: set[tuple[str, str, str, bool]] = set()
    nvlink: set[bool] = set()
    rules: set[int] = set()
    one_card: set[tuple[str, str, str, bool]] = set()
    for f in parts:
        numbers.update(f.numbers)
        money.update(f.money)
        configs.update(f.configurations)
        models.update(f.models)
        verdicts.update(f.verdicts)
        nvlink.update(f.needs_nvlink)
        rules.update(f.rules)
        one_card.update(f.one_card)
    return GroundingFacts.model_construct(
        numbers=sorted(numbers),
        money=sorted(money),
        configurations=sorted(configs),
        models=sorted(models),
        verdicts=sorted(verdicts),
        needs_nvlink=sorted(nvlink),
        rules=sorted(rules),
        one_card=sorted(one_card),
    )


def facts_of(answer: Answer) -> GroundingFacts:
    """The facts an answer's tool calls established (kept per turn by the session)."""
    return facts_of_calls(answer.tool_calls)


# --------------------------------------------------------------------------- the catalog


@dataclass(frozen=True)
class PriceBook:
    """Configuration prices plus what a mention in the text can resolve to."""

    prices: dict[str, float]
    gpu_of: dict[str, str]
    count_of: dict[str, int]
    alias_gpus: dict[str, frozenset[str]]
    mention_rx: re.Pattern[str]
    catalog_values: frozenset[float]

    def configs(self, gpus: Iterable[str], count: int | None, gen: str | None) -> frozenset[str]:
        wanted = set(gpus)
        out = {
            c
            for c, g in self.gpu_of.items()
            if g in wanted and (count is None or self.count_of[c] == count)
        }
        if gen == "gen4":
            out = {c for c in out if c.endswith("-gen4")}
        elif gen == "gen5":
            out = {c for c in out if not c.endswith("-gen4")}
        return frozenset(out)


_CATALOG_PRICES: list[tuple[Any, dict[str, Decimal]]] = []


def catalog_prices(catalog: Any) -> dict[str, Decimal]:
    """Configuration id -> exact monthly price, from a knowledge.catalog.Catalog (made once per
    catalog: the check asks for it on every answer; do not change the returned dict)."""
    for known, prices in _CATALOG_PRICES:
        if known is catalog:
            return prices
    configs = getattr(catalog, "configurations", {}) or {}
    prices = {cid: Decimal(str(c.usd_per_month)) for cid, c in configs.items()}
    _CATALOG_PRICES[:] = [(catalog, prices), *_CATALOG_PRICES[:3]]
    return prices


_CONFIG_ID_RX = re.compile(r"^(\d+)x-(.+?)(-gen4)?$")
_COUNT_WORDS = {
    "one": 1, "a": 1, "an": 1, "single": 1, "a single": 1, "eine": 1, "einer": 1, "einem": 1,
    "einen": 1, "ein": 1, "einzelne": 1, "einzelnen": 1, "einer einzelnen": 1,
    "einer einzigen": 1, "einzige": 1, "two": 2, "zwei": 2, "four": 4, "vier": 4,
    "eight": 8, "acht": 8,
}  # fmt: skip


def _aliases(gpu: str) -> dict[str, str]:
    """Squashed alias -> regex for one card id ('a100-sxm4' -> 'a100sxm4', 'a100', 'sxm4')."""
    tokens = gpu.split("-")
    out = {"".join(tokens): r"[\s-]?".join(map(re.escape, tokens))}
    if tokens[0] == "rtx" and len(tokens) > 1:
        out[tokens[1]] = re.escape(tokens[1])  # '4090'
    else:
        out[tokens[0]] = re.escape(tokens[0])  # 'a100', 'h200'
    if tokens[-1] == "pcie":  # 'the PCIe node' (not the link: 'PCIe Gen4 ×16', 'PCIe 5')
        out["pcie"] = r"pcie(?![\s-]*(?:gen|x16|×16|\d|link|lane|slot|bus|switch))"
    if len(tokens) > 1 and tokens[-1].startswith("sxm"):
        out[tokens[-1]] = re.escape(tokens[-1])  # bare 'SXM4'
        out["sxm"] = "sxm"
        out["".join(tokens[:-1]) + "sxm"] = r"[\s-]?".join(map(re.escape, tokens[:-1])) + (
            r"[\s-]?sxm"
        )
    return out


@lru_cache(maxsize=16)
def _price_book(items: tuple[tuple[str, Decimal], ...]) -> PriceBook:
    prices: dict[str, float] = {}
    gpu_of: dict[str, str] = {}
    count_of: dict[str, int] = {}
    alias_gpus: dict[str, set[str]] = {}
    patterns: dict[str, str] = {}
    for cid, price in items:
        prices[cid] = float(price)
        m = _CONFIG_ID_RX.match(cid)
        if not m:
            continue
        count_of[cid], gpu_of[cid] = int(m.group(1)), m.group(2)
        for alias, rx in _aliases(m.group(2)).items():
            alias_gpus.setdefault(alias, set()).add(m.group(2))
            patterns[alias] = rx
    cards = "|".join(patterns[a] for a in sorted(patterns, key=len, reverse=True)) or "(?!)"
    mention_rx = re.compile(
        r"(?<![\w.])(?P<card>" + cards + r")(?![\w])(?P<gen>[\s-]*\(?(?:PCIe\s+)?Gen\s?[45])?",
        re.IGNORECASE,
    )
    return PriceBook(
        prices=prices,
        gpu_of=gpu_of,
        count_of=count_of,
        alias_gpus={a: frozenset(g) for a, g in alias_gpus.items()},
        mention_rx=mention_rx,
        catalog_values=frozenset(prices.values()),
    )


_LAST_BOOK: list[tuple[Mapping[str, Decimal], PriceBook]] = []


def price_book(prices: Mapping[str, Decimal]) -> PriceBook:
    last = _LAST_BOOK[0] if _LAST_BOOK else None
    if last is not None and last[0] is prices and len(prices) == len(last[1].prices):
        return last[1]  # the catalog's prices again (see catalog_prices)
    book = _price_book(tuple(sorted(prices.items())))
    _LAST_BOOK[:] = [(prices, book)]
    return book


@dataclass(frozen=True)
class Mention:
    start: int
    end: int
    configs: frozenset[str]
    gpus: frozenset[str] = frozenset()
    count: int | None = None  # the count written before the card ('4 ×', 'one'), if any


_COUNT_BEFORE_RX = re.compile(
    r"(?:(?P<n>\d+)\s?[x×]\s?-?\s?|\b(?P<w>"
    + "|".join(sorted(map(re.escape, _COUNT_WORDS), key=len, reverse=True))
    + r")\s+)(?:NVIDIA\s+)?(?:GeForce\s+)?$",
    re.IGNORECASE,
)


_MENTIONS: dict[tuple[int, str], tuple[PriceBook, tuple[Mention, ...]]] = {}


def mentions(book: PriceBook, text: str) -> list[Mention]:
    """Configurations and cards named in the text ('4 × A100 SXM4', 'one RTX 4090', 'the H200'),
    each with the configurations it can mean (found once per book and text)."""
    key = (id(book), text)
    hit = _MENTIONS.get(key)
    if hit is not None and hit[0] is book:
        return list(hit[1])
    found = _find_mentions(book, text)
    if len(_MENTIONS) >= 2048:
        _MENTIONS.clear()
    _MENTIONS[key] = (book, tuple(found))
    return found


def _find_mentions(book: PriceBook, text: str) -> list[Mention]:
    out = []
    for m in book.mention_rx.finditer(text):
        alias = m.group("card").lower().replace(" ", "").replace("-", "")
        gpus = book.alias_gpus.get(alias, frozenset())
        start, count = m.start(), None
        before = _COUNT_BEFORE_RX.search(text, max(0, start - 32), start)
        if before:
            start = before.start()
            if before.group("n"):
                count = int(before.group("n"))
            else:
                count = _COUNT_WORDS.get(re.sub(r"\s+", " ", before.group("w").lower()))
        gen = m.group("gen")
        gen_key = None if not gen else ("gen4" if gen.strip()[-1] == "4" else "gen5")
        out.append(Mention(start, m.end(), book.configs(gpus, count, gen_key), gpus, count))
    return out


# --------------------------------------------------------------------------- text structure


@dataclass
class Sentence:
    start: int  # offset in the normalised text
    text: str
    cites: frozenset[int]
    row_cells: list[tuple[int, int]] = field(default_factory=list)  # table row: cell spans
    header: list[tuple[int, int, str]] = field(default_factory=list)  # column header cells
    paragraph_before: str = ""  # text of the paragraph before this sentence


_MARKER_RX = re.compile(r"\[(\d+)\](?!\()")


def unmarked(words: str) -> str:
    """Words quoted back (the user's) with what would read as a citation marker written "(7)":
    "[7]" is a marker only of the answer's own citations."""
    return _MARKER_RX.sub(r"(\1)", words)


_SENTENCE_END_RX = re.compile(r"(?<=[^\W\d_]|[)\]*%\"'`])[.!?]\**(?=\s+|$)")
_TABLE_SEP_RX = re.compile(r"^\s*\|?[\s:|-]+\|?\s*$")


def _markers(text: str) -> frozenset[int]:
    return frozenset(int(n) for n in _MARKER_RX.findall(text)) if "[" in text else frozenset()


def _cells(line: str, offset: int) -> list[tuple[int, int]]:
    spans, pos = [], 0
    for part in line.split("|"):
        spans.append((offset + pos, offset + pos + len(part)))
        pos += len(part) + 1
    return spans


def _table(lines: list[tuple[int, str]], cites: frozenset[int]) -> Iterator[Sentence]:
    header: list[tuple[int, int, str]] = []
    for i, (offset, line) in enumerate(lines):
        if _TABLE_SEP_RX.match(line):
            continue
        cells = _cells(line, offset)
        if i == 0:
            header = [(s, e, line[s - offset : e - offset]) for s, e in cells]
        yield Sentence(offset, line, _markers(line) or cites, row_cells=cells, header=header)


def sentences(text: str) -> Iterator[Sentence]:
    """Sentences with the markers they cite (their own, else their paragraph's); table rows."""
    offset = 0
    for block in re.split(r"(\n\s*\n)", text):
        if not block.strip() or block.startswith("\n"):
            offset += len(block)
            continue
        cites = _markers(block)
        lines, pos = [], offset
        for line in block.split("\n"):
            lines.append((pos, line))
            pos += len(line) + 1
        table = [(o, ln) for o, ln in lines if ln.lstrip("> \t").startswith("|")]
        if table:
            yield from _table(table, cites)
        seen = ""
        for line_offset, line in lines:
            if line.lstrip("> \t").startswith("|"):
                continue
            start = 0
            for m in _SENTENCE_END_RX.finditer(line):
                yield _sentence(line_offset + start, line[start : m.end()], cites, seen)
                seen += line[start : m.end()] + " "
                start = m.end()
            if line[start:].strip():
                yield _sentence(line_offset + start, line[start:], cites, seen)
                seen += line[start:] + " "
        offset += len(block)


def _sentence(start: int, text: str, cites: frozenset[int], before: str) -> Sentence:
    return Sentence(start, text, _markers(text) or cites, paragraph_before=before)


_CLAUSE_SPLIT_RX = re.compile(
    r";|,\s|:\s|\s[–—-]\s|\s(?:and|und|but|aber|while|whereas|während|whilst|vs\.?|versus|"
    r"or|oder|sondern|however|jedoch)\s",
    re.IGNORECASE,
)


def clause_bounds(text: str, pos: int) -> tuple[int, int]:
    start, end = 0, len(text)
    for m in _CLAUSE_SPLIT_RX.finditer(text):
        if m.end() <= pos:
            start = m.end()
        elif m.start() >= pos:
            end = m.start()
            break
    return start, end


# --------------------------------------------------------------------------- claims

_NUM = r"(?<![\w.,/])(\d+(?:[.,]\d+)*)"
_SP = r"[ \u00a0\u202f]?"
_UNIT = (
    r"(?P<unit>GB/s|GiB/s|TB/s|GB|GiB|TB|MB|"
    r"(?:tokens?|token|tok)(?:/s|/sec| per second| pro Sekunde|/Sekunde)|"
    r"ms|sec(?:onds?)?\b|Sekunden?\b|s\b|%|×|x\b|"
    # a batch's duration (throughput_estimate's output_minutes / _hours / _days)
    r"min(?:utes?)?\b|Minuten?\b|hours?\b|Stunden?\b|days?\b|Tagen?\b|Tage\b)"
)
_NUMBER_UNIT_RX = re.compile(
    _NUM + r"(?:" + _SP + r"[–-]" + _SP + r"(\d+(?:[.,]\d+)*))?" + r"[ \u00a0\u202f-]?" + _UNIT,
    re.IGNORECASE,
)
_COUNT_AFTER_X_RX = re.compile(
    r"^\s*(?:nvidia\s+)?(?:[a-z]{0,4}\d|rtx|gpu|karte|card|geforce|-[a-z]|\d)", re.IGNORECASE
)

_USD = r"US\$|\$|USD|US-Dollars?|Dollars?"
_OTHER = r"€|£|¥|₹|EUR|Euros?|GBP|Pounds?|Pfund|CHF|Franken|JPY|Yen|Cents?"
_AMOUNT = r"(?P<num>\d+(?:[.,]\d+)*)(?P<k>\s?[kK]\b)?"
_MONEY_RX = re.compile(
    r"(?=\d|[$€£¥₹]|\b[UuEeGgPpCcFfJjYyDd])(?:(?:(?P<pre>"
    + _USD
    + "|"
    + _OTHER
    + r")\s?"
    + _AMOUNT
    + r")"
    r"|(?:(?<![\w.,])(?P<num2>\d+(?:[.,]\d+)*)(?P<k2>\s?[kK]\b)?\s?"
    r"(?P<post>(?:" + _USD + "|" + _OTHER + r")\b|[$€£¥₹]))"
    r"|(?P<bare>(?<![\w.,$€£¥₹])\d+(?:[.,]\d+)*)(?=\s?(?:/|per\s|pro\s|im\s|je\s|a\s)"
    r"\s?(?:month|monat|mo|year|jahr|yr|hour|stunde|h|hr|day|tag|week|woche)\b))",
    re.IGNORECASE,
)
_PERIOD_AFTER_RX = re.compile(
    r"\s*(?:(?:USD|US-Dollars?|Dollars?|EUR|Euros?)\b\s*)?"
    r"(?:(?:/|per\s|pro\s|je\s)\s*(?:card|karte|gpu|GB)\b\s*)?"
    r"(?:(?:/\s*|per\s+|pro\s+|je\s+|an?\s+|im\s+|in\s+the\s+|each\s+|every\s+|jeden\s+)"
    r"(?P<p1>months?|monat|mo|mon|years?|jahr|yr|annum|hours?|stunde|std|hr|h|days?|tag|"
    r"weeks?|woche)\b"
    r"|(?P<p2>monthly|monatlich|yearly|annually|jährlich|hourly|stündlich|daily|täglich|weekly|"
    r"wöchentlich)\b"
    r"|(?:/\s*|per\s+|pro\s+|je\s+)(?P<p3>(?:1\s?)?(?:million|mio\.?|m)\s*(?:tokens?|token)))",
    re.IGNORECASE,
)
_PERIOD_BEFORE_RX = re.compile(
    r"(?P<p>per\s+(?:year|hour|day|week|annum)|pro\s+(?:jahr|stunde|tag|woche)|yearly|annual\w*|"
    r"jährlich\w*|hourly|stündlich\w*|daily|täglich\w*|jahres\w+|stunden\w+|tages\w+)"
    r"[^$€£¥\n]*$",
    re.IGNORECASE,
)
_PERIODS = {
    "month": "month", "months": "month", "monat": "month", "mo": "month", "mon": "month",
    "monthly": "month", "monatlich": "month",
    "year": "year", "years": "year", "jahr": "year", "yr": "year", "annum": "year",
    "yearly": "year", "annually": "year", "jährlich": "year",
    "hour": "hour", "hours": "hour", "stunde": "hour", "std": "hour", "hr": "hour", "h": "hour",
    "hourly": "hour", "stündlich": "hour",
    "day": "day", "days": "day", "tag": "day", "daily": "day", "täglich": "day",
    "week": "week", "weeks": "week", "woche": "week", "weekly": "week", "wöchentlich": "week",
}  # fmt: skip
_USER_FRAME_RX = re.compile(
    r"budget|limit|maxim|max\.|höchstens|bis\s+zu|up\s+to|under|unter|below|within|innerhalb|"
    r"\byour\b|\byou\b|\bihr\w*|\bsie\b|genannt|angegeben|mentioned|stated|gesagt",
    re.IGNORECASE,
)
_TRAINING_RX = re.compile(r"lora|fine-?tun|train|feinabstimm|nachtrainier", re.IGNORECASE)
_RESPECTIVELY_RX = re.compile(r"respectively|jeweils|beziehungsweise|bzw\.", re.IGNORECASE)


@dataclass
class Context:
    """Everything one check needs, indexed once."""

    book: PriceBook
    facts: GroundingFacts
    numbers: list[float]
    money: dict[str, list[float]]
    user_numbers: list[float]  # every number the user wrote (budgets are framed: see below)
    user_units: dict[str, list[float]]  # the user's figures with a unit, by kind of unit
    passages: dict[int, list[float]]
    passage_text: dict[int, str]
    in_play: frozenset[float]  # prices of configurations the tools returned (or quoted)
    training: bool  # a training question: fit rows (serving) do not judge its verdicts
    text: str = ""  # the answer's normalised text (figures stated elsewhere in it: arithmetic)
    calls: tuple[ToolCall, ...] = ()  # this turn's tool calls (sibling figures: arithmetic)
    user_money: list[float] = field(default_factory=list)  # amounts the user wrote as money

    @cached_property
    def stated(self) -> list[tuple[float, int, str, int]]:
        """The answer's figures with a unit that a tool result (or the user) gives directly:
        (value, decimal places, unit kind, position): the operands arithmetic may use."""
        out = []
        for m in _NUMBER_UNIT_RX.finditer(self.text):
            if _is_count(self.text, m):
                continue
            unit = m.group("unit")
            for v, p in _float_candidates(m.group(1)):
                if self.has_number(v, p, False, (), unit):
                    out.append((v, p, unit_kind(unit), m.start()))
                    break
        return out

    @cached_property
    def by_configuration(self) -> dict[str, list[float]]:
        """The figures of each tool-result record about one configuration (its row)."""
        return _numbers_by_configuration(tuple(c for c in self.calls if c.name != SEARCH_TOOL))

    @cached_property
    def links_by_configuration(self) -> dict[str, frozenset[int]]:
        """The NVLink generations each configuration's records name ('nvlink-3')."""
        calls = tuple(c for c in self.calls if c.name != SEARCH_TOOL)
        return _links_by_configuration(calls)

    def numbers_about(self, mentions_in: Sequence[Mention]) -> list[float]:
        """The figures of the records about the configurations named (all figures when the
        records name none of them): a claim about a card is judged by that card's figures."""
        configs = {c for m in mentions_in for c in m.configs} & set(self.by_configuration)
        if not configs:
            return self.numbers
        return sorted({v for c in configs for v in self.by_configuration[c]})

    @cached_property
    def siblings(self) -> dict[str, list[float]]:
        """Sums of two parts of a total (weights, KV cache, overhead, activations, optimizer
        states, ...) of one unit in one record of a tool result ('weights_gb' + 'kv_gb_total'):
        what "weights and KV cache together" states."""
        return _sibling_arithmetic(tuple(c for c in self.calls if c.name != SEARCH_TOOL))

    def cited_numbers(self, cites: Iterable[int]) -> Iterator[list[float]]:
        for n in cites:
            values = self.passages.get(n)
            if values:
                yield values

    @cached_property
    def price_differences(self) -> frozenset[float]:
        values = sorted(self.in_play)
        return frozenset(b - a for i, a in enumerate(values) for b in values[i + 1 :])

    def has_number(
        self, value: float, places: int, signed: bool, cites: Iterable[int], unit: str
    ) -> bool:
        pools = [self.numbers, self.user_units.get(unit_kind(unit), []), *self.cited_numbers(cites)]
        for pool in pools:
            if _near(pool, value, places) or (
                not signed and value != 0 and _near(pool, -value, places)
            ):
                return True
        return False

    def has_money(self, value: float, places: int, period: str, cites: Iterable[int]) -> bool:
        tags = ("any", period) if period != "none" else tuple(self.money)
        if any(_near(self.money.get(t, ()), value, places) for t in tags):
            return True
        return any(_near(pool, value, places) for pool in self.cited_numbers(cites))


def _context(
    answer: Answer, prices: Mapping[str, Decimal], prior: GroundingFacts | None, user_text: str
) -> Context:
    book = price_book(prices)
    facts = facts_of(answer).merged(prior)
    money: dict[str, list[float]] = {}
    for tag, v in facts.money:
        money.setdefault(tag, []).append(v)
    for p in answer.prices:
        money.setdefault("month", []).append(float(p.usd_per_month))
    for values in money.values():
        values.sort()
    in_play = {book.prices[c] for c in facts.configurations if c in book.prices}
    in_play |= {float(p.usd_per_month) for p in answer.prices}
    user = normalise(f"{answer.question}\n{user_text}")
    users = sorted(set(_text_numbers(user)))
    user_units: dict[str, list[float]] = {}
    for m in _NUMBER_UNIT_RX.finditer(user):
        for raw in filter(None, (m.group(1), m.group(2))):
            kind = unit_kind(m.group("unit"))
            user_units.setdefault(kind, []).extend(v for v, _ in _float_candidates(raw))
    for values in user_units.values():
        values.sort()
    passages = {c.n: sorted(set(_text_numbers(normalise(c.quote)))) for c in answer.citations}
    user_money = (
        sorted(
            v
            for _, _, raw, cur, k in _money_claims(user)
            for v, _ in _float_candidates(raw)
            if not k
        )
        if _DIGIT_RX.search(user)
        else []
    )
    return Context(
        text=_strip_code(normalise(answer.answer)),
        calls=tuple(answer.tool_calls),
        user_money=user_money,
        book=book,
        facts=facts,
        numbers=facts.numbers,
        money=money,
        user_numbers=users,
        user_units=user_units,
        passages=passages,
        passage_text={c.n: c.quote for c in answer.citations},
        in_play=frozenset(in_play),
        training=_mentions_training(answer.question) or _mentions_training(answer.answer),
    )


def _mentions_training(text: str) -> bool:
    return _has_any(_folded(text), _TRAINING_WORDS) and _TRAINING_RX.search(text) is not None


def unit_kind(unit: str) -> str:
    u = unit.lower()
    if u.endswith("/s") and u[0] in "gtm":
        return "bandwidth"
    if u in ("gb", "gib", "tb", "mb"):
        return "memory"
    if u.startswith("tok"):
        return "speed"
    if u in ("%", "×", "x"):
        return u.replace("×", "x")
    return "time"


def _v(kind: ViolationKind, text: str, detail: str) -> GroundingViolation:
    return GroundingViolation(kind=kind, text=text.strip()[:80], detail=detail)


# --- prices


def _period(text: str, start: int, end: int) -> str:
    m = _PERIOD_AFTER_RX.match(text, end)
    if m:
        if m.group("p3"):
            return "tokens"
        return _PERIODS.get((m.group("p1") or m.group("p2") or "").lower(), "month")
    lo, _ = clause_bounds(text, start)
    before = _PERIOD_BEFORE_RX.search(text[max(lo, start - 60) : start])
    if before:
        word = before.group("p").lower()
        for key, tag in (("jahr", "year"), ("year", "year"), ("annu", "year"), ("stund", "hour"),
                         ("hour", "hour"), ("tag", "day"), ("day", "day"), ("week", "week"),
                         ("woche", "week")):  # fmt: skip
            if key in word:
                return tag
    return "none"


def _attached(
    sentence: Sentence, mentions_in: list[Mention], pos: int, stop: int | None = None
) -> Mention | None:
    """The configuration a figure at `pos` (to `stop`, sentence-relative) belongs to: the nearest
    one named in its clause ("$8,606 against $8,140 for 8 × A100 PCIe": the second is the PCIe
    node's), a configuration before it when both are as near."""
    if sentence.row_cells:
        return _attached_in_row(sentence, mentions_in, pos)
    start, end = clause_bounds(sentence.text, pos)
    before = [m for m in mentions_in if start <= m.start < pos]
    after = [m for m in mentions_in if pos <= m.start < end]
    if before and after:
        gap_before = pos - before[-1].end
        stop = stop if stop is not None else pos
        between = sentence.text[stop : after[0].start]
        aside = "(" in between or ")" in between or ":" in between  # "(PCIe: …)" is an aside
        return after[0] if _gap_after_wins(gap_before, len(between), aside) else before[-1]
    if before:
        return before[-1]
    if after:
        return after[0]
    earlier = [m for m in mentions_in if m.start < pos]
    return earlier[-1] if earlier else None


def _gap_after_wins(gap_before: int, gap_after: int, aside: bool) -> bool:
    return not aside and gap_after < gap_before


def _attached_in_row(sentence: Sentence, mentions_in: list[Mention], pos: int) -> Mention | None:
    """In a table row: a configuration in the same cell, else in the column header (caller),
    else the first one named in the row."""
    absolute = sentence.start + pos
    for s, e in sentence.row_cells:
        if s <= absolute <= e:
            in_cell = [m for m in mentions_in if s <= sentence.start + m.start < e]
            if in_cell:
                return in_cell[0]
    return None


def _row_mention(sentence: Sentence, mentions_in: list[Mention]) -> Mention | None:
    return mentions_in[0] if mentions_in else None


def _header_mention(ctx: Context, sentence: Sentence, pos: int) -> Mention | None:
    absolute = sentence.start + pos
    for i, (s, e) in enumerate(sentence.row_cells):
        if s <= absolute <= e and 0 < i < len(sentence.header):
            found = mentions(ctx.book, sentence.header[i][2])
            if found:
                return found[0]
    return None


def _money_claims(text: str) -> Iterator[_Money]:
    """(start, end, raw number, currency, k-suffix) of every amount."""
    for m in _MONEY_RX.finditer(text):
        if m.group("num"):
            yield m.start(), m.end(), m.group("num"), m.group("pre"), m.group("k") or ""
        elif m.group("num2"):
            yield m.start(), m.end(), m.group("num2"), m.group("post"), m.group("k2") or ""
        else:
            yield m.start(), m.end(), m.group("bare"), "$", ""


def _is_usd(currency: str) -> bool:
    return bool(re.fullmatch(_USD, currency, re.IGNORECASE))


def _check_money(
    ctx: Context, s: Sentence, mentions_in: list[Mention], claims: list[_Money]
) -> list[GroundingViolation]:
    out: list[GroundingViolation] = []
    for start, end, raw, currency, k in claims:
        cands = [(v * 1000, 0) if k else (v, p) for v, p in _float_candidates(raw)]
        fragment = s.text[start:end]
        period = _period(s.text, start, end)
        problem = _money_problem(ctx, s, mentions_in, (start, end), cands, currency, period)
        if problem:
            after = _PERIOD_AFTER_RX.match(s.text, end)
            out.append(_v("price", fragment + (after.group(0) if after else ""), problem))
    return out


def _users_amount(ctx: Context, s: Sentence, start: int, cands: list[tuple[float, int]]) -> bool:
    if not any(_near(ctx.user_numbers, v, p) for v, p in cands):
        return False
    lo, hi = clause_bounds(s.text, start)
    return bool(_USER_FRAME_RX.search(s.text[max(lo, start - 40) : min(hi, start + 40)]))


def _users_money(
    ctx: Context,
    s: Sentence,
    mentions_in: list[Mention],
    start: int,
    cands: list[tuple[float, int]],
) -> bool:
    """An amount the user wrote as money (a budget, in any phrasing: "für 1.000 $ im Monat"),
    unless the answer attaches it to a configuration named before it in its clause ("1 × L4
    costs $1,000"), where it is a price claim like any other."""
    if not any(_near(ctx.user_money, v, p) for v, p in cands):
        return False
    lo, _ = clause_bounds(s.text, start)
    return not any(lo <= m.start < start for m in mentions_in)


def _money_problem(
    ctx: Context,
    s: Sentence,
    mentions_in: list[Mention],
    span: tuple[int, int],
    cands: list[tuple[float, int]],
    currency: str,
    period: str,
) -> str | None:
    start, stop = span
    if _users_amount(ctx, s, start, cands) or _users_money(ctx, s, mentions_in, start, cands):
        return None
    if not _is_usd(currency):
        return f"an amount in {currency}: the catalog prices are in US dollars per month"
    if period not in ("none", "month"):
        if any(ctx.has_money(v, p, period, s.cites) for v, p in cands):
            return None
        return f"a price per {period}: the catalog prices are per month, and no tool returned it"
    if all(v == 0 for v, _ in cands) and _attached(s, mentions_in, start, stop) is not None:
        return "says a configuration is free: no catalog price is 0"
    catalog = [v for v, p in cands if p <= 0 and v in ctx.book.catalog_values]
    if catalog:
        return _catalog_price_problem(ctx, s, mentions_in, start, catalog, stop)
    if any(ctx.has_money(v, p, period, s.cites) for v, p in cands):
        return None
    if any(p <= 0 and v in ctx.price_differences for v, p in cands):
        return None  # the difference between two prices the tools returned
    return "dollar amount found in no tool result, price quote or cited passage"


def _catalog_price_problem(
    ctx: Context,
    s: Sentence,
    mentions_in: list[Mention],
    start: int,
    values: list[float],
    stop: int | None = None,
) -> str | None:
    mention = _attached(s, mentions_in, start, stop)
    if mention is None and s.row_cells:
        mention = _header_mention(ctx, s, start) or _row_mention(s, mentions_in)
    if mention is None:
        mention = _last_mention(ctx, s)
    if mention is None:
        if any(v in ctx.in_play for v in values):
            return None
        return "a catalog price of a configuration no tool returned"
    allowed = {ctx.book.prices[c] for c in mention.configs}
    if any(v in allowed for v in values):
        return None
    if _RESPECTIVELY_RX.search(s.text):
        every = {ctx.book.prices[c] for m in mentions_in for c in m.configs}
        if any(v in every for v in values):
            return None
    named = s.text[mention.start : mention.end] if mention.end <= len(s.text) else "it"
    return f"not the catalog price of the configuration it is attached to ({named.strip()})"


def _last_mention(ctx: Context, s: Sentence) -> Mention | None:
    if not s.paragraph_before:
        return None
    found = mentions(ctx.book, s.paragraph_before)
    if not found:
        return None
    last = found[-1]
    return Mention(len(s.text) + 1, len(s.text) + 1, last.configs)


# --- numbers with units


def _is_count(text: str, m: re.Match[str]) -> bool:
    unit = m.group("unit")
    if unit in ("×", "x", "X") and _COUNT_AFTER_X_RX.match(text[m.end() : m.end() + 12]):
        return True
    return unit in ("x", "X") and m.group(0)[-2:-1].isspace()


def _sign(text: str, start: int) -> int:
    """-1 / +1 for a written sign ('-0.8 GB', '+7.88 GB', '−7,88 GB'), 0 for none."""
    if start == 0 or text[start - 1] not in "-−+":
        return 0
    if start > 1 and text[start - 2] not in " (:=\t|~≈":
        return 0  # '2-4 GB' is a range
    return 1 if text[start - 1] == "+" else -1


def _check_numbers(
    ctx: Context,
    s: Sentence,
    text: str,
    units: list[re.Match[str]],
    money: list[_Money],
    mentions_in: Sequence[Mention] = (),
) -> list[GroundingViolation]:
    out = []
    for m in units:
        rel = m.start() - s.start
        if any(a <= rel < b for a, b, *_ in money) or _is_count(text, m):
            continue
        unit = m.group("unit")
        raws = [m.group(1)] + ([m.group(2)] if m.group(2) else [])
        for i, raw in enumerate(raws):
            sign = _sign(text, m.start()) if i == 0 else 0
            signed = sign != 0
            cands = [(-v if sign < 0 else v, p) for v, p in _float_candidates(raw)]
            if i == 0 and not _scoped_number_ok(ctx, s, m, cands, list(mentions_in)):
                out.append(
                    _v("number", m.group(0), f"{raw} {unit} is not in the tool results about "
                       "the configuration it is said of")
                )  # fmt: skip
                continue
            if not _number_ok(ctx, s, cands, unit, signed) and (
                signed or not _derived_ok(ctx, s, cands, unit, m.start(), mentions_in)
            ):
                out.append(
                    _v("number", m.group(0), f"{raw} {unit} found in no tool result or cited "
                       "passage (nor in the user's words)")
                )  # fmt: skip
    return out


def _number_ok(
    ctx: Context, s: Sentence, cands: list[tuple[float, int]], unit: str, signed: bool
) -> bool:
    for v, p in cands:
        if ctx.has_number(v, p, signed, s.cites, unit):
            return True
        if unit.lower() == "ms" and ctx.has_number(v / 1000, p + 3, signed, s.cites, unit):
            return True
        if unit == "%" and ctx.has_number(v / 100, p + 2, signed, s.cites, unit):
            return True
    return False


# --- arithmetic on grounded figures (issue 25)

_DIRECTION_RX = re.compile(
    r"direction|richtung|each\s+way|both\s+ways|bidirection|bidirektional|duplex|in\s+total|"
    r"insgesamt|gesamt|total|summe|aggregate",
    re.IGNORECASE,
)
_COUNT_NOUN = (
    r"(?:[×x]|cards?|karten?|gpus?|copies|copy|kopien?|replicas?|replikas?|nodes?|knoten|"
    r"instances?|instanzen?|users?|nutzer\w*|sequences?|sequenzen|streams?|requests?|anfragen)"
)
_SENTENCE_COUNT_RX = re.compile(
    r"(?<![\w.,])(\d{1,4})\s?" + _COUNT_NOUN + r"(?![\w])"
    r"|\b(two|three|four|five|six|seven|eight|ten|sixteen|zwei|drei|vier|fünf|sechs|sieben|acht|"
    r"zehn|sechzehn)\s+(?:\w+\s+)?" + _COUNT_NOUN + r"(?![\w])|\b(twice|doppelt|double)\b",
    re.IGNORECASE,
)
_COUNT_NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
                  "ten": 10, "sixteen": 16, "zwei": 2, "drei": 3, "vier": 4, "fünf": 5,
                  "sechs": 6, "sieben": 7, "acht": 8, "zehn": 10, "sechzehn": 16, "twice": 2,
                  "doppelt": 2, "double": 2}  # fmt: skip
_KEY_UNITS = (("gb_s", "bandwidth"), ("tokens_per_s", "speed"), ("tok_s", "speed"),
              ("_gb", "memory"), ("gb_", "memory"), ("_ms", "time"), ("_s", "time"),
              ("seconds", "time"))  # fmt: skip


# the parts a total is made of: only these are summed ("weights and KV cache together")
_PART_KEYS = ("weights", "kv", "overhead", "activation", "optimizer", "gradient", "adapter",
              "non_torch", "lora", "master")  # fmt: skip


def _key_unit(key: str) -> str | None:
    k = key.lower()
    if _money_key(k) or "percent" in k or "ratio" in k or not k.startswith(_PART_KEYS):
        return None
    if k.endswith("_gb") or "_gb_" in k:
        return "bandwidth" if "gb_s" in k else "memory"
    for part, kind in _KEY_UNITS:
        if part in k:
            return kind
    return None


_SIBLINGS: dict[tuple[int, ...], tuple[tuple[ToolCall, ...], dict[str, list[float]]]] = {}
# the unit a claim must be written in to be a sum of two record fields of a kind
_KIND_UNIT = {"memory": "gb", "bandwidth": "gb/s", "speed": "tokens/s", "time": "s"}


def _sibling_arithmetic(calls: tuple[ToolCall, ...]) -> dict[str, list[float]]:
    key = tuple(map(id, calls))
    hit = _SIBLINGS.get(key)
    if hit is not None and all(a is b for a, b in zip(hit[0], calls, strict=True)):
        return hit[1]
    out: set[tuple[str, float]] = set()

    def walk(value: Any) -> None:
        if isinstance(value, Mapping):
            groups: dict[str, list[float]] = {}
            for k, v in value.items():
                kind = _key_unit(str(k)) if isinstance(v, int | float) else None
                if kind and not isinstance(v, bool):
                    groups.setdefault(kind, []).append(float(v))
                elif isinstance(v, Mapping | list):
                    walk(v)
            for kind, values in groups.items():
                for i, a in enumerate(values):
                    for b in values[i + 1 :]:
                        out.add((kind, round(a + b, 6)))
        elif isinstance(value, list):
            for v in value:
                walk(v)

    for call in calls:
        walk(call.result)
    values: dict[str, list[float]] = {}
    for kind, v in sorted(out):
        values.setdefault(kind, []).append(v)
    if len(_SIBLINGS) >= 256:
        _SIBLINGS.clear()
    _SIBLINGS[key] = (calls, values)
    return values


def _figures(value: Any) -> Iterator[float]:
    """Every number in a tool-result value, prices left out (the money check judges those)."""
    if isinstance(value, bool):
        return
    if isinstance(value, int | float):
        yield float(value)
    elif isinstance(value, Mapping):
        for k, v in value.items():
            if not _money_key(str(k)):
                yield from _figures(v)
    elif isinstance(value, list):
        for v in value:
            yield from _figures(v)


_BY_CONFIG: dict[int, tuple[ToolCall, dict[str, frozenset[float]]]] = {}


def _numbers_by_configuration(calls: tuple[ToolCall, ...]) -> dict[str, list[float]]:
    """The figures of every record that names a configuration, by configuration, with the
    plain figures of the records around it (a card's bandwidth above its list of nodes). Each
    call's records are walked once (the answer, its summary and its chart are checked against
    the same recorded calls)."""
    out: dict[str, set[float]] = {}
    for call in calls:
        for cid, values in _call_numbers_by_configuration(call).items():
            out.setdefault(cid, set()).update(values)
    return {c: sorted(v) for c, v in out.items()}


def _call_numbers_by_configuration(call: ToolCall) -> dict[str, frozenset[float]]:
    hit = _BY_CONFIG.get(id(call))
    if hit is not None and hit[0] is call:
        return hit[1]
    out: dict[str, set[float]] = {}

    def scalars(value: Mapping[str, Any]) -> list[float]:
        return [
            float(v)
            for k, v in value.items()
            if isinstance(v, int | float) and not isinstance(v, bool) and not _money_key(str(k))
        ]

    def walk(value: Any, around: tuple[float, ...]) -> None:
        if isinstance(value, Mapping):
            cid = value.get("configuration")
            if isinstance(cid, str):
                out.setdefault(cid, set()).update(_figures(value), around)
            inner = (*around, *scalars(value))
            for v in value.values():
                walk(v, inner)
        elif isinstance(value, list):
            for v in value:
                walk(v, around)

    walk(call.result, ())
    found = {c: frozenset(v) for c, v in out.items()}
    if len(_BY_CONFIG) >= 1024:
        _BY_CONFIG.clear()
    _BY_CONFIG[id(call)] = (call, found)
    return found


_NVLINK_GEN_JSON_RX = re.compile(r"nvlink[- ](\d)\b", re.IGNORECASE)
_NVLINK_GEN_RX = re.compile(r"\bNVLink[\s-]*(?:Gen(?:eration)?\s*)?(\d)\b", re.IGNORECASE)


def _links_by_configuration(calls: tuple[ToolCall, ...]) -> dict[str, frozenset[int]]:
    out: dict[str, set[int]] = {}

    def walk(value: Any) -> None:
        if isinstance(value, Mapping):
            cid = value.get("configuration")
            if isinstance(cid, str):
                blob = json.dumps(value, default=str)
                out.setdefault(cid, set()).update(int(g) for g in _NVLINK_GEN_JSON_RX.findall(blob))
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    for call in calls:
        walk(call.result)
    return {c: frozenset(v) for c, v in out.items() if v}


# between a card and a memory figure it has: "the B200 has 180 GB", "8 × H200 (1,128 GB)"
_HAS_RX = re.compile(
    r"^[\s*]*(?:\(|:|has|have|hat|haben|with|mit|offers?|bietet|comes\s+with|provides?|carries)"
    r"(?:\s+(?:a|an|total|in\s+total|insgesamt|of|von|about|rund|etwa|only|nur|just|je|each))*"
    r"\s*$",
    re.IGNORECASE,
)


def _in_clause(s: Sentence, mentions_in: list[Mention], pos: int, stop: int) -> Mention | None:
    """The configuration named nearest to a figure in its own clause (None: the clause names
    none; a table row's cell or row as `_attached` finds it)."""
    if s.row_cells:
        return _attached(s, mentions_in, pos, stop)
    lo, hi = clause_bounds(s.text, pos)
    inside = [m for m in mentions_in if lo <= m.start < hi]
    if not inside:
        return None
    return _attached(s, inside, pos, stop)


def _card_link_problems(
    ctx: Context, s: Sentence, mentions_in: list[Mention]
) -> list[GroundingViolation]:
    """An NVLink generation said of a configuration whose records name another one (issue 25:
    "4 × A100 SXM4 has NVLink 4")."""
    out = []
    for m in _NVLINK_GEN_RX.finditer(s.text):
        mention = _in_clause(s, mentions_in, m.start(), m.end())
        if mention is None:
            continue
        gens = frozenset().union(
            *(ctx.links_by_configuration.get(c, frozenset()) for c in mention.configs)
        )
        if gens and int(m.group(1)) not in gens:
            named = s.text[mention.start : mention.end].strip()
            have = ", ".join(f"NVLink {g}" for g in sorted(gens))
            out.append(_v("number", m.group(0), f"{named} has {have}, not {m.group(0)}"))
    return out


def _scoped_number_ok(
    ctx: Context,
    s: Sentence,
    m: re.Match[str],
    cands: list[tuple[float, int]],
    mentions_in: list[Mention],
) -> bool:
    """A link speed (GB/s) said of a configuration, or memory a card or node is said to have
    ("the B200 has 80 GB"), is judged by that configuration's records when the tools returned
    any (issue 25: "4 × A100 SXM4 talks at 900 GB/s", the H100's figure)."""
    kind = unit_kind(m.group("unit"))
    if kind not in ("bandwidth", "memory") or not ctx.by_configuration:
        return True
    mentions_in = mentions_in or mentions(ctx.book, s.text)
    if not mentions_in:
        return True
    rel = m.start() - s.start
    mention = _in_clause(s, mentions_in, rel, rel + len(m.group(0)))
    if mention is None:
        return True
    if kind == "memory" and (mention.end > rel or not _HAS_RX.match(s.text[mention.end : rel])):
        return True  # only "<card> has / hat / comes with N GB": a model's GB are not the card's
    records = [c for c in mention.configs if c in ctx.by_configuration]
    if not records:
        return True
    about = sorted({v for c in records for v in ctx.by_configuration[c]})
    user = ctx.user_units.get("bandwidth", [])
    counts = _counts_in(s.text)
    for v, p in cands:
        if _near(about, v, p) or _near(user, v, p):
            return True
        if any(_near(pool, v, p) for pool in ctx.cited_numbers(s.cites)):
            return True
        if _converted_ok(ctx, s, v, p, m.group("unit"), counts, about):
            return True
    return False


def _unit_key(unit: str) -> str:
    u = unit.lower()
    if u.startswith("tok"):
        return "tokens/s"
    if u in ("sec", "second", "seconds", "sekunde", "sekunden"):
        return "s"
    return u


def _tol(places: int) -> float:
    return 0.5 * 10.0**-places + 1e-9


def _within(values: Sequence[float], target: float, tol: float) -> bool:
    i = bisect.bisect_left(values, target - tol)
    return i < len(values) and values[i] <= target + tol


def _counts_in(text: str) -> set[int]:
    out = set()
    for m in _SENTENCE_COUNT_RX.finditer(text):
        word = m.group(2) or m.group(3)
        n = int(m.group(1)) if m.group(1) else _COUNT_NUMBERS[word.lower()]
        if 2 <= n <= 1024:
            out.add(n)
    return out


def _converted_ok(
    ctx: Context, s: Sentence, v: float, p: int, unit: str, counts: set[int], about: list[float]
) -> bool:
    """A unit conversion of a grounded figure: TB <-> GB, per direction <-> total (a direction
    word in the sentence), per card <-> node (a count in the sentence). `about`: the figures of
    the configurations the sentence names."""
    pools = [about, *ctx.cited_numbers(s.cites)]
    tol = _tol(p)
    factors: list[float] = [float(n) for n in counts] + [1 / n for n in counts]
    u = unit.lower()
    if u == "tb":
        factors += [1000.0, 1024.0]
    elif u in ("gb", "gib"):
        factors += [1 / 1000, 1 / 1024]
    elif u in ("gb/s", "gib/s", "tb/s") and _DIRECTION_RX.search(s.text):
        factors += [2.0, 0.5]
    return any(_within(pool, v * f, tol * f) for f in factors for pool in pools)


def _operands_ok(
    ctx: Context, s: Sentence, v: float, p: int, kind: str, pos: int, counts: set[int]
) -> bool:
    """A sum, difference or product of figures the sentence states that are themselves
    grounded (or a count times one), right within the display rounding of all of them."""
    end = s.start + len(s.text)
    ops = [(a, _tol(q)) for a, q, k, at in ctx.stated if k == kind and s.start <= at < end
           and at != pos]  # fmt: skip
    tol = _tol(p)
    for i, (a, ta) in enumerate(ops):
        for n in counts:
            if abs(a * n - v) <= tol + n * ta or abs(a / n - v) <= tol + ta / n:
                return True
        for b, tb in ops[i + 1 :]:
            if abs(a + b - v) <= tol + ta + tb or abs(abs(a - b) - v) <= tol + ta + tb:
                return True
    if len(ops) >= 3:
        return abs(sum(a for a, _ in ops) - v) <= tol + sum(t for _, t in ops)
    return False


def _ratio_ok(ctx: Context, v: float, p: int, unit: str) -> bool:
    """A ratio ('14× faster') or a share ('5.7 %') of two figures of one unit the answer
    states and a tool gives."""
    tol = _tol(p)
    figures = [(a, _tol(q), k) for a, q, k, _ in ctx.stated if k not in ("x", "%") and a]
    for i, (a, ta, k) in enumerate(figures):
        for b, tb, k2 in figures[i + 1 :]:
            if k2 != k or not b:
                continue
            for hi, th, lo, tl in ((a, ta, b, tb), (b, tb, a, ta)):
                r = hi / lo
                err = r * (th / abs(hi) + tl / abs(lo))
                if unit == "%":
                    if abs(r * 100 - v) <= tol + 100 * err or abs((r - 1) * 100 - v) <= tol + (
                        100 * err
                    ):
                        return True
                elif abs(r - v) <= tol + err:
                    return True
    return False


def _derived_ok(
    ctx: Context,
    s: Sentence,
    cands: list[tuple[float, int]],
    unit: str,
    pos: int,
    mentions_in: Sequence[Mention] = (),
) -> bool:
    """Arithmetic on grounded figures, checked: a conversion, a sum, difference, product or
    ratio, right within display rounding (issue 25). Wrong arithmetic finds nothing here."""
    kind = unit_kind(unit)
    mentions_in = mentions_in or mentions(ctx.book, s.text)
    counts = _counts_in(s.text) | {
        n for m in mentions_in for c in m.configs if (n := ctx.book.count_of.get(c, 0)) > 1
    }
    about = ctx.numbers_about(mentions_in)
    for v, p in cands:
        if v <= 0:
            continue
        if kind in ("x", "%"):
            if _ratio_ok(ctx, v, p, unit):
                return True
            continue
        sums = ctx.siblings.get(kind, [])
        if _KIND_UNIT.get(kind) == _unit_key(unit) and _within(sums, v, _tol(p)):
            return True
        if _converted_ok(ctx, s, v, p, unit, counts, about):
            return True
        if _operands_ok(ctx, s, v, p, kind, pos, counts):
            return True
    return False


# --- verdicts

_CONDITION_RX = re.compile(
    r"\b(?:if|unless|whether|wenn|falls|sofern|ob|which|welche[rsnm]?|auf welche\w*)\b|\?",
    re.IGNORECASE,
)
_MODAL_VERDICT_RX = re.compile(
    r"\b(?:would|würde|wäre)\s+(?:\w+\s+)?(?:be\s+)?(?:a\s+waste|overkill|pointless|"
    r"unnecessary|überflüssig|unnötig|verschwendet|eine\s+verschwendung|Pflicht|mandatory|"
    r"essential|a\s+must)",
    re.IGNORECASE,
)
_CONDITIONAL_RX = re.compile(
    r"\b(?:if|unless|whether|wenn|falls|sofern|ob|would|würde|könnte|could|might|"
    r"which|welche[rsnm]?|auf welche\w*)\b|\?",
    re.IGNORECASE,
)
_FIT_NEG_RX = re.compile(
    r"\b(?:does\s+not|doesn't|do\s+not|don't|won't|will\s+not|cannot|can't|can\s+not|no\s+longer)"
    r"\s+(?:\w+\s+)?(?:fit|run)|\b(?:passt|passen|läuft|laufen)\b"
    r"(?:(?:[^.;]|\.(?=\d)){0,40}?|(?:[^.;,]|\.(?=\d)){0,70}?)\b(?:nicht|keine?\w*)"
    r"\b|\btoo\s+(?:big|large|small)\b|\bzu\s+(?:groß|klein)\b|\bnicht\s+(?:genug|ausreichend)\b|"
    r"\bnot\s+enough\b|\bno\s+single\b|\bdoes\s+not\s+hold\b|\bexceeds?\b|\bübersteigt\b|"
    r"\b(?:won't|will\s+not|doesn't|does\s+not)\s+cut\s+it\b|\breicht\b[^.;]{0,60}?\bnicht\s+aus\b|"
    r"\b(?:doesn't|does\s+not|won't|can't|cannot)\s+hold\b|\bhält\b[^.;]{0,40}?\bnicht\b",
    re.IGNORECASE,
)
_FIT_POS_RX = re.compile(
    r"\b(?:fits?|passt|passen|runs?\s+on|läuft\s+auf|laufen\s+auf)\b|"
    # the same said in other words (issue 25)
    r"\b(?:be\s+)?fine\s+on\b|\bsits?\s+comfortably\b|\bcomfortably\s+(?:on|in)\b|"
    r"\bproblemlos\b|\breicht\b[^.;]{0,60}?\baus\b|\bgenügt\b|"
    r"\bcut\s+it\b",
    re.IGNORECASE,
)
_NVLINK_NEG_RX = re.compile(
    r"\b(?:no|not|kein\w*|nicht|without\s+needing)\b[^.;]{0,25}?\bNVLink\b[^.;]{0,20}?"
    r"\b(?:need|needed|necessary|required|nötig|notwendig|erforderlich|brauch\w*|benötig\w*)|"
    r"\b(?:don't|do\s+not|doesn't|does\s+not|braucht|brauchen|benötigt|benötigen|need)\s+"
    r"(?:\w+\s+){0,2}?(?:kein\w*|no)\s+NVLink\b|\bNVLink\s+(?:is|ist|wird)\s+(?:not|nicht)\s+"
    r"(?:\w+\s+)?(?:needed|necessary|required|nötig|notwendig|erforderlich|gebraucht)\b|"
    r"\b(?:don't|do\s+not|doesn't|does\s+not)\s+need\s+NVLink\b|"
    r"\bNVLink\b[^.;]{0,20}?\b(?:nicht|not)\s+(?:\w+\s+)?(?:nötig|notwendig|erforderlich|"
    r"needed|necessary|required|gebraucht)\b|"
    # the same said in other words (issue 25)
    r"\bNVLink\b(?:[^.;]|\.(?=\d)){0,60}?\b(?:überflüssig|unnötig|unnecessary|pointless|verzichtbar|"
    r"overkill|a\s+waste|eine\s+verschwendung|verschwendet|buys\s+(?:you\s+)?nothing|"
    r"bringt\s+(?:hier\s+)?nichts|not\s+worth|nicht\s+wert)|"
    r"\blohnt\s+sich\s+(?:\w+\s+){0,2}?NVLink\s+nicht\b|\bNVLink\s+lohnt\s+sich\s+(?:\w+\s+)?nicht\b|"
    # "PCIe is (not) enough", "PCIe reicht (für diesen Job nicht)": only without the negation
    r"\b(?:PCIe)\s+(?:is|ist)\s+(?:(?!not\b|nicht\b)\w+\s+)?(?:enough|sufficient|ausreichend|"
    r"genug)\b(?![^.;:]{0,40}?\bnicht\b)|"
    r"\bPCIe\s+reicht\b(?![^.;:]{0,40}?\bnicht\b)",
    re.IGNORECASE,
)
_NVLINK_POS_RX = re.compile(
    r"\bNVLink\b(?:[^.;]|\.(?=\d)){0,60}?\b(?:Pflicht|mandatory|a\s+must|essential|unverzichtbar|zwingend|"
    r"indispensable)\b|\b(?:must|should|have\s+to)\s+(?:buy|rent|get|take|choose)\s+(?:an?\s+|the\s+)?"
    r"SXM|\bSXM\s+(?:kaufen|mieten|nehmen|wählen)\b|\bSXM\s+is\s+(?:a\s+)?must\b|"
    r"\b(?:need|needs|require|requires|braucht|brauchen|benötigt|benötigen)\s+(?:\w+\s+)?NVLink\b|"
    r"\b(?:NVLink\s+(?:is|ist|wird)|(?:is|ist|wird)\s+NVLink)\s+(?:\w+\s+)?(?:needed|necessary|"
    r"required|nötig|notwendig|erforderlich|gebraucht|worth\s+it)\b",
    re.IGNORECASE,
)
_RULE_RX = re.compile(r"\b(?:rule|Regel)\s*(?:#|Nr\.?\s*)?(\d{1,2})\b", re.IGNORECASE)
_SIZE_RX = re.compile(r"(?<![\w.×])(\d+(?:[.,]\d+)?)\s?B\b")
_PRECISION_RX = re.compile(
    r"\b(fp32|bf16|fp16|fp8|int8|int4|awq|gptq|q4_k_m|q5_k_m|q8_0)\b", re.IGNORECASE
)
# a precision that qualifies the KV cache ("FP8-KV-Cache", "KV cache in FP8") is not the model's
_KV_PRECISION_RX = re.compile(
    r"\b(?:fp32|bf16|fp16|fp8|int8)[\s-]*kv\b"
    r"|\bkv[\s-]*(?:cache)?[\s-]*(?:in|as|als|auf|=|:)?\s*(?:fp32|bf16|fp16|fp8|int8)\b",
    re.IGNORECASE,
)
_PRECISION_NAMES = {"int4": "awq", "q4_k_m": "gguf-q4_k_m", "q5_k_m": "gguf-q5_k_m",
                    "q8_0": "gguf-q8_0"}  # fmt: skip


def _models_in(ctx: Context, clause: str) -> set[str] | None:
    """Model ids the clause names (None: it names none, so every model the tools saw)."""
    low = clause.lower()
    named = {mid for mid, name, _ in ctx.facts.models if name and name.lower() in low}
    sizes = [float(x.replace(",", ".")) for x in _SIZE_RX.findall(clause)]
    if not named and not sizes:
        return None
    for mid, name, params in ctx.facts.models:
        for size in sizes:
            if f"{size:g}b" in name.lower().replace(" ", "") or (params and round(params) == size):
                named.add(mid)
    return named


_ALONE_RX = re.compile(
    r"\balone\b|\ballein\w*|\bby\s+itself\b|\bon\s+its\s+own\b|\bsingle\b|\beinzeln\w*|"
    r"\beinzig\w*|\bone\s+card\b|\beine\s+karte\b|\bper\s+card\b|\bpro\s+karte\b",
    re.IGNORECASE,
)


def _verdict_problem(ctx: Context, s: Sentence, clause: str, mentions_in: list[Mention]) -> str:
    """A fit verdict judged by what it is about: a node ('4 × H200') by the node's row; one card
    ('a single H200', 'the H200 alone') by whether one card of it holds the model; a card named
    without a count ('the H200') by either."""
    negative = bool(_FIT_NEG_RX.search(clause))
    alone = _ALONE_RX.search(clause) is not None
    configs = frozenset().union(
        *(m.configs for m in mentions_in if not (m.count is None and alone))
    )
    cards = frozenset().union(*(m.gpus for m in mentions_in if m.count in (None, 1)))
    if not configs and not cards:
        return ""  # "welche Konfiguration ein Modell passt": no configuration named, no verdict
    models = _models_in(ctx, clause)
    weights = _KV_PRECISION_RX.sub(" ", clause)
    found = _PRECISION_RX.findall(weights)
    precisions = {_PRECISION_NAMES.get(p.lower(), p.lower()) for p in found}

    def wanted(mid: str, prec: str) -> bool:
        return (models is None or mid in models) and (not precisions or prec in precisions)

    relevant = [
        f for mid, prec, cid, f in ctx.facts.verdicts if cid in configs and wanted(mid, prec)
    ]
    relevant += [
        f
        for mid, prec, cid, f in ctx.facts.one_card
        if ctx.book.gpu_of.get(cid) in cards and wanted(mid, prec)
    ]
    if not relevant:
        if s.cites or not configs:
            return ""
        return "a fit verdict no tool returned for that model and configuration"
    if negative and False not in relevant:
        return "says it does not fit, but the tool result says it fits"
    if not negative and True not in relevant:
        return "says it fits, but the tool result says it does not fit"
    return ""


@lru_cache(maxsize=1)
def _rule_texts() -> tuple[str, ...]:
    """The guide's purchase rules as the tools state them (English and German)."""
    from tools.advice import RULES

    return tuple(t.lower() for r in RULES.values() for t in (r.text_en, r.text_de))


def _quotes_cited(ctx: Context, s: Sentence, clause: str) -> bool:
    """The clause quotes a cited passage or states one of the guide's purchase rules ("One model
    too big for one card, …", cited): the guide's words, not a verdict about these rows."""
    words = re.sub(r"^.*?:\s*", "", clause.strip()).strip(" .;:*").lower()
    if len(words) < 20 or not s.cites:
        return False
    if any(words in ctx.passage_text.get(c, "").lower() for c in s.cites):
        return True
    return any(words in rule for rule in _rule_texts())


def _check_verdicts(
    ctx: Context, s: Sentence, mentions_in: list[Mention]
) -> list[GroundingViolation]:
    out = []
    text = s.text
    carried: list[Mention] = []
    for lo, hi in _clauses(text):
        clause = text[lo:hi]
        # what the clause could claim (a fit verdict on a named configuration, an NVLink
        # verdict) first: a conditional or quoted clause claims nothing, so only those need it
        inside = [m for m in mentions_in if lo <= m.start < hi]
        if not inside and _SAME_SUBJECT_RX.search(text[:lo]):
            inside = carried  # "the L4 is cheaper but does not fit": the last clause's subject
        carried = inside
        fit = bool(inside) and not ctx.training and _fit_claim(clause)
        low = clause.lower()
        if not fit and "nvlink" not in low and "sxm" not in low and "pcie" not in low:
            continue
        if _quotes_cited(ctx, s, clause):
            continue
        if _CONDITIONAL_RX.search(clause):
            # a modal verdict ("NVLink would be a waste") is still one; a condition is not
            if not _MODAL_VERDICT_RX.search(clause) or _CONDITION_RX.search(clause):
                continue
            fit = False
        if fit:
            problem = _verdict_problem(ctx, s, clause, inside)
            if problem:
                out.append(_v("verdict", clause, problem))
        out.extend(_nvlink_problem(ctx, s, clause))
    out.extend(_rule_problems(ctx, s))
    return out


def _fit_claim(clause: str) -> bool:
    return bool(_FIT_POS_RX.search(clause) or _FIT_NEG_RX.search(clause))


_VERDICT_CLAUSE_RX = re.compile(
    # "passt aber nicht": without a comma before it, "aber nicht" is the particle of one clause
    r";|,\s(?:but|aber|while|whereas|während|jedoch|however)\s|"
    r"\s(?:but|aber(?!\s+(?:nicht|kein))|sondern|and|und)\s",
    re.IGNORECASE,
)


#: a clause joined by these to the one before shares its subject when it names none
_SAME_SUBJECT_RX = re.compile(r"\s(?:but|aber|and|und)\s$", re.IGNORECASE)


def _clauses(text: str) -> Iterator[tuple[int, int]]:
    start = 0
    for m in _VERDICT_CLAUSE_RX.finditer(text):
        yield start, m.start()
        start = m.end()
    yield start, len(text)


# the NVLink verdict each purchase rule states (rule 5, a fabric between nodes, states none)
_RULE_NEEDS_NVLINK = {1: False, 2: False, 3: False, 4: True}


@lru_cache(maxsize=1)
def _rule_starts() -> tuple[tuple[int, str], ...]:
    """(rule number, the first words of its text, lower-cased), English and German."""
    from tools.advice import RULES

    return tuple((n, t[:40].lower()) for n, r in RULES.items() for t in (r.text_en, r.text_de))


def _rules_cited(ctx: Context, s: Sentence) -> set[int]:
    """The purchase rules a sentence rests on: those it names by number where a tool or a cited
    passage gives that number, and the one rule a cited passage states (a passage listing
    several rules names none of them)."""
    out = {
        n
        for m in _RULE_RX.finditer(s.text)
        if (n := int(m.group(1))) in ctx.facts.rules
        or any(re.search(rf"\b{n}\b", ctx.passage_text.get(c, "")) for c in s.cites)
    }
    if not out and "[" not in s.text:
        return out
    for c in _markers(s.text):  # the sentence's own markers, not its paragraph's
        text = ctx.passage_text.get(c, "").lower()
        stated = {n for n, start in _rule_starts() if start in text}
        if len(stated) == 1:
            out |= stated
    return out


def _nvlink_problem(ctx: Context, s: Sentence, clause: str) -> list[GroundingViolation]:
    low = clause.lower()
    if "nvlink" not in low and "sxm" not in low and "pcie" not in low:
        return []
    negative = bool(_NVLINK_NEG_RX.search(clause))
    if not negative and not _NVLINK_POS_RX.search(clause):
        return []
    said = "no NVLink needed" if negative else "NVLink needed"
    by_rule = {_RULE_NEEDS_NVLINK[n]: n for n in _rules_cited(ctx, s) if n in _RULE_NEEDS_NVLINK}
    if by_rule:  # a verdict that cites a guide rule is judged by that rule (issue 25)
        if (not negative) in by_rule:
            return []
        n = by_rule[negative]
        return [_v("verdict", clause, f"says {said}, but rule {n}, which it cites, says otherwise")]
    known = ctx.facts.needs_nvlink
    if not known:
        return [] if s.cites else [_v("verdict", clause, "an NVLink verdict no tool returned")]
    if (not negative) in known:
        return []
    return [_v("verdict", clause, f"says {said}, but the tool result says the opposite")]


def _rule_problems(ctx: Context, s: Sentence) -> list[GroundingViolation]:
    out = []
    for m in _RULE_RX.finditer(s.text):
        n = int(m.group(1))
        if n in ctx.facts.rules:
            continue
        if any(re.search(rf"\b{n}\b", ctx.passage_text.get(c, "")) for c in s.cites):
            continue
        out.append(_v("verdict", m.group(0), f"rule {n} is not the rule the tools gave"))
    return out


# --------------------------------------------------------------------------- the check


_CODE_MONEY_RX = re.compile(
    r"[$€£¥]\s?\d|\d\s?[$€£¥]|\d\s?(?:USD|EUR|US-Dollars?|Dollars?|Euros?)\b|"
    r"\b(?:USD|EUR)\s?\d|\d\s*/\s*(?:month|monat|mo)\b",
    re.IGNORECASE,
)
# a figure and its currency in two table cells ("| 4,395 | $/month |", "| $ | 1 |")
_SPLIT_CELL_RX = re.compile(
    r"(?<=\d)[ \t]*\|[ \t]*(?=US\$|\$|€|USD\b|EUR\b|Dollars?\b|Euros?\b)"
    r"|(?<=[$€])[ \t]*\|[ \t]*(?=\d)|(?<=USD|EUR)[ \t]*\|[ \t]*(?=\d)",
    re.IGNORECASE,
)


def _blank_code(block: str) -> str:
    """A fenced code block blanked out, except its lines that state money (issue 25: a price
    in a code block is still a price; commands and pasted output are not claims)."""
    lines = block.split("\n")
    kept = [
        ln if 0 < i < len(lines) - 1 and _CODE_MONEY_RX.search(ln) else " " * len(ln)
        for i, ln in enumerate(lines)
    ]
    return "\n".join(kept)


def _strip_code(text: str) -> str:
    """Fenced code blocks are quoted commands: blank them out, but for lines that state money
    (inline code stays: a price in backticks is still a price). Link targets are URLs, not
    figures. A figure and its currency split over two table cells are joined."""
    if "```" in text:
        text = re.sub(r"```.*?```", lambda m: _blank_code(m.group(0)), text, flags=re.S)
    if "](" in text:
        text = re.sub(r"\]\((?:[^)]*)\)", lambda m: "]" + " " * (len(m.group(0)) - 1), text)
    if "|" in text:
        text = _SPLIT_CELL_RX.sub(" ", text)
    return text.replace("`", " ") if "`" in text else text


def _quote_violations(answer: Answer, prices: Mapping[str, Decimal]) -> list[GroundingViolation]:
    out = []
    for p in answer.prices:
        if p.configuration not in prices:
            out.append(_v("price", p.configuration, f"{p.configuration} is not a configuration"))
        elif Decimal(p.usd_per_month) != prices[p.configuration]:
            out.append(
                _v(
                    "price",
                    f"{p.configuration}: ${p.usd_per_month}",
                    f"the catalog price of {p.configuration} is ${prices[p.configuration]}",
                )
            )
    return out


def _citation_violations(answer: Answer) -> list[GroundingViolation]:
    numbers = {c.n for c in answer.citations}
    out = [
        _v("citation", m.group(0), f"marker [{m.group(1)}] has no citation")
        for m in _MARKER_RX.finditer(answer.answer)
        if int(m.group(1)) not in numbers
    ]
    out += [
        _v("citation", f"[{c.n}]", "citation without a quoted passage")
        for c in answer.citations
        if not c.quote.strip()
    ]
    return out


_VERDICT_HINT_RX = re.compile(
    r"nvlink|\bfit|\bpass|\bläuf|\blauf|\bruns?\b|\brule\b|\bregel\b|too\s|\bzu\s|"
    r"enough|genug|exceed|übersteig|sxm|pcie|fine\s+on|comfortabl|problemlos|reicht|genügt|"
    r"\bhold|\bhält|cut\s+it",
    re.IGNORECASE,
)
_DIGIT_RX = re.compile(r"\d")
# what every match of _VERDICT_HINT_RX / _TRAINING_RX contains, in `_folded` text: a sentence
# (or answer) without any of these words cannot match, so its regex search is skipped
_HINT_WORDS = (
    "nvlink", "fit", "pass", "läuf", "lauf", "run", "rule", "regel", "too", "zu", "enough",
    "genug", "exceed", "übersteig", "sxm", "pcie", "fine", "comfortabl", "problemlos", "reicht",
    "genügt", "hold", "hält", "cut",
)  # fmt: skip
_TRAINING_WORDS = ("lora", "fine", "train", "feinabstimm")
# the characters an IGNORECASE match takes for an ASCII letter that str.lower() does not map
_CASE_FIX = str.maketrans({"İ": "i", "ı": "i", "ſ": "s"})


def _folded(text: str) -> str | None:
    """The text lower-cased as IGNORECASE matching sees it, offset for offset (None when
    lower-casing would change its length)."""
    if not text.isascii() and ("İ" in text or "ı" in text or "ſ" in text):
        text = text.translate(_CASE_FIX)
    low = text.lower()
    return low if len(low) == len(text) else None


def _has_any(folded: str | None, words: tuple[str, ...]) -> bool:
    return folded is None or any(w in folded for w in words)


def _hints_verdict(s: Sentence, folded: str | None) -> bool:
    part = None if folded is None else folded[s.start : s.start + len(s.text)]
    return _has_any(part, _HINT_WORDS) and _VERDICT_HINT_RX.search(s.text) is not None


@dataclass
class _Claims:
    money: list[_Money] = field(default_factory=list)
    units: list[re.Match[str]] = field(default_factory=list)
    mentions: list[Mention] = field(default_factory=list)


def check_answer(
    answer: Answer,
    prices: Mapping[str, Decimal],
    *,
    prior: GroundingFacts | None = None,
    user_text: str = "",
) -> list[GroundingViolation]:
    """All grounding violations of an answer (empty list: the answer may be shown).

    `prior`: facts from earlier turns of the session; `user_text`: the user's earlier messages
    (the current question is `answer.question`). Every regex runs once over the whole text;
    claims are then grouped by sentence."""
    violations = _quote_violations(answer, prices)
    text = _strip_code(normalise(answer.answer))
    if _CARDS_NEEDED_RX.search(text):
        violations += _cards_needed_problems(answer, text)
    parsed = _parse(text)
    money, units, folded, verdicty = list(parsed.money), list(parsed.units), *parsed[2:4]
    if money or units or verdicty:
        ctx = _context(answer, prices, prior, user_text)
        sents = list(parsed.sentences)
        claims = _group(ctx, text, sents, money, units, verdicty)
        for i, s in enumerate(sents):
            c = claims.get(i)
            if c is not None or (verdicty and _hints_verdict(s, folded)):
                violations += _check_sentence(ctx, s, text, c or _Claims(), verdicty)
    return violations + _citation_violations(answer)


_COUNT_WORD_VALUES = {"one": 1, "a": 1, "two": 2, "three": 3, "four": 4, "eight": 8, "eine": 1,
                      "einer": 1, "zwei": 2, "drei": 3, "vier": 4, "acht": 8}  # fmt: skip
_CARDS_NEEDED_RX = re.compile(
    r"\b(?:needs?|requires?|takes|braucht|benötigt|erfordert|brauchen|benötigen)\s+"
    r"(?:[^\W\d]+\s+){0,3}?(?P<n>\d{1,2}|one|two|three|four|eight|zwei|drei|vier|acht)\s+"
    r"(?:[\w-]+\s+)?(?:cards?|GPUs?|Karten)\b",
    re.IGNORECASE,
)
_JSON_CARDS_NEEDED_RX = re.compile(r'"(?:cards_needed|cards)": (\d+)')


def _cards_needed_problems(answer: Answer, text: str) -> list[GroundingViolation]:
    """ "needs N cards": N must be a card count this turn's tools gave (`cards_needed`, `cards`)
    (issue 25: "8x H100" for a 4-card job); not judged without such a result."""
    known = {
        int(n)
        for call in answer.tool_calls
        if call.name != SEARCH_TOOL
        for n in _JSON_CARDS_NEEDED_RX.findall(_blob_of(call))
    }
    if not known:
        return []
    out = []
    for m in _CARDS_NEEDED_RX.finditer(text):
        raw = m.group("n").lower()
        n = int(raw) if raw.isdigit() else _COUNT_WORD_VALUES[raw]
        lo, hi = clause_bounds(text, m.start())
        if n in known or _CONDITION_RX.search(text[lo:hi]):
            continue
        have = ", ".join(map(str, sorted(known)))
        out.append(_v("verdict", m.group(0), f"says {n} cards; the tools gave {have}"))
    return out


class _Parsed(NamedTuple):
    money: tuple[_Money, ...]
    units: tuple[re.Match[str], ...]
    folded: str | None
    verdicty: bool  # the text may state a verdict (fit, NVLink, rule)
    sentences: tuple[Sentence, ...]


@lru_cache(maxsize=512)
def _parse(text: str) -> _Parsed:
    """The claims and sentences of an answer's (normalised) text, found once per text: the same
    question asked again gets the same answer, whose text need not be parsed again. Only the
    text's structure is kept; what the claims are checked against is not (see check_answer)."""
    digits = _DIGIT_RX.search(text) is not None
    folded = _folded(text)
    return _Parsed(
        money=tuple(_money_claims(text)) if digits else (),
        units=tuple(_NUMBER_UNIT_RX.finditer(text)) if digits else (),
        folded=folded,
        verdicty=_has_any(folded, _HINT_WORDS) and _VERDICT_HINT_RX.search(text) is not None,
        sentences=tuple(sentences(text)),
    )


def _group(
    ctx: Context,
    text: str,
    sents: list[Sentence],
    money: list[_Money],
    units: list[re.Match[str]],
    verdicty: bool,
) -> dict[int, _Claims]:
    starts = [s.start for s in sents]

    def index(pos: int) -> int | None:
        i = bisect.bisect_right(starts, pos) - 1
        return i if i >= 0 and pos < sents[i].start + len(sents[i].text) else None

    out: dict[int, _Claims] = {}
    for a, b, raw, cur, k in money:
        i = index(a)
        if i is not None:
            o = sents[i].start
            out.setdefault(i, _Claims()).money.append((a - o, b - o, raw, cur, k))
    for m in units:
        i = index(m.start())
        if i is not None:
            out.setdefault(i, _Claims()).units.append(m)
    if money or verdicty:
        for found in mentions(ctx.book, text):
            i = index(found.start)
            if i is not None:
                o = sents[i].start
                bucket = out.get(i)
                if bucket is None and not verdicty:
                    continue
                bucket = bucket or out.setdefault(i, _Claims())
                bucket.mentions.append(
                    Mention(found.start - o, found.end - o, found.configs, found.gpus, found.count)
                )
    return out


def _check_sentence(
    ctx: Context, s: Sentence, text: str, claims: _Claims, verdicty: bool
) -> list[GroundingViolation]:
    out: list[GroundingViolation] = []
    if claims.money:
        out += _check_money(ctx, s, claims.mentions, claims.money)
    if claims.units:
        out += _check_numbers(ctx, s, text, claims.units, claims.money, claims.mentions)
    if verdicty:
        out += _check_verdicts(ctx, s, claims.mentions)
        if claims.mentions and "nvlink" in s.text.lower():
            out += _card_link_problems(ctx, s, claims.mentions)
    return out
