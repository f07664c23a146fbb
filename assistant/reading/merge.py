"""A follow-up read against the session: the question's parse merged with what earlier turns
established (`Slots`), before the rule reader turns it into a `Reading`.

    merged = merge_slots(query, session.slots, catalog)

A follow-up ("and on an H200?", "und in FP8?") or a question without a model keeps the model,
precision, load and workload of earlier turns and, unless it names hardware, their node; a
question that names a new model starts fresh (but keeps the workload). What a follow-up asks is
its own ask, or the previous question again when it only supplies a slot ("in FP8?", "und 8x?").
Words that point back ("on it", "darauf", "that one") resolve to the node the previous answer
chose (`Slots.answered`).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from assistant.nlu.asks import BARE_K_RX, _first_question, find_asks, is_yes_no
from assistant.nlu.constraints import DROPPED_RX, FIT_QUESTION_RX, find_users_factor, money_said
from assistant.nlu.lexicon import _find_cards, _fold, _to_int
from assistant.nlu.query import CARD_FAMILIES, Ask
from assistant.nlu.understander import old_side_blanked
from assistant.nlu.workloads import serving_only
from assistant.reading.convert import ASK_INTENT
from tools.load import concurrent_sequences

if TYPE_CHECKING:
    from assistant.sessions import Slots

_REFERS_TO_NODE = re.compile(
    r"\b(?:on|with|for|in) (?:it|that|this|them|those)\b|\b(?:that|this|the same) "
    r"(?:node|server|config\w*|machine|box|setup)\b|\bdarauf\b|\bdamit\b|\bdort\b|"
    r"\bdiese[mnr]? (?:knoten|server|konfiguration|maschine)\b|\bauf (?:ihm|dem|diesem)\b|"
    r"\bdemselben\b|\bderselben\b|\b(?:da|dar|da)?drauf\b|\bda rein\b|\bdarin\b|"
    r"\b(?:on|onto|in) there\b|\bthere\s*\?|\bonto (?:it|that|this|them)\b|"
    # "Reicht der für Llama 3.3 70B?", "Would it hold Qwen3 32B?": the node talked about
    r"^\W*(?:und\s+)?(?:reicht|reichen|passt|taugt|schafft)\s+(?:der|die|dieser|diese|er)\b|"
    r"^\W*(?:and\s+)?(?:would|will|does|can)\s+(?:it|that|this one)\s+(?:hold|handle|take|fit)\b"
)
#: "split over those two cards", "auf den beiden Karten": the cards talked about, counted
_THOSE_CARDS_RX = re.compile(
    r"\b(?:those|these|the|both|die|diese|den|diesen)\s+(?:two|three|four|eight|[2-8]|zwei|"
    r"drei|vier|acht|beiden)\s+(?:cards|gpus|karten|grafikkarten)\b"
)
# "Und wäre die H100 PCIe dafür schneller?": a comparison with the node talked about
_COMPARED_RX = re.compile(
    r"\b(?:schneller|langsamer|günstiger|billiger|teurer|besser|faster|slower|cheaper|"
    r"quicker|pricier|costlier|more expensive|better)\b"
)


_QUESTION_START = re.compile(
    r"^\W*(?:what|which|how|why|when|where|who|can|could|does|do|is|are|will|would|should|"
    r"was|welche[rsnm]?|wie|warum|wieso|wann|wo|wer|kann|passt|reicht|ist|sind|brauche|gibt)\b",
    re.IGNORECASE,
)


def _family_size(u: Any, prev: Slots, catalog: Any) -> Any:
    """ "the 40B one" after "Which Falcon? The catalog has …": the family's model of that size,
    the rest of the question kept (the card asked about)."""
    if prev.model and not u.model:
        return _sessions_family(u, prev, catalog)
    if not (prev.unknown_model and not prev.model and not prev.params_b):
        return u
    if u.model or (u.unknown_model and u.unknown_model != prev.unknown_model):
        return u
    family = re.sub(r"[^a-z0-9]", "", prev.unknown_model.lower())
    models = getattr(catalog, "models", {}) or {}
    if not u.params_b:
        # "r1 i mean" after "Which deepseek?": the family's model whose name is family + word
        words = set(re.findall(r"[a-z]*\d[a-z0-9]*", u.question.lower()))
        named = [mid for mid, spec in models.items() if _norm(spec.name)[len(family) :] in words
                 and _norm(spec.name).startswith(family)]  # fmt: skip
        if len(named) != 1:
            return u
        update = {"model": named[0], "unknown_model": None, "follow_up": True}
        return u.model_copy(update={**update, "unknown_model_closest": []})
    hits = [
        mid
        for mid, spec in models.items()
        if _norm(spec.name).startswith(family)
        and abs(spec.params_b - u.params_b) <= 0.05 * u.params_b
    ]
    if len(hits) != 1:
        return u
    return u.model_copy(update={"model": hits[0], "params_b": None, "follow_up": True})


def _family_of(name: str) -> str:
    """ "Qwen2.5 32B" -> "qwen25": a model's name before its size ("" without one)."""
    size = re.search(r"\b\d+(?:\.\d+)?b\b", name.lower())
    return _norm(name[: size.start()]) if size else ""


def _sessions_family(u: Any, prev: Slots, catalog: Any) -> Any:
    """The session's model named by its family: "how fast is llama on that one?" after Llama
    3.3 70B is that model; "sorry, I meant the 72b" after Qwen2.5 32B is the family's 72B."""
    models = getattr(catalog, "models", {}) or {}
    spec = models.get(prev.model)
    if spec is None:
        return u
    name = _norm(spec.name)
    if u.unknown_model and not u.params_b and name.startswith(_norm(u.unknown_model)):
        update: dict[str, Any] = {"model": prev.model, "unknown_model": None}
        return u.model_copy(update={**update, "unknown_model_closest": [], "follow_up": True})
    if not u.params_b or u.unknown_model:
        return u
    family = _family_of(spec.name)
    hits = [
        mid
        for mid, other in models.items()
        if family
        and _family_of(other.name) == family
        and abs(other.params_b - u.params_b) <= 0.05 * u.params_b
    ]
    if len(hits) != 1:
        return u
    return u.model_copy(update={"model": hits[0], "params_b": None, "follow_up": True})


def _bare_context(u: Any, prev: Slots) -> Any:
    """A follow-up that names a bare size in thousands ("und wenns 32k sein sollen?") about a
    session with a model: the context asked (1k to 2M tokens)."""
    if u.context_tokens is not None or not (prev.model or prev.params_b):
        return u
    if u.model or u.params_b:
        return u
    folded = old_side_blanked(_fold(u.question))  # ("32k was a typo, it's 8k": 8k)
    m = BARE_K_RX.search(folded)
    if m is None or not 1 <= int(m.group(1)) <= 2048:
        return u
    if _MONEY_CUE_BEFORE_RX.search(folded[: m.start()]):
        return u  # "anything else under the 2k then?": the budget, not a context
    if prev.constraints.get("budget_usd_month") == int(m.group(1)) * 1000:
        return u  # "it's $800 a month, not 3k" after a budget of 3k: the budget taken back
    return u.model_copy(update={"context_tokens": int(m.group(1)) * 1024})


def _paste_on_other_node(u: Any, prev: Slots) -> Any | None:
    """ "sorry, they are on the 4x H100 SXM5, not the PCIe one. same numbers. still ok?" after a
    paste's check: the same paste checked against the node named now (no model asked about)."""
    text = prev.pasted_nccl or prev.pasted_topo
    if text is None or u.nccl_text or u.topo_text or u.model or not u.configurations:
        return None
    if not (u.yes_no or _SAME_PASTE_RX.search(_fold(u.question))):
        return None
    if u.claim not in (None, "healthy", "defect") or {"price", "speed", "cheapest"} & set(
        u.intents
    ):
        return None  # "is the SXM5 node faster?", "what does it cost?": another question
    intent = "allreduce_paste" if prev.pasted_nccl else "topology_paste"
    update = {"nccl_text": text} if prev.pasted_nccl else {"topo_text": text}
    claim = u.claim if u.claim in ("healthy", "defect") else "healthy"
    return u.model_copy(
        update={**update, "intents": [intent], "claim": claim, "asks": [], "follow_up": True}
    )


#: the same measurement said again of another node ("same numbers", "gleiche Werte")
_SAME_PASTE_RX = re.compile(
    r"\b(?:same (?:numbers|results|output|values|figures)|gleiche[nrs]? (?:zahlen|werte|"
    r"ergebnisse|ausgabe)|dieselben (?:zahlen|werte))\b"
)


def _off_topic_follow_up(merged: Any, u: Any) -> None:
    """ "how fast?", "wie lang darf die dann maximal sein?" read as off topic after a question
    about a model: what it asks, on the session's subject. ("unrelated, but can you write me a
    cover letter?" asks nothing of sizing, and is no short follow-up ("and?") that could only
    mean the session's question; a goal outside the domain stays declined.)"""
    if not merged.intents or merged.intents[0] != "off_topic" or merged.outside:
        return
    if not (merged.model or merged.params_b):
        return
    kinds = [] if merged.intents[1:] else _asks_of_the_subject(merged)
    if merged.intents[1:] or merged.follow_up or u.question.count(" ") < 4 or kinds:
        merged.intents = list(merged.intents[1:]) or [ASK_INTENT.get((kinds or ["fit"])[0], "fit")]


def _link_matters_after_paste(u: Any, prev: Slots) -> Any | None:
    """ "would it still matter if they ran 4 separate copies, one per card?" after a paste's
    check: whether the link matters for that job, on that node (rule 2 for copies)."""
    if prev.intent not in ("topology_paste", "allreduce_paste"):
        return None
    if not _MATTERS_RX.search(_fold(u.question)):
        return None
    node = {} if (u.configurations or u.cards) else {"configurations": prev.configurations}
    asked: dict[str, Any] = {"claim": "nvlink_needed", "yes_no": True, "asks": []}
    return u.model_copy(update={**asked, "intents": ["nvlink"], **node})


def _asks_of_the_subject(merged: Any) -> list[str]:
    """What the words ask of the session's model ("wie lang darf die dann maximal sein?"): the
    kinds of the asks the rule reader finds once the model is known, in order."""
    probe = merged.model_copy(deep=True)
    find_asks(_fold(merged.question), probe)
    return [a.kind for a in probe.asks]


#: the ask an intent makes when no words state one (capacity: the context; speed; price)
_INTENT_ASK: dict[str, Any] = {i: k for k, i in ASK_INTENT.items() if i != "fit"}


def _corrected_budget(u: Any, prev: Slots) -> Any:
    """ "Korrektur: es sind zwei Euro pro Stunde, nicht vier", "sorry, it's $3k a month": an
    amount of money said without a budget word, in a session that set a budget and about no
    node named now, is the budget corrected."""
    if u.constraints.budget_usd_month is not None or not prev.constraints.get("budget_usd_month"):
        return u
    if u.configurations or u.cards:
        return u  # "and what does 4x A100 cost, about $4k?": a price said of a node
    amount = money_said(old_side_blanked(_fold(u.question)))
    if amount is None:
        return u
    update: dict[str, Any] = {
        "constraints": u.constraints.model_copy(update={"budget_usd_month": amount})
    }
    if _was_a_pick(prev) and set(u.intents) <= {"price", "cheapest", "fit", "general", "off_topic"}:
        update["intents"] = ["cheapest"]  # "… geht dann noch irgendwas?": the pick again
    return u.model_copy(update=update)


#: a price asked per month ("und im Monat?", "per month?"): not the hourly price kept
_PER_MONTH_RX = re.compile(r"(?i)\b(?:month\w*|monat\w*|/mo\b|per mo\b)")


#: a budget cue right before a bare "2k" ("under the 2k", "unter den 3k", "within 5k")
_MONEY_CUE_BEFORE_RX = re.compile(
    r"\b(?:under|below|within|max\.?|budget|unter|unterhalb|innerhalb|höchstens|bis)\s+"
    r"(?:(?:the|our|den|die|unseren?|unsere[mn]?)\s+)?(?:\$|€)?\s*$"
)


def _norm(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _answers_our_question(u: Any, prev: Slots) -> bool:
    """A statement, not a question, after a sizing turn: the user answering what we asked."""
    return (
        bool(prev.intent)
        and prev.intent in ("nvlink", "cheapest", "speed", "capacity", "price")
        and "?" not in u.question
        and not _QUESTION_START.search(u.question)
        and u.intent in ("fit", "general")
    )


_VARIANT_RX = re.compile(r"\b(pcie|sxm)\d?\b(?:[\s-]*(?:variant\w*|version|one|twin|node|knoten))?")


def _swap_variant(u: Any, update: dict[str, Any], catalog: Any) -> bool:
    """'und die PCIe-Variante?' after 4x A100 SXM4: the same node with the other link (its twin
    in the catalog); nothing else changes. Both links named ("die PCIe-Variante im Vergleich zur
    SXM4?"): both twins, in the order named."""
    wants = list(dict.fromkeys(m.group(1) for m in _VARIANT_RX.finditer(u.question.lower())))
    configs = update.get("configurations")
    if not wants or not configs or u.cards or u.card_families or u.configurations:
        return False
    swapped = list(dict.fromkeys(_twin(cid, want, catalog) for cid in configs for want in wants))
    if swapped == configs:
        return False
    update["configurations"] = swapped
    update["cards"] = [catalog.configurations[c].gpu for c in swapped]
    return True


def _twin(cid: str, want: str, catalog: Any) -> str:
    """The node's twin with the link wanted (itself when the catalog has none)."""
    twin = re.sub(r"-sxm\d?$", "-pcie", cid) if want == "pcie" else re.sub(r"-pcie$", "-sxm", cid)
    match = [c for c in catalog.configurations if c == twin or c.startswith(twin)]
    return match[0] if match else cid


def _same_node(prev: Slots) -> dict[str, Any]:
    """The hardware slots of the session, as they are."""
    return {
        "cards": list(prev.cards),
        "card_families": list(prev.card_families),
        "count": prev.count,
        "memory_gb": prev.memory_gb,
        "configurations": list(prev.configurations),
    }


def _answered_node(prev: Slots, catalog: Any, first: bool = False) -> dict[str, Any]:
    """The hardware slots of the configuration the previous answer chose ("the cheapest single
    card is Z"), or nothing when it chose none; `first`: only the one it led with."""
    configs = [c for c in prev.answered if c in catalog.configurations][: 1 if first else None]
    if not configs:
        return {}
    return _nodes_slots([catalog.configurations[c] for c in configs])


# the asks a follow-up can make about the configuration the previous answer chose
_ASKS_ABOUT_NODE = ("capacity", "speed", "price", "fit", "nvlink", "link_facts", "tp_sync")


def _refers_to_answer(u: Any, prev: Slots) -> bool:
    """The question refers to the configuration the previous answer chose: "on it", "darauf",
    "that one", "the card"."""
    return bool(prev.answered) and bool(
        _REFERS_TO_NODE.search(u.question.lower()) or _THAT_ONE.search(u.question.lower())
    )


_THAT_ONE = re.compile(
    r"\b(?:that|this|the same) one\b|\bthe (?:card|gpu|node|server)\b|"
    r"\b(?:fits?|run|runs|work|works|go|goes) there\b|"
    r"\b(?:die|der|diese[rnms]?) (?:karte|gpu|knoten|server|konfiguration)\b"
)


_SEVERAL = re.compile(
    r"\b(?:both|each|either|all (?:of )?(?:them|those|three)|them|those|beide[nm]?|jede[mnr]?|"
    r"allen|denen|the two|die zwei|which one|which of (?:them|the two|these)|"
    r"welche[rsn]? (?:davon|von beiden|der beiden))\b"
)


def _node_for(u: Any, prev: Slots, intents: list[str], catalog: Any) -> dict[str, Any]:
    """The hardware of a follow-up that names none. A new kind of question ("how many people
    could chat on it?", "how fast is it?", "what does it cost?") after an answer that chose a
    configuration is about that configuration, with or without a referring word; a question
    continuing the previous one ("and in FP8?" after "the cheapest?") keeps the session's
    hardware. The cheapest asked anew searches every node (the count the question gives)."""
    own = intents[:1] != [prev.intent] and not _same_yes_no(u, prev)
    if len(prev.configurations) > 1 and _SEVERAL.search(u.question.lower()):
        return {}  # "and on each of them?", "auf beiden?": every node named before
    if (
        intents[:1]
        and intents[0] in _ASKS_ABOUT_NODE
        and (own or _refers_to_answer(u, prev))
        and (u.count is None or _THAT_ONE.search(u.question.lower()))
    ):
        node = _answered_node(prev, catalog)
        if node:
            return node
    if intents[:1] == ["cheapest"] and len(prev.configurations) < 2:
        # "which is the cheapest single card?" after "does it fit on one L40S?": every node
        return {"cards": [], "card_families": [], "configurations": [], "count": u.count}
    return {}


# "the cheaper one", "der günstigere", "the more expensive of the two": one of the nodes named
_CHEAPER_ONE_RX = re.compile(
    r"\bthe (?:cheaper|less expensive|lower[\s-]priced)(?: one| node| option| of the two)?\b|"
    r"\b(?:der|die|das|den|dem) (?:günstiger|billiger|preiswerter)e[nrs]?\b"
)
_DEARER_ONE_RX = re.compile(
    r"\bthe (?:more expensive|pricier|dearer)(?: one| node| option| of the two)?\b|"
    r"\b(?:der|die|das|den|dem) teurere[nrs]?\b"
)


#: "und die mit nvlink?", "the sxm one", "the one with pcie": one of the nodes named, by its link
_LINKED_ONE_RX = re.compile(
    r"\b(?:the one|the node|the option|die|der|das|den|dem|diejenige|derjenige)\s+"
    r"(?:mit|with)\s+(?:dem\s+|der\s+)?(nvlink|sxm|pcie)\d?\b|"
    r"\b(?:the|die|der|das) (nvlink|sxm|pcie)\d?(?: one| node| variant|-variante| variante)\b"
)


#: "zurück zur ersten Variante", "doch wieder die erste", "back to the first one/option"
_FIRST_ONE_RX = re.compile(
    r"\b(?:wieder|zurück)\b[^.?!]{0,20}\b(?:die|der|das|den|dem|zur|zum)\s+erste[nmrs]?\b|"
    r"\b(?:die|der|das|den|dem|zur|zum)\s+erste[nmrs]?\s+(?:variante|option|knoten|server|karte|"
    r"vorschlag)\b|\b(?:die|der|das)\s+erste\s*[.,!?]|"
    r"\bthe first (?:one|option|node|server|card|setup|suggestion)\b"
)


def _one_of_them(u: Any, prev: Slots, catalog: Any) -> dict[str, Any]:
    """The hardware of "the cheaper one" / "the more expensive one" / "the one with NVLink"
    among the nodes the conversation named; nothing when it names no such node."""
    text = u.question.lower()
    first = _FIRST_ONE_RX.search(text)
    before = [c for c in prev.answered_before if c in catalog.configurations]
    if first and before and before[0] not in prev.configurations:
        # "ok doch wieder die erste", "back to the first option": the node two turns ago
        return _nodes_slots([catalog.configurations[before[0]]])
    cheaper, dearer = _CHEAPER_ONE_RX.search(text), _DEARER_ONE_RX.search(text)
    named = list(prev.configurations) or _nodes_of(prev, catalog)  # "your two 4x A100 nodes"
    if len(named) < 2:  # the picks of the last two answers ("… and the cheapest with NVLink?"),
        # or the nodes two turns priced one by one ("8x A100 SXM4?", "and the PCIe variant?")
        named = list(dict.fromkeys([*prev.answered, *named, *prev.answered_before]))
    nodes = [catalog.configurations[c] for c in named if c in catalog.configurations]
    link = _LINKED_ONE_RX.search(text)
    if len(nodes) < 2 or not (cheaper or dearer or link):
        return {}
    if link:  # "und die mit nvlink?": the one node of them with that kind of link
        kind = "pcie" if (link.group(1) or link.group(2)) == "pcie" else "nvlink"
        linked = [c for c in nodes if catalog.links[c.interconnect].kind == kind]
        if len(linked) != 1:
            return {}
        pick = linked[0]
    else:
        pick = (min if cheaper else max)(nodes, key=lambda c: c.usd_per_month)
    chosen = [pick]
    if u.claim in ("faster", "cheaper", "costlier") and len(nodes) == 2:
        # "is the sxm5 one much faster?": that one, against the other
        chosen += [c for c in nodes if c.id != pick.id]
    return _nodes_slots(chosen)


def _nodes_slots(nodes: list[Any]) -> dict[str, Any]:
    """The hardware slots of catalog configurations, the first one's count."""
    return {
        "cards": list(dict.fromkeys(c.gpu for c in nodes)),
        "card_families": [],
        "count": nodes[0].count,
        "memory_gb": None,
        "configurations": [c.id for c in nodes],
    }


# a turn that corrects what was said ("sorry, I meant the 70B", "Korrektur: …")
_CORRECTION_RX = re.compile(
    r"^\W*(?:(?:oh|ah|ups|oops|sorry|sry|entschuldigung|pardon|my bad|mein fehler|vertippt|"
    r"verschrieben|typo|tippfehler)\W+)*"
    r"(?:i meant|i mean|we meant|meant|ich meinte|wir meinten|gemeint war|correction|korrektur|"
    r"typo|tippfehler)\b"
)


def _follows(u: Any, prev: Slots, new_subject: bool) -> tuple[Any, bool, bool]:
    """Whether the question continues the session (and the question as continued), and whether
    it only supplies the model a starting point assumed."""
    # "sorry, ich meinte das 70b": a correction of the model keeps the rest of the question
    follow = u.follow_up or not new_subject or bool(_CORRECTION_RX.match(_fold(u.question)))
    # "qwen2.5 32b. was wäre das günstigste?" after a starting point sized for an assumed model:
    # the model answers what we asked; the load, budget and job said before stay, and the node
    # the starting point picked (for the assumed model) is no node meant
    model_supplied = not follow and prev.model_assumed and not u.outside
    if model_supplied:
        follow = True
        if u.intent in ("fit", "general", "off_topic") and prev.intent:
            u = u.model_copy(update={"intents": [str(prev.intent)], "follow_up": True})
    if not follow and _answers_our_question(u, prev):
        # "Für Llama 3.3 70B in BF16, Produktivbetrieb mit vielen Nutzern." after we asked:
        # a statement that supplies what was missing continues the previous question
        follow = True
        u = u.model_copy(update={"intents": [str(prev.intent)], "follow_up": True})
    return u, follow, model_supplied


def merge_slots(u: Any, prev: Slots, catalog: Any) -> Any:
    """Fill what the question leaves open from the session: a follow-up ("and on an H200?",
    "und in FP8?") or a question without a model keeps the model, precision and workload of
    earlier turns. A question that names a new model starts fresh (but keeps the workload)."""
    pasted = _paste_on_other_node(u, prev)
    if pasted is not None:
        return pasted
    matters = _link_matters_after_paste(u, prev)
    if matters is not None:
        return matters
    u = _family_size(u, prev, catalog)
    u = _bare_context(u, prev)
    u = _corrected_budget(u, prev)
    new_subject = bool(u.model or u.params_b or u.unknown_model)
    names_hardware = bool(u.cards or u.card_families or u.configurations or u.memory_gb)
    u, follow, model_supplied = _follows(u, prev, new_subject)
    if not follow:
        return _new_question(u, prev, catalog, names_hardware)
    update = _kept_subject(prev) if not new_subject else {}
    update.update(_kept_workload(u, prev))
    update.update(_kept_load(u, prev))
    update.update(_kept_hardware(u, prev, catalog, names_hardware))
    swapped = _swap_variant(u, update, catalog)
    if u.gen4 and not names_hardware:  # "die günstigere Gen4-Variante davon"
        update.update(_gen4_of(update.get("configurations") or list(prev.configurations), catalog))
    intents = list(u.intents)
    if swapped and prev.intent and intents[:1] not in (["price"], ["speed"], ["capacity"]):
        intents = [str(prev.intent)]  # the same question about the other variant
    intents = _follow_up_intents(u, prev, intents, update, new_subject, names_hardware)
    picked = {} if names_hardware else _one_of_them(u, prev, catalog)
    if picked:  # "the cheaper one - how many chats can it take?": a reference, not an ask
        # ("die mit nvlink?": the link names the node, it asks nothing about NVLink)
        referring = (
            ("cheapest", "off_topic", "nvlink")
            if _LINKED_ONE_RX.search(u.question.lower())
            else ("cheapest", "off_topic")
        )
        intents = [i for i in intents if i not in referring] or [str(prev.intent)]
        update.update(picked)
        kept = update.get("constraints")
        if kept is not None and (kept.require_link or kept.exclude_link):
            # the node picked is the one meant, whatever link an earlier turn asked for
            update["constraints"] = kept.model_copy(
                update={"require_link": None, "exclude_link": None}
            )
    update["intents"] = intents
    if "difference" in u.topics and "difference_asked" not in u.topics and prev.intent == "price":
        # "und die L4? was ist der Unterschied?" after a price: the two prices' difference
        update["topics"] = [*u.topics, "difference_asked"]
    if prev.asked_per_hour and intents[:1] == ["price"] and not _PER_MONTH_RX.search(u.question):
        # "was kostet eine L40S pro Stunde?" then "und der Knoten mit vier davon?": per hour too
        update["topics"] = [*update.get("topics", u.topics), "per_hour"]
    update.update(_sizing_again(u, prev, new_subject))
    update.update(_asked_again(u, prev))
    if not names_hardware and not swapped and not picked and not model_supplied:
        update.update(_node_for(u, prev, intents, catalog))
    if update.get("configurations"):  # "the cheaper one" resolved to a node already named
        update["configurations"] = list(dict.fromkeys(update["configurations"]))
    _named_node_wins(update, list(u.configurations or update.get("configurations") or []), catalog)
    merged = u.model_copy(update=update)
    _off_topic_follow_up(merged, u)
    if not new_subject and merged.has_subject:
        # "und wie schnell, BF16 vs FP8?": the asks of a follow-up, about the session's model
        find_asks(_fold(merged.question), merged)
        _refit_at_precision(merged, prev)
        _memory_again(merged, u, prev)
    _n_of_them(merged, catalog)
    _the_other_of_two(merged, prev)
    _the_two(merged, prev, catalog)
    _same_yes_no_of_other_hardware(merged, prev)
    _same_pick(merged, prev, catalog, new_subject)
    _need_of_the_model(merged, names_hardware)
    return merged


def _the_other_of_two(merged: Any, prev: Slots) -> None:
    """ "also wie viel spar ich mit pcie pro monat?" after the SXM4 node's price and then the
    PCIe variant's: a price difference asked of one node is against the other node the
    conversation priced."""
    if "difference_asked" not in merged.topics or len(merged.configurations) != 1:
        return
    talked = [*prev.answered, *prev.answered_before, *prev.configurations]
    other = next((c for c in talked if c not in merged.configurations), None)
    if other is not None:
        merged.configurations = [*merged.configurations, other]


# "which of the two is cheaper?", "wie viel spar ich da also genau?": the two nodes talked about
_THE_TWO_RX = re.compile(
    r"\b(?:(?:of )?the two|both(?: of them)?|(?:von |der |die )?beiden|die zwei|der zwei|"
    r"von den zwei)\b"
)


#: a difference asked in money ("wie viel teurer", "how much more do we pay")
_MONEY_WORD_RX = re.compile(
    r"\b(?:teurer|günstiger|billiger|cheaper|more expensive|pricier|costlier|zahl\w*|pay\w*|"
    r"kost\w*|cost\w*|preis\w*|price\w*|spar\w*|sav(?:e|ing)\w*|im monat|a month|per month|"
    r"monthly|monatlich)\b|[$€]"
)


def _two_talked(prev: Slots) -> list[str]:
    """The nodes the conversation talked about, oldest first, when they are two: the answer
    before the last one's and the last one's (or those the last question named)."""
    talked = list(dict.fromkeys([*prev.answered_before, *(prev.answered or prev.configurations)]))
    return talked if len(talked) == 2 else []


def _the_two(merged: Any, prev: Slots, catalog: Any) -> None:
    """ "which of the two is cheaper per month?" or "so how much do i save exactly" after two
    nodes answered turn by turn, with no hardware named or kept: those two nodes, the price of
    each (not a new cheapest pick, not a question outside sizing); "und welche von beiden
    würdest du nehmen?" compares them (no yes/no)."""
    folded = _fold(merged.question)
    both = bool(_THE_TWO_RX.search(folded))
    if not (both or "difference_asked" in merged.topics):
        return
    two = _two_talked(prev)
    if two and not (merged.configurations or merged.cards or merged.card_families):
        merged.configurations, merged.refers_to = list(two), list(two)
    if len(merged.configurations) != 2:
        return
    if both and re.search(r"\b(?:which|welche[nrs]?)\b", folded):
        merged.yes_no, merged.claim, merged.compare = False, None, True
        merged.intents = [i for i in merged.intents if i != "off_topic"] or ["fit"]
        merged.topics = list(dict.fromkeys([*merged.topics, "versus"]))
        cards = [catalog.configurations[c].gpu for c in merged.configurations]
        merged.cards = list(dict.fromkeys([*merged.cards, *cards]))
    elif (
        {"cheapest", "off_topic"} & set(merged.intents)
        or not merged.intents
        or ("price" not in merged.intents and _MONEY_WORD_RX.search(folded))
    ):
        # ("und wie viel teurer ist der h200-knoten im monat?" after two fits: their prices)
        rest = (i for i in merged.intents if i not in ("cheapest", "price", "off_topic", "fit"))
        merged.intents = ["price", *rest]
        if not is_yes_no(merged.question):  # "und was ist der unterschied im monat?": asks what
            merged.yes_no, merged.claim = False, None


#: a question that only names hardware ("und ne 5090?", "and an L40S?", "oder 2x A6000?")
_BARE_HARDWARE_Q_RX = re.compile(
    r"^\W*(?:(?:und|and|oder|or|what about|wie wäre es mit|und mit|with)\s+)?"
    r"(?:(?:ne|eine?|einer|a|an|one|the|die|der|\d+\s*x)\s*)?[\w\s.-]{1,24}\?$"
)


def _same_yes_no_of_other_hardware(merged: Any, prev: Slots) -> None:
    """ "und ne 5090? was würde die kosten?" after "Reicht da eine RTX 4090?": the first
    question names only the other card, so the yes/no is asked again of it, and the price after
    it (not the price alone, the yes/no left unread)."""
    if not (prev.yes_no and prev.claim == "fits" and merged.configurations) or merged.yes_no:
        return
    if merged.claim is not None:
        return  # "und mit 4x 4090? braucht man dann nvlink …?": the later yes/no is asked
    first = _first_question(merged.question.strip())
    if first == merged.question.strip() or not _BARE_HARDWARE_Q_RX.match(first.lower()):
        return
    if not _find_cards(_fold(first)):
        return
    merged.yes_no, merged.claim = True, "fits"
    merged.intents = ["fit", *(i for i in merged.intents if i != "fit")]
    if not any(a.kind == "fit" for a in merged.asks):
        merged.asks = [Ask(kind="fit", at=-1), *merged.asks]


def _need_of_the_model(merged: Any, names_hardware: bool) -> None:
    """ "how much vram does it need then?" after a fit on a node: the model's own need (the
    memory flow), not the node's fit again; "… on that node?" keeps the node, and so does a
    fine-tune's memory, sized against the card talked about."""
    asks_memory = merged.asks[:1] and merged.asks[0].kind == "memory"
    tuning = {"training", "fine_tuning"} & set(merged.workloads)
    kept = names_hardware or tuning or _REFERS_TO_NODE.search(merged.question.lower())
    if not asks_memory or kept:
        return
    merged.configurations, merged.cards, merged.card_families = [], [], []
    merged.count, merged.refers_to, merged.yes_no, merged.claim = None, [], False, None


def _same_pick(merged: Any, prev: Slots, catalog: Any, new_subject: bool) -> None:
    """ "still the same if i need 32k context?" after the cheapest node: whether the node the
    previous answer led with is still the pick (the cheapest pick with it named, yes or no)."""
    node = _answered_node(prev, catalog, first=True)
    asked = _was_a_pick(prev) and not new_subject and node
    if not asked or not _SAME_PICK_RX.search(_fold(merged.question)):
        return
    for field, value in node.items():
        setattr(merged, field, value)
    merged.intents = ["cheapest"]
    merged.explain, merged.claim, merged.yes_no = False, None, True
    merged.topics = [*merged.topics, "is_the_cheapest"]


_N_OF_THEM_RX = re.compile(
    r"\b(\d|two|three|four|eight|zwei|drei|vier|acht)\s+(?:of them|of those|of these|davon|"
    r"von denen|von den(?:en)?|solche[rn]?|such cards)\b"
)


def _memory_again(merged: Any, u: Any, prev: Slots) -> None:
    """ "und in fp8?" after "wie viel VRAM braucht X?": the memory need asked again (and the
    KV cache's size after it was asked)."""
    same = merged.intents[:1] == [prev.intent]
    if prev.asked_memory and same and not u.asks and not merged.asks:
        merged.asks = [Ask(kind="memory")]
    if prev.asked_kv_size and same and u.kv_precision and "kv_cache_size" not in merged.topics:
        # "and with an FP8 KV cache?" after "how big is the KV cache …?": its size again
        merged.topics = [*merged.topics, "kv_cache_size"]


def _asked_again(u: Any, prev: Slots) -> dict[str, Any]:
    """ "sorry, vertippt, ich meinte Qwen2.5 32B" after "passt Llama 3.1 70B auf 4x 4090?": the
    same yes/no about the corrected model."""
    if prev.yes_no and not u.yes_no and _CORRECTION_RX.match(_fold(u.question)):
        return {"yes_no": True, "claim": u.claim or prev.claim}
    return {}


def _sizing_again(u: Any, prev: Slots, new_subject: bool) -> dict[str, Any]:
    """ "wir würden es eigentlich in fp8 laufen lassen. geht es dann?": the session's model
    asked again, not the concept of FP8."""
    if u.explain and not new_subject and (prev.model or prev.params_b) and u.asks_fit:
        return {"explain": False}
    return {}


def _n_of_them(merged: Any, catalog: Any) -> None:
    """ "what would two of them cost?", "und zwei davon?": the session's card at that count."""
    m = _N_OF_THEM_RX.search(merged.question.lower())
    if m is None:
        return
    n = _to_int(m.group(1)) or 0
    cards = [*merged.cards, *(c for f in merged.card_families for c in CARD_FAMILIES.get(f, ()))]
    if not cards:
        cards = [catalog.configurations[c].gpu for c in merged.configurations
                 if c in catalog.configurations]  # fmt: skip
    # the chassis of the node talked about carries over ("2 of those" after 1x RTX A6000 Gen4)
    gen4 = any(c.endswith("-gen4") for c in merged.configurations)
    ids = []
    for c in dict.fromkeys(cards):
        same = f"{n}x-{c}-gen4" if gen4 else f"{n}x-{c}"
        cid = same if same in catalog.configurations else f"{n}x-{c}"
        if cid in catalog.configurations:
            ids.append(cid)
    if ids:
        merged.count = n
        merged.configurations = ids


# "and in awq?", "und in FP8?": a sentence that names only a precision
_AT_PRECISION_RX = re.compile(
    r"(?:^|[.?!]\s*)(?:and|und|what about|und was ist mit|what if)?\s*(?:in|mit|with|at|as)\s+"
    r"[\w.-]{2,12}\s*\?"
    # "what about fp8 then, and what would that cost?", "und mit awq, was kostet das dann?"
    r"|(?:^|[.?!]\s*)(?:what about|how about|and|und|und was ist mit|was ist mit)\s+"
    r"(?:(?:in|mit|with|as)\s+)?(?:fp8|fp16|bf16|int4|int8|awq|gptq|gguf|nf4|q\d\w*|\d-?bit)\b"
    r"(?:\s+(?:then|dann|instead|stattdessen))?\s*[?,]"
    # "what if i use AWQ?", "und wenn wir FP8 nehmen?": the fit again in that format
    r"|(?:^|[.?!]\s*)(?:what if|and if|und wenn|was wenn)\s+(?:i|we|they|ich|wir|sie)\s+"
    r"(?:use|go|went|switch to|take|run it in|nehm\w*|nutz\w*|verwend\w*|geh\w* auf)\s+"
    r"(?:fp8|fp16|bf16|int4|int8|awq|gptq|gguf|nf4|q\d\w*|\d-?bit)\b"
)


# "und auf einer A100 PCIe?", "and on an H200?", "und die 5090, was kostet die?": a clause that
# names only other hardware
_ON_HARDWARE_RX = re.compile(
    r"(?:^|[.?!]\s*)(?:(?:hm+|ok(?:ay)?|so|well|achso|gut|na)\W+)?"
    r"(?:(?:and|und|what about|how about|und was ist mit|was ist mit)\s+"
    r"(?:(?:on|auf|with|mit)\s+[^.?!]{2,30}\?|(?:the|die|der|das|den)\s+[^.?!,]{2,30}[,?:-])|"
    # "hm what about 2x 5090 then, and what would that cost": the hardware itself
    r"(?:what about|how about|und was ist mit|was ist mit)\s+[^.?!,]{2,30}[,?])"
)


def _refit_at_precision(merged: Any, prev: Slots) -> None:
    """ "and in awq? what would the card cost?", "und auf einer A100 PCIe? wie schnell wäre es
    da?", "what about two of them, and what would that cost?" after a fit: the fit asked again at
    that precision or on that hardware leads, before the other asks of the follow-up."""
    # (an ask the intent makes counts: "what if we use AWQ? how many users at once then?")
    asked = merged.asks or merged.intents[:1] in (["capacity"], ["speed"], ["price"])
    if prev.intent != "fit" or any(a.kind == "fit" for a in merged.asks) or not asked:
        return
    text = merged.question.lower()
    hardware = merged.cards or merged.card_families or merged.configurations
    at_precision = merged.precision and _AT_PRECISION_RX.search(text)
    # "ok what about two of them, and what would that cost?": the session's card at a count
    other = _ON_HARDWARE_RX.search(text) or _N_OF_THEM_RX.search(text)
    if not (at_precision or (hardware and other)):
        return
    implied = [] if merged.asks else [Ask(kind=_INTENT_ASK[merged.intents[0]])]
    merged.asks = [Ask(kind="fit"), *merged.asks, *implied]
    merged.intents = ["fit", *(i for i in merged.intents if i != "fit")]


def _new_question(u: Any, prev: Slots, catalog: Any, names_hardware: bool) -> Any:
    """A question that starts fresh keeps nothing, except the node it points back to: "How
    fast is Llama 3.3 70B on it?" after a price question runs on the same node (after "the
    cheapest is Z": Z)."""
    picked = {} if names_hardware else _one_of_them(u, prev, catalog)
    if picked:  # "the cheaper one - would Llama 3.3 70B fit on it?"
        intents = [i for i in u.intents if i not in ("cheapest", "off_topic")] or ["fit"]
        return u.model_copy(update={**picked, "intents": intents})
    two = [] if names_hardware else _two_talked(prev)
    if two and _THE_TWO_RX.search(_fold(u.question)):  # "läuft Llama 70B auf beiden?"
        return u.model_copy(update={"configurations": two, "refers_to": two})
    referred = u.count is None and _REFERS_TO_NODE.search(u.question.lower())
    if not names_hardware and (referred or _THOSE_CARDS_RX.search(u.question.lower())):
        # ("split over those two cards": the node talked about, with its count)
        return u.model_copy(update=_answered_node(prev, catalog) or _same_node(prev))
    if not names_hardware and prev.configurations:
        # "we serve Llama 3.3 70B on all 4 … should we move to the SXM5 version?": the node
        # talked about, in its other variant
        update: dict[str, Any] = {"configurations": list(prev.configurations)}
        if _swap_variant(u, update, catalog):  # both: the one they have and the one asked about
            both = list(dict.fromkeys([*prev.configurations, *update["configurations"]]))
            cards = [catalog.configurations[c].gpu for c in both]
            return u.model_copy(update={"configurations": both, "cards": cards})
    counted = _node_of_count(u, prev, catalog) if not names_hardware else []
    if counted:  # "would X still fit if we split it across all four?": that node's cards
        return u.model_copy(update=_nodes_slots(counted))
    return u


def _node_of_count(u: Any, prev: Slots, catalog: Any) -> list[Any]:
    """The one node talked about whose card count the question says with no card ("across
    all four" after the 4x RTX 5090)."""
    if u.count is None:
        return []
    nodes = [catalog.configurations[c] for c in prev.configurations if c in catalog.configurations]
    same = [n for n in nodes if n.count == u.count]
    return same if len(same) == 1 else []


def _kept_subject(prev: Slots) -> dict[str, Any]:
    """No model named: the session's model (or the unknown one it named)."""
    update: dict[str, Any] = {
        "model": prev.model,
        "params_b": prev.params_b,
        "unknown_model": None,
    }
    if prev.unknown_model and not prev.model and not prev.params_b:
        update["unknown_model"] = prev.unknown_model
    return update


#: the kind of job a conversation is about, kept when a follow-up only adds a load
_JOB_KINDS = frozenset({"diffusion", "rendering"})


def _kept_workload(u: Any, prev: Slots) -> dict[str, Any]:
    """No workload said: the session's, with its adapter ("and on an H100?" after a QLoRA
    question); the same adapter's rank and targets ("and on an RTX 4090?" after "rank 64")."""
    update: dict[str, Any] = {}
    if serving_only(_fold(u.question)):
        # "and afterwards only inference, no training?": the session's workload, not trained
        kept = [w for w in prev.workloads if w not in ("training", "fine_tuning")]
        update["workloads"] = [*kept, *(w for w in u.workloads if w not in kept)]
        update.update(adapter=None, lora_rank=None, lora_attention_only=False)
        return update
    if not u.workloads and prev.workloads:
        update["workloads"] = list(prev.workloads)
        if prev.adapter in ("lora", "qlora"):
            update["adapter"] = prev.adapter
    elif u.workloads and not set(u.workloads) & _JOB_KINDS:
        # "and with 3 people at once?" after an image model: still images, now for three
        carried = [w for w in prev.workloads if w in _JOB_KINDS]
        update["workloads"] = [*carried, *u.workloads]
    if not ((u.adapter or update.get("adapter")) and prev.adapter):
        return update
    if u.lora_rank is None and prev.lora_rank:
        update["lora_rank"] = prev.lora_rank
    if not u.lora_attention_only and prev.lora_attention_only:
        update["lora_attention_only"] = True
    return update


_DROPPED_FIELD = {"nvlink": "require_link", "sxm": "require_link", "pcie": "require_link"}


def _without_dropped(kept: Any, folded: str) -> Any:
    """The session's constraints less those the follow-up drops ("forget the nvlink, only
    inference then: the cheapest box?")."""
    update: dict[str, Any] = {}
    for m in DROPPED_RX.finditer(folded):
        field = _DROPPED_FIELD.get(m.group(1), "budget_usd_month")
        update[field] = None
        if field == "require_link":
            update["exclude_link"] = None
    return kept.model_copy(update=update) if update else kept


#: the slots a follow-up keeps from the session when it says nothing of them
_KEPT_WHEN_UNSAID = (
    "precision",
    "runtime",
    "kv_precision",
    "context_tokens",
    "concurrency",
    "min_tokens_per_s",
    "output_tokens",
)


def _kept_load(u: Any, prev: Slots) -> dict[str, Any]:
    """The precision, runtime, context, load and constraints the follow-up does not say."""
    update: dict[str, Any] = {
        name: getattr(prev, name)
        for name in _KEPT_WHEN_UNSAID
        if getattr(u, name) is None and getattr(prev, name)
    }
    if prev.constraints:
        kept = type(u.constraints).model_validate(prev.constraints)
        if u.constraints.active():  # "keine A6000 bitte. geht dann noch was im Budget?"
            kept = _with_said(kept, u.constraints)
        update["constraints"] = _without_dropped(kept, _fold(u.question))
    if u.users is None and prev.users and u.concurrency is None:
        update.update(users=prev.users, concurrency=prev.concurrency)
        factor = find_users_factor(_fold(u.question))
        if factor is not None:  # "und für doppelt so viele Nutzer?"
            update.update(_scaled_load(prev.users, prev.concurrency, factor))
    return update


def _with_said(kept: Any, said: Any) -> Any:
    """The session's constraints with what the follow-up says on top: its own values win, the
    cards it excludes join those excluded before, a link it requires replaces a link refused."""
    fields = said.model_dump(exclude_defaults=True)
    if said.exclude_cards:
        fields["exclude_cards"] = sorted({*kept.exclude_cards, *said.exclude_cards})
    if said.require_link or said.exclude_link:
        fields.setdefault("require_link", said.require_link)
        fields.setdefault("exclude_link", said.exclude_link)
    return kept.model_copy(update=fields)


def _scaled_load(users: int, concurrency: int | None, factor: float) -> dict[str, Any]:
    """The users times the factor, and the sequences at once: assumed again from the users when
    they were assumed from them, else scaled as said."""
    scaled = max(1, round(users * factor))
    if concurrency is None or concurrency == concurrent_sequences(users):
        return {"users": scaled, "concurrency": concurrent_sequences(scaled)}
    return {"users": scaled, "concurrency": max(1, round(concurrency * factor))}


def _kept_hardware(u: Any, prev: Slots, catalog: Any, names_hardware: bool) -> dict[str, Any]:
    """The session's node when the follow-up names no hardware and no count; its cards at the
    new count ("and on eight cards?" after "4x A100 SXM4"); its count on the new card ("and on
    an H200?" after "on four cards")."""
    if not names_hardware and u.count is None:
        return _same_node(prev)
    if not names_hardware and u.count is not None and (prev.cards or prev.card_families):
        configs = [
            f"{u.count}x-{card}"
            for card in prev.cards
            if f"{u.count}x-{card}" in catalog.configurations
        ]
        return {
            "cards": list(prev.cards),
            "card_families": list(prev.card_families),
            "configurations": configs,
        }
    one = _one_named_before(u, prev, catalog) if names_hardware else None
    if one is not None:  # "ok, the A100 then": the A100 node named before, not every A100
        return {"configurations": [one], "count": catalog.configurations[one].count}
    if (
        names_hardware
        and (prev.configurations or prev.count)
        and _COMPARED_RX.search(u.question.lower())
    ):
        # "und wäre die H100 PCIe dafür schneller?": the node named and the one before
        named = _nodes_named(u, catalog)
        before = [c for c in prev.configurations or _nodes_of(prev, catalog) if c not in named]
        if named and len(before) == 1:
            return {"configurations": [*named, *before]}
    if names_hardware and u.count is None and prev.count:
        count = prev.count
        configs = list(u.configurations)
        for card in u.cards:
            cid = f"{count}x-{card}"
            if cid in catalog.configurations and cid not in configs:
                configs.append(cid)
        return {"count": count, "configurations": configs}
    return {}


#: the previous intents a follow-up cannot continue
_ENDED = ("off_topic", "topology_paste", "allreduce_paste", "general")


def _one_named_before(u: Any, prev: Slots, catalog: Any) -> str | None:
    """The one configuration of the conversation that the card (or card family) named without
    a count belongs to."""
    if u.configurations or u.count is not None:
        return None
    cards = {*u.cards, *(c for f in u.card_families for c in CARD_FAMILIES.get(f, ()))}
    # the nodes named now-and-before, else the ones named or answered two turns back ("ok
    # going back to the a100 then" after "what about 2x l40s?")
    history = [list(prev.configurations)] if len(prev.configurations) >= 2 else []
    if _BACK_TO_RX.search(u.question.lower()):
        history.append([*prev.configurations, *prev.answered_before])
    for nodes in history:
        hits = [
            c
            for c in dict.fromkeys(nodes)
            if c in catalog.configurations and catalog.configurations[c].gpu in cards
        ]
        if len(hits) == 1:
            return hits[0]
    return None


#: a return to an option talked about before ("going back to the A100", "zurück zur L40S")
_BACK_TO_RX = re.compile(
    r"\b(?:back to|going back|return to|zurück zu\w*|wieder (?:zu\w*|auf)|doch (?:die|den|das))\b"
)


def _nodes_named(u: Any, catalog: Any) -> list[str]:
    """The configurations the question names: as ids, or its cards at the count it says (one
    card when it says none)."""
    if u.configurations:
        return list(u.configurations)
    count = u.count or 1
    return [f"{count}x-{c}" for c in u.cards if f"{count}x-{c}" in catalog.configurations]


def _gen4_of(configurations: list[str], catalog: Any) -> dict[str, Any]:
    """The Gen4-chassis variants of the nodes talked about, where the catalog has them."""
    gen4 = [f"{c}-gen4" for c in configurations if f"{c}-gen4" in catalog.configurations]
    return {"configurations": gen4} if gen4 else {}


def _nodes_of(prev: Slots, catalog: Any) -> list[str]:
    """The nodes of the session's cards (and card families) at its count ("eine einzelne A100":
    the one 1-card A100 node)."""
    cards = [*prev.cards, *(c for f in prev.card_families for c in CARD_FAMILIES.get(f, ()))]
    ids = [f"{prev.count}x-{c}" for c in cards]
    return [c for c in ids if c in catalog.configurations]


def _follow_up_intents(
    u: Any,
    prev: Slots,
    intents: list[str],
    update: dict[str, Any],
    new_subject: bool,
    names_hardware: bool,
) -> list[str]:
    """What a follow-up asks, read against the question before it (and what that keeps)."""
    if _budget_of_the_node(u, prev, intents, new_subject, names_hardware):
        # "Budget max. 8.000 €. Bleiben wir damit drunter?" after a fit on a node named: that
        # node's price against the budget (after a cheapest pick it stays the pick's question)
        update.update(yes_no=True, claim=None, asks=[Ask(kind="price")])
        return ["price"]
    if _all_reduce_elsewhere(u, prev, intents, new_subject, names_hardware):
        return ["allreduce"]  # "Und auf 4x H100 PCIe mit Gen5?" after an all-reduce time
    on_topic = _on_topic(u, prev, intents)
    if on_topic is not None:
        if on_topic == ["cheapest"] and _NEXT_OPTION_RX.search(_fold(u.question)):
            update.update(claim=None, yes_no=False)  # ("had bad experience. next option?")
        return on_topic
    if _fit_on_named_after_pick(u, prev, intents, new_subject, names_hardware):
        # "und in AWQ auf einer einzigen A100?" after the cheaper of two
        update.update(yes_no=True, claim="fits", asks=[Ask(kind="fit")])
        return ["fit"]
    if _narrows_the_pick(u, prev, intents, new_subject):
        update.update(explain=False, claim=None)  # "und wenn es NVLink haben soll?"
        return ["cheapest"]
    if _continues_previous(u, prev, intents, new_subject, names_hardware):
        return _continued(u, prev, update)
    return intents


def _budget_of_the_node(
    u: Any, prev: Slots, intents: list[str], new_subject: bool, names_hardware: bool
) -> bool:
    """A budget put to the test ("… does that stay under it?") about the one node the user
    named before, asking nothing else: whether that node's price is within it."""
    return (
        u.constraints.budget_usd_month is not None
        and u.yes_no
        and len(prev.configurations) == 1
        and not _was_a_pick(prev)
        and not (new_subject or names_hardware)
        and set(intents) <= {"cheapest", "price", "fit", "general", "off_topic"}
        and not _CHEAPEST_WORD_RX.search(_fold(u.question))
    )


#: a cheapest pick asked in words (not a budget alone, which the reader also reads as one)
_CHEAPEST_WORD_RX = re.compile(
    r"\b(?:cheapest|cheaper|least expensive|günstigst\w*|billigst\w*|günstiger\w*|"
    r"preiswerteste\w*|what else|anything else|was sonst|alternative\w*|options?)\b"
)


def _fit_on_named_after_pick(
    u: Any, prev: Slots, intents: list[str], new_subject: bool, names_hardware: bool
) -> bool:
    """ "und in AWQ auf einer einzigen A100?", "and on a single L40S?" after a pick: a short
    follow-up that names hardware with its count and asks nothing else asks whether the model
    fits there (not the cheapest pick again)."""
    return (
        _was_a_pick(prev)
        and u.follow_up
        and names_hardware
        and u.count is not None
        and not new_subject
        and intents in (["general"], ["fit"], ["off_topic"], [])
        and not _WH_ANY_RX.search(_fold(u.question))
    )


def _was_a_pick(prev: Slots) -> bool:
    """The previous answer picked a node: the cheapest asked, or a price asked of no node that
    the answer gave as a pick ("mixtral, wir haben so 2000 € im monat. was ist da drin?")."""
    return prev.intent == "cheapest" or (
        prev.intent == "price" and not prev.configurations and bool(prev.answered)
    )


def _continues(u: Any, prev: Slots) -> bool:
    """The conversation has a question to continue (a goal outside the domain, `Query.outside`,
    continues nothing: it is declined)."""
    return bool(not u.outside and prev.intent and prev.intent not in _ENDED)


#: (a speed asked beside it is asked of the new pick: "welcher Knoten wäre das dann und wie viele
#: Token/s kommen da raus?")
_PICK_FOLLOW_INTENTS = frozenset(
    {"nvlink", "general", "fit", "off_topic", "cheapest", "price", "speed"}
)


# "still the same if i need 32k?", "immer noch derselbe bei 20 Leuten?": the pick asked again
_SAME_PICK_RX = re.compile(
    r"\b(?:still the same|still that one|the same one|still (?:the )?cheapest|"
    r"immer noch (?:der|das|die|dasselbe|derselbe|dieselbe|gleiche|günstigste)\w*|"
    r"(?:bleibt|ist) (?:es|das|der) (?:dann )?(?:dabei|gleich|derselbe|dasselbe))\b"
)


def _narrows_the_pick(u: Any, prev: Slots, intents: list[str], new_subject: bool) -> bool:
    """After the cheapest node, a follow-up that only adds a constraint ("und wenn es NVLink
    haben soll?", "and without the A6000?", "under $2,000?") asks for the cheapest again, within
    it; a yes/no ("do I need NVLink then?") or a new model asks something else."""
    # "und ohne nvlink?": the link refused is the constraint, not the claim "PCIe is enough"
    refused = u.claim == "pcie_enough" and u.constraints.exclude_link == "nvlink"
    # "they say no A6000s (had bad experience). next option?": the next pick, whatever the
    # words around it claim
    nxt = bool(_NEXT_OPTION_RX.search(_fold(u.question)))
    # "hmm lieber alles auf einer karte" after a pick and its speed: the pick again, on one card
    one_card = u.constraints.one_card and bool(prev.answered or prev.answered_before)
    return (
        (_was_a_pick(prev) or one_card)
        and not new_subject
        and not u.configurations  # "what if we took the 4x A100 PCIe instead?": that node
        and (u.claim is None or refused or nxt)
        and (not u.yes_no or nxt)
        and u.constraints.active()
        and (set(intents) <= _PICK_FOLLOW_INTENTS or nxt)
    )


_NEXT_OPTION_RX = re.compile(
    # ("still something under that?", "noch was drunter?": the pick within the budget again)
    r"\b(?:(?:any|some)thing (?:else )?(?:under|below|within|cheaper|for less)|"
    r"noch (?:etwas|was) (?:unter|drunter|darunter|günstiger\w*)|"
    r"next (?:option|best|one|cheapest)|what else|anything else|other options?|"
    r"alternatives?|nächste (?:option|wahl)|was sonst|was gibt es (?:noch|sonst)|was noch|"
    r"andere option\w*|alternative\w*)\b"
)


#: whether the link (the paste just checked) matters for another job
_MATTERS_RX = re.compile(
    r"\b(?:would|does|will|could|würde|spielt|macht)\s+(?:it|that|this|das|es|der|die)\s+"
    r"(?:\w+\s+){0,2}?(?:matter|an issue|a problem|eine rolle|einen unterschied|ein problem)\b|"
    r"\b(?:still|then|noch|dann)\s+(?:a\s+|an\s+|ein\s+)?(?:problem|issue)\b"
)


def _all_reduce_elsewhere(
    u: Any, prev: Slots, intents: list[str], new_subject: bool, names_hardware: bool
) -> bool:
    """A short follow-up that only names other hardware (its link too: "mit Gen5") after an
    all-reduce time asks that time there."""
    short = len(_fold(u.question).split()) <= 10
    plain = set(intents) <= {"link_facts", "general", "off_topic", "fit", "nvlink"}
    return prev.intent == "allreduce" and names_hardware and not new_subject and short and plain


def _on_topic(u: Any, prev: Slots, intents: list[str]) -> list[str] | None:
    """A follow-up read as off topic that continues the conversation: "what does it cost?" about
    the node, or "ok schade. passt es dann auf zwei davon?" (the session's question again)."""
    if intents[:1] != ["off_topic"]:
        return None
    if len(intents) > 1 and _continues(u, prev):
        return intents[1:]
    if _was_a_pick(prev) and u.constraints.active() and not u.outside:
        return ["cheapest"]  # "they say no A6000s (had bad experience). next option?"
    if len(intents) == 1 and _asks_a_fit(u) and prev.intent not in (None, "off_topic"):
        return [str(prev.intent)]
    return None


def _asks_a_fit(u: Any) -> bool:
    """ "ok schade. passt es dann auf zwei davon?": a fit yes/no with no domain word of its own."""
    return bool(u.yes_no and FIT_QUESTION_RX.search(_fold(_first_question(u.question))))


def _named_node_wins(update: dict[str, Any], named_ids: list[str], catalog: Any) -> None:
    """ "it has to be nvlink", then "what would 4x L40S cost instead, would that work?": the node
    named now is the one asked about, so a kept link requirement it contradicts is dropped (and
    a kept budget it is priced above: "und wie schnell wäre das auf dem Server?")."""
    kept = update.get("constraints")
    if kept is None:
        return
    configs = getattr(catalog, "configurations", {}) or {}
    budget = kept.budget_usd_month
    named = [configs[c] for c in named_ids if c in configs]
    if budget is not None and named and all(float(c.usd_per_month) > budget for c in named):
        kept = kept.model_copy(update={"budget_usd_month": None})
        update["constraints"] = kept
    if not (kept.require_link or kept.exclude_link):
        return
    links = getattr(catalog, "links", {}) or {}
    kinds = {links[c.interconnect].kind for c in named if c.interconnect in links}
    if kinds and (
        (kept.require_link and kept.require_link not in kinds)
        or (kept.exclude_link and kept.exclude_link in kinds)
    ):
        update["constraints"] = kept.model_copy(update={"require_link": None, "exclude_link": None})


def _continued(u: Any, prev: Slots, update: dict[str, Any]) -> list[str]:
    """The intents of a follow-up that continues the previous question (and what it keeps)."""
    intents = [str(prev.intent)]
    if intents == ["price"] and _load_only(u):
        # "ok and if 4 people use it at the same time?" after a price: the load changes the
        # fit, not the price
        intents = ["fit"]
        update["asks"] = [Ask(kind="fit")]
    update["explain"] = False  # "in FP8?" after a sizing answer: the same sizing, in FP8
    figure = any(a.kind != "fit" for a in u.asks)  # "und mit qlora, wie viel Speicher?"
    # "und wenn ichs in FP8 laufen lasse?" after "reichen 750 € für Qwen3 32B?": the condition
    # changes a slot, the yes/no is the one asked before
    q = _fold(u.question)
    condition = bool(_IF_RX.match(q)) and not (figure or _WH_ANY_RX.search(q))
    if (
        prev.yes_no
        and not u.yes_no
        and u.claim is None
        and (condition or not (u.asks_fit or figure))
    ):
        # "and a full fine-tune?" after "Can I QLoRA it on one A100?": the same yes/no
        update.update(yes_no=True, claim=prev.claim)
    return intents


_WH_ANY_RX = re.compile(
    r"\b(?:what|which|how much|how many|how fast|wie ?viel\w*|welche\w*|was|wie schnell)\b"
)
_IF_RX = re.compile(r"^\W*(?:(?:ok(?:ay)?|gut|and|und|also|so|hm+)\W+)*(?:if|wenn|falls|what if)\b")


def _load_only(u: Any) -> bool:
    """The follow-up says a load (people at once, users, a context) and asks no price."""
    load = u.concurrency or u.users or u.context_tokens
    return bool(load) and not any(a.kind == "price" for a in u.asks) and "price" not in u.intents


def _continues_previous(
    u: Any, prev: Slots, intents: list[str], new_subject: bool, names_hardware: bool
) -> bool:
    """A follow-up ("und 8x?") or an answer to our clarifying question ("only a few users") that
    supplies a slot but asks nothing new continues the previous question; "und passt Llama 70B
    da drauf?" after a price question asks whether it fits."""
    if not (
        _continues(u, prev) and (intents in (["general"], ["fit"], ["off_topic"]) or not intents)
    ):
        return False
    supplies_slot = not new_subject and bool(
        u.workloads
        or serving_only(_fold(u.question))  # "ok, only inference then"
        or u.precision
        or u.kv_precision
        or names_hardware
        or u.count
        or u.context_tokens
    )
    if not (u.follow_up or supplies_slot):
        return False
    # "und wenn 4 Leute gleichzeitig chatten, passt das dann noch?": a fit asked yes/no (not
    # the previous yes/no asked again of another slot)
    fit_asked = new_subject or u.yes_no or _refers_to_answer(u, prev)
    if not new_subject and _same_yes_no(u, prev) and not _refers_to_answer(u, prev):
        return True
    if _repicks(u, prev, new_subject, names_hardware):
        return True
    return not (intents == ["fit"] and u.asks_fit and fit_asked)


_FIT_VERB_RX = re.compile(
    r"\b(?:fits?|pass(?:t|en)|reich(?:t|en)|läuft|laufen|geht|enough|genug|hold|still|noch)\b"
)


def _repicks(u: Any, prev: Slots, new_subject: bool, names_hardware: bool) -> bool:
    """ "und bei 16k Kontext und 8 gleichzeitig?" after "der günstigste Server für X?": a load
    alone, no fit verb, no node: the cheapest pick again at that load."""
    return (
        _was_a_pick(prev)
        and not (new_subject or names_hardware or _refers_to_answer(u, prev))
        and bool(u.concurrency or u.context_tokens)
        and not _FIT_VERB_RX.search(_fold(u.question))
    )


def _same_yes_no(u: Any, prev: Slots) -> bool:
    """ "Reicht ein Budget von 1000 € für Qwen 72B?" then "und wenn ich FP8 nehme, reicht es
    dann?": the previous yes/no asked again with a slot changed, not a new question about the
    node the answer named (above the budget)."""
    return bool(
        u.yes_no and prev.yes_no and prev.claim is not None and u.claim in (None, prev.claim)
    )
