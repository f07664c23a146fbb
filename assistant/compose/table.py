"""The flow table: every kind of offline answer, in the order its trigger is tried.

A `Flow` is a name, a trigger (does this `Query` ask for it?), the composer method that plans and
writes it, the yes/no claim its first word answers (so the planner can answer in the asker's
polarity) and whether the question's constraints (budget, minimum memory, exclusions) filter the
configurations it considers. A new kind of answer is one module with its method and one row here.

A question may ask several things (`Query.asks`, assistant/nlu/asks.py): a row says which asks
its flow answers (`answers`); the planner picks the row that answers the first ask, and each ask
the flow leaves open is answered by the method `ASKS` names for its kind (assistant/compose/
asks.py), so a new kind of ask is one method there and one entry in `ASKS`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from assistant.compose.capability import asks_fp8_support
from assistant.compose.cards import asks_node_models
from assistant.compose.claims import asks_concept
from assistant.compose.intents import _asks_card_facts
from assistant.nlu import Query
from assistant.nlu.query import CARD_FAMILIES, Ask, AskKind, Claim, Intent


@dataclass(frozen=True)
class Flow:
    name: str
    trigger: Callable[[Query], bool]
    method: str  # the Composer method that plans and writes the answer
    claim: Claim | None = None  # the yes/no claim its first word answers
    filtered: bool = False  # the question's constraints filter the configurations considered
    answers: frozenset[AskKind] = frozenset()  # the asks its answer answers (empty: none of them)


def _hardware(u: Query) -> bool:
    return bool(u.configurations or u.cards or u.card_families)


def _compares_cards(u: Query) -> bool:
    # ("a100-pcie" with its family "a100" is one card named, not two)
    families = {f for f in u.card_families if not set(CARD_FAMILIES.get(f, ())) & set(u.cards)}
    return (
        u.intent in ("fit", "general", "cheapest", "price")
        and u.has_subject
        and len(set(u.cards) | families) >= 2
        and "versus" in u.topics
        # "is the 2x A100 PCIe enough for a full fine-tune, or the SXM one?": a yes/no of the
        # node named, the training flow ("4x L40S or 4x A100 SXM4, which one?" compares them)
        and not ({"training", "fine_tuning"} & set(u.workloads) and u.yes_no)
    )


def _node_enough_for_job(u: Query) -> bool:
    """A yes/no whether named hardware is enough for a language-model job, with no model."""
    return (
        u.intent == "fit"
        and _hardware(u)
        and not u.has_subject
        and u.yes_no
        and "llm_job" in u.topics
        and not u.memory_gb
    )


def _nvlink_general(u: Query) -> bool:
    return u.intent == "nvlink" or (
        u.intent == "general"
        and bool(set(u.workloads) - {"diffusion", "rendering"})
        and not u.has_subject
    )


def _constrained_pick(u: Query) -> bool:
    """'Llama 3.3 70B, nothing with H100, has to be NVLink', 'Max 5k, no Ampere, for Qwen 72B —
    what do you suggest?': a model and constraints but no card named is a request for the
    cheapest configuration within them."""
    asks_pick = "recommend" in u.topics or (
        u.constraints.active() and u.claim is None and not u.yes_no
    )
    return (
        u.has_subject
        and asks_pick
        and not _hardware(u)
        and u.intent in ("fit", "general", "nvlink", "price")
        and not u.explain
    )


def _asks_memory_first(u: Query) -> bool:
    """ "Wie viel VRAM braucht DeepSeek V3?": the first ask is the memory, of a model to serve,
    with no hardware named (on hardware named the fit flow states the need per card; a
    fine-tune's memory is the fit flow's training sizing)."""
    return (
        bool(u.asks)
        and u.asks[0].kind == "memory"
        and u.has_subject
        and not _hardware(u)
        and not ({"training", "fine_tuning"} & set(u.workloads))
        and u.intent in ("fit", "general")
    )


def _fit_yes_no(u: Query) -> bool:
    """ "Will X fit on one 4090? explain": a yes/no fit of a model on hardware named is the fit's,
    even when the reader marks it as asking for an explanation."""
    return u.yes_no and u.claim in ("fits", "too_small") and u.has_subject and _hardware(u)


def _multi_node(u: Query) -> bool:
    return bool(u.nodes and u.nodes > 1) or bool(u.total_cards and u.total_cards > 8)


# what a flow's answer answers of the asks (`Flow.answers`): the fit flows state the verdict for
# the hardware named (with its price), the speed flows tokens/s where it fits (and the price;
# a fit asked beside the speed gets its own verdict line)
FIT: frozenset[AskKind] = frozenset({"fit", "price"})
PRICE: frozenset[AskKind] = frozenset({"price"})
SPEED: frozenset[AskKind] = frozenset({"speed", "price"})
CONTEXT: frozenset[AskKind] = frozenset({"context", "price"})
COMPARE: frozenset[AskKind] = frozenset({"fit", "speed", "price"})
MEMORY: frozenset[AskKind] = frozenset({"memory", "fit", "price"})

TABLE: tuple[Flow, ...] = (
    Flow("allreduce_paste", lambda u: u.intent == "allreduce_paste", "_allreduce_paste", "defect"),
    Flow("topology_paste", lambda u: u.intent == "topology_paste", "_topology_paste", "defect"),
    # a goal outside the domain wins over the flows its cards and models would trigger
    Flow("out_of_scope", lambda u: bool(u.outside), "_out_of_scope"),
    # a guide concept asked yes/no is in scope whatever the intent words say (compose/claims.py)
    Flow("claim_concept", asks_concept, "_claim_concept", "guide"),
    Flow("off_topic", lambda u: u.intent == "off_topic", "_off_topic"),
    Flow("multi_node", _multi_node, "_multi_node", filtered=True),
    Flow(
        "unknown_model",
        lambda u: bool(u.unknown_model and not u.model and not u.params_b),
        "_unknown_model",
    ),
    Flow(
        "topology_described",
        lambda u: bool("topology_described" in u.topics or u.measured.topo_label) and _hardware(u),
        "_topology_described",
        "defect",
    ),
    Flow(
        "allreduce_measured",
        lambda u: u.measured.busbw_gb_s is not None,
        "_allreduce_measured",
        "defect",
    ),
    # claims the question states about a mechanism, checked by a tool (compose/claims.py)
    Flow(
        "claim_memory_adds_up",
        lambda u: u.claim == "memory_adds_up",
        "_claim_pooling",
        "memory_adds_up",
    ),
    Flow(
        "claim_active_memory",
        lambda u: u.claim == "active_sets_memory",
        "_claim_active",
        "active_sets_memory",
    ),
    Flow(
        "claim_format_size",
        lambda u: u.claim in ("same_size", "larger") and len(u.formats) >= 2,
        "_claim_size",
    ),
    Flow("fp8_support", asks_fp8_support, "_fp8_support"),
    Flow("node_models", asks_node_models, "_node_models"),
    Flow("card_facts", _asks_card_facts, "_card_facts"),
    Flow(
        "most_vram",
        lambda u: not u.has_subject and "most_vram" in u.topics,
        "_most_vram",
        filtered=True,
    ),
    Flow("explain", lambda u: u.explain and not _fit_yes_no(u), "_general", "guide"),
    Flow(
        "adapter_cheapest",
        # "what does it cost?" about a node named or answered is the price flow's
        lambda u: (
            (u.intent == "cheapest" or (u.intent == "price" and not u.configurations))
            and u.adapter is not None
            and u.has_subject
        ),
        "_fit_answer",
        "fits",
        filtered=True,
        answers=FIT,
    ),
    Flow("link_facts", lambda u: u.intent == "link_facts", "_link_facts", "link_is"),
    Flow("tp_sync", lambda u: u.intent == "tp_sync", "_tp_sync"),
    Flow(
        "capacity",
        lambda u: u.intent == "capacity" and u.has_subject,
        "_capacity",
        "fits",  # "is 32k each for 4 people still ok?": the load asked holds, or not
        filtered=True,
        answers=CONTEXT,
    ),
    Flow(
        "compare_nodes",
        lambda u: (
            u.intent in ("cheapest", "price") and len(u.configurations) >= 2 and u.has_subject
        ),
        "_compare_nodes",
        answers=COMPARE,
    ),
    Flow(
        "compare_cards",
        _compares_cards,
        "_compare_nodes",
        "worth_it",
        filtered=True,
        answers=COMPARE,
    ),
    Flow(
        "price_per_token",
        lambda u: u.intent == "price" and u.has_subject and "per_token" in u.topics,
        "_price_and_speed",
        filtered=True,
        answers=SPEED,
    ),
    Flow(
        "vram_per_dollar",
        lambda u: not u.has_subject and "vram_per_dollar" in u.topics,
        "_vram_per_dollar",
        filtered=True,
    ),
    Flow(
        "price_sources",
        lambda u: not u.has_subject and "price_sources" in u.topics,
        "_price_sources",
    ),
    # "how much VRAM does X need?" with no hardware named: the need leads, then where it fits
    Flow("memory", _asks_memory_first, "_memory_answer", filtered=True, answers=MEMORY),
    Flow("cheapest", lambda u: u.intent == "cheapest", "_cheapest", "fits", True, FIT),
    Flow("constrained_pick", _constrained_pick, "_cheapest", "fits", True, FIT),
    Flow(
        "price_and_speed",
        lambda u: u.intent == "price" and "speed" in u.intents,
        "_price_and_speed",
        filtered=True,
        answers=SPEED,
    ),
    Flow("price", lambda u: u.intent == "price", "_price", "fits", True, PRICE),
    Flow("allreduce", lambda u: u.intent == "allreduce", "_allreduce"),
    Flow("topology_howto", lambda u: u.intent == "topology_howto", "_topology_howto"),
    Flow("nvlink", _nvlink_general, "_nvlink", "nvlink_needed"),
    Flow("speed", lambda u: u.intent == "speed", "_speed", "faster", True, SPEED),
    Flow(
        "compare_links_prices",
        lambda u: u.intent == "general" and len(u.configurations) >= 2 and not u.has_subject,
        "_price",
    ),
    Flow(
        "node_facts",
        lambda u: (
            u.intent == "general"
            and _hardware(u)
            and u.count is not None
            and not u.has_subject
            and not u.workloads
        ),
        "_price",
    ),
    Flow(
        "fit_several",
        lambda u: u.intent == "fit" and len(u.models) > 1,
        "_fit_several",
        "fits",
        filtered=True,
        answers=FIT,
    ),
    Flow("fit", lambda u: u.intent == "fit" and u.has_subject, "_fit_answer", "fits", True, FIT),
    # "is a 4090 enough to run our own chatbot?": no model named, so which one, and what the
    # node holds meanwhile
    Flow("node_enough_for_job", _node_enough_for_job, "_node_enough_for_job"),
    Flow(
        "hardware_memory",
        lambda u: u.intent == "fit" and _hardware(u),
        "_price",
        None,
        False,
        PRICE,
    ),
    Flow("ask_model", lambda u: u.intent == "fit", "_ask_model"),
    Flow("general", lambda u: True, "_general", "guide"),
)


# the Composer method that answers an ask its flow left open, per kind of ask
ASKS: dict[AskKind, str] = {
    "fit": "_ask_fit",
    "price": "_ask_price",
    "speed": "_ask_speed",
    "context": "_ask_context",
    "memory": "_ask_memory",
}
# the intent whose flows answer an ask of this kind first
ASK_INTENT: dict[AskKind, Intent] = {
    "fit": "fit",
    "price": "price",
    "speed": "speed",
    "context": "capacity",
    "memory": "fit",
}


def select(u: Query) -> Flow:
    """The first flow whose trigger holds (the last one always does)."""
    for flow in TABLE:
        if flow.trigger(u):
            return flow
    return TABLE[-1]


def plan(u: Query) -> tuple[Flow, Query]:
    """The flow that answers the question's first ask, and the query it runs on: when the
    question makes several asks and the first row whose trigger holds answers another one ("We
    want X on 4x H100. What does it cost?" would get the price flow), the query leads with the
    intent of the first ask and its precision ("BF16 vs FP8": BF16 first)."""
    if _pcie_within_budget(u):
        # "geht 70B auch ohne NVLink für unter 1.500 €?": is there a PCIe node within the
        # budget that holds it (the cheapest such node, or none)
        constraints = u.constraints.model_copy(update={"exclude_link": "nvlink"})
        picked = u.model_copy(
            update={
                "intents": ["cheapest", *(i for i in u.intents if i not in ("cheapest", "nvlink"))],
                "claim": "fits",
                "constraints": constraints,
            }
        )
        return select(picked), picked
    u = _claim_ask_first(u)
    flow = select(u)
    # "und in FP8 auf einer H100 PCIe, passt es dann?" in an NVLink conversation: a yes/no
    # about a fit leads with the fit, even as the only ask
    fit_claim = u.claim in ("fits", "too_small") and u.asks[:1] and u.asks[0].kind == "fit"
    if fit_claim and "fit" not in flow.answers and flow.claim in ("nvlink_needed", None):
        return _led(u, flow, u.asks[0], {"intents": ["fit", *(i for i in u.intents if i != "fit")]})
    if flow.name == "topology_paste" and u.has_subject and any(a.kind == "fit" for a in u.asks):
        # "<topo -m> could they run X split over those two cards?": the fit's yes/no leads, the
        # paste's check follows it (composer `_paste_beside`)
        fit = Ask(kind="fit")
        return _led(u, flow, fit, {"intents": ["fit", *(i for i in u.intents if i != "fit")]})
    if _context_yes_no(u):
        # "can gemma 3 27b handle 32k context on a single l40s?": the fit at that context leads,
        # the context ask follows it
        fit = Ask(kind="fit")
        intents = ["fit", *(i for i in u.intents if i != "fit")]
        return _led(u, flow, fit, {"asks": [fit, *u.asks], "intents": intents})
    if len(u.asks) < 2 or not flow.answers:
        return flow, u
    first = u.asks[0]
    yes_no_fit = u.yes_no or u.claim in ("fits", "too_small")
    if first.kind == "fit" and flow.name == "cheapest" and _hardware(u) and yes_no_fit:
        # "Reicht eine RTX 5090? Falls nicht: welche Karte wäre die günstigste?": the yes/no
        # is about the card named, so its fit leads; the fit flow names the alternatives
        return _led(u, flow, first, {"intents": ["fit", *(i for i in u.intents if i != "fit")]})
    update: dict[str, object] = {}
    if first.precision and first.precision != u.precision:
        update["precision"] = first.precision
    if first.kind not in flow.answers:
        intent = ASK_INTENT[first.kind]
        update["intents"] = [intent, *(i for i in u.intents if i != intent)]
    if not update:
        return flow, u
    return _led(u, flow, first, update)


def _claim_ask_first(u: Query) -> Query:
    """A yes/no whose claim is a speed ("Schaffen wir damit mindestens 30 Token pro Sekunde?")
    leads with the speed, whatever fit a relaying line asked before it ("passt das so?")."""
    speed_claim = u.yes_no and u.claim == "faster" and u.min_tokens_per_s is not None
    kinds = [a.kind for a in u.asks]
    if not speed_claim or "speed" not in kinds or kinds[0] == "speed":
        return u
    asks = sorted(u.asks, key=lambda a: a.kind != "speed")
    intents = ["speed", *(i for i in u.intents if i != "speed")]
    return u.model_copy(update={"asks": asks, "intents": intents})


def _pcie_within_budget(u: Query) -> bool:
    """A yes/no whether PCIe is enough, bounded by a budget, with no hardware named."""
    return (
        u.claim == "pcie_enough"
        and u.yes_no
        and u.constraints.budget_usd_month is not None
        and u.has_subject
        and not _hardware(u)
        and not ({"training", "fine_tuning"} & set(u.workloads))
    )


def _context_yes_no(u: Query) -> bool:
    """A yes/no fit claim whose first ask is the context, with the context given and the
    hardware named: the verdict at that context is the answer's first word."""
    first = u.asks[0] if u.asks else None
    return (
        first is not None
        and first.kind == "context"
        and u.yes_no
        and u.claim in ("fits", "too_small")
        and (u.context_tokens is not None or u.full_context)
        and _hardware(u)
        and u.has_subject
    )


def _led(u: Query, flow: Flow, first: Ask, update: dict[str, object]) -> tuple[Flow, Query]:
    """The flow for the query led by its first ask (`update`), or the one selected when no
    flow for that ask answers it."""
    led = u.model_copy(update=update)
    again = select(led)
    if first.kind not in again.answers:
        return flow, u
    return again, led
