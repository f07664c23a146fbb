"""Card flows: a card's own specs (memory, usable memory, bandwidth, the nodes it comes in), the
cards with a given memory, and the node with the most VRAM.
"""

from __future__ import annotations

from typing import Any

from assistant.compose.base import ComposerBase
from assistant.compose.draft import Draft
from assistant.compose.nodes import constraint_args
from assistant.nlu import CARD_FAMILIES, Query
from assistant.texts import follow_up, gb, num, precision_label, t


class CardsMixin(ComposerBase):
    """What a card or node has."""

    # ---- card specs
    def _node_models(self, d: Draft, u: Query, kind: str | None = None) -> None:
        """The catalog's models one named node holds (native precision unless asked; `kind`:
        only language models, say)."""
        cfg = self._one_node(u)
        res = (
            d.call(
                "models_for_configuration",
                configuration=cfg,
                precision=u.precision,
                context_tokens=u.context_tokens,
                concurrency=u.concurrency,
                kind=kind,
            )
            if cfg
            else None
        )
        if res is None or cfg is None:
            self._price(d, u)
            return
        d.add(
            t(d.lang, "node_models_lead", label=d.link(cfg), n=len(res["fits"]))
            + " "
            + d.price(cfg)
        )
        lines = []
        for r in res["fits"][:8]:
            how = (
                t(d.lang, "v_fits_one")
                if r["verdict"] == "fits_one_card"
                else t(d.lang, "v_split", n=r["cards_needed"])
            )
            need = gb(d.lang, r["required_gb_per_card"])
            lines.append(f"{r['name']} ({precision_label(r['precision'])}): {how}, {need}")
        d.bullets(lines)
        if res["too_big"]:
            d.add(t(d.lang, "node_models_too_big", names=", ".join(res["too_big"][:6])))
            d.suggest(follow_up(d.lang, "fp8"))
        d.suggest(follow_up(d.lang, "speed", label=d.label(cfg)))

    def _node_enough_for_job(self, d: Draft, u: Query) -> None:
        """ "is a 4090 enough to run our own chatbot?": it depends on the model, so which one is
        asked first; the catalog's models the node holds follow, as a starting point."""
        d.add(f"{t(d.lang, 'depends_on_model')} **{t(d.lang, 'ask_model')}**")
        self._node_models(d, u, kind="llm")

    def _one_node(self, u: Query) -> str | None:
        """The configuration a question names, or the smallest node of the card it names."""
        if u.configurations:
            return u.configurations[0]
        cards = list(u.cards) + [c for f in u.card_families for c in CARD_FAMILIES[f]]
        same = [
            c
            for c in self.deps.catalog.configurations.values()
            if c.gpu in cards and (u.count is None or c.count == u.count)
        ]
        return min(same, key=lambda c: (c.count, c.id)).id if same else None

    def _card_facts(self, d: Draft, u: Query) -> None:
        cards = list(u.cards) + [c for f in u.card_families for c in CARD_FAMILIES[f]]
        mem = u.memory_gb
        res = d.call("card_facts", cards=cards or None, memory_gb=None if cards else mem)
        if res is None or not res["cards"]:
            if mem is not None:
                d.add(t(d.lang, "cards_none_with", mem=gb(d.lang, mem)))
            else:
                self._general(d, u)
            return
        util = f"{num(d.lang, res['gpu_memory_utilization'] * 100)} %"
        if not cards and mem is not None:
            names = [c["short_name"] for c in res["cards"]]
            joined = (" und " if d.lang == "de" else " and ").join(
                [", ".join(names[:-1]), names[-1]] if len(names) > 1 else names
            )
            d.add(t(d.lang, "cards_with", mem=gb(d.lang, mem), names=joined))
        if cards and "bandwidth" in u.topics:
            c = res["cards"][0]
            d.add(
                t(
                    d.lang,
                    "card_bandwidth",
                    name=c["short_name"],
                    bw=f"{num(d.lang, c['memory_bandwidth_gb_s'])} GB/s",
                    mem=gb(d.lang, c["memory_gb"]),
                )
            )
        lines = []
        for c in res["cards"]:
            nodes = ", ".join(
                f"{d.link(n['configuration'])} {d.price(n['configuration'])}"
                for n in c["configurations"]
            )
            lines.append(
                t(
                    d.lang,
                    "card_line",
                    name=c["short_name"],
                    mem=gb(d.lang, c["memory_gb"]),
                    usable=gb(d.lang, c["usable_gb"]),
                    util=util,
                    bw=f"{num(d.lang, c['memory_bandwidth_gb_s'])} GB/s",
                    nodes=nodes,
                )
            )
        if cards and len(lines) == 1:
            d.add(lines[0])
        else:
            d.bullets(lines)
        d.suggest(follow_up(d.lang, "fit_example"))

    def _most_vram(self, d: Draft, u: Query) -> None:
        """The node with the most memory: within the constraints ("for $1000 a month"), the
        first of nodes_within's `most_memory`; else of every node's quote."""
        top = self._most_memory_within(d, u)
        if top is None:
            pq = d.call("price_quote", configurations=list(self.deps.catalog.configurations))
            if not pq:
                self._price(d, u)
                return
            top = max(pq["quotes"], key=lambda q: (q["total_memory_gb"], -q["usd_per_month"]))
        else:
            d.call("price_quote", configurations=[top["configuration"]])
        d.result = [top["configuration"]]  # "would llama 3.1 8b fit on that?"
        card = d.call("card_facts", cards=[top["gpu"]])
        d.add(
            t(
                d.lang,
                "most_vram",
                label=d.link(top["configuration"]),
                mem=gb(d.lang, top["total_memory_gb"]),
            )
            + " "
            + d.price(top["configuration"])
        )
        if card and card["cards"]:
            c = card["cards"][0]
            d.add(
                t(
                    d.lang,
                    "most_vram_one_card" if top["count"] == 1 else "most_vram_card",
                    count=top["count"],
                    per=gb(d.lang, c["memory_gb"]),
                    usable=gb(d.lang, c["usable_gb"]),
                )
            )
        d.suggest(follow_up(d.lang, "fit_example"))

    @staticmethod
    def _most_memory_within(d: Draft, u: Query) -> dict[str, Any] | None:
        if not d.filters.get("configurations"):
            return None
        res = d.call("nodes_within", **constraint_args(u))
        return res["most_memory"][0] if res and res["most_memory"] else None


def asks_node_models(u: Query) -> bool:
    """'I have 2x L40S, what can I run on it?', 'Welche Modelle passen auf eine RTX 4090?'."""
    hardware = bool(u.configurations or u.cards or u.card_families)
    return hardware and not u.has_subject and "what_runs" in u.topics
