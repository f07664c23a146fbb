"""Topology diagnostics: how to check a node (`nvidia-smi topo -m`), a pasted topology matrix
judged pair by pair, and a topology described in words ("PHB between all cards").
"""

from __future__ import annotations

import re
from typing import Any

from assistant.compose.asks import after_lead
from assistant.compose.base import ComposerBase
from assistant.compose.draft import NVLINK_GUIDE, Draft
from assistant.compose.guides import _excerpt
from assistant.nlu import CARD_FAMILIES, Query
from assistant.nlu.topics import described_topo
from assistant.texts import follow_up, t


class DiagnosticsMixin(ComposerBase):
    """Is the node wired as it should be."""

    # ---- topology
    def _topology_howto(self, d: Draft, u: Query) -> None:
        d.add(t(d.lang, "topo_howto") + d.cite("measure-it-yourself"))
        code = self._guide_code(d)
        if code:
            d.paras.append(code)
        d.add(t(d.lang, "topo_legend"))
        facts = d.call("interconnect_facts")
        if facts:
            labels = sorted(
                {
                    lab
                    for link in facts["links"]
                    if link["kind"] == "nvlink"
                    for lab in link["topo_labels"]
                }
            )
            if labels:
                d.add(t(d.lang, "topo_sxm_expect", labels=", ".join(f"`{x}`" for x in labels)))
        self._topology_of_nodes(d, u)
        d.suggest(follow_up(d.lang, "nvlink_example"))

    def _topology_of_nodes(self, d: Draft, u: Query) -> None:
        """ "What should GPU0-GPU3 show on that node?": the label every pair of the named node's
        cards should show (its board's, and the one its cards show on an 8-GPU NVSwitch board),
        or PCIe paths on a PCIe node, from `interconnect_facts`."""
        if not u.configurations:
            return
        facts = d.call("interconnect_facts", configurations=list(u.configurations[:2]))
        start = len(d.paras)
        for node in (facts or {}).get("nodes", []):
            label = node.get("topo_label")
            if label is None:
                d.add(t(d.lang, "topo_node_pcie", node=d.link(node["configuration"])))
                continue
            also = node.get("accepted_topo_labels") or []
            key = "topo_node_expect_also" if also else "topo_node_expect"
            d.add(
                t(
                    d.lang,
                    key,
                    node=d.link(node["configuration"]),
                    label=f"`{label}`",
                    also=", ".join(f"`{x}`" for x in also),
                )
            )
        # the node's own labels answer the question: they lead
        d.paras[:] = d.paras[start:] + d.paras[:start]

    def _guide_code(self, d: Draft) -> str:
        sections = self.deps.guides
        if sections is None:
            return ""
        for p in sections.chunks(NVLINK_GUIDE, "measure-it-yourself", d.lang):
            m = re.search(r"```.*?```", p.text, re.S)
            if m:
                return m.group(0)
        return ""

    def _paste_beside(self, d: Draft, u: Query, flow: str) -> None:
        """The check of a topology pasted beside a fit asked of it, after the fit's lead (the
        fit's verdict stays the answer's)."""
        if flow == "topology_paste" or "topology_paste" not in u.intents:
            return
        start, verdict = len(d.paras), d.verdict
        self._topology_paste(d, u)
        d.verdict = verdict
        after_lead(d, start)

    def _topology_paste(self, d: Draft, u: Query) -> None:
        cfg = u.configurations[0] if u.configurations else None
        kind = None
        if cfg is None:
            q = u.question.lower()
            kind = "sxm" if re.search(r"sxm|nvlink|hgx", q.split("gpu0")[0]) else None
        res = d.call(
            "check_topology_output",
            text=u.topo_text or u.question,
            configuration=cfg,
            node_kind=kind,
        )
        if res is None:
            try:
                from tools.diagnostics import parse_topo_matrix

                parse_topo_matrix(u.topo_text or u.question)
                err = "?"
            except Exception as exc:
                err = str(exc)
            d.add(t(d.lang, "topo_unparsed", error=err))
            d.suggest(follow_up(d.lang, "topology"))
            return
        pairs = res["pairs"]
        nv = [p for p in pairs if p["label"].startswith("NV")]
        sys_ = [p for p in pairs if p["label"] in ("SYS", "SOC")]
        summary = t(
            d.lang,
            "topo_counts",
            cards=len(res["gpus"]),
            pairs=len(pairs),
            nv=len(nv),
            # "27 over NVLink (NV18)": the labels the NVLink pairs show
            nv_labels=f" ({', '.join(sorted({p['label'] for p in nv}))})" if nv else "",
            pcie=len(pairs) - len(nv),
        )
        cfg_txt = f" ({d.label(cfg)})" if cfg else ""
        if res["node_kind"] is None:
            key = "topo_info"
        else:
            # a warning (cards across CPU sockets on a PCIe node) is how the node is built: no
            # defect, but worth knowing for tensor parallelism
            key = {"ok": "topo_ok", "warning": "topo_warning"}.get(res["status"], "topo_bad")
            d.verdict = res["status"] == "defect"  # the claim "defect"
        d.add(t(d.lang, key, cfg=cfg_txt, summary=summary) + d.cite("measure-it-yourself"))
        bad = [p for p in pairs if p["status"] != "ok"]
        lines = [
            f"`{p['a']}`–`{p['b']}`: `{p['label']}` — {self._pair_msg(d, p, res)}"
            for p in (bad or [])[:8]
        ]
        d.bullets(lines)
        labels = {p["label"] for p in pairs}
        if res["status"] == "ok" and len(pairs) > 1 and len(labels) == 1:
            label = labels.pop()
            if label.startswith("NV"):  # "alles ok so?": the label every pair shows, as expected
                d.add(t(d.lang, "topo_all_as_expected", label=label))
                self._board_note(d, res, label)
        if len(bad) == len(pairs) > 1 and len({p["label"] for p in bad}) == 1:
            # "NV12" on all 28 pairs of an 8x H100 SXM5: another board or machine, likelier
            # than 28 links down one by one
            expected = res.get("expected_label")
            if expected and bad[0]["label"].startswith("NV") and res["status"] == "defect":
                d.add(t(d.lang, "topo_uniform", label=bad[0]["label"], expected=expected))
        if res["node_kind"] is None:
            if sys_:
                d.add(t(d.lang, "topo_sys_note"))
            d.add(t(d.lang, "topo_ask_node"))
        if res["status"] == "defect":
            d.add(t(d.lang, "topo_report"))
        d.add(t(d.lang, "topo_legend"))
        d.suggest(follow_up(d.lang, "topology"))

    def _board_note(self, d: Draft, res: dict[str, Any], label: str) -> None:
        """A 4-card board without NVSwitch shows fewer links per pair than an 8-card NVSwitch
        board (NV6 against NV18 on H100 SXM5): each card splits its links over its peers. Said
        from the check's labels (the board's, and the NVSwitch one it also accepts), since the
        guide names only the NVSwitch label."""
        full = next(iter(res.get("accepted_labels") or []), "")
        if res.get("expected_label") != label or not full.startswith("NV") or len(res["gpus"]) < 2:
            return
        d.add(
            t(
                d.lang,
                "topo_board_split",
                links=full[2:],
                peers=len(res["gpus"]) - 1,
                per=label[2:],
                full=full[2:],
            )
        )

    def _topology_described(self, d: Draft, u: Query) -> None:
        """A topology described in words: the label between the cards of a named node, judged by
        check_topology_output on the matrix the words describe. A card named without its form
        factor ("8x H100") is judged for each variant of that size, SXM first."""
        m = described_topo(u.question)
        label = m.group(1).upper() if m else str(u.measured.topo_label)
        judged = 0
        for cfg in self._described_nodes(u)[:2]:
            judged += self._judge_described(d, label, cfg)
        if not judged:
            self._general(d, u)
            return
        legend = (
            self.deps.guides.section(NVLINK_GUIDE, "measure-it-yourself", d.lang, r"`SYS`")
            if self.deps.guides is not None
            else None
        )
        if legend is not None:
            d.add(_excerpt(str(legend.text)) + d.cite_passage(legend))
        d.suggest(follow_up(d.lang, "topology"))

    def _described_nodes(self, u: Query) -> list[str | None]:
        cat = self.deps.catalog
        nodes: list[str] = []
        if u.configurations:
            nodes = list(u.configurations)
        else:
            cards = list(u.cards) + [c for f in u.card_families for c in CARD_FAMILIES[f]]
            for card in cards:
                same = [c for c in cat.configurations.values() if c.gpu == card]
                if u.count:
                    same = [c for c in same if c.count == u.count] or same
                if same:
                    nodes.append(min(same, key=lambda c: (c.count, c.id)).id)
        kinds = {c: cat.links[cat.configurations[c].interconnect].kind for c in nodes}
        ordered: list[str | None] = [*sorted(nodes, key=lambda c: kinds[c] != "nvlink")]
        return ordered or [None]

    def _judge_described(self, d: Draft, label: str, cfg: str | None) -> int:
        cat = self.deps.catalog
        n = max(cat.configurations[cfg].count if cfg else 4, 2)
        names = [f"GPU{i}" for i in range(n)]
        rows = ["\t" + "\t".join(names)]
        for i, name in enumerate(names):
            rows.append(name + "\t" + "\t".join(" X " if j == i else label for j in range(n)))
        res = d.call("check_topology_output", text="\n".join(rows), configuration=cfg)
        if res is None:
            return 0
        cfg_txt = d.link(cfg) if cfg else ""
        if res["status"] == "ok":
            key = "described_ok_nvlink" if res.get("node_kind") == "sxm" else "described_ok"
            d.add(t(d.lang, key, label=label, cfg=cfg_txt) + d.cite("measure-it-yourself"))
        else:
            want = "/".join([res.get("expected_label") or "NV#", *res.get("accepted_labels", [])])
            key = "described_bad_nv" if label.upper().startswith("NV") else "described_bad"
            d.add(
                t(d.lang, key, label=label, cfg=cfg_txt, want=want) + d.cite("measure-it-yourself")
            )
            d.add(t(d.lang, "topo_report"))
        return 1

    def _pair_msg(self, d: Draft, p: dict[str, Any], res: dict[str, Any]) -> str:
        label = p["label"]
        if res["node_kind"] == "sxm":
            if label.startswith("NV"):
                want = "/".join(
                    [res.get("expected_label") or "NV#", *res.get("accepted_labels", [])]
                )
                return t(d.lang, "pair_nv_fewer", want=want)
            return t(d.lang, "pair_pcie_on_sxm")
        if label in ("SYS", "SOC"):
            return t(d.lang, "pair_sys")
        return p["message"]
