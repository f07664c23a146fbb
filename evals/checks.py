"""Check one answer against a case's expectations: deterministic, no LLM, no network.

Every expectation becomes one or more `Check(kind, ok, detail)`; a turn passes when all its checks
pass. The kinds feed the run's metrics (verdict accuracy, number accuracy, price exactness,
citation precision/recall, grounding, language match, tool-call correctness).
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from evals.schema import (
    ADVICE_VERDICTS,
    FIT_VERDICTS,
    PRICE_UNITS,
    TEMPLATE_RX,
    UNIT_ALIASES,
    CheapestExpectation,
    Expectations,
)

# kinds, in report order
KINDS = (
    "grounding",
    "language",
    "verdict",
    "rule",
    "number",
    "price",
    "citation",
    "tools",
    "contains",
    "pattern",
    "forbidden",
    "error",
)


@dataclass
class Check:
    kind: str
    ok: bool
    detail: str

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "ok": self.ok, "detail": self.detail}


@dataclass
class CitationScore:
    expected: int = 0  # expected citations
    matched_expected: int = 0  # expected citations the answer has
    cited: int = 0  # citations of the answer (counted only when citations are expected)
    relevant_cited: int = 0  # of those, ones that match an expectation


@dataclass
class TurnChecks:
    checks: list[Check] = field(default_factory=list)
    citations: CitationScore = field(default_factory=CitationScore)
    grounding_violations: int = 0
    # a yes/no question: does the first sentence answer it, without contradicting itself?
    # (None: not a yes/no question). A metric, not a pass/fail check of the case.
    first_sentence: bool | None = None
    first_sentence_detail: str = ""

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    def add(self, kind: str, ok: bool, detail: str) -> None:
        self.checks.append(Check(kind, ok, detail))


# --------------------------------------------------------------------------- numbers

_NUM = r"(?<![\w.,])(\d+(?:[.,]\d+)*)"
_SP = r"[ \u00a0\u202f]?"
UNIT_PATTERNS: dict[str, str] = {
    "GB": r"GB(?!/)\b",
    "GiB": r"GiB(?!/)\b",
    "TB": r"TB(?!/)\b",
    "GB/s": r"GB/s",
    "tokens/s": r"(?:tokens?|Token|tok)(?:/s\b|/sec\b| per second| pro Sekunde)",
    "tokens": r"(?:tokens?|Token)\b(?!/)",
    "s": r"(?:s|sec|seconds?|Sekunden?)\b(?!/)",
    "ms": r"ms\b",
    "%": r"%",
    "×": r"(?:×|x)(?![\w-])",
    "bytes": r"(?:bytes?|Bytes?)\b",
    "layers": r"(?:layers?|Layern?|Schichten)\b",
    # "up to 8 concurrent sequences", "bis zu 8 gleichzeitige Sequenzen"
    "sequences": r"(?:(?:concurrent|simultaneous|parallel|gleichzeitige|parallele)\s+)?"
    r"(?:sequences?|Sequenzen?)\b",
}
_UNIT_ALIASES = UNIT_ALIASES  # evals/schema.py: the units a case may name, checked on load


#: an expected tool that another tool runs for the answer: `cheapest_fit` is `fit_check` over
#: the catalog sorted by price (its result carries the same fit rows), so a case written as
#: "`sizing fit … --sort price`" is met by it
#: an expected tool met by another that does its work: cheapest_fit runs fit_check over the
#: catalog, and its rows carry each node's catalog price and its source, as price_quote does
TOOLS_THAT_RUN: dict[str, set[str]] = {
    "fit_check": {"cheapest_fit"},
    "price_quote": {"cheapest_fit"},
}


def _registry_names() -> frozenset[str]:
    """The tools the registry serves (a case that names another is the writer's error)."""
    from assistant.registry import REGISTRY

    return frozenset(REGISTRY)


def unit_key(unit: str) -> str:
    key = unit.strip().lower()
    if key in PRICE_UNITS:
        return "$"
    if key in _UNIT_ALIASES:
        return _UNIT_ALIASES[key]
    raise ValueError(f"unknown unit {unit!r} (known: {', '.join(UNIT_PATTERNS)}, $)")


def number_values(text: str) -> list[Decimal]:
    """Every value a written number may mean: "4,395" -> 4395 or 4.395; "2,7" -> 2.7;
    "1.015,2" -> 1015.2; "0.16" -> 0.16."""
    text = text.strip()
    out: list[Decimal] = []
    seps = re.findall(r"[.,]", text)
    groups = re.split(r"[.,]", text)

    def add(s: str) -> None:
        with contextlib.suppress(InvalidOperation):
            out.append(Decimal(s))

    if not seps:
        add(text)
        return out
    if len(set(seps)) == 1 and all(len(g) == 3 for g in groups[1:]):
        add("".join(groups))
    if len(seps) == 1:
        add(groups[0] + "." + groups[1])
    elif len(set(seps)) == 2:
        dec = seps[-1]
        whole, frac = text.rsplit(dec, 1)
        add(re.sub(r"[.,]", "", whole) + "." + frac)
    return out


def figures(text: str, unit: str) -> list[Decimal]:
    """All figures stated with `unit` in the text (both decimal conventions)."""
    key = unit_key(unit)
    out: list[Decimal] = []
    if key == "$":
        rxs = [
            re.compile(r"(?:US\$|\$|USD" + _SP + r")" + _SP + r"(\d+(?:[.,]\d+)*)"),
            re.compile(_NUM + _SP + r"(?:\$|USD\b|US-Dollar)"),
        ]
    else:
        rxs = [
            re.compile(
                _NUM
                + r"(?:"
                + _SP
                + r"[–-]"
                + _SP
                + r"(\d+(?:[.,]\d+)*))?"
                + r"[ \u00a0\u202f-]?"
                + UNIT_PATTERNS[key],
                re.IGNORECASE if key not in ("GB", "GiB", "TB", "GB/s", "ms") else 0,
            )
        ]
    for rx in rxs:
        for m in rx.finditer(text):
            for g in m.groups():
                if g:
                    out.extend(number_values(g))
    return out


# --------------------------------------------------------------------------- verdict phrases

VERDICT_TEXT: dict[str, dict[str, str]] = {
    "fits_one_card": {
        "en": r"\bfits (?:on|in(?:to)?) (?:one|a single|an?) (?:\w+ )?(?:card|GPU)|fits on one\b|"
        r"\bfits\b(?![^.]*\bnot\b)",
        # ("passt hier auf eine Karte": a word or two between, never "nicht")
        "de": r"passt (?:(?!nicht\b)[\w-]+ ){0,2}?(?:auf|in) (?:eine|einer|die) "
        r"(?:einzelne |einzige )?(?:\S+ )?Karte|"
        r"passt (?:auf|in)\b(?![^.]*\bnicht\b)",
    },
    "split": {
        "en": r"must be split|has to be split|needs to be split|split (?:it )?across|split over",
        "de": r"aufgeteilt|aufteilen|verteilt werden",
    },
    "does_not_fit": {
        "en": r"does not fit|doesn't fit|does not hold|won't fit|will not fit|fits (?:on )?no\b|"
        r"no (?:node|configuration) (?:in the catalog )?(?:holds|fits)|not fit|too (?:big|large)",
        # German puts "nicht" after what it negates: "passt in BF16 nicht auf 2 × L40S"
        "de": r"passt (?:[\w-]+ ){0,3}?nicht(?! nur)|passt auf kein|passt in kein|"
        r"fasst (?:ihn|es|das|das Modell) nicht|"
        r"kein(?:e|en)? (?:Knoten|Konfiguration)|zu groß|"
        r"\breicht\b(?:[^.;]|\.(?=\d)){0,60}?\bnicht\b",
    },
    "sxm": {"en": r"\bSXM\b|NVLink", "de": r"\bSXM\b|NVLink"},
    "pcie": {"en": r"\bPCIe\b", "de": r"\bPCIe\b"},
    "pcie_size_for_memory": {"en": r"\bPCIe\b", "de": r"\bPCIe\b"},
    "one_card": {
        "en": r"\bone card\b|\bsingle card\b|\b1 × ",
        "de": r"\beine(?:r)? (?:einzelne[nr]? )?Karte\b|\b1 × ",
    },
    "not_offered": {
        "en": r"don't offer|do not offer|not offer|more than eight|fabric",
        "de": r"nicht an\b|bieten (?:wir )?(?:\w+ )?nicht|mehr als acht|Fabric",
    },
    "unknown_model": {
        "en": r"don't know|do not know|not in the catalog|unknown model|no model (?:named|called)",
        "de": r"kenne .{0,60}nicht|nicht im Katalog|unbekannt",
    },
    "off_topic": {
        "en": r"\bonly help\b|\bcan only\b|\bsizing\b|outside|not something I",
        "de": r"\bnur\b|Dimensionierung|außerhalb",
    },
}


_PCIE_RULES = {"pcie", "pcie_size_for_memory"}
#: an unknown model sized as a generic one of the size in its name ("sized from its name as a
#: generic dense 13B model"): its figures and prices come from the tools
_GENERIC_SIZING_RX = re.compile(r"generic dense|generisches dichtes", re.IGNORECASE)


def headline(text: str) -> str:
    """The first paragraph of an answer (its verdict line), italics notices skipped."""
    for para in re.split(r"\n\s*\n", text.strip()):
        p = para.strip()
        if p and not (p.startswith("_") and p.endswith("_")):
            return p
    return text


# --------------------------------------------------------------------------- language

_DE_WORDS = {
    "der", "die", "das", "und", "ist", "nicht", "eine", "einer", "ein", "auf", "für", "mit",
    "sie", "ich", "pro", "karte", "karten", "passt", "wird", "werden", "auch", "oder", "bei",
    "zu", "von", "den", "dem", "des", "im", "nur", "als", "muss", "kann", "braucht", "monat",
}  # fmt: skip
_EN_WORDS = {
    "the", "and", "is", "not", "a", "an", "on", "for", "with", "you", "i", "per", "card",
    "cards", "fits", "will", "be", "also", "or", "at", "to", "of", "in", "only", "as", "must",
    "can", "needs", "month", "it", "this", "that",
}  # fmt: skip


def detect_language(text: str) -> str | None:
    """'de', 'en' or None (too little text to tell). Links and code are ignored."""
    plain = re.sub(r"\]\([^)]*\)|`[^`]*`|https?://\S+", " ", text)
    words = re.findall(r"[a-zäöüß]+", plain.lower())
    de = sum(w in _DE_WORDS for w in words) + 2 * sum(ch in "äöüß" for ch in plain.lower())
    en = sum(w in _EN_WORDS for w in words)
    if de + en < 3:
        return None
    if de > en * 1.3:
        return "de"
    if en > de * 1.3:
        return "en"
    return None


# --------------------------------------------------------------------------- the checks


def _cite_key(c: Any) -> tuple[str, str]:
    url = c.url if hasattr(c, "url") else c["url"]
    guide = c.guide if hasattr(c, "guide") else c["guide"]
    anchor = url.split("#", 1)[1] if "#" in url else ""
    return guide, anchor


def _matches(expected: str, cite: tuple[str, str]) -> bool:
    guide, _, anchor = expected.partition("#")
    return cite[0] == guide and (not anchor or cite[1] == anchor)


def _price_in_text(text: str, usd: Decimal) -> bool:
    return any(v == usd for v in figures(text, "$"))


def usd_text(value: Decimal) -> str:
    """A price as the answers write it: $4,395 (cents only when there are any)."""
    if value == value.to_integral_value():
        return f"${int(value):,}"
    return f"${value:,.2f}"


class TemplateError(ValueError):
    """A `{price:ID}` template names a configuration the catalog under test does not have."""


def expand(text: str, catalog_prices: dict[str, Decimal], regex: bool = False) -> str:
    """`{price:ID}` -> the catalog price as written ("$4,395"); `{price_diff:A,B}` -> the monthly
    difference of two catalog prices ("$238"). With `regex`, the expansion is escaped."""

    def one(m: re.Match[str]) -> str:
        ids = m.group("args").split(",")
        missing = [i for i in ids if i not in catalog_prices]
        if missing:
            raise TemplateError(f"{m.group(0)}: {', '.join(missing)} not in the catalog")
        if m.group("kind") == "price":
            value = catalog_prices[ids[0]]
        else:
            value = abs(catalog_prices[ids[0]] - catalog_prices[ids[1]])
        out = usd_text(value)
        return re.escape(out) if regex else out

    if regex:  # a template written with its braces escaped, as a regex: "\{price_diff:A,B\}"
        text = _ESCAPED_TEMPLATE_RX.sub(r"{\1}", text)
    return TEMPLATE_RX.sub(one, text)


_ESCAPED_TEMPLATE_RX = re.compile(r"\\\{((?:price|price_diff):[a-z0-9,-]+)\\\}")


def check_turn(
    answer: Any,
    expect: Expectations,
    language: str,
    catalog_prices: dict[str, Decimal],
    deps: Any = None,
) -> TurnChecks:
    """All checks of one answer (an assistant.answer.Answer), against the catalog under test
    (`catalog_prices`) and, for `cheapest_named`, the tools over `deps`."""
    from assistant.grounding import check_answer

    out = TurnChecks()
    text: str = answer.answer
    calls = list(answer.tool_calls)
    names = [c.name for c in calls]

    # grounding: violations the assistant recorded, and an independent re-check of the answer.
    # When an LLM answer was not shown (attempts, offline mode), `answer.violations` are the
    # rejected attempt's, not the shown answer's: the runner reports them apart (`llm`).
    fell_back = bool(getattr(answer, "attempts", None)) and answer.mode != "llm"
    recorded = [] if fell_back else list(answer.violations)
    violations = recorded + check_answer(answer, catalog_prices)
    withheld = bool(answer.notice and "grounding" in answer.notice.lower())
    out.grounding_violations = len(violations) + (1 if withheld and not violations else 0)
    if violations or withheld:
        detail = "; ".join(f"{v.kind}: {v.text!r} ({v.detail})" for v in violations[:5])
        out.add("grounding", False, detail or f"answer withheld: {answer.notice}")
    else:
        out.add("grounding", True, "no violations")

    # language: the Answer's field and the text itself
    detected = detect_language(text)
    lang_ok = answer.language == language and detected in (language, None)
    out.add(
        "language",
        lang_ok,
        f"expected {language}, answer.language={answer.language}, text looks {detected or '?'}",
    )

    out.first_sentence, out.first_sentence_detail = first_sentence(
        getattr(answer, "question", ""), text
    )

    # verdict
    spec = expect.verdict_spec()
    if spec is not None:
        out.add("verdict", *_verdict(spec.value, spec.configuration, answer, language))
    if expect.rule is not None:
        # the answer applies a rule only if every purchase_advice call agrees; an answer that
        # quotes rule 3 and rule 4 side by side ("it depends on the load") has not decided
        rules = sorted(
            {
                ((c.result or {}).get("rule") or {}).get("number")
                for c in calls
                if c.name == "purchase_advice"
            },
            key=str,
        )
        out.add(
            "rule",
            rules == [expect.rule],
            f"expected rule {expect.rule}, purchase_advice gave "
            + (f"rule(s) {', '.join(map(str, rules))}" if rules else "nothing (not called)"),
        )

    # phrases and patterns ({price:ID} templates expanded against the catalog under test)
    _phrases(out, expect, text, catalog_prices)

    # numbers
    for n in expect.numbers:
        stated = figures(text, n.unit)
        tol = Decimal(str(n.tolerance)) + Decimal("1e-9")
        want = Decimal(str(n.value))
        ok = any(abs(v - want) <= tol for v in stated)
        shown = ", ".join(sorted({_fmt(v) for v in stated})[:8]) or "none"
        label = f" ({n.label})" if n.label else ""
        out.add("number", ok, f"{_fmt(want)} {n.unit} ±{n.tolerance}{label}; stated: {shown}")

    # prices: the quote (exact Decimal) and the figure in the text
    quotes = {p.configuration: Decimal(str(p.usd_per_month)) for p in answer.prices}
    _prices(out, expect, text, quotes, catalog_prices)
    if expect.cheapest_named is not None:
        out.add("price", *_cheapest(expect.cheapest_named, text, quotes, catalog_prices, deps))

    # citations: recall must be 1; precision is a metric
    cites = [_cite_key(c) for c in answer.citations]
    if expect.citations:
        score = out.citations
        score.expected = len(expect.citations)
        score.cited = len(cites)
        for e in expect.citations:
            hit = any(_matches(e, c) for c in cites)
            score.matched_expected += hit
            out.add("citation", hit, f"cites {e}" + ("" if hit else f"; cited: {_cites(cites)}"))
        score.relevant_cited = sum(any(_matches(e, c) for e in expect.citations) for c in cites)
    if expect.no_citations:
        out.add(
            "citation", not cites, "cites nothing" + (f"; cited: {_cites(cites)}" if cites else "")
        )

    # tools
    for t in expect.tools:
        met = t in names or bool(set(names) & TOOLS_THAT_RUN.get(t, set()))
        why = "" if met else f"; called: {names or 'none'}"
        if not met and t not in _registry_names():
            why += f" ({t} is no registry tool: the case names a tool that does not exist)"
        out.add("tools", met, f"called {t}{why}")
    for t in expect.forbidden_tools:
        out.add("tools", t not in names, f"did not call {t}")
    if expect.no_tools:
        out.add("tools", not names, "no tool calls" + (f"; called: {names}" if names else ""))
    return out


_NEGATIVE_FIT = re.compile(
    r"\b(?:does not fit|doesn't fit|not enough|no configuration|passt\b[^.]*\bnicht|"
    r"reicht nicht|keine konfiguration)",
    re.IGNORECASE,
)
_POSITIVE_FIT = re.compile(r"\b(?:fits (?:on|here)|passt\b(?![^.]*\bnicht))", re.IGNORECASE)


def first_sentence(question: str, text: str) -> tuple[bool | None, str]:
    """A yes/no question's answer starts with yes or no (ja/nein), or asks back; and its first
    sentence does not contradict that word ("Yes — … does not fit")."""
    from assistant.compose.polarity import is_yes_no, lead_polarity
    from assistant.nlu.claims import negates_fit

    if not is_yes_no(question):
        return None, "not a yes/no question"
    lead = text.strip().split("\n")[0]
    sentence = re.split(r"(?<=[.!?:])\s", lead.replace("**", ""), maxsplit=2)
    first = " ".join(sentence[:2]) if len(sentence[0]) < 12 else sentence[0]
    polarity = lead_polarity(text)
    if polarity is None and _NEGATED_LEAD_RX.match(first):
        return True, "answers a negative question (right / stimmt / doch)"
    if polarity is None:
        if first.rstrip().endswith("?"):
            return True, "asks back"
        if _NO_VERDICT_RX.search(first):
            return True, "declines: no verdict to give"
        return False, f"no yes/no first: {first[:80]!r}"
    if _TOO_SMALL_RX.search(question) or negates_fit(question):
        # "Is the H100 too small for it?", "X won't fit, will it?": "No — it fits" and
        # "Yes — it does not fit" agree
        polarity = not polarity
    if polarity and _NEGATIVE_FIT.search(first):
        return False, f"yes, then a negative: {first[:80]!r}"
    if not polarity and _POSITIVE_FIT.search(first) and not _NEGATIVE_FIT.search(first):
        return False, f"no, then a positive: {first[:80]!r}"
    return True, "answered first"


# a first sentence that has no verdict to give: the goal is out of scope or the model unknown
# (assistant/texts.py, compose/scope.py); "it depends" is no answer and still counts as one
_NO_VERDICT_RX = re.compile(
    r"outside what I can answer|außerhalb dessen, was ich beantworten kann|"
    r"I can only help with sizing|Ich helfe nur bei der Dimensionierung|"
    r"I don't know the model|kenne ich nicht",
    re.IGNORECASE,
)


# the words a negative question is answered with (assistant/compose/polarity.py)
_NEGATED_LEAD_RX = re.compile(r"^\W*(?:right|stimmt|doch|ja,\s*stimmt)\b", re.IGNORECASE)

# a yes/no asked the other way round: its "yes" says the job does not fit
_TOO_SMALL_RX = re.compile(
    r"\b(?:too|zu) (?:small|little|klein|knapp|wenig)\b|\bnot (?:big|large) enough\b|"
    r"\bnicht groß genug\b",
    re.IGNORECASE,
)


_NOT_CONTAIN = "does not contain {!r}"
_NOT_MATCH = "does not match /{}/"


def _phrases(out: TurnChecks, expect: Expectations, text: str, prices: dict[str, Decimal]) -> None:
    low = text.lower()
    groups = (
        ("contains", expect.contains, False, lambda p: p.lower() in low, "contains {!r}"),
        ("pattern", expect.patterns, True, lambda p: _search(p, text), "matches /{}/"),
        ("forbidden", expect.forbidden, False, lambda p: p.lower() not in low, _NOT_CONTAIN),
        ("forbidden", expect.forbidden_patterns, True, lambda p: not _search(p, text), _NOT_MATCH),
    )
    for kind, phrases, regex, test, label in groups:
        for raw in phrases:
            try:
                phrase = expand(raw, prices, regex=regex)
            except TemplateError as exc:
                out.add(kind, False, str(exc))
                continue
            ok = test(phrase)
            detail = label.format(phrase)
            if not ok and kind == "forbidden" and regex:
                m = re.search(phrase, text, re.IGNORECASE)
                detail += f" (found {m.group(0)!r})" if m else ""
            out.add(kind, ok, detail)


def _search(pattern: str, text: str) -> bool:
    return re.search(pattern, text, re.IGNORECASE) is not None


def _prices(
    out: TurnChecks,
    expect: Expectations,
    text: str,
    quotes: dict[str, Decimal],
    catalog: dict[str, Decimal],
) -> None:
    specs = expect.price_specs()
    for cid, spec in specs.items():
        usd = catalog.get(cid) if spec == "catalog" else Decimal(str(spec))
        source = "catalog price" if spec == "catalog" else "literal"
        if usd is None:
            out.add("price", False, f"{cid}: not in the catalog under test")
            continue
        q = quotes.get(cid)
        in_text = _price_in_text(text, usd)
        ok = q is not None and q == usd and in_text
        detail = f"{cid}: expected ${_fmt(usd)}/month ({source}); quote " + (
            f"${_fmt(q)}" if q is not None else "missing"
        )
        detail += ", stated in text" if in_text else ", not stated in text"
        out.add("price", ok, detail)
    if expect.only_prices:
        allowed = set(specs)
        extra = sorted(set(quotes) - allowed)
        out.add(
            "price",
            not extra,
            "no other quotes" + (f" (also: {', '.join(extra)})" if extra else ""),
        )


def cheapest_expected(spec: CheapestExpectation, deps: Any) -> list[dict[str, Any]]:
    """The cheapest rows (ties included) `cheapest_fit` gives for the spec, over `deps`."""
    from assistant.registry import call_tool

    args = spec.model_dump(exclude_none=True)
    rows = list(call_tool(deps, "cheapest_fit", args).result.get("cheapest") or [])
    if not rows:
        return []
    best = Decimal(str(rows[0]["usd_per_month"]))
    return [r for r in rows if Decimal(str(r["usd_per_month"])) == best]


def _cheapest(
    spec: CheapestExpectation,
    text: str,
    quotes: dict[str, Decimal],
    catalog: dict[str, Decimal],
    deps: Any,
) -> tuple[bool, str]:
    label = f"cheapest for {spec.model}" + (f" in {spec.precision}" if spec.precision else "")
    if deps is None:
        return False, f"{label}: needs the tools (run through the eval runner)"
    try:
        rows = cheapest_expected(spec, deps)
    except Exception as exc:  # a bad spec is a failed check, never a crashed run
        return False, f"{label}: cheapest_fit failed: {exc}"
    if not rows:
        return False, f"{label}: no configuration in the catalog under test holds it"
    for row in rows:
        cid = row["configuration"]
        usd = catalog.get(cid)
        if usd is not None and quotes.get(cid) == usd and _price_in_text(text, usd):
            return True, f"{label}: names {cid} at ${_fmt(usd)}/month (tools say so)"
    want = ", ".join(f"{r['configuration']} (${r['usd_per_month']})" for r in rows)
    return False, f"{label}: tools say {want}; quoted: {', '.join(quotes) or 'nothing'}"


def _cites(cites: list[tuple[str, str]]) -> str:
    return ", ".join(f"{g}#{a}" for g, a in cites) or "none"


def _fmt(v: Decimal | None) -> str:
    if v is None:
        return "-"
    s = format(v.normalize(), "f")
    return s


def _training_verdicts(calls: list[Any], configuration: str) -> set[Any]:
    """The fit verdict a training_fit row gives `configuration`: one card holds the job, the
    node's cards together do (split), or not (empty: no training_fit row for it)."""
    for c in calls:
        res = c.result if isinstance(c.result, dict) else {}
        if c.name != "training_fit":
            continue
        for r in res.get("rows") or []:
            if isinstance(r, dict) and r.get("configuration") == configuration:
                if r.get("fits_one_card"):
                    return {"fits_one_card"}
                return {"split" if r.get("fits_node") else "does_not_fit"}
    return set()


def _verdict(value: str, configuration: str | None, answer: Any, language: str) -> tuple[bool, str]:
    text = answer.answer
    calls = list(answer.tool_calls)
    rx = re.compile(VERDICT_TEXT[value][language], re.IGNORECASE)
    if value in FIT_VERDICTS:
        head = headline(text)
        if configuration is None:
            ok = rx.search(head) is not None
            return (
                ok,
                f"{value}: headline {'states' if ok else 'does not state'} it: {head[:160]!r}",
            )
        # a training job's verdict is its training_fit row ("QLoRA 70B on one A100?"); else the
        # first fit result that covers the configuration is the one the answer is about (later
        # calls are alternatives, e.g. "in AWQ it does fit")
        reading = getattr(answer, "reading", None)
        served = "serve_after" in (getattr(reading, "topics", None) or [])
        got: set[Any] = set() if served else _training_verdicts(calls, configuration)
        for c in [] if got else calls:
            res = c.result if isinstance(c.result, dict) else {}
            # fit_check / cheapest_fit rows ("cheapest" is an id in price_quote's result)
            listed = [res.get("rows"), res.get("cheapest")]
            rows = [
                r for part in listed if isinstance(part, list) for r in part if isinstance(r, dict)
            ]
            got = {r.get("verdict") for r in rows if r.get("configuration") == configuration}
            if got:
                break
        if not got:
            return False, f"{value} on {configuration}: no fit result for it"
        text_ok = rx.search(text) is not None
        ok = got == {value} and text_ok
        return ok, (
            f"{value} on {configuration}: tool says {', '.join(sorted(str(g) for g in got))}"
            + ("" if text_ok else "; the text does not say so")
        )
    if value in ADVICE_VERDICTS:
        advice = [c for c in calls if c.name == "purchase_advice"]
        if not advice:
            return False, f"{value}: purchase_advice not called"
        recs = sorted({str((c.result or {}).get("recommendation")) for c in advice})
        text_ok = rx.search(text) is not None
        # "pcie" is PCIe recommended, whichever PCIe rule says so (rule 2, or rule 3's "PCIe
        # works, size for memory"); a case that tells them apart says `rule:`
        accepted = ({value} | _PCIE_RULES) if value == "pcie" else {value}
        return set(
            recs
        ) <= accepted and text_ok, f"{value}: purchase_advice says {', '.join(recs)}" + (
            "" if text_ok else "; the text does not say so"
        )
    # unknown_model / off_topic: from the text (and no made-up figures)
    ok = rx.search(text) is not None
    if value == "off_topic":
        ok = ok and not answer.prices and not answer.tool_calls
    if value == "unknown_model":
        # prices only beside a sizing the tools made from the size in its name, said as such
        ok = ok and (not answer.prices or _GENERIC_SIZING_RX.search(text) is not None)
    return ok, f"{value}: {'stated' if ok else 'not stated'} ({headline(text)[:120]!r})"
