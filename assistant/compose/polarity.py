"""The first word answers the question as the user asked it.

A flow's lead answers one claim ("Do I need NVLink?" -> **No** …). When the user asked the
converse ("Reicht PCIe?", "Is NVLink overkill?", "Can I avoid SXM?"), the same verdict is
answered with the opposite word: "**Ja** — kein NVLink nötig", never "**Nein** — kein NVLink
nötig" to "Reicht PCIe?". A yes/no question about a fit ("Does it fit on a single H200?",
"Passt das auf eine Karte?") gets its yes or no first, decided by the fit tool's rows for the
hardware asked about, whatever the flow's lead says next.
"""

from __future__ import annotations

import re
from typing import Any

from assistant.compose.draft import Draft
from assistant.nlu import CARD_FAMILIES, Query
from assistant.nlu.asks import ASSUMED_DE, ASSUMED_EN, is_yes_no
from assistant.nlu.query import Claim

__all__ = [
    "answer_in_polarity",
    "asks_the_negation",
    "confirm_stated_negative",
    "fit_verdict",
    "is_yes_no",
    "lead_polarity",
]

# claims that are each other's negation
CONVERSE: dict[tuple[str, str], bool] = {
    ("nvlink_needed", "pcie_enough"): True,
    ("pcie_enough", "nvlink_needed"): True,
    ("defect", "healthy"): True,
    ("healthy", "defect"): True,
    ("fits", "too_small"): True,
}
_LEAD_RX = re.compile(r"^(\*\*)(Yes|No|Ja|Nein)\b")
_ANY_LEAD_RX = re.compile(r"^\W*(yes|no|ja|nein|right|richtig)\b", re.IGNORECASE)
#: the word that confirms a negative the user stated ("we don't need NVLink, right?")
_CONFIRM = {"Yes": "Right", "Ja": "Richtig"}
_FLIP = {"Yes": "No", "No": "Yes", "Ja": "Nein", "Nein": "Ja"}
#: claims a question states about a mechanism (compose/claims.py): a why-question that states
#: one asks for the reason, and its answer starts with no yes or no
_STATED_CLAIMS = ("memory_adds_up", "active_sets_memory", "same_size", "larger")


#: claims whose negative is grammatical ("passt das nicht …?"), not a converse of its own
_STATED_NEGATABLE = ("fits", "memory_adds_up", "active_sets_memory", "same_size", "larger")


def yes_no_word(lang: str, verdict: bool) -> str:
    """The word a verdict is said with: Yes / No, Ja / Nein."""
    return ("Ja" if verdict else "Nein") if lang == "de" else ("Yes" if verdict else "No")


def asks_the_negation(u: Query) -> bool:
    """Whether "yes" answers the negation of the claim ("so that does not fit on one 4090,
    right?", "is one L40S not enough?"). A negative that hopes for the plain claim ("passt das
    dann nicht locker auf eine L40S?", "Reicht da nicht eine Karte?", the cue topic
    rhetorical_negative) is answered as the plain claim, whatever reader marked it negated; a
    concept's converse ("Is FP8 practically worthless on an A6000?") always is the negation."""
    if not u.claim_negated:
        return False
    return u.claim not in _STATED_NEGATABLE or "rhetorical_negative" not in u.topics


def answer_in_polarity(d: Draft, u: Query, flow_claim: Claim | None) -> None:
    """The lead's yes/no answers the claim as the user asked it: flipped when the question asked
    the converse of the flow's claim, and given first (from the flow's verdict, or the fit rows)
    when a yes/no question got a lead without one."""
    lead = _lead_index(d)
    if _either_or(d, u, lead):
        return
    flow_claim = _timed(d, u, flow_claim)
    if lead is None or flow_claim is None:
        return
    converse = u.claim is not None and CONVERSE.get((flow_claim, u.claim), False)
    negated = u.claim == "fits" and asks_the_negation(u) and flow_claim == "fits"
    if negated:
        converse = not converse  # "stimmt es, dass es NICHT passt?": "Ja" when it does not
    m = _LEAD_RX.match(d.paras[lead])
    if m:
        if converse:
            d.paras[lead] = m.group(1) + _FLIP[m.group(2)] + d.paras[lead][m.end() :]
        if negated:
            _negated_lead(d, lead, u.question)
        return
    if _ANY_LEAD_RX.match(d.paras[lead]) or not (u.yes_no or u.claim):
        return
    if not u.yes_no and u.claim in _STATED_CLAIMS:
        return  # "Warum braucht DeepSeek V3 so viel Speicher, wenn nur 37B aktiv sind?": why
    if u.claim in ("costlier", "cheaper"):
        return  # only the price list answers it, from its quotes (compose/prices.py)
    link = ("nvlink_needed", "pcie_enough")
    if u.claim in link and flow_claim not in (*link, "guide"):
        return  # "Which node within $4,000? Do we need NVLink?": the lead is not that yes/no
    verdict = d.verdict
    if verdict is None and flow_claim == "fits":
        verdict = fit_verdict(d, u)
    if verdict is None:
        return
    if converse:
        verdict = not verdict
    word = yes_no_word(d.lang, verdict)
    d.paras[lead] = f"**{word}.** " + d.paras[lead]
    if negated:
        _negated_lead(d, lead, u.question)


#: the word a negative question is answered with ("X won't fit, will it?" / "passt nicht,
#: oder?"): agreeing "Right" / "Stimmt", disagreeing "No" / "Doch" ("Nein, stimmt nicht" when
#: the truth of the negative is asked: "Stimmt es, dass …?")
_NEGATED_WORDS = {"Yes": "Right", "Ja": "Stimmt", "Nein": "Doch"}
#: "Stimmt es, dass X nicht passt?" asks whether it is true: agreeing is "Ja, stimmt"
_TRUTH_ASKED_RX = re.compile(
    r"^\W*(?:(?:hi|hallo|hey|kurze frage|also|ok)\W+)?(?:stimmt es|ist es (?:richtig|wahr|korrekt)|"
    # "Ich nehme an, eine L4 reicht nicht?": a statement put up for confirmation
    rf"{ASSUMED_DE})\b",
    re.IGNORECASE | re.MULTILINE,
)


def _timed(d: Draft, u: Query, flow_claim: Claim | None) -> Claim | None:
    """Two nodes timed (compose/speed.py `_fastest`), in any speed row: the claim "faster"."""
    if flow_claim is None and u.claim == "faster" and d.verdict is not None:
        return "faster"
    return flow_claim


def _either_or(d: Draft, u: Query, lead: int | None) -> bool:
    """ "SXM or PCIe for Llama 70B?" asks which, not whether: no yes or no leads its answer
    ("do they need NVLink or is PCIe fine?" claims one of them, "PCIe or SXM4 – does it make a
    difference?" asks whether: their yes or no stays)."""
    asked_which = "link_either_or" in u.topics and "difference" not in u.topics
    if lead is None or not asked_which or u.yes_no or u.claim:
        return False
    d.paras[lead] = _without_yes_no(d.paras[lead])
    return True


_BOLD_WORD_RX = re.compile(r"^\*\*(?:Yes|No|Ja|Nein)\.\*\*\s*")
_WORD_THEN_RX = re.compile(r"^(\*\*)(?:Yes|No|Ja|Nein)(?:,|\s+—|\s+-)\s*")


def _without_yes_no(para: str) -> str:
    """A lead without its yes / no ("**No, PCIe works** …" -> "**PCIe works** …")."""
    para = _BOLD_WORD_RX.sub("", para, count=1)
    m = _WORD_THEN_RX.match(para)
    if m is None:
        return para
    rest = para[m.end() :]
    return m.group(1) + rest[:1].upper() + rest[1:]


#: "so just to confirm, X does NOT fit on one 5090, correct?": whether the statement is correct
_CORRECT_ASKED_RX = re.compile(
    # ("…, correct? just want to double check": the tag need not end the message)
    r"(?:\bcorrect|\bis (?:that|this|it) (?:correct|true|so)|\btrue)\W*$|,\s*correct\s*\?",
    re.IGNORECASE,
)


#: "X won't fit on Y, right?" (the tag may end the question, not the message: "…, right? just
#: want to be sure"; typed without its comma: "doesnt fit on one 4090 right? no quantization")
_RIGHT_ASKED_RX = re.compile(r"\bright\s*\?|\bright\W*$", re.IGNORECASE)


#: "is a single A100 not enough for …?": a question put in the negative, verb first (not
#: "isn't one A100 enough?", whose "no" people read either way)
_NOT_ASKED_RX = re.compile(
    r"^\W*(?:(?:hi|hey|hello|quick question|so|ok)\W+)?(?:(?:is|are|would|will|does|do|was|were)"
    # "I assume 2x A100 PCIe is not enough …?": a statement put up for confirmation (a line of
    # its own in a forwarded mail)
    rf"|{ASSUMED_EN})\s[^?]*?\bnot\b",
    re.IGNORECASE | re.MULTILINE,
)


def _negated_lead(d: Draft, lead: int, question: str = "") -> None:
    m = _LEAD_RX.match(d.paras[lead])
    if m and m.group(2) in _NEGATED_WORDS:
        word = _NEGATED_WORDS[m.group(2)]
        if m.group(2) == "Ja" and _TRUTH_ASKED_RX.search(question):
            word = "Ja, stimmt"
        elif m.group(2) == "Nein" and _TRUTH_ASKED_RX.search(question):
            # "Stimmt es, dass X nicht passt?" when it does fit: it is not true ("Doch" answers
            # the negative said as a statement: "passt nicht, oder?")
            word = "Nein, stimmt nicht"
        elif m.group(2) == "Yes" and _CORRECT_ASKED_RX.search(question):
            word = "Yes, correct"  # "… does NOT fit, correct?" asks whether it is correct
        elif m.group(2) == "Yes" and (
            _RIGHT_ASKED_RX.search(question) or _NOT_ASKED_RX.search(question)
        ):
            # "X won't fit on Y, right?", "is one A100 not enough?": agreed, in both words
            # people use
            word = "Yes, right"
        d.paras[lead] = m.group(1) + word + d.paras[lead][m.end() :]


def _lead_index(d: Draft) -> int | None:
    for i, para in enumerate(d.paras):
        if not para.startswith("_"):  # notices in italics are not the lead
            return i
    return None


def fit_verdict(d: Draft, u: Query) -> bool | None:
    """Does the job fit the hardware the question names? From the first fit result's rows."""
    rows = _fit_rows(d)
    if not rows:
        return None
    cards = set(u.cards) | {c for f in u.card_families for c in CARD_FAMILIES[f]}
    if u.configurations:
        rows = [r for r in rows if r["configuration"] in u.configurations]
    elif cards:
        rows = [r for r in rows if r["gpu"] in cards]
        # "on 2x A100": the 2-card nodes of that card (not the 4-card SXM4 named for the absent
        # 2-card variant), when the catalog has any
        rows = [r for r in rows if r["count"] == u.count] or rows if u.count else rows
    elif d.filters:
        # "Under $600, is there anything that runs it?": the nodes within the constraints
        return any(r["verdict"] != "does_not_fit" for r in rows) if rows else None
    elif "catalog_ask" in u.topics and u.count is None and not u.memory_gb:
        # "can you guys run DeepSeek?": yes when a node of the catalog holds it
        return any(r["verdict"] != "does_not_fit" for r in rows)
    elif u.count != 1 and not u.memory_gb:
        return None  # nothing named: "does it fit?" has no single answer
    if u.memory_gb:
        rows = [r for r in rows if abs(float(r["memory_gb_per_card"]) - u.memory_gb) < 1]
    if not rows:
        return None
    if u.count == 1 or u.memory_gb:
        return any(r["verdict"] == "fits_one_card" for r in rows)
    return any(r["verdict"] != "does_not_fit" for r in rows)


def _fit_rows(d: Draft) -> list[dict[str, Any]]:
    for call in d.calls:
        if call.name == "fit_check":
            return list(call.result.get("rows") or [])
    return []


def lead_polarity(text: str) -> bool | None:
    """True for a lead that starts with yes / ja, False for no / nein, None otherwise."""
    m = _ANY_LEAD_RX.match(text.lstrip("_ \n*"))
    if not m:
        return None
    return m.group(1).lower() in ("yes", "ja", "right", "richtig")


def confirm_stated_negative(d: Draft, u: Query) -> None:
    """ "we don't need NVLink, right?" answered yes: "Right —", which agrees with the negative
    in either language (a bare "Yes" reads as "yes, you need it" to some, "No" to others)."""
    if u.claim != "pcie_enough" or "no_need_stated" not in u.topics:
        return
    lead = _lead_index(d)
    m = _LEAD_RX.match(d.paras[lead]) if lead is not None else None
    if lead is not None and m and m.group(2) in _CONFIRM:
        d.paras[lead] = m.group(1) + _CONFIRM[m.group(2)] + d.paras[lead][m.end() :]
