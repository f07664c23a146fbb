"""The rule reader's parse (`assistant.nlu.Query`) as a `Reading`, and a `Reading` as the query the
composer's flows run on. Both directions are one table (`RENAMED`, `CONSTRAINTS`, and the fields
both models share under one name), so a field added to both is carried without code here.

    reading = from_query(query)      # what the rules understood, public
    query = to_query(reading)        # what the planner runs on: built from the reading alone

`to_query(from_query(q))` plans and composes exactly as `q` does (tests/test_reading.py checks
it over every eval question): the planner sees nothing the reading does not hold.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from assistant.nlu.claims import states_active_memory
from assistant.nlu.constraints import GGUF_OF, asks_if_healthy, ok_is_the_fit
from assistant.nlu.lexicon import _fold
from assistant.nlu.query import AskKind, Constraints, Intent, Query, Workload
from assistant.nlu.topics import cue_topics, named_links
from assistant.nlu.workloads import LOAD_DECIDED
from assistant.reading.model import Reading, Task
from tools.load import concurrent_sequences, traffic_of

#: reading field -> query field, where the names differ
RENAMED: dict[str, str] = {
    "text": "question",
    "model_name": "unknown_model",
    "model_candidates": "unknown_model_closest",
    "concurrent_sequences": "concurrency",
}
#: reading field -> `Query.constraints` field
CONSTRAINTS: dict[str, str] = {
    "budget_usd_per_month": "budget_usd_month",
    "min_total_memory_gb": "min_total_memory_gb",
    "min_memory_per_card_gb": "min_memory_per_card_gb",
    "exclude_cards": "exclude_cards",
    "exclude_link": "exclude_link",
    "require_link": "require_link",
    "require_fp8": "require_fp8",
    "architectures": "architectures",
    "exclude_architectures": "exclude_architectures",
    "one_card": "one_card",
}
#: reading fields no query holds (the reading's own)
READING_ONLY = frozenset({"task", "budget_currency", "unread", "reader"})
SHARED = frozenset(Reading.model_fields) - READING_ONLY - set(RENAMED) - set(CONSTRAINTS)


def from_query(q: Query, **extra: Any) -> Reading:
    """The reading of a parsed question (`extra`: the reading-only fields, e.g. unread)."""
    data: dict[str, Any] = {name: getattr(q, name) for name in SHARED}
    data.update({name: getattr(q, field) for name, field in RENAMED.items()})
    data.update({name: getattr(q.constraints, field) for name, field in CONSTRAINTS.items()})
    data["task"] = task_of(q)
    data.update(extra)
    data = _copied(data)
    try:
        return Reading.model_validate(data)
    except ValidationError as err:
        return Reading.model_validate(_without_out_of_range(data, err))


def _without_out_of_range(data: dict[str, Any], err: ValidationError) -> dict[str, Any]:
    """A parse whose value is outside the reading's bounds ("1111…1 cards"): that field is left
    unsaid and the value goes to `unread`, so the answer says what it did not use."""
    empty = Reading().model_dump()
    unread = list(data.get("unread") or [])
    for e in err.errors():
        field = str(e["loc"][0]) if e["loc"] else ""
        if field not in data or field == "unread":
            raise err
        value = str(data[field])
        unread.append(f"{field} {value[:20]}{'…' if len(value) > 20 else ''}")
        data[field] = empty.get(field)
    data["unread"] = unread
    return data


def to_query(r: Reading) -> Query:
    """The query the planner runs on, from the reading alone. A reading a reader filled without
    `intents` (an LLM, a user's edit) gets them from its task and asks."""
    data: dict[str, Any] = {name: getattr(r, name) for name in SHARED}
    data.update({field: getattr(r, name) for name, field in RENAMED.items()})
    data["constraints"] = Constraints(
        **{field: getattr(r, name) for name, field in CONSTRAINTS.items()}
    )
    data["intents"] = canonical_intents(list(r.intents) or intents_of(r))
    if r.asks and all(a.at == IMPLIED_AT for a in r.asks):
        data["asks"] = []  # stated by the reader from the intent: the flow answers them anyway
    if r.task == "serve" and {"training", "fine_tuning"} & set(r.workloads):
        # the task decides: a fine-tuned model to serve is sized for serving, not training
        data["workloads"] = [w for w in r.workloads if w not in ("training", "fine_tuning")]
        data["adapter"] = None
    elif r.task in TASK_WORKLOAD and not {"training", "fine_tuning"} & set(r.workloads):
        # a reader that states the task and not its workload ("fine_tune" alone) sizes the job
        # the task names: a fine-tune's memory, not the serving fit
        data["workloads"] = [*r.workloads, TASK_WORKLOAD[r.task]]
    if asks_if_healthy(r, data["intents"]):
        # a yes/no about a paste that states no claim asks whether the node is healthy
        data["claim"] = "healthy"
    if r.claim_negated and r.claim in LINK_CONVERSE:
        # "da ist kein NVLink nötig, oder?" read as nvlink_needed, negated: the claim the other
        # way round is the contract's own (pcie_enough), whose "yes" confirms PCIe
        data["claim"] = LINK_CONVERSE[r.claim]
        data["claim_negated"] = False
    data.update(_load_of(r, data["workloads"]))
    # how the words ask the answer to lead ("max context?", "is it the cheapest?"): cue topics
    # from the text, for a reader that states the asks but not these (nlu/topics.py CUES)
    data["topics"] = list(dict.fromkeys([*r.topics, *cue_topics(r.text or "")]))
    data["links"] = list(r.links) or named_links(r.text or "")
    if r.claim == "healthy" and ok_is_the_fit(r, _fold(r.text or "")):
        # "and if 4 people use it at once, is 32k each still ok?" of a model on a node: its fit
        data["claim"] = "fits"
    if r.claim == "fits" and r.model and states_active_memory(_fold(r.text or "")):
        # "only 3B params are active, so it fits on one 4090, right?": a fit claim argued from
        # the active parameters is the mechanism claim, however the reader filed it
        data["claim"] = "active_sets_memory"
    if "difference_asked" in data["topics"] and len(r.configurations) == 1 and not r.claim:
        # "what would 4x A100 SXM4 cost them on top of what they pay now?" with the node they
        # have as what it refers back to: the difference of the two
        back = [c for c in r.refers_to if c not in r.configurations]
        data["configurations"] = [*r.configurations, *back[:1]]
    if r.claim in _PAIR_CLAIMS and len(r.configurations) == 1:
        # "und wäre die H100 PCIe dafür schneller?" after the A100: compared with what it
        # refers back to
        back = [c for c in r.refers_to if c not in r.configurations]
        data["configurations"] = [*r.configurations, *back]
    if data.get("runtime") == "llama.cpp" and data.get("precision") in GGUF_OF:
        # the file llama.cpp / Ollama run for a format they do not (any reader; issue 24)
        data["precision"] = GGUF_OF[data["precision"]]
    return Query.model_validate(_copied(data))


#: the workload a training task names (a reader may state the task alone)
TASK_WORKLOAD: dict[str, Workload] = {"fine_tune": "fine_tuning", "train": "training"}

#: `Ask.at` of an ask the rule reader states from the question's intent (not said in words)
IMPLIED_AT = -2
#: the asks a primary intent makes by itself (a reading states them; the planner's flow for
#: that intent answers them, so they add no ask of their own)
INTENT_ASKS: dict[str, tuple[AskKind, ...]] = {
    "fit": ("fit",),
    "cheapest": ("fit",),
    "price": ("price",),
    "speed": ("speed",),
    "capacity": ("context",),
}
#: the intents an intent's answer gives by itself: a cheapest pick is a fit and a price, an
#: NVLink verdict says where the model fits, a paste's check states the link facts. A reading
#: lists an intent only when nothing before it in the list answers it.
INTENT_GIVES: dict[str, frozenset[str]] = {
    "cheapest": frozenset({"fit", "price"}),
    "nvlink": frozenset({"fit"}),
    "allreduce_paste": frozenset({"allreduce", "link_facts"}),
    "topology_paste": frozenset({"topology_howto", "link_facts"}),
}


#: the link claims, each the other said the other way round
LINK_CONVERSE: dict[str, str] = {"nvlink_needed": "pcie_enough", "pcie_enough": "nvlink_needed"}

#: yes/no claims that compare two configurations
_PAIR_CLAIMS = frozenset({"faster", "costlier", "cheaper", "worth_it"})


def canonical_intents(intents: list[Intent]) -> list[Intent]:
    """A reader's intents in the order the planner answers them, whatever order the reader
    wrote them in: "NVLink, and the cheapest?" is the cheapest pick (it gives the NVLink rule
    for the node it picks), "fit, cheapest" is the cheapest pick (led by the fit of a card
    named, `table.plan`)."""
    if "cheapest" not in intents or intents[:1] not in (["fit"], ["nvlink"]):
        return intents  # "the cheaper one: how many chats?" refers to a node; it picks none
    return ["cheapest", *(i for i in intents if i != "cheapest")]


def _load_of(r: Reading, workloads: list[str]) -> dict[str, Any]:
    """The load a reading implies and did not state, as the rule reader derives it: users
    without a count at once are sized for those generating at once; that many at once decides
    the workload (few: low concurrency; many: real traffic)."""
    out: dict[str, Any] = {}
    at_once = r.concurrent_sequences
    if r.users and at_once is None:
        at_once = concurrent_sequences(r.users)
        out.update(concurrency=at_once, assumed=[*r.assumed, "concurrent_sequences"])
    if at_once and not LOAD_DECIDED & set(workloads):
        load = traffic_of(at_once)
        if load:
            out["workloads"] = [*workloads, load]
    return out


def asked_intents(intents: list[Intent]) -> list[Intent]:
    """`intents` without those an earlier one answers ("cheapest, fit" is "cheapest")."""
    out: list[Intent] = []
    for intent in intents:
        if not any(intent in INTENT_GIVES.get(prior, ()) for prior in out):
            out.append(intent)
    return out


def implied_asks(
    intent: str | None, said: list[Intent] | tuple[Intent, ...] = ()
) -> tuple[AskKind, ...]:
    """The asks `intent` makes by itself (empty for the intents that ask for no figure), and
    after them the asks its answer gives that the words also said (`said`: the parse's other
    intents): "the cheapest node for X" asks the fit; "…, and what does it cost?" the price too."""
    own = INTENT_ASKS.get(intent or "", ())
    gives = INTENT_GIVES.get(intent or "", frozenset())
    extra: tuple[AskKind, ...] = ("price",) if "price" in gives and "price" in said else ()
    return (*own, *extra)


def _copied(data: dict[str, Any]) -> dict[str, Any]:
    """Lists copied, models copied: the reading and the query never share a mutable value."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, list):
            value = list(value)
        elif hasattr(value, "model_copy"):
            value = value.model_copy(deep=True)
        out[key] = value
    return out


def task_of(q: Query) -> Task:
    """The task a parsed question is about, for the reading line and the LLM reader."""
    workloads = set(q.workloads)
    rules: tuple[tuple[bool, Task], ...] = (
        (bool(q.outside) or q.intent == "off_topic", "out_of_scope"),
        (_diagnoses(q), "diagnose"),
        (q.explain, "explain"),
        (bool(q.adapter) or "fine_tuning" in workloads, "fine_tune"),
        ("training" in workloads, "train"),
        (bool(workloads & {"diffusion", "rendering"}), "images_video"),
        (q.compare or len(q.configurations) >= 2, "compare"),
        (q.intent == "price" and not q.has_subject, "price"),
        (q.has_subject, "serve"),
    )
    return next((task for holds, task in rules if holds), "other")


def _diagnoses(q: Query) -> bool:
    pasted = q.intent in ("topology_paste", "allreduce_paste")
    m = q.measured
    measured = m.busbw_gb_s is not None or m.topo_label is not None or m.tokens_per_s is not None
    return pasted or measured or bool(q.topo_text or q.nccl_text)


#: the intent that answers each ask kind first
ASK_INTENT: dict[str, Intent] = {
    "fit": "fit",
    "price": "price",
    "speed": "speed",
    "context": "capacity",
    "memory": "fit",
}
#: the intent a task calls for when no ask says more
_TASK_INTENT: dict[str, Intent] = {
    "out_of_scope": "off_topic",
    "price": "price",
    "compare": "cheapest",
    "serve": "fit",
    "fine_tune": "fit",
    "train": "fit",
    "images_video": "fit",
}


#: the intent a yes/no question's claim is about: its answer leads ("Is PCIe enough for X on
#: 2x RTX 5090? And what does the box cost?" is an NVLink question first)
_CLAIM_INTENT: dict[str, Intent] = {"pcie_enough": "nvlink", "nvlink_needed": "nvlink"}


def _asks_a_pick(r: Reading) -> bool:
    """A fit asked of a model to serve with a price or a budget and no hardware named: "which
    node, and what does it cost?", "does it run within 2 € an hour?" are the cheapest pick."""
    kinds = {a.kind for a in r.asks}
    named = r.configurations or r.cards or r.card_families or r.refers_to
    priced = "price" in kinds or r.budget_usd_per_month is not None
    return r.task == "serve" and "fit" in kinds and priced and bool(r.model) and not named


def intents_of(r: Reading) -> list[Intent]:
    """Intents for a reading that has none: its claim's, then its asks in order, else its
    task's."""
    intents: list[Intent] = []
    if r.task == "out_of_scope":
        return ["off_topic"]  # "what does AWS charge for a p5?": its price ask is not ours
    if r.claim in _CLAIM_INTENT and r.yes_no:
        intents.append(_CLAIM_INTENT[r.claim])
    elif r.claim == "link_is":  # "Does the RTX 5090 run at PCIe Gen5?": the link facts
        intents.append("link_facts")
    if _asks_a_pick(r):
        intents.append("cheapest")  # "which node for X, and what does it cost?"
    for ask in r.asks:
        intent = ASK_INTENT[ask.kind]
        if intent not in intents:
            intents.append(intent)
    if not intents and r.task in _TASK_INTENT:
        intents.append(_TASK_INTENT[r.task])
    return intents or ["general"]
