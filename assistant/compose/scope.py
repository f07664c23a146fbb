"""The answer to a question whose goal is outside the sizing domain (`Query.outside`,
assistant/nlu/scope.py): "what would mining on 8x H100 earn?", "FPS in Cyberpunk on a 5090?",
"Kann ich die Miete von der Steuer absetzen?".

The first sentence says plainly that the goal is outside what the assistant answers, the second
what it does answer. No figure is given for the goal (no tool is called for it). When the question
also asks something within the domain ("What does 8x H100 cost, and what would mining on it
earn?"), that part is answered after it, by the flow the planner picks for the in-domain clauses
alone (`Query.asked_text`); a clause that only names hardware ("I have 4x RTX 4090 at home")
asks nothing, so it gets no price list.
"""

from __future__ import annotations

from typing import Any

from assistant.compose.base import ComposerBase
from assistant.compose.draft import Draft
from assistant.compose.table import plan
from assistant.nlu import Query
from assistant.texts import follow_up, render

PHRASES: dict[str, tuple[str, str]] = {
    "outside": (
        "**Questions about {topic} are outside what I can answer** — I won't give figures for "
        "that.",
        "**Fragen zu {topic} liegen außerhalb dessen, was ich beantworten kann** — dazu nenne "
        "ich keine Zahlen.",
    ),
    "scope": (
        "I help with sizing GPU servers at gpuserver.io: which card or node a model fits on, "
        "whether you need NVLink, the speed to expect and the exact catalog prices.",
        "Ich helfe bei der Dimensionierung von GPU-Servern bei gpuserver.io: auf welche Karte "
        "oder welchen Knoten ein Modell passt, ob Sie NVLink brauchen, welches Tempo zu "
        "erwarten ist und die genauen Katalogpreise.",
    ),
    "outside_after": (
        "**On the rest of your question:** questions about {topic} are outside what I can "
        "answer — I won't give figures for that.",
        "**Zum Rest Ihrer Frage:** Fragen zu {topic} liegen außerhalb dessen, was ich "
        "beantworten kann — dazu nenne ich keine Zahlen.",
    ),
    "within": (
        "What I can answer from your question:",
        "Was ich von Ihrer Frage beantworten kann:",
    ),
    "and": (" and ", " und "),
    # one per goal of assistant.nlu.scope.GOALS
    "mining": ("crypto mining and what it earns", "Krypto-Mining und seinen Erträgen"),
    "gaming": ("gaming and frame rates in games", "Gaming und Bildraten in Spielen"),
    "electricity": ("electricity costs and power draw", "Stromkosten und Stromverbrauch"),
    "investment": ("investments and stocks", "Geldanlage und Aktien"),
    "hardware_trade": (
        "buying or selling used hardware",
        "An- und Verkauf gebrauchter Hardware",
    ),
    "legal": ("legal or tax matters", "rechtlichen oder steuerlichen Themen"),
    "web_hosting": (
        "web hosting (websites, WordPress, e-mail, domains)",
        "Webhosting (Websites, WordPress, E-Mail, Domains)",
    ),
    "logistics": (
        "shipping hardware and attached storage",
        "Versand von Hardware und angeschlossenem Speicher",
    ),
    "other_it": (
        "other IT work (CPU servers, databases, dashboards)",
        "anderer IT-Arbeit (CPU-Server, Datenbanken, Dashboards)",
    ),
}

# flows that answer no ask of their own: a clause that only names hardware or a model gets none
_NOT_AN_ASK = ("ask_model", "hardware_memory", "node_facts", "off_topic", "out_of_scope")


def p(lang: str, key: str, **kw: Any) -> str:
    return render(PHRASES, lang, key, **kw)


def within_scope(u: Query) -> Query | None:
    """The query of the question's in-domain clauses, when they ask something the assistant
    answers; None when they ask nothing (or there are none)."""
    intents = [i for i in u.intents if i != "off_topic"]
    if not intents:
        return None
    # a reading the rules did not cut into clauses (an LLM's, a user's edit, a gold reading)
    # keeps its own asks about its model: the reading without the goal is the rest
    text = u.asked_text.strip() or (u.question if u.has_subject else "")
    if not text:
        return None
    rest = u.model_copy(
        update={"outside": [], "intents": intents, "question": text, "injection": False}
    )
    return None if _asks_nothing(plan(rest)[0].name, rest) else rest


def _asks_nothing(flow: str, rest: Query) -> bool:
    """The rest asks nothing the assistant answers: it only names hardware or a model, or it
    prices nothing named ("which gaming laptop for $1500?": the dollars are the goal's)."""
    named = rest.has_subject or rest.cards or rest.card_families or rest.configurations
    if flow == "price" and not named:
        return True
    if rest.intents == ["general"] and not (named or rest.explain):
        return True  # "… für unsere 12 Mitarbeiter": a head count beside the goal asks nothing
    return flow in _NOT_AN_ASK or (flow == "general" and not rest.explain)


class ScopeMixin(ComposerBase):
    """`_out_of_scope`: the goal declined first, then the in-domain rest answered."""

    def _answer_within(self, d: Draft, u: Query) -> None:
        raise NotImplementedError  # Composer: plans and writes the answer to a query

    def _out_of_scope(self, d: Draft, u: Query) -> None:
        joiner = p(d.lang, "and")
        lead = [
            p(d.lang, "outside", topic=joiner.join(p(d.lang, goal) for goal in u.outside)),
            p(d.lang, "scope"),
        ]
        rest = within_scope(u)
        if rest is None:
            d.paras[0:0] = lead
            d.suggest(follow_up(d.lang, "fit_example"))
            d.suggest(follow_up(d.lang, "price_example"))
            return
        # written on its own (its lead, polarity and other asks see only it) and given first:
        # the goal declined comes after it, as a part not covered does
        self._answer_within(d, rest)
        topic = joiner.join(p(d.lang, goal) for goal in u.outside)
        d.paras.append(p(d.lang, "outside_after", topic=topic))
        d.flow = "out_of_scope"
