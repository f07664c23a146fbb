"""Interconnect flows: link facts (bandwidths, which link a node has, the NVLink : PCIe ratio),
all-reduces per token under tensor parallelism, the gradient all-reduce time per link, and a
pasted all_reduce_perf output judged against the node's rated bandwidth.
"""

from __future__ import annotations

from typing import Any

from assistant.compose.base import ComposerBase, generic_name
from assistant.compose.draft import Draft
from assistant.nlu import CARD_FAMILIES, Query
from assistant.texts import follow_up, gb, num, one_decimal, smart, t


def _per_direction(d: Draft, info: dict[str, Any]) -> str:
    """ " (450 GB/s per direction)" when the link's figure adds both directions (NVLink)."""
    per = info.get("per_direction_gb_s")
    if not per or per == info["bandwidth_gb_s"]:
        return ""
    return " " + t(d.lang, "per_direction", bw=num(d.lang, per))


class InterconnectMixin(ComposerBase):
    """Links, their bandwidths and the all-reduces over them."""

    # ---- link facts: bandwidths, the NVLink : PCIe ratio, which link a node has
    def _link_facts(self, d: Draft, u: Query) -> None:
        cfgs = list(u.configurations)
        cat = self.deps.catalog
        if u.gen4 and "gen5_named" in u.topics:
            # "... in the Gen4 chassis than a Gen5 node": the same card in both chassis
            for cid in list(cfgs):
                twin = cid.removesuffix("-gen4")
                if twin != cid and twin in cat.configurations and twin not in cfgs:
                    cfgs.append(twin)
        if not cfgs and (u.cards or u.card_families):
            cards = list(u.cards) + [c for f in u.card_families for c in CARD_FAMILIES[f]]
            for card in cards:
                same = [c for c in cat.configurations.values() if c.gpu == card]
                if same:
                    cfgs.append(min(same, key=lambda c: c.count).id)
        facts = d.call("interconnect_facts", configurations=cfgs[:4] or None)
        if facts is None:
            self._general(d, u)
            return
        ratio = facts.get("ratio_nvlink4_to_pcie_gen5")
        if ratio and not facts.get("nodes"):
            d.add(
                t(
                    d.lang,
                    "link_ratio",
                    ratio=f"{smart(d.lang, ratio).split(',')[0].split('.')[0]}×",
                )
                + d.cite("interconnects")
            )
        lines = []
        if facts.get("nodes"):
            for n in facts["nodes"]:
                info = n["link"]
                topo = info["topology_de"] if d.lang == "de" else info["topology"]
                lines.append(
                    f"{d.link(n['configuration'])}: **{info['name']}** · "
                    f"{num(d.lang, info['bandwidth_gb_s'])} GB/s{_per_direction(d, info)} — {topo}"
                )
        else:
            for info in facts["links"]:
                topo = info["topology_de"] if d.lang == "de" else info["topology"]
                lines.append(
                    f"**{info['name']}**: {num(d.lang, info['bandwidth_gb_s'])} GB/s — {topo}"
                )
        nodes = facts.get("nodes") or []
        kinds = {str(n["link"]["id"]).startswith("nvlink") for n in nodes}
        yes_no = "verb_first" in u.topics
        d.verdict = _named_link_verdict(u, nodes)
        one_link = len(nodes) >= 2 and len({n["link"]["id"] for n in nodes}) == 1
        if one_link:
            info = nodes[0]["link"]
            d.add(
                t(
                    d.lang,
                    "link_same",
                    link=info["name"],
                    bw=f"{num(d.lang, info['bandwidth_gb_s'])} GB/s",
                )
                + d.cite("interconnects")
            )
        elif (
            nodes
            and len(kinds) == 1
            and yes_no
            and "nvlink_named" in u.topics
            and d.verdict is None  # a named generation ("NVLink 4?") is answered by its verdict
        ):
            # "Do H200s have NVLink?": answer it first
            key = "link_yes_nvlink" if kinds == {True} else "link_no_nvlink"
            d.add(t(d.lang, key) + d.cite("interconnects"))
        elif nodes:
            d.add(t(d.lang, "link_nodes") + d.cite("interconnects"))
        d.bullets(lines)
        self._named_links(d, u, nodes, facts.get("ratio_nvlink4_to_pcie_gen5"))
        d.add(t(d.lang, "link_matters") + d.cite("when-it-matters"))
        d.suggest(follow_up(d.lang, "nvlink_example"))
        d.suggest(follow_up(d.lang, "allreduce", model="Llama 3.3 70B"))

    def _named_links(
        self, d: Draft, u: Query, nodes: list[dict[str, Any]], ratio: float | None
    ) -> None:
        """ "…, and how does that compare to PCIe Gen5?": the links named beside the nodes', with
        their figures, and NVLink 4 against PCIe Gen5."""
        own = {str(n["link"]["id"]) for n in nodes}
        named = [link for link in u.links if link not in own]
        every = d.call("interconnect_facts") if nodes and named else None
        if every is None:
            return
        lines = [
            f"**{info['name']}**: {num(d.lang, info['bandwidth_gb_s'])} GB/s"
            f"{_per_direction(d, info)}"
            for info in every.get("links", [])
            if info["id"] in named
        ]
        d.bullets(lines)
        if ratio and "nvlink-4" in own and "pcie-gen5-x16" in named:
            whole = smart(d.lang, ratio).split(",")[0].split(".")[0]
            d.add(t(d.lang, "link_ratio", ratio=f"{whole}×") + d.cite("interconnects"))

    # ---- all-reduces per token under tensor parallelism
    def _tp_sync(self, d: Draft, u: Query) -> None:
        model_arg = self._model_arg(u)
        cfg = u.configurations[0] if u.configurations else "4x-a100-pcie"
        tp = (
            d.call("tensor_parallel_cost", model=model_arg, configuration=cfg)
            if model_arg and cfg in self.deps.catalog.configurations
            else None
        )
        if tp is not None:
            model = str(tp["model"]["name"])
            if "layers" in u.topics and tp["model"].get("layers"):
                d.add(t(d.lang, "tp_layers", model=model, layers=tp["model"]["layers"]))
            d.add(
                t(d.lang, "tp_syncs", layers=tp["syncs_per_token"], model=model)
                + d.cite("tensor-parallelism")
            )
        else:
            # no architecture (a bare parameter count) or no model: the guide's own example
            d.add(t(d.lang, "tp_guide_example") + d.cite("tensor-parallelism", contains=r"70B"))
        d.add(t(d.lang, "mistake") + d.cite("most-expensive-mistake"))
        d.suggest(follow_up(d.lang, "nvlink_example"))
        d.suggest(follow_up(d.lang, "allreduce", model="Llama 3.3 70B"))

    # ---- pasted all_reduce_perf output
    def _allreduce_paste(self, d: Draft, u: Query) -> None:
        cfg = u.configurations[0] if u.configurations else None
        if cfg is None:
            d.add(f"**{t(d.lang, 'nccl_ask_node')}**")
            d.add(t(d.lang, "topo_howto") + d.cite("measure-it-yourself"))
            d.suggest(follow_up(d.lang, "topology"))
            return
        res = d.call("check_allreduce_output", text=u.nccl_text or u.question, configuration=cfg)
        if res is None:
            d.add(t(d.lang, "nccl_unparsed"))
            d.suggest(follow_up(d.lang, "topology"))
            return
        self._allreduce_verdict(d, u, res)

    def _allreduce_measured(self, d: Draft, u: Query) -> None:
        """'busbw around 22 GB/s on 4x L40S, normal?': judged against the node's link."""
        cfg = u.configurations[0] if u.configurations else None
        busbw = u.measured.busbw_gb_s
        res = (
            d.call("check_allreduce_output", busbw_gb_s=busbw, configuration=cfg)
            if cfg and busbw
            else None
        )
        if cfg is None:
            self._allreduce_paste(d, u)  # asks which node it was measured on
        elif res is None:
            self._allreduce(d, u)
        else:
            self._allreduce_verdict(d, u, res)

    def _allreduce_verdict(self, d: Draft, u: Query, res: dict[str, Any]) -> None:
        """A measured bus bandwidth (pasted or in words) against the node's rated link."""
        cfg = u.configurations[0]
        key = {"ok": "nccl_ok", "warning": "nccl_low"}.get(res["status"], "nccl_bad")
        if res["status"] == "warning" and res["ratio_to_rated_percent"] > 100:
            key = "nccl_above"  # more than the link carries: measured elsewhere?
        d.verdict = res["status"] != "ok"  # the claim "defect"
        d.add(
            t(
                d.lang,
                key,
                label=d.link(cfg),
                peak=f"{one_decimal(d.lang, res['peak_busbw_gb_s'])} GB/s",
                link=res["link"]["name"],
                rated=f"{smart(d.lang, res['rated_gb_s'])} GB/s",
                pct=f"{num(d.lang, res['ratio_to_rated_percent'])} %",
            )
            + d.cite("measure-it-yourself")
        )
        d.add(t(d.lang, "nccl_note"))
        if res["status"] == "defect":
            d.add(t(d.lang, "nccl_check_topo"))
            d.add(t(d.lang, "topo_report"))
        d.suggest(follow_up(d.lang, "topology"))

    # ---- all-reduce
    def _allreduce(self, d: Draft, u: Query) -> None:
        model_arg = self._model_arg(u)
        links: list[str] = []
        for cid in u.configurations:
            node = d.call("interconnect_facts", configurations=[cid])
            if node:
                lid = node["nodes"][0]["link"]["id"]
                if lid not in links:
                    links.append(lid)
        for lid in u.links:
            if lid not in links:
                links.append(lid)
        if len(links) < 2:
            for lid in ("pcie-gen5-x16", "nvlink-4"):
                if lid not in links and len(links) < 2:
                    links.append(lid)
        example = False
        if model_arg is None:
            model_arg, example = "70B", True
        res = d.call(
            "gradient_allreduce_time",
            model=model_arg,
            links=links,
            cards=u.count if u.count and u.count >= 2 else None,
        )
        if res is None:
            self._general(d, u)
            return
        name = generic_name(str((res["model"] or {}).get("name", f"{res['params_b']:g}B")), d.lang)
        if example:
            d.add(t(d.lang, "allreduce_example"))
        d.add(
            t(d.lang, "allreduce_title", model=name, size=gb(d.lang, res["size_gb"]))
            + d.cite("large-batch-training")
        )
        lines = []
        for r in res["rows"]:
            lines.append(
                t(
                    d.lang,
                    "allreduce_row"
                    if r["guide_seconds"] == r["seconds"]
                    else "allreduce_row_guide",
                    link=r["name"],
                    bw=f"{num(d.lang, r['bandwidth_gb_s'])} GB/s",
                    t=f"{smart(d.lang, r['seconds'])} s",
                    ring=f"{smart(d.lang, r['ring_seconds'])} s",
                    gbw=f"{num(d.lang, r['guide_bandwidth_gb_s'])} GB/s",
                    gt=f"{smart(d.lang, r['guide_seconds'])} s",
                )
            )
        d.bullets(lines)
        d.add(t(d.lang, "allreduce_note", cards=res["cards"]))
        advice = self._advice(d, fits_one_card=False, cards_needed=2, workload="training")
        self._add_advice(d, advice, with_also=False)
        d.suggest(follow_up(d.lang, "topology"))
        if example:
            d.suggest(follow_up(d.lang, "allreduce", model="Llama 3.1 405B"))


def _named_link_verdict(u: Query, nodes: list[dict[str, Any]]) -> bool | None:
    """'Is the H100 PCIe a Gen5 card?', 'A100 SXM4 mit NVLink 4?': is the link named the one the
    node's cards really run at (None when no link is named)."""
    named = list(u.links)
    if not nodes or not named:
        return None
    return all(n["link"]["id"] == named[0] for n in nodes)
