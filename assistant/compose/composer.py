"""The `Composer`: all flow mixins in one class, and `compose`, the planner: it picks the flow
for the `Query` from the flow table (`assistant.compose.table`), sets the filters the question's
constraints put on the configurations considered, runs the flow, and makes the first word answer
the claim the user asked about, in the user's polarity.
"""

from __future__ import annotations

from assistant.compose.asks import AsksMixin
from assistant.compose.base import generic_name
from assistant.compose.capability import CapabilityMixin
from assistant.compose.cards import CardsMixin
from assistant.compose.claims import ClaimsMixin
from assistant.compose.diagnostics import DiagnosticsMixin
from assistant.compose.draft import Composed, Draft, log
from assistant.compose.fit import FitMixin
from assistant.compose.guides import GuidesMixin
from assistant.compose.interconnect import InterconnectMixin
from assistant.compose.nodes import NodesMixin
from assistant.compose.nvlink import NvlinkMixin
from assistant.compose.polarity import answer_in_polarity, confirm_stated_negative
from assistant.compose.prices import PricesMixin
from assistant.compose.scope import ScopeMixin
from assistant.compose.speed import SpeedMixin
from assistant.compose.table import Flow, plan
from assistant.nlu import Query
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
    NodesMixin,
    CapabilityMixin,
    AsksMixin,
    ScopeMixin,
    ClaimsMixin,
):
    """The offline composer: one flow per kind of answer (the table), each in its mixin."""

    def compose(self, u: Query) -> Composed:
        d = Draft(self.deps, u.language)
        try:
            self._answer_within(d, u)
        except Exception:  # a flow's defect degrades the answer to the guides, never drops it
            log.exception("the %s flow failed; answering from the guides", d.flow or "planned")
            d = Draft(self.deps, u.language)
            d.add(f"_{t(d.lang, 'flow_failed')}_")
            self._general(d, u)
        if u.injection:  # after the answer: the first sentence answers the question
            d.add(f"_{t(d.lang, 'injection')}_")
        return d.finish()

    def _answer_within(self, d: Draft, u: Query) -> None:
        """Plan the query's answer and write it into the draft."""
        u, beyond = self._within_model_context(u)
        flow, asked = plan(u)  # the flow of the first ask, on the query it runs on
        d.flow = flow.name
        d.sizing = {
            k: v for k, v in (("runtime", u.runtime), ("kv_precision", u.kv_precision)) if v
        }
        if flow.filtered:
            d.filters = self._filters(u)
        self._constrained(d, asked, flow.method)
        self._other_asks(d, u, flow)
        self._paste_beside(d, u, flow.name)
        self._link_verdict(d, asked, flow)
        if asked.claim == "oversized":
            self._oversized(d, asked)
        if beyond is not None:
            self._beyond_model_context(d, u, beyond)
        if flow.filtered or flow.claim == "fits":
            self._fp8_note(d, u)
        if u.unknown_model and not u.model and u.params_b:
            self._sized_by_name(d, u.unknown_model, u.params_b, u.unknown_model_closest)
        claim = self._named_verdict(d, asked, flow) or d.answered_claim or flow.claim
        # (a claim the planner restated, "PCIe within the budget?" as a fit: the one answered)
        said = u if asked.claim == u.claim else u.model_copy(update={"claim": asked.claim})
        answer_in_polarity(d, said, claim)
        confirm_stated_negative(d, said)

    @staticmethod
    def _sized_by_name(d: Draft, name: str, params_b: float, closest: list[str]) -> None:
        """ "Gemma 3 27B": not in the catalog, sized from the parameter count in its name; the
        answer calls it by its name and says how it was sized, right after its lead, with the
        catalog's models of the same family."""
        if f"{params_b:g}b" not in name.lower().replace(" ", ""):
            return  # the size came from elsewhere in the question ("34B … Llama 9 900B")
        generic = generic_name(f"{params_b:g}B model", d.lang)
        d.paras = [para.replace(generic, name) for para in d.paras]
        note = t(d.lang, "sized_by_name", name=name, params=f"{params_b:g}")
        if closest:
            note += " " + t(d.lang, "sized_by_name_family", names=", ".join(closest[:3]))
        d.paras.insert(min(1, len(d.paras)), note)

    def plan(self, u: Query) -> Flow:
        """The flow the planner chooses for a query (for tests, evals and the CLI)."""
        return plan(u)[0]

    def _fit_several(self, d: Draft, u: Query) -> None:
        for model in u.models[:3]:  # "Passen Wan 2.1 1.3B und SDXL auf eine L4?"
            self._fit_answer(d, u.model_copy(update={"model": model, "models": []}))
