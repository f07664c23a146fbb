"""The short answer every surface shows first (`Answer.summary`, issue 26).

At most `MAX_WORDS` words, built from the answer's structured parts, never from phrase lists over
its prose:

1. the verdict: the lead's first sentence as the composer wrote it (in the user's polarity, after
   `assistant.first_sentence` checked it against the tool results), its links reduced to their
   labels;
2. the one figure that decides it, when the verdict states none: the fit row of the recommended
   configuration (the memory a card needs against what it has), else the model's weights; for a
   pasted `nvidia-smi topo -m` the card pair that is off (`check_topology_output`);
3. the price of what is recommended: the configuration the answer chose, the one the question
   named, or the one price the answer quotes, from the catalog;
4. the rule in a few words: the guide's purchase rule `purchase_advice` returned (its key).

Every part goes through the same grounding check as the answer (`check_answer` over the answer's
own tool calls); a part that fails it is left out, the least needed first. The full answer is the
details: widget "Details", the Slack thread, the CLI after the summary.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any

from assistant.answer import Answer
from assistant.texts import gb, monthly, render, t

__all__ = ["MAX_WORDS", "build_summary", "lead_paragraph", "word_count"]

MAX_WORDS = 60
_VERDICT_WORDS = 36  # the verdict's share: room is left for the figure, price and rule

PHRASES: dict[str, tuple[str, str]] = {
    "price": ("{label}: {price}.", "{label}: {price}."),
    "price_named": ("Price: {price}.", "Preis: {price}."),
    "start": ("Starting point: {verdict}", "Ausgangspunkt: {verdict}"),
    "start_ask": (
        "Which model do you want to run? Pick one below.",
        "Welches Modell möchten Sie betreiben? Wählen Sie unten eines.",
    ),
    "need": (
        "It needs {need} per card; each {card} has {usable} usable.",
        "Es braucht {need} pro Karte; jede {card} hat {usable} nutzbar.",
    ),
    "need_tight": (
        "It needs {need} per card; each {card} has {usable} usable: it fits tightly, with no "
        "room to spare.",
        "Es braucht {need} pro Karte; jede {card} hat {usable} nutzbar: es passt knapp, ohne "
        "Reserve.",
    ),
    "weights": (
        "The model's weights take {weights}.",
        "Die Gewichte des Modells belegen {weights}.",
    ),
    "topo_pair": (
        "The pair that is off: `{a}`–`{b}` shows `{label}`.",
        "Das Paar, das abweicht: `{a}`–`{b}` zeigt `{label}`.",
    ),
    "topo_pairs": (
        "{n} pairs are off, e.g. `{a}`–`{b}` shows `{label}`.",
        "{n} Paare weichen ab, z. B. `{a}`–`{b}` zeigt `{label}`.",
    ),
    "rule.fits-one-card": (
        "Rule: if it fits on one card, rent one card.",
        "Regel: Passt es auf eine Karte, eine Karte mieten.",
    ),
    "rule.independent-jobs": (
        "Rule: independent jobs, one per card: PCIe cards are enough.",
        "Regel: Unabhängige Jobs, einer pro Karte: PCIe-Karten reichen.",
    ),
    "rule.too-big-low-concurrency": (
        "Rule: too big for one card, few users at once: PCIe works.",
        "Regel: Zu groß für eine Karte, wenige Nutzer gleichzeitig: PCIe reicht.",
    ),
    "rule.too-big-real-traffic-or-training": (
        "Rule: too big for one card, real traffic or training: rent NVLink (SXM).",
        "Regel: Zu groß für eine Karte, echter Traffic oder Training: NVLink (SXM) mieten.",
    ),
    "rule.nvlink-none-within": (
        "Rule: real traffic or training wants NVLink (SXM), but no NVLink node within your "
        "constraints holds it.",
        "Regel: Echter Traffic oder Training will NVLink (SXM), doch kein NVLink-Knoten innerhalb "
        "Ihrer Vorgaben fasst es.",
    ),
    "rule.more-than-eight-cards": (
        "Rule: a job needing more than eight cards needs a fabric the site does not offer.",
        "Regel: Ein Job mit mehr als acht Karten braucht ein Fabric, das die Seite nicht anbietet.",
    ),
    "rule.depends": (
        "Rule: too big for one card: few users at once, PCIe works; real traffic, rent NVLink "
        "(SXM).",
        "Regel: Zu groß für eine Karte: wenige Nutzer gleichzeitig, PCIe reicht; echter Traffic, "
        "NVLink (SXM) mieten.",
    ),
}

_LINK_RX = re.compile(r"\[([^\]\n]+)\]\((?:https?://[^)\s]+)\)")
_BOLD_RX = re.compile(r"\*\*")
# a sentence ends at . ! ? followed by a space (not inside "2.7", "e.g.", "z. B.")
_SENTENCE_END_RX = re.compile(
    r"(?<!\be\.g)(?<!\bz)(?<!\bB)(?<!\bca)(?<!\bvs)[.!?](?:\s*\[\d{1,2}\])*(?=\s|$)"
)
_YES_NO_RX = re.compile(r"^(Yes|No|Ja|Nein)\b")
# a figure with a unit (not money): a verdict that states one needs no figure added
_FIGURE_RX = re.compile(
    r"\d[\d.,]*\s?(?:GB|TB|%|tokens?|Token|GB/s|ms|s\b|×\s?(?:faster|schneller))",
)
_MARKER_WORD_RX = re.compile(r"(?<!\S)\[\d{1,2}\](?!\S)")
_CLAUSE_RX = re.compile(r"(?:;|:| —| –)\s")


def word_count(text: str) -> int:
    """Words as a reader counts them: whitespace-separated, a citation marker not counted."""
    return len(text.split()) - len(_MARKER_WORD_RX.findall(text))


def lead_paragraph(text: str, index: int = 0) -> str:
    """The answer's first (`index`: later) paragraph that is not an italic notice."""
    paras = [
        p.strip()
        for p in re.split(r"\n\s*\n", text.strip())
        if p.strip() and not (p.strip().startswith("_") and p.strip().endswith("_"))
    ]
    return paras[index] if index < len(paras) else ""


def _plain(text: str) -> str:
    """Links as their labels, no bold (the surfaces bold the yes/no word), one line."""
    text = _LINK_RX.sub(r"\1", text)
    text = _BOLD_RX.sub("", text)
    return re.sub(r"\s+", " ", text).strip()


def _sentences(text: str) -> list[str]:
    out: list[str] = []
    start = 0
    for m in _SENTENCE_END_RX.finditer(text):
        out.append(text[start : m.end()].strip())
        start = m.end()
    rest = text[start:].strip()
    if rest:
        out.append(rest)
    return [s for s in out if s]


def _starting_point(answer: Answer) -> bool:
    """No model named: the answer asks which one and sizes an assumed one (its second
    paragraph is the sized lead, `reading.assumed` says what was assumed)."""
    return answer.reading is not None and "model" in answer.reading.assumed


def _verdict(answer: Answer) -> str:
    """The lead's first sentence (two when the first is only 'Yes.'), cut at a clause when long;
    a starting point's: the sized lead's, said to be a starting point."""
    start = _starting_point(answer)
    lead = lead_paragraph(answer.answer, 1 if start else 0)
    first_line = lead.split("\n")[0]
    if first_line.startswith(("- ", "| ")):
        return ""
    sents = _sentences(_plain(first_line))
    if not sents:
        return ""
    verdict = sents[0]
    if word_count(verdict) <= 3 and len(sents) > 1:  # "Yes." then the sentence that says why
        verdict += " " + sents[1]
    verdict = re.sub(r":((?:\s*\[\d{1,2}\])*)$", r".\1", verdict)  # "…, split across cards: [1]"
    if not verdict.endswith((".", "!", "?")) and not re.search(r"\[\d{1,2}\]$", verdict):
        verdict += "."
    if word_count(verdict) > _VERDICT_WORDS:
        verdict = _cut(verdict, _VERDICT_WORDS)
    if start:
        verdict = render(PHRASES, answer.language, "start", verdict=verdict)
    return verdict


def _cut(text: str, limit: int) -> str:
    """The text up to its last clause break within `limit` words (else the first `limit` words)."""
    best = ""
    for m in _CLAUSE_RX.finditer(text):
        head = text[: m.start()].rstrip(" ,")
        if word_count(head) > limit:
            break
        balanced = head.count("(") == head.count(")") and head.count("[") == head.count("]")
        if word_count(head) >= 4 and balanced:
            best = head
    if not best:
        best = " ".join(text.split()[:limit]).rstrip(" ,;:")
    return best.rstrip(".") + "."


def _results(answer: Answer, name: str) -> list[dict[str, Any]]:
    return [c.result for c in answer.tool_calls if c.name == name and isinstance(c.result, dict)]


def _fit_rows(answer: Answer) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for res in _results(answer, "fit_check"):
        rows += [r for r in res.get("rows") or [] if isinstance(r, dict)]
    for res in _results(answer, "cheapest_fit"):
        rows += [r for r in res.get("cheapest") or [] if isinstance(r, dict)]
    return rows


def recommended(answer: Answer) -> str | None:
    """The configuration the answer recommends or is about: the one it chose, the one the
    question named, or the one price it quotes."""
    chosen = list(answer._chosen)
    if chosen:
        return chosen[0]
    reading = answer.reading
    named = list(reading.configurations) if reading is not None else []
    if len(named) == 1:
        return named[0]
    if len(answer.prices) == 1:
        return answer.prices[0].configuration
    from assistant.first_sentence import expected_verdict  # "one card": the card that holds it

    expected = expected_verdict(answer)
    if expected is not None and expected.one_card is not None:
        return str(expected.one_card.get("configuration") or "") or None
    return None


def _price(answer: Answer, cid: str | None, verdict: str = "") -> str:
    """The recommended configuration's price; its label only when the verdict does not name it."""
    quote = next((p for p in answer.prices if p.configuration == cid), None)
    if quote is None:
        return ""
    price = monthly(answer.language, quote.usd_per_month)
    if quote.placeholder:
        price += t(answer.language, "placeholder")
    key = "price_named" if quote.label in verdict else "price"
    return render(PHRASES, answer.language, key, label=quote.label, price=price)


def _topology_figure(answer: Answer) -> str:
    """The card pair a pasted topology shows wrong (the first of them, and how many)."""
    for res in _results(answer, "check_topology_output"):
        off = [p for p in res.get("pairs") or [] if isinstance(p, dict) and p.get("status") != "ok"]
        if off:
            key = "topo_pair" if len(off) == 1 else "topo_pairs"
            first = off[0]
            return render(
                PHRASES, answer.language, key, n=len(off), a=first["a"], b=first["b"],
                label=first["label"],
            )  # fmt: skip
    return ""


def _figure(answer: Answer, cid: str | None) -> str:
    lang = answer.language
    topology = _topology_figure(answer)
    if topology:
        return topology
    if _results(answer, "training_fit"):
        return ""  # the fit rows size serving; a training answer's figure is in its verdict
    row = next((r for r in _fit_rows(answer) if r.get("configuration") == cid), None)
    if row and row.get("required_gb_per_card") and row.get("usable_gb_per_card"):
        quote = next((p for p in answer.prices if p.configuration == cid), None)
        label = quote.label if quote is not None else str(row.get("label", ""))
        card = re.sub(r"\s*\([^)]*\)$", "", label.split("×")[-1].strip()) or str(row["gpu"])
        return render(
            PHRASES,
            lang,
            "need_tight" if row.get("room") == "tight" else "need",  # a tight pick says so
            need=gb(lang, float(row["required_gb_per_card"])),
            usable=gb(lang, float(row["usable_gb_per_card"])),
            card=card,
        )
    fits = _results(answer, "fit_check") + _results(answer, "cheapest_fit")
    weights = next((f.get("weights_gb") for f in fits if f.get("weights_gb")), None)
    if weights:
        return render(PHRASES, lang, "weights", weights=gb(lang, float(weights)))
    return ""


def _rule(answer: Answer) -> str:
    """The guide's rule in a few words; none when it reads against a "one card" yes (the rule
    counts a card only sold in 4- and 8-card nodes as 'too big for one card')."""
    advice = _results(answer, "purchase_advice")
    r = answer.reading
    one_card_yes = r is not None and r.count == 1 and r.yes_no and _says_yes(answer)
    if one_card_yes and any(a.get("fits_one_card") is False for a in advice):
        return ""
    keys: list[str] = []
    for res in advice:
        rule = res.get("rule") or {}
        key = rule.get("key") if isinstance(rule, dict) else None
        if key and key not in keys:
            keys.append(key)
    if set(keys) == {"rule.too-big-low-concurrency", "rule.too-big-real-traffic-or-training"}:
        return render(PHRASES, answer.language, "rule.depends")
    if len(keys) != 1 or keys[0] not in PHRASES:
        return ""
    if keys[0] == "rule.too-big-real-traffic-or-training" and _no_nvlink_within(answer):
        return render(PHRASES, answer.language, "rule.nvlink-none-within")
    return render(PHRASES, answer.language, keys[0])


def _no_nvlink_within(answer: Answer) -> bool:
    """The NVLink nodes within the question's constraints hold nothing (a `cheapest_fit` over
    the configurations within them, NVLink only, came back empty): the rule's "rent SXM" is not
    within reach, and the summary must not put it beside a PCIe pick without saying so."""
    return any(
        c.name == "cheapest_fit"
        and c.arguments.get("interconnect") == "nvlink"
        and c.arguments.get("configurations")
        and isinstance(c.result, dict)
        and not c.result.get("cheapest")
        for c in answer.tool_calls
    )


def _says_yes(answer: Answer) -> bool:
    from assistant.compose.polarity import lead_polarity

    return lead_polarity(lead_paragraph(answer.answer)) is True


def _bold_verdict_word(text: str) -> str:
    return _YES_NO_RX.sub(r"**\1**", text, count=1)


def _grounded(answer: Answer, text: str, prices: Mapping[str, Decimal]) -> bool:
    from assistant.grounding import check_answer

    probe = answer.model_copy(update={"answer": text})
    return not check_answer(probe, prices, user_text=answer.question)


def _fitting(parts: Iterable[str]) -> str:
    text = ""
    for part in parts:
        if not part:
            continue
        candidate = f"{text} {part}".strip()
        if word_count(candidate) <= MAX_WORDS:
            text = candidate
    return text


def build_summary(answer: Answer, prices: Mapping[str, Decimal]) -> str:
    """The answer's summary (≤ MAX_WORDS words, grounded), or "" when none can be made."""
    verdict = _verdict(answer)
    if not verdict:
        return ""
    cid = recommended(answer)
    figure = "" if _FIGURE_RX.search(verdict) else _figure(answer, cid)
    price = "" if "$" in verdict else _price(answer, cid, verdict)
    rule = _rule(answer)
    ask = render(PHRASES, answer.language, "start_ask") if _starting_point(answer) else ""
    short = _cut(verdict, max(4, word_count(verdict) - 1))  # its first clause(s)
    # the least needed part is dropped first until every figure passes the grounding check
    for parts in (
        (verdict, figure, price, ask, rule),
        (verdict, price, ask, rule),
        (verdict, price, ask),
        (verdict, ask),
        (short, _price(answer, cid), ask),
        (short, ask),
    ):
        text = _fitting(parts)
        if text and _grounded(answer, text, prices):
            return _bold_verdict_word(text)
    return ""
