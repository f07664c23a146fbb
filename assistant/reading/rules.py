"""The rule reader: the deterministic NLU's parse (`assistant.nlu`, merged with the session by
`merge_slots` in assistant/reading/merge.py) as a `Reading`, plus what only the reading says: the
budget's currency and the parts of the question no answer row covers (`unread`).

    reading = read_rules(query, nlu)

`unread` is measured per question clause: a question with two or more questions in it ("Does it
fit on one card? And what should we check on day one?") is read clause by clause, and a clause
whose own ask is not one the reading answers (its primary intent, its asks) is unread. The
answer says what it did not cover instead of answering another question.
"""

from __future__ import annotations

import re
from typing import Any

from assistant.nlu.asks import RELAY_RX, is_yes_no, sentences
from assistant.nlu.asks import _first_question as first_question
from assistant.nlu.claims import negates_fit
from assistant.nlu.intents import _MONEY_RX
from assistant.nlu.mail import what_is_asked
from assistant.nlu.query import Ask, Claim, Query
from assistant.reading.convert import (
    ASK_INTENT,
    IMPLIED_AT,
    INTENT_GIVES,
    asked_intents,
    from_query,
    implied_asks,
)
from assistant.reading.model import Currency, Reading

# ("bucks not euros": the currency refused is not the one meant)
_EURO = re.compile(r"(?<!not )(?<!nicht )(?<!keine )(?:€|\beur(?:o|os)?\b)")
_DOLLAR = re.compile(r"\$|\busd\b|\bdollars?\b|\bbucks?\b")
# clause intents that never go unread: pastes
_NEVER_UNREAD = frozenset({"topology_paste", "allreduce_paste"})
MIN_CLAUSE_WORDS = 3
_BY_HOW_MUCH_RX = re.compile(
    r"\b(?:um wie ?viel|wie ?viel (?:mehr|weniger|teurer|günstiger|schneller)|by how much|how "
    r"much (?:more|less|cheaper|faster)|what's the difference|was ist der unterschied)\b",
    re.I,
)


def read_rules(u: Query, nlu: Any = None, refers_to: list[str] | None = None) -> Reading:
    """The reading of a parsed (and session-merged) question. `refers_to`: the configurations a
    follow-up's "that" / "da drauf" resolved to (the session merge finds them)."""
    u = _fit_claim_leads(_claim_leads(_pcie_node_for_training(u, nlu)))
    reading = from_query(
        u,
        budget_currency=_currency(u),
        unread=unread_clauses(u, nlu),
        refers_to=list(refers_to or []),
    )
    update = _stated(u)
    update["intents"] = asked_intents(reading.intents)
    return reading.model_copy(update=update)


#: claims whose yes/no is an NVLink question ("Is PCIe enough for X on 2x RTX 5090?")
_NVLINK_CLAIMS = frozenset({"pcie_enough", "nvlink_needed"})


#: a sentence that asks about the link ("Lohnt sich NVLink dafür überhaupt?")
_LINK_WORD_RX = re.compile(r"\b(?:nvlink|sxm|pcie)\b")


def _link_yes_no(u: Query) -> bool:
    """The question asks a yes/no about the link: its claim is the link's ("Is PCIe enough?",
    "Lohnt sich NVLink?") and it is the yes/no, or one of its sentences is, after a price asked
    first ("Was kosten 4x H100 PCIe und SXM5? … Lohnt sich NVLink dafür überhaupt?")."""
    link_claim = u.claim in _NVLINK_CLAIMS or (u.claim == "worth_it" and "nvlink_named" in u.topics)
    if not link_claim:
        return False
    asked = [q for q in sentences(what_is_asked(u.question)) if q.rstrip().endswith("?")]
    return u.yes_no or any(_LINK_WORD_RX.search(q.lower()) and _yes_no_clause(q) for q in asked)


#: "was kosten A und B im Monat, und lohnt sich der Aufpreis …?": a yes/no after a wh-clause
_AND_CLAUSE_RX = re.compile(r",\s*(?:und|and)\s+", re.IGNORECASE)


def _yes_no_clause(sentence: str) -> bool:
    """The sentence, or a clause of it after ", und" / ", and", asks yes or no."""
    return any(is_yes_no(c.strip()) for c in [sentence, *_AND_CLAUSE_RX.split(sentence)[1:]])


def _claim_leads(u: Query) -> Query:
    """A yes/no question about the link leads with the NVLink intent, and its "enough" is not a
    fit ask of its own ("Is PCIe enough for Qwen3 32B on 2x RTX 5090? And the price?": the
    NVLink verdict first, then the price)."""
    if u.intent == "nvlink" or not _link_yes_no(u):
        return u
    if u.intent not in ("fit", "price", "general"):
        return u  # a paste, a measurement, a comparison: their own flows
    asks = [a for a in u.asks if not (a.kind == "fit" and a.at == -1)]
    intents = ["nvlink", *(i for i in u.intents if i != "nvlink")]
    return u.model_copy(update={"asks": asks, "intents": intents, "yes_no": True})


def _fit_claim_leads(u: Query) -> Query:
    """ "und falls wir auf AWQ gehen, reichen dann auch 2 davon?" after a price: a fit yes/no
    that names no price leads with the fit, not with the price the session asked before."""
    fit_first = bool(u.asks[:1]) and u.asks[0].kind == "fit" and u.asks[0].at == -1
    fit_claim = u.claim == "fits" or (u.claim is None and fit_first)
    if not (u.yes_no and fit_claim and u.intent == "price"):
        return u
    if _MONEY_RX.search(u.question.lower()):
        return u  # "… and what would that cost?": the price is asked too
    intents = ["fit", *(i for i in u.intents if i not in ("fit", "price"))]
    return u.model_copy(update={"intents": intents})


#: "Reichen dafür 8x H100 PCIe?", "is 4x L40S enough for it?": a node said to suffice
_SUFFICE_RX = re.compile(
    r"\b(?:reicht|reichen|genügt|genügen|langt|enough|suffice\w*|sufficient|ausreichend)\b"
)


#: "… or do we need something bigger?": the alternative offered is more memory, so the question
#: is whether the job fits, not which link it needs
_BIGGER_RX = re.compile(
    r"\b(?:bigger|larger|more (?:memory|vram|cards|gpus)|größer\w*|grösser\w*|mehr (?:speicher|"
    r"vram|karten|gpus))\b"
)


#: the memory named as what suffices ("Reicht da der Speicher?", "is the memory enough?")
_MEMORY_SAID_RX = re.compile(r"\b(?:speicher|vram|memory|gpu memory|grafikspeicher)\b")


def _pcie_node_for_training(u: Query, nlu: Any) -> Query:
    """A training or fine-tune asked to fit "enough" on a PCIe node of several cards asks the
    link question: the guide's answer for training split across cards is NVLink (rule 4), not
    whether the memory adds up."""
    if not (u.yes_no and u.claim in (None, "fits") and (u.count or 0) > 1 and u.configurations):
        return u
    if not {"training", "fine_tuning"} & set(u.workloads) or u.adapter is not None:
        return u
    kinds = nlu._link_kinds(u.configurations) if nlu is not None else set()
    first = first_question(u.question).lower()
    bigger = _BIGGER_RX.search(u.question.lower())  # "… oder brauchen wir was Größeres?"
    memory = _MEMORY_SAID_RX.search(first)  # "Reicht da der Speicher?": the memory's fit
    if kinds != {"pcie"} or not _SUFFICE_RX.search(first) or bigger or memory:
        return u
    if negates_fit(first):
        return u  # "is 2x A100 PCIe not enough for a full fine-tune?": the fit, asked negated
    return u.model_copy(update={"claim": "pcie_enough"})


#: the claim a yes/no question makes with its primary intent, when it names none
_INTENT_CLAIM: dict[str, Claim] = {"fit": "fits", "nvlink": "nvlink_needed", "speed": "faster"}


def _stated(u: Query) -> dict[str, Any]:
    """What the reading states explicitly that the parse leaves implicit: every ask (a single
    one too) and the claim a yes/no question asks about."""
    update: dict[str, Any] = {}
    if len(u.asks) < 2 and not u.explain:
        kinds = implied_asks(u.intent, u.intents[1:])
        # a single ask the intent does not make stays stated ("… And the price?" after an
        # NVLink yes/no); one it makes is stated as implied (the intent's flow answers it)
        own = [a for a in u.asks if a.kind not in kinds]
        update["asks"] = own or [
            Ask(kind=k, at=IMPLIED_AT, precision=u.asks[0].precision if u.asks else None)
            for k in kinds
        ]
    if u.claim is None and u.has_subject and u.yes_no:
        # "…, does it fit then?": a yes/no that itself asks the fit (its ask at -1) claims a
        # fit, whatever the conversation's intent; else the claim of its primary intent
        fit_first = u.asks[:1] and u.asks[0].kind == "fit" and u.asks[0].at == -1
        claim = "fits" if fit_first else _INTENT_CLAIM.get(u.intent)
        if claim is not None:
            update["claim"] = claim
    fit_claim = update.get("claim", u.claim) == "fits" and u.has_subject and u.yes_no
    if fit_claim and negates_fit(first_question(u.question)):
        update["claim_negated"] = True  # "so that does not fit on one 4090, right?"
    return update


def _currency(u: Query) -> Currency | None:
    if u.constraints.budget_usd_month is None:
        return None
    text = u.question.lower()
    if _EURO.search(text):
        return "EUR"
    return "USD" if _DOLLAR.search(text) else None  # not said: compared as USD


def covered_intents(u: Query) -> set[str]:
    """The intents the answer to `u` answers: its primary one and one per ask."""
    link = {"nvlink"} if u.claim in _NVLINK_CLAIMS and u.has_subject else set()
    # what its intent answers by itself: the cheapest answer names the pick and its price
    gives = {*(ASK_INTENT[k] for k in implied_asks(u.intent)), *INTENT_GIVES.get(u.intent, ())}
    implied = gives if u.has_subject else set()
    return {u.intent, *(ASK_INTENT[a.kind] for a in u.asks), *link, *implied}


def unread_clauses(u: Query, nlu: Any) -> list[str]:
    """The question clauses whose own ask the reading does not answer (see the module doc)."""
    if nlu is None or u.topo_text or u.nccl_text or u.outside:
        return []
    asked = [c for c in sentences(what_is_asked(u.question)) if "?" in c]
    asked = [c for c in asked if len(c.split()) >= MIN_CLAUSE_WORDS]
    if len(asked) < 2:
        return []
    covered = covered_intents(u)
    return [c for c in asked if not _is_covered(nlu.understand(c, language=u.language), covered, u)]


def _is_covered(part: Query, covered: set[str], whole: Query) -> bool:
    if part.intent in _NEVER_UNREAD or RELAY_RX.search(part.question):
        return True
    if _catch_all_fit(part):
        return False  # the rules fell back to "fit" for a clause that asks nothing of a fit
    if part.intent in covered:
        return True
    if whole.claim in ("costlier", "cheaper", "faster") and _BY_HOW_MUCH_RX.search(part.question):
        return True  # "Ist A teurer als B? Um wie viel?": the answer states the difference
    if part.intent == "off_topic" and not part.has_subject and set(part.intents) & covered:
        return True  # "and which is the cheapest one that holds it?": "it" is the question's
    # "und ne 5090? was kostet die?": the card alone, asked the yes/no the answer gives
    said_gb = re.search(r"\d\s*gb\b", part.question.lower())  # "2x H100 PCIe = 160GB right?"
    alone = bool(part.cards) and not (part.has_subject or part.memory_gb or said_gb)
    alone = alone and set(part.cards) <= set(whole.cards)
    if alone and ((whole.yes_no and whole.intent == "fit") or part.intent == "general"):
        return True  # "und die L4? …": the card the whole question is answered for
    differs = {"difference_asked", "difference"} & set(part.topics)
    if differs and "price" in covered and len(whole.configurations) == 2:
        return True  # "wie groß ist der Unterschied im Monat?": the two prices' difference
    if part.explain:
        return whole.explain
    if part.intent == "general" and "fit" in covered and _fit_worded(part):
        return True  # "… da sollten zwei Karten doch reichen?" beside the fit asked of a node
    # a catch-all clause that names nothing of its own continues the sizing question
    return part.intent == "general" and not part.workloads and whole.intent == "general"


def _catch_all_fit(part: Query) -> bool:
    """A clause read as "fit" only because nothing else matched: no fit words, no model, no
    hardware, no load of its own."""
    named = part.has_subject or part.cards or part.card_families or part.configurations
    return (
        part.intent == "fit"
        and not part.asks_fit
        and not named
        and not part.workloads
        and not _fit_worded(part)
    )


def _fit_worded(part: Query) -> bool:
    """ "da sollten zwei Consumer-Karten doch locker reichen?": a fit word asks the fit."""
    q = part.question.lower()
    return bool(_SUFFICE_RX.search(q) or _FITS_WORD_RX.search(q))


_FITS_WORD_RX = re.compile(
    r"\b(?:fits?|passt|passen|hold|holds|fasst|fassen|plenty|genügend|genug)\b"
)
