"""The offline answer's first sentence, checked against its own tool results (issue 26).

A yes/no question's lead says yes or no; that word must be the verdict the answer's tools give
for the thing the user named, in the user's polarity:

- a fit ("Does it fit on 2x L40S?", "… on one card?"): the first `fit_check` call's rows for the
  configurations, cards or card memory named; "one card" with nothing else named means any single
  card the site rents, and a yes must then say that card's node price in the first sentence;
- NVLink ("Do I need NVLink?", "Reicht PCIe?"): `purchase_advice`'s `needs_nvlink`, when all its
  calls agree.

`disagreement` names what is wrong ("" when nothing is, or nothing can be checked); `repaired`
puts the tools' verdict first before the answer is shown (assistant.service) and the eval report
counts both (evals/runner.py: `first_sentence_disagrees`, `first_sentence_repaired`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from assistant.answer import Answer
from assistant.compose.polarity import lead_polarity
from assistant.nlu import CARD_FAMILIES
from assistant.summary import lead_paragraph
from assistant.texts import monthly, render, t

__all__ = ["Expected", "disagreement", "expected_verdict", "repaired"]

PHRASES: dict[str, tuple[str, str]] = {
    "yes": ("Yes", "Ja"),
    "no": ("No", "Nein"),
    "fit_yes": (
        "**Yes** — on one {card} card, rented as {label} for {price}.",
        "**Ja** — auf einer {card}-Karte, zu mieten als {label} für {price}.",
    ),
    "node_price": (" ({label}: {price})", " ({label}: {price})"),
    "fits": ("{word}** — {model} fits on {labels}.", "{word}** — {model} passt auf {labels}."),
    "fits_not": (
        "{word}** — {model} does not fit on {labels}.",
        "{word}** — {model} passt nicht auf {labels}.",
    ),
    "nvlink": (
        "{word}** — by the guide's rule for this job, NVLink (SXM) is needed.",
        "{word}** — nach der Regel des Guides braucht dieser Job NVLink (SXM).",
    ),
    "nvlink_not": (
        "{word}** — by the guide's rule for this job, NVLink is not needed; PCIe is enough.",
        "{word}** — nach der Regel des Guides braucht dieser Job kein NVLink; PCIe reicht.",
    ),
}

_LEAD_WORD_RX = re.compile(r"^(\W*)(Yes|No|Ja|Nein)\b")
_LEAD_WORD_ALL_RX = re.compile(r"^(\**)\s*(?:Yes|No|Ja|Nein)\b[\s.,:—–-]*")


@dataclass(frozen=True)
class Expected:
    """What the tools say about the thing the user named."""

    verdict: bool  # in the user's polarity
    what: str  # "fit on 2x-l40s", "NVLink needed", …
    one_card: dict[str, Any] | None = None  # "one card": the cheapest row that holds it on one
    fact: bool | None = None  # the tools' own verdict (fits / NVLink needed), before polarity
    rows: tuple[dict[str, Any], ...] = ()  # the fit rows of the thing named
    model: str = ""


def _calls(answer: Answer, name: str) -> list[dict[str, Any]]:
    return [c.result for c in answer.tool_calls if c.name == name and isinstance(c.result, dict)]


def expected_verdict(answer: Answer) -> Expected | None:
    """The verdict the answer's tool results give for what the user asked, or None when the
    question is not a yes/no about a fit or NVLink, or the tools give no single verdict."""
    r = answer.reading
    if r is None or not r.yes_no or r.claim_negated or len(r.models) > 1:
        return None
    if r.claim in ("fits", "too_small"):
        return _fit_expected(answer, converse=r.claim == "too_small")
    if r.claim in ("nvlink_needed", "pcie_enough"):
        if _named_node_short(answer, r.configurations):
            return None  # the node named cannot hold the training at all: its "no" leads
        verdicts = {bool(a.get("needs_nvlink")) for a in _calls(answer, "purchase_advice")}
        if len(verdicts) != 1:
            return None
        needed = verdicts.pop()
        return Expected(needed if r.claim == "nvlink_needed" else not needed, r.claim, fact=needed)
    return None


def _named_node_short(answer: Answer, named: list[str]) -> bool:
    """A training job the node the question names cannot hold with all its cards (training_fit):
    "is PCIe enough?" is moot there, and the guide's link rule is no verdict on that node."""
    rows = [
        x
        for res in _calls(answer, "training_fit")
        for x in res.get("rows") or []
        if isinstance(x, dict) and x.get("configuration") in named
    ]
    return bool(rows) and not any(x.get("fits_node") for x in rows)


def _fit_expected(answer: Answer, *, converse: bool) -> Expected | None:
    r = answer.reading
    assert r is not None
    training = "training" in r.workloads or r.adapter or _calls(answer, "training_fit")
    fits = _calls(answer, "fit_check")
    if training or not fits:
        return None
    fit = fits[0]
    if (r.context_tokens or 0) > int(fit.get("context_tokens") or 0) or (
        r.concurrent_sequences or 1
    ) > int(fit.get("concurrency") or 1):
        return None  # sized for less than was asked (e.g. at the model's own context limit)
    rows = [x for x in fit.get("rows") or [] if isinstance(x, dict)]
    cards = set(r.cards) | {c for f in r.card_families for c in CARD_FAMILIES.get(f, ())}
    one_card = r.count == 1 and not (r.configurations or cards or r.memory_gb)
    if r.configurations:
        # "A, or do we need B?": the yes answers the node named first
        named = r.configurations[:1]
        rows = [x for x in rows if x.get("configuration") in named]
        what = "fit on " + ", ".join(named)
    elif cards:
        rows = [x for x in rows if x.get("gpu") in cards]
        if r.count and r.count > 1:  # "on 2x A100": its 2-card nodes, when the catalog has any
            rows = [x for x in rows if x.get("count") == r.count] or rows
        what = "fit on " + ", ".join(sorted(cards))
    elif r.memory_gb:
        rows = [x for x in rows if abs(float(x.get("memory_gb_per_card", 0)) - r.memory_gb) < 1]
        what = f"fit on one {r.memory_gb:g} GB card"
    elif one_card:
        what = "fit on one card"
    else:
        return None
    if not rows:
        return None
    if _tp_plan_of_one_card(r, rows):
        return None  # "tp=4 on 4x L40S, more cards = faster, right?": its "No" answers the plan
    if r.count == 1 or r.memory_gb:
        holding = [x for x in rows if x.get("verdict") == "fits_one_card"]
    else:
        holding = [x for x in rows if x.get("verdict") != "does_not_fit"]
    verdict = bool(holding)
    cheapest = min(holding, key=lambda x: float(x.get("usd_per_month") or 0)) if holding else None
    model = fit.get("model") or {}
    name = str(model.get("name") or "") if isinstance(model, dict) else ""
    precision = str(fit.get("precision") or "").upper()
    return Expected(
        (not verdict) if converse else verdict,
        what,
        cheapest if one_card and verdict and not converse else None,
        fact=verdict,
        rows=tuple(holding if verdict else rows),
        model=f"{name} ({precision})" if name and precision else name,
    )


def _tp_plan_of_one_card(r: Any, rows: list[dict[str, Any]]) -> bool:
    """Tensor parallelism planned over several cards, to be faster, on a node where the model
    fits one card: the lead answers the plan (the guide's most expensive mistake: slower, not
    faster), not whether the node holds the model."""
    planned = "tensor_parallel" in r.workloads and (r.count or 0) > 1 and "speed" in r.intents
    return planned and all(x.get("verdict") == "fits_one_card" for x in rows)


def _first_line(answer: Answer) -> str:
    """The lead's first line: where a "one card" yes must say its node's price."""
    return lead_paragraph(answer.answer).split("\n")[0]


def disagreement(answer: Answer) -> str:
    """What the first sentence gets wrong about the tools' verdict ("" when nothing, or when the
    answer is not checked: no yes/no lead, no single verdict, not offline)."""
    if answer.mode != "offline":
        return ""
    expected = expected_verdict(answer)
    if expected is None:
        return ""
    said = lead_polarity(lead_paragraph(answer.answer))
    if said is None:
        return ""
    if said != expected.verdict:
        word = "yes" if said else "no"
        return f"says {word}, the tools say {'yes' if expected.verdict else 'no'} ({expected.what})"
    if expected.one_card is not None and "$" not in _first_line(answer):
        return "says yes to one card without the price of a node whose card holds it"
    return ""


def repaired(answer: Answer, catalog: Any) -> Answer:
    """The answer with the tools' verdict first: a wrong yes/no is replaced by the right one, said
    with what the tools found, and a "one card" yes gets its node's price in the first sentence.
    Unchanged when `disagreement` finds nothing."""
    problem = disagreement(answer)
    if not problem:
        return answer
    expected = expected_verdict(answer)
    assert expected is not None
    lang = answer.language
    lead = lead_paragraph(answer.answer)
    row = expected.one_card
    if (
        row is not None
        and catalog is not None
        and row.get("configuration") in getattr(catalog, "configurations", {})
    ):
        c = catalog.configurations[row["configuration"]]
        price = monthly(lang, c.usd_per_month) + (t(lang, "placeholder") if c.placeholder else "")
        label = c.label_in(lang)
        if lead_polarity(lead) and _LEAD_WORD_RX.match(lead):
            card = label.split("×")[-1].strip()
            first = render(PHRASES, lang, "fit_yes", card=card, label=label, price=price)
            rest = _LEAD_WORD_RX.sub("", lead, count=1).lstrip("*.—– ")
            rest = "**" + rest if rest.count("**") % 2 else rest
            new_lead = f"{first} {rest}".strip()
        else:
            new_lead = lead + render(PHRASES, lang, "node_price", label=label, price=price)
    else:
        rest = _LEAD_WORD_ALL_RX.sub(r"\1", lead, count=1)
        rest = "" if rest.strip("* ") == "" else _capitalised(rest)
        new_lead = f"{_tools_sentence(expected, lang)} {rest}"
    out = answer.model_copy(update={"answer": answer.answer.replace(lead, new_lead, 1)})
    out._chosen = list(answer._chosen)
    return out


def _capitalised(text: str) -> str:
    """ "**nicht aufteilen: …" -> "**Nicht aufteilen: …": what followed the replaced word starts
    a sentence now."""
    m = re.match(r"^[*\s]*", text)
    at = m.end() if m else 0
    return text[:at] + text[at : at + 1].upper() + text[at + 1 :]


def _tools_sentence(expected: Expected, lang: str) -> str:
    """The verdict the tools give, as a first sentence in the user's polarity."""
    word = "**" + render(PHRASES, lang, "yes" if expected.verdict else "no")
    if expected.what in ("nvlink_needed", "pcie_enough"):
        key = "nvlink" if expected.fact else "nvlink_not"
        return render(PHRASES, lang, key, word=word)
    labels = " / ".join(str(r.get("label", "")) for r in expected.rows[:3])
    key = "fits" if expected.fact else "fits_not"
    return render(PHRASES, lang, key, word=word, model=expected.model, labels=labels)
