"""Answers that follow the data: when a cited guide passage shows a different price for a node the
answer quotes, say so ("the guide shows $4,395; the current price is $3,999/month") instead of
citing the guide as the source of the new price.

A post-processing step over a finished Answer, so it serves offline and LLM answers alike:

    answer = add_price_notes(answer)

It reads only the answer: its price quotes (the catalog's current prices) and the passages it
cites. A passage's figure belongs to a node when the passage is a table whose column header names
the node, or a sentence that names it. A paragraph that only points at such a passage ("The site
publishes this price in its guide. [1]") is replaced by the note; otherwise the note is appended.
The guide's figure is written without "/month", so the grounding check reads it as a figure of the
cited passage, not as a price quote.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from functools import lru_cache

from assistant.answer import Answer, Citation, PriceQuote

_DOLLAR_RX = re.compile(r"\$\s?(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{2}))?")
_LINK_RX = re.compile(r"\[([^\]]*)\]\([^)]*\)")

NOTE = {
    "en": "The guide shows {old} for {label} {marker}; the current price is **{new}/month**.",
    "de": "Im Guide steht für {label} noch {old} {marker}; der aktuelle Preis ist **{new}/Monat**.",
}


def _usd(value: Decimal) -> str:
    if value == value.to_integral_value():
        return f"${int(value):,}"
    return f"${value:,.2f}"


def _dollars(text: str) -> list[Decimal]:
    out = []
    for m in _DOLLAR_RX.finditer(text):
        try:
            cents = "." + m.group(2) if m.group(2) else ""
            out.append(Decimal(m.group(1).replace(",", "") + cents))
        except InvalidOperation:  # pragma: no cover - the regex guarantees digits
            continue
    return out


def _names(label: str) -> list[str]:
    plain = label.replace("\u00a0", " ").strip()
    out = [plain.lower()]
    short = re.sub(r"\bNVIDIA\s+", "", plain, flags=re.IGNORECASE).lower()
    if short != out[0]:
        out.append(short)
    return out


def _cells(line: str) -> list[str]:
    return [_LINK_RX.sub(r"\1", c).strip().lower() for c in line.strip().strip("|").split("|")]


def _table_figures(lines: list[str], names: list[str]) -> list[Decimal]:
    rows = [ln for ln in lines if ln.strip().startswith("|")]
    if len(rows) < 2:
        return []
    header = _cells(rows[0])
    cols = [i for i, c in enumerate(header) if any(n == c or n in c for n in names)]
    if len(cols) != 1:
        return []
    out: list[Decimal] = []
    for row in rows[1:]:
        cells = _cells(row)
        if len(cells) > cols[0]:
            out.extend(_dollars(cells[cols[0]]))
    return out


def _prose_figures(lines: list[str], names: list[str], others: list[list[str]]) -> list[Decimal]:
    out: list[Decimal] = []
    text = " ".join(ln for ln in lines if not ln.strip().startswith("|"))
    for sentence in re.split(r"(?<=[.!?])\s+", _LINK_RX.sub(r"\1", text)):
        low = sentence.lower()
        if any(n in low for n in names) and not any(n in low for o in others for n in o):
            out.extend(_dollars(sentence))
    return out


def guide_figures(passage: str, label: str, other_labels: list[str]) -> list[Decimal]:
    """The dollar figures a passage gives for the node called `label` (read once per passage,
    label and other labels: every answer quoting a price and citing a passage asks)."""
    return list(_guide_figures(passage, label, tuple(other_labels)))


@lru_cache(maxsize=1024)
def _guide_figures(passage: str, label: str, other_labels: tuple[str, ...]) -> tuple[Decimal, ...]:
    lines = passage.splitlines()
    names = _names(label)
    others = [_names(o) for o in other_labels if o != label]
    return tuple(_table_figures(lines, names) or _prose_figures(lines, names, others))


def _stale(answer: Answer) -> list[tuple[PriceQuote, Citation, Decimal]]:
    labels = [p.label for p in answer.prices]
    out = []
    for q in answer.prices:
        current = Decimal(str(q.usd_per_month))
        for c in answer.citations:
            shown = guide_figures(c.quote, q.label, labels)
            if shown and current not in shown:
                out.append((q, c, shown[0]))
                break
    return out


def add_price_notes(answer: Answer) -> Answer:
    """The answer, with a note wherever a cited passage shows another price than the quote."""
    stale = _stale(answer)
    if not stale:
        return answer
    paragraphs = re.split(r"\n\s*\n", answer.answer.strip())
    for q, c, old in stale:
        if any(p.startswith(NOTE_PREFIXES) and q.label in p for p in paragraphs):
            continue  # noted already
        marker = f"[{c.n}]"
        note = NOTE[answer.language].format(
            old=_usd(old), label=q.label, marker=marker, new=_usd(Decimal(str(q.usd_per_month)))
        )
        pointer = next(
            (
                i
                for i, p in enumerate(paragraphs)
                if marker in p and not _dollars(p) and not p.lstrip().startswith(("-", "*", "|"))
            ),
            None,
        )
        if pointer is not None and not paragraphs[pointer].startswith(NOTE_PREFIXES):
            paragraphs[pointer] = note
        else:
            paragraphs.append(note)
    return answer.model_copy(update={"answer": "\n\n".join(paragraphs)})


NOTE_PREFIXES = ("The guide shows", "Im Guide steht")


EURO_NOTE = {
    "en": "Your budget is in euros and the catalog's prices are in US dollars: its amount is "
    "compared with the dollar prices unchanged, without converting the currency.",
    "de": "Ihr Budget ist in Euro angegeben, die Katalogpreise in US-Dollar: sein Betrag wird "
    "unverändert mit den Dollarpreisen verglichen, ohne Umrechnung.",
}


def add_currency_note(answer: Answer) -> Answer:
    """A budget said in euros is compared 1:1 with the dollar prices: the answer says so (once),
    rather than pass over the currency (issue 26)."""
    reading = answer.reading
    if reading is None or reading.budget_currency != "EUR" or not reading.budget_usd_per_month:
        return answer
    note = EURO_NOTE.get(answer.language, EURO_NOTE["en"])
    if note in answer.answer:
        return answer
    out = answer.model_copy(update={"answer": f"{answer.answer}\n\n{note}"})
    out._chosen = list(answer._chosen)
    return out
