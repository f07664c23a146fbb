"""The `Composer`: all flow mixins in one class, and `compose`, which picks the flow for the
understood question (the intent dispatch) and returns the finished answer.
"""

from __future__ import annotations

import re

from assistant.compose.cards import CardsMixin
from assistant.compose.diagnostics import DiagnosticsMixin
from assistant.compose.draft import Composed, Draft
from assistant.compose.fit import FitMixin
from assistant.compose.guides import GuidesMixin
from assistant.compose.intents import (
    _MOST_VRAM,
    _PER_TOKEN,
    _PRICE_SOURCE,
    _VRAM_PER_DOLLAR,
    _asks_card_facts,
    _described_topo,
)
from assistant.compose.interconnect import InterconnectMixin
from assistant.compose.nvlink import NvlinkMixin
from assistant.compose.prices import PricesMixin
from assistant.compose.speed import SpeedMixin
from assistant.nlu import Understanding
from assistant.texts import t


class Composer(
    FitMixin,
    NvlinkMixin,
    PricesMixin,
    SpeedMixin,
    InterconnectMixin,
    DiagnosticsMixin,
    CardsMixin,
    GuidesMixin,
):
    """The offline composer: one flow per intent, each in its mixin; `compose` picks it."""

    def compose(self, u: Understanding) -> Composed:
        d = Draft(self.deps, u.language)
        if u.injection:
            d.add(f"_{t(d.lang, 'injection')}_")
        intent = u.intent
        if intent == "allreduce_paste":
            self._allreduce_paste(d, u)
        elif intent == "topology_paste":
            self._topology_paste(d, u)
        elif intent == "off_topic":
            self._off_topic(d, u)
        elif u.unknown_model and not u.model:
            self._unknown_model(d, u)
        elif _described_topo(u.question) and (u.configurations or u.cards or u.card_families):
            self._topology_described(d, u)  # "my 4x A100 PCIe shows PHB everywhere: a defect?"
        elif _asks_card_facts(u):
            self._card_facts(d, u)  # "Wie viel VRAM hat die H200?", "Which GPUs have 48 GB?"
        elif (
            not u.has_subject
            and _MOST_VRAM.search(u.question.lower())
            and not _VRAM_PER_DOLLAR.search(u.question.lower())
        ):
            self._most_vram(d, u)  # "which node has the most VRAM?"
        elif u.explain:
            self._general(d, u)  # "why ...?", "what happens ...?": the guide's own words
        elif intent in ("cheapest", "price") and u.adapter is not None and u.has_subject:
            # "cheapest node for QLoRA of X?": the adapter memory names the cheapest node that
            # holds it, with its price (the serving fit would size the wrong job)
            self._fit_answer(d, u)
        elif intent == "link_facts":
            self._link_facts(d, u)
        elif intent == "tp_sync":
            self._tp_sync(d, u)
        elif intent == "capacity" and u.has_subject:
            self._capacity(d, u)
        elif intent in ("cheapest", "price") and len(u.configurations) >= 2 and u.has_subject:
            self._compare_nodes(d, u)  # "which is cheaper for X: A or B?"
        elif (
            intent in ("fit", "general", "cheapest", "price")
            and u.has_subject
            and len(set(u.cards) | set(u.card_families)) >= 2
            and re.search(
                r"\b(?:vs\.?|versus|or|oder|gegenüber|compared?|vergleich\w*|verglichen|better|besser|"
                r"lohnt|worth)\b",
                u.question.lower(),
            )
        ):
            self._compare_nodes(d, u)  # "Lohnt sich die H200 gegenüber der H100 für X?"
        elif intent == "price" and u.has_subject and _PER_TOKEN.search(u.question.lower()):
            self._price_and_speed(d, u)  # "what does a million tokens cost with X on Y?"
        elif not u.has_subject and _VRAM_PER_DOLLAR.search(u.question.lower()):
            self._vram_per_dollar(d, u)  # "which node gives the most VRAM per dollar?"
        elif not u.has_subject and _PRICE_SOURCE.search(u.question.lower()):
            self._price_sources(d, u)  # "are the prices real?"
        elif intent == "cheapest":
            self._cheapest(d, u)
        elif intent == "price" and "speed" in u.intents:
            self._price_and_speed(d, u)  # "what will it cost and how fast is it?"
        elif intent == "price":
            self._price(d, u)
        elif intent == "allreduce":
            self._allreduce(d, u)
        elif intent == "topology_howto":
            self._topology_howto(d, u)
        elif intent == "nvlink" or (
            intent == "general"
            and set(u.workloads) - {"diffusion", "rendering"}
            and not u.has_subject
        ):
            self._nvlink(d, u)
        elif intent == "speed":
            self._speed(d, u)
        elif intent == "general" and len(u.configurations) >= 2 and not u.has_subject:
            self._price(d, u)  # "4x A100 PCIe vs 4x A100 SXM4": link and price side by side
        elif (
            intent == "general"
            and (u.configurations or u.cards or u.card_families)
            and u.count is not None
            and not u.has_subject
            and not u.workloads
        ):
            self._price(d, u)  # "4x H100": the node's facts and price
        elif intent == "fit" and len(u.models) > 1:
            for model in u.models[:3]:  # "Passen Wan 2.1 1.3B und SDXL auf eine L4?"
                self._fit_answer(d, u.model_copy(update={"model": model, "models": []}))
        elif intent == "fit" and u.has_subject:
            self._fit_answer(d, u)
        elif intent == "fit" and (u.configurations or u.cards or u.card_families):
            self._price(d, u)  # "how much VRAM do 4x A100 have": the node's facts and price
        elif intent == "fit":
            self._ask_model(d, u)
        else:
            self._general(d, u)
        return d.finish()
