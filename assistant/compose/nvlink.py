"""NVLink flows: is NVLink needed (by workload alone, for a model that fits one card, for one that
must be split), pipeline versus tensor parallelism over PCIe, training and its gradient
all-reduce, and the SXM node with its PCIe counterpart for the same job.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from assistant.compose.base import ComposerBase, need_usable
from assistant.compose.draft import PCIE_TWIN, SXM_TWIN, Draft
from assistant.nlu import CARD_FAMILIES, Query
from assistant.texts import follow_up, gb, num, precision_label, smart, t, tokens, usd


class NvlinkMixin(ComposerBase):
    """NVLink or PCIe: the guide's verdict for the workload and model."""

    # ---- NVLink
    def _nvlink(self, d: Draft, u: Query) -> None:
        w = set(u.workloads)
        model_arg = self._model_arg(u)
        if "multi_node" in w and (u.count is None or u.count > 8):
            d.add(t(d.lang, "nvlink_multi_node"))
            self._add_advice(
                d, self._advice(d, fits_one_card=False, cards_needed=max(u.count or 9, 9))
            )
            d.suggest(follow_up(d.lang, "allreduce", model="Llama 3.3 70B"))
            d.suggest(follow_up(d.lang, "price_example"))
            return
        if {"diffusion", "rendering"} & w and not (model_arg and self._is_llm(model_arg)):
            either_or = "link_either_or" in u.topics  # "SXM or PCIe for FLUX?"
            key = "nvlink_diffusion_pcie" if either_or else "nvlink_diffusion"
            d.add(t(d.lang, key) + d.cite("diffusion-and-rendering"))
            if model_arg:
                fit = self._call_fit(d, u)
                if fit:
                    one = self._cheapest_row(fit["rows"], ("fits_one_card",))
                    if one:
                        d.add(
                            t(
                                d.lang,
                                "image_fits",
                                model=self._model_name(fit, d.lang),
                                need=gb(d.lang, fit["weights_gb"]),
                                precision=precision_label(fit["precision"]),
                                label=d.link(one["configuration"]),
                            )
                            + " "
                            + d.price(one["configuration"])
                            + self._cite_topic_guides(d, u, fit)
                        )
            several = (u.count or 1) > 1 or "independent" in w
            advice = self._advice(
                d,
                fits_one_card=bool(model_arg),
                workload="rendering" if "rendering" in w else "image_video",
                # "SDXL on 8 cards": eight independent copies, rule 2 (PCIe cards)
                independent_jobs=several or None,
            )
            self._add_advice(d, advice, with_also=False)
            d.suggest(follow_up(d.lang, "image_card"))
            d.suggest(follow_up(d.lang, "nvlink_example"))
            return
        if not model_arg:
            self._nvlink_without_model(d, u)
            return
        fit = self._call_fit(d, u)
        if fit is None:
            self._nvlink_without_model(d, u)
            return
        if self._is_image(fit):
            u2 = u.model_copy(update={"workloads": [*u.workloads, "diffusion"]})
            d.calls.clear()
            self._nvlink(d, u2)
            return
        self._nvlink_for_model(d, u, fit)

    def _is_llm(self, model_arg: str) -> bool:
        try:
            return bool(self.deps.catalog.find_model(model_arg).kind == "llm")
        except Exception:
            return True

    def _nvlink_without_model(self, d: Draft, u: Query) -> None:
        w = set(u.workloads)
        if "independent" in w:
            d.add(t(d.lang, "nvlink_independent") + d.cite("one-model-per-card"))
            self._add_advice(
                d, self._advice(d, fits_one_card=False, independent_jobs=True), with_also=False
            )
            d.suggest(follow_up(d.lang, "fit_example"))
            d.suggest(follow_up(d.lang, "price_example"))
            return
        if "pipeline_parallel" in w:
            d.add(t(d.lang, "nvlink_pipeline") + d.cite("pipeline-parallelism"))
            self._add_advice(
                d, self._advice(d, fits_one_card=False, parallelism="pipeline"), with_also=False
            )
            d.suggest(follow_up(d.lang, "nvlink_example"))
            d.suggest(follow_up(d.lang, "topology"))
            return
        d.add(t(d.lang, "nvlink_general") + d.cite("short-answer"))
        if "low_concurrency" in w and not self._training(u):
            # one user / few users: if it must be split, PCIe works (rule 3); else one card
            lines = []
            cases: list[dict[str, Any]] = [
                {"fits_one_card": True},
                {"fits_one_card": False, "cards_needed": 2, "traffic": "low"},
            ]
            for args in cases:
                adv = self._advice(d, **args)
                if adv and adv.get("rule"):
                    lines.append(self._rule_text(d, adv["rule"]))
            d.add(t(d.lang, "general_rule_title"))
            d.bullets(lines)
            d.suggest(follow_up(d.lang, "nvlink_example"))
            d.suggest(follow_up(d.lang, "topology"))
            return
        if self._training(u) or "traffic" in w:
            adv = self._advice(
                d,
                fits_one_card=False,
                cards_needed=2,
                workload="training" if self._training(u) else "llm_serving",
                traffic="high",
            )
            d.add(t(d.lang, "if_split"))
            self._add_advice(d, adv, with_also=False)
        else:
            lines = []
            for _n, args in (
                (1, {"fits_one_card": True}),
                (3, {"fits_one_card": False, "cards_needed": 2}),
                (4, {"fits_one_card": False, "cards_needed": 2, "traffic": "high"}),
            ):
                adv = self._advice(d, **args)
                if adv and adv.get("rule"):
                    lines.append(self._rule_text(d, adv["rule"]))
            d.add(t(d.lang, "general_rule_title"))
            d.bullets(lines)
        d.add(f"**{t(d.lang, 'ask_model')}**")
        d.suggest(follow_up(d.lang, "nvlink_example"))
        d.suggest(follow_up(d.lang, "topology"))

    def _pair(self, u: Query, fit: dict[str, Any]) -> tuple[Any, Any]:
        """The SXM node and its PCIe counterpart to compare (the guide's same-job-both-ways)."""
        rows = fit["rows"]
        by_id = {r["configuration"]: r for r in rows}
        links = self.deps.catalog.links
        named = [
            by_id[c]
            for c in u.configurations
            if c in by_id and by_id[c]["verdict"] != "does_not_fit"
        ]
        count = u.count

        def kind(r: dict[str, Any]) -> str:
            return str(links[r["interconnect"]].kind)

        sxm = next((r for r in named if kind(r) == "nvlink"), None)
        pcie = next((r for r in named if kind(r) == "pcie"), None)
        if sxm is None:
            if pcie is not None and pcie["gpu"] in SXM_TWIN:
                sxm = by_id.get(f"{pcie['count']}x-{SXM_TWIN[pcie['gpu']]}")
            else:
                # no SXM node with exactly that many cards (SXM comes in 4 and 8): any count
                sxm = self._cheapest_split(rows, "nvlink", count, u) or self._cheapest_split(
                    rows, "nvlink", None, u
                )
        if pcie is None and sxm is not None:
            twin = PCIE_TWIN.get(sxm["gpu"])
            cand = by_id.get(f"{sxm['count']}x-{twin}") if twin else None
            if cand is not None and cand["verdict"] != "does_not_fit":
                pcie = cand
            else:
                pcie = self._cheapest_split(rows, "pcie", sxm["count"], u)
        if pcie is None:
            pcie = self._cheapest_split(rows, "pcie", count, u)
        return sxm, pcie

    def _cheapest_split(
        self, rows: list[dict[str, Any]], kind: str, count: int | None, u: Query
    ) -> Any:
        links = self.deps.catalog.links
        cards = set(u.cards) | {c for f in u.card_families for c in CARD_FAMILIES[f]}
        cands = [
            r
            for r in rows
            if r["verdict"] == "split"
            and links[r["interconnect"]].kind == kind
            and (count is None or r["count"] == count)
            and (not cards or r["gpu"] in cards)
        ]
        return self._cheapest_row(cands, ("split",))

    def _pipeline_or_tensor(self, d: Draft, u: Query, fit: dict[str, Any]) -> None:
        """'Pipeline or tensor parallelism (over PCIe)?': over PCIe pipeline; tensor parallelism
        syncs every layer and is what NVLink is for."""
        model = self._model_name(fit, d.lang)
        rows = fit["rows"]
        named = self._targets(u, fit)
        if named and all(r["verdict"] == "does_not_fit" for r in named):
            prec = precision_label(fit["precision"])
            d.add(t(d.lang, "nvlink_setup_no_fit", model=model, precision=prec))
            d.bullets([self._row_line(d, r) for r in named])
            self._lower_precision(d, u, fit, named)
        targets = [r for r in named if r["verdict"] == "split"]
        row = targets[0] if targets else self._cheapest_split(rows, "pcie", u.count, u)
        d.add(t(d.lang, "pp_over_pcie", model=model) + d.cite("pipeline-parallelism"))
        if row is not None:
            tp = d.call(
                "tensor_parallel_cost",
                model=self._model_arg(u),
                configuration=row["configuration"],
                cards=max(row["cards_needed"] or 2, 2),
            )
            if tp:
                d.add(
                    t(d.lang, "tp_syncs", layers=tp["syncs_per_token"], model=model)
                    + d.cite("tensor-parallelism")
                )
        self._numbers(d, fit)
        n = row["cards_needed"] if row is not None else None
        advice = self._advice(d, fits_one_card=False, cards_needed=n, parallelism="pipeline")
        self._add_advice(d, advice)
        d.suggest(follow_up(d.lang, "nvlink", model=model))

    def _nvlink_training(self, d: Draft, u: Query, fit: dict[str, Any]) -> None:
        """Training or full fine-tuning: weights, gradients, master weights and Adam moments."""
        if u.adapter is not None and not self._is_image(fit):
            # LoRA / QLoRA: the adapter memory decides one card or a split (and so the link);
            # "Do I need NVLink to QLoRA 70B?" gets its no (or yes) from that purchase rule
            self._adapter_memory(d, u, fit)
            rules = [c.result for c in d.calls if c.name == "purchase_advice"]
            if rules and isinstance(rules[-1], dict):
                d.verdict = bool(rules[-1].get("needs_nvlink"))
            return
        model = self._model_name(fit, d.lang)
        mem = d.call("memory_need", model=self._model_arg(u), training=True)
        advice = self._advice(d, model=self._model_arg(u), workload="training")
        if advice is None or mem is None:
            self._nvlink_without_model(d, u)
            return
        rec = advice.get("recommendation")
        if self._named_short_for_training(d, u, fit, model, mem["total_gb"]):
            pass  # the named node's "No" leads; the link's reasons follow
        elif rec == "not_offered":
            d.add(t(d.lang, "nvlink_multi_node"))
        elif advice.get("needs_nvlink"):
            d.add(t(d.lang, "nvlink_yes_training"))
        else:
            d.add(t(d.lang, "training_fits_one", model=model))
        d.add(
            t(
                d.lang,
                "training_memory",
                model=model,
                total=gb(d.lang, mem["total_gb"]),
                bpp=smart(d.lang, mem["bytes_per_param"]),
            )
        )
        # "on one of your 8-GPU nodes": the SXM nodes of that count that hold it
        self._training_at_count(d, u, mem["total_gb"], nvlink_only=True)
        ar = d.call("gradient_allreduce_time", model=self._model_arg(u))
        if ar:
            lines = [
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
                for r in ar["rows"]
            ]
            d.add(
                t(d.lang, "allreduce_title", model=model, size=gb(d.lang, ar["size_gb"]))
                + d.cite("large-batch-training")
            )
            d.bullets(lines)
        self._add_advice(d, advice, with_also=False)
        d.suggest(follow_up(d.lang, "topology"))
        d.suggest(follow_up(d.lang, "cheapest", model=model))

    def _named_short_for_training(
        self, d: Draft, u: Query, fit: dict[str, Any], model: str, total_gb: float
    ) -> bool:
        """ "Ist ja ein kleines Modell, da sollten zwei Consumer-Karten doch reichen?" for a
        full fine-tune the named node cannot hold even with all its cards: whether PCIe is
        enough is moot, so the lead is that node's "No" and the memory short, then the rule."""
        if not u.configurations or u.claim != "pcie_enough":
            return False
        start, verdict = len(d.paras), d.verdict
        self._training_named(d, u, fit, total_gb)
        if d.verdict is not False:  # the node holds it: the link question stands
            del d.paras[start:]
            d.verdict = verdict
            return False
        lead = t(d.lang, "training_named_short", model=model, total=gb(d.lang, total_gb))
        d.paras.insert(start, lead)
        d.answered_claim = "pcie_enough"  # the lead's "No" is said, not flipped
        return True

    def _nvlink_for_model(self, d: Draft, u: Query, fit: dict[str, Any]) -> None:
        w = set(u.workloads)
        if {"pipeline_parallel", "tensor_parallel"} <= w and not self._training(u):
            self._pipeline_or_tensor(d, u, fit)
            return
        if self._training(u) and not ({"independent", "pipeline_parallel"} & w):
            self._nvlink_training(d, u, fit)
            return
        targets = self._targets(u, fit)
        if targets and all(r["verdict"] == "does_not_fit" for r in targets):
            start = len(d.paras)
            u = self._nvlink_setup_no_fit(d, u, fit, targets)
            note = d.paras[start:]
            del d.paras[start:]
            # (the guide's same job on another card's twin nodes is no answer about the node
            # named: left out, the answer stays about it)
            self._nvlink_verdict(d, u, fit, [], compare=False)
            unpriced = [c for c in d.result if c not in d._prices]
            if unpriced and len(d.paras) > start:  # the node the verdict names, with its price
                d.paras[start] += " " + d.price(unpriced[0])
            # a yes/no ("brauch ich NVLink für 70B auf 2x L40S?", "und bräuchte er für so ein
            # Modell NVLink?") is answered first, in the asker's polarity, then that the node
            # named does not hold it
            later = u.yes_no and len(d.paras) > start
            at = start + 1 if later else start
            d.paras[at:at] = note
            return
        self._nvlink_verdict(d, u, fit, targets)

    def _nvlink_verdict(
        self,
        d: Draft,
        u: Query,
        fit: dict[str, Any],
        targets: list[dict[str, Any]],
        compare: bool = True,
    ) -> None:
        """NVLink or PCIe for a model that fits somewhere: one card, copies, or a split."""
        rows = fit["rows"]
        model = self._model_name(fit, d.lang)
        prec = precision_label(fit["precision"])
        one, must_split, setup_split = self._one_or_split(u, rows, targets)
        if not must_split:
            assert one is not None
            copies = self._copies_node(u, targets, rows)
            if copies is not None:
                self._nvlink_copies(d, u, fit, copies)
                return
            self._nvlink_fits_one(d, u, fit, one)
            return
        if not any(r["verdict"] != "does_not_fit" for r in rows):
            d.add(t(d.lang, "verdict_no_fit_anywhere", model=model, precision=prec))
            self._numbers(d, fit)
            self._add_advice(d, self._advice(d, fits_one_card=False, cards_needed=9))
            return
        self._nvlink_split(d, u, fit, one, setup_split, compare)

    def _nvlink_setup_no_fit(
        self, d: Draft, u: Query, fit: dict[str, Any], targets: list[dict[str, Any]]
    ) -> Query:
        """The node asked about can't hold it at all: say so first (and whether a lower precision
        would); the answer goes on for the nodes where it does fit (the query without the
        hardware it names, returned)."""
        model = self._model_name(fit, d.lang)
        d.add(
            t(
                d.lang,
                "nvlink_setup_no_fit",
                model=model,
                precision=precision_label(fit["precision"]),
            )
        )
        d.bullets([self._row_line(d, r) for r in targets])
        d.named_fit_stated = True
        if not self._is_image(fit):
            self._lower_precision(d, u, fit, targets)
        return u.model_copy(
            update={"configurations": [], "cards": [], "card_families": [], "memory_gb": None}
        )

    def _one_or_split(
        self, u: Query, rows: list[dict[str, Any]], targets: list[dict[str, Any]]
    ) -> tuple[dict[str, Any] | None, bool, list[dict[str, Any]]]:
        """The one card that holds the model, whether it must be split all the same, and the
        split rows of the user's own setup. A one-card node that holds it settles it (rule 1);
        otherwise the user's own setup decides ("on four cards" / "on 4x A100" where it must be
        split)."""
        one = self._cheapest_row(rows, ("fits_one_card",))
        single = self._cheapest_row([r for r in rows if r["count"] == 1], ("fits_one_card",))
        setup_split = [r for r in targets if r["verdict"] == "split"]
        if not targets and u.count and u.count > 1:
            setup_split = [r for r in rows if r["count"] == u.count and r["verdict"] == "split"]
        if targets and setup_split and len(setup_split) == len(targets):
            # "brauch ich NVLink, wenn wir 2 L40S nehmen?": the node they chose splits it, so
            # its link decides; the one card that would hold it alone is named as the option
            return single or one, True, setup_split
        if single is not None:
            return single, False, setup_split
        if targets and all(r["verdict"] == "fits_one_card" for r in targets):
            # the card asked about holds it alone ("and on an H200?"): no split, no NVLink
            return self._cheapest_row(targets, ("fits_one_card",)), False, setup_split
        # a model that fits one card only on the biggest cards (sold in 4- and 8-card nodes) is
        # still a split job on the usual cards: answer that, and name the bigger card as option
        any_split = any(r["verdict"] == "split" for r in rows)
        return one, bool(setup_split) or one is None or any_split, setup_split

    def _copies_node(
        self, u: Query, targets: list[dict[str, Any]], rows: list[dict[str, Any]]
    ) -> dict[str, Any] | None:
        """ "One copy on each of our four L40S": the node named, when the job is independent
        copies and each of its cards holds one; "a copy on each of 4 cards" with no node named:
        the cheapest node of that many cards where each card holds one."""
        if "independent" not in u.workloads:
            return None
        named = [r for r in targets if r["count"] > 1 and r["verdict"] == "fits_one_card"]
        if named or targets or not (u.count and u.count > 1):
            return named[0] if named else None
        each = [r for r in rows if r["count"] == u.count and r["verdict"] == "fits_one_card"]
        return self._cheapest_row(each, ("fits_one_card",))

    def _nvlink_copies(self, d: Draft, u: Query, fit: dict[str, Any], node: dict[str, Any]) -> None:
        """Independent copies on the node named, one per card: no NVLink (rule 2), and that
        node, not the cheapest single card, with its price."""
        d.add(
            t(
                d.lang,
                "nvlink_not_needed_copies",
                model=self._model_name(fit, d.lang),
                precision=precision_label(fit["precision"]),
            )
            + " "
            + t(
                d.lang,
                "replicas",
                n=u.count or node["count"],
                label=d.link(node["configuration"]),
                r=node["replicas"],
            )
            + " "
            + d.price(node["configuration"])
        )
        d.result = [node["configuration"]]
        self._numbers(d, fit)
        self._add_advice(d, self._advice(d, fits_one_card=False, independent_jobs=True))
        d.suggest(follow_up(d.lang, "speed", label=d.label(node["configuration"])))

    def _nvlink_fits_one(
        self, d: Draft, u: Query, fit: dict[str, Any], one: dict[str, Any]
    ) -> None:
        """Fits on one card: no NVLink (rule 1); warn against sharding it."""
        d.add(
            t(
                d.lang,
                "nvlink_not_needed_fits",
                model=self._model_name(fit, d.lang),
                precision=precision_label(fit["precision"]),
            )
            + " "
            + t(
                d.lang,
                "cheapest_card",
                label=d.link(one["configuration"]),
                need=gb(d.lang, one["required_gb_per_card"]),
            )
            + " "
            + d.price(one["configuration"])
        )
        advice = self._advice(
            d,
            fits_one_card=True,
            independent_jobs="independent" in u.workloads,
            planned_tensor_parallel=u.count if (u.count or 0) > 1 else None,
            parallelism=self._parallelism(u),
        )
        self._numbers(d, fit)
        self._add_advice(d, advice)
        d.suggest(follow_up(d.lang, "speed", label=d.label(one["configuration"])))
        d.suggest(follow_up(d.lang, "topology"))

    def _nvlink_split(
        self,
        d: Draft,
        u: Query,
        fit: dict[str, Any],
        one: dict[str, Any] | None,
        setup_split: list[dict[str, Any]],
        compare: bool = True,
    ) -> None:
        """A model that must be split: the verdict for the workload, why (the all-reduce of
        tensor parallelism), the same job on the SXM node and its PCIe twin (`compare`), the
        rule, and the bigger card that would hold it alone."""
        w = set(u.workloads)
        rows = fit["rows"]
        sxm, pcie = self._pair(u, fit)
        ref = sxm or pcie
        n = ref["cards_needed"] if ref else self._cards_needed(rows, setup_split)
        lead_ref = ref
        low = ("low_concurrency" in w or self._load_unsaid(u)) and not (
            {"traffic", "independent", "pipeline_parallel"} & w
        )
        if low and pcie is not None and not self._training(u):
            # "PCIe is enough" names the PCIe node, never the SXM one asked about (issue 26:
            # "Nein, PCIe reicht … auf 4 × A100 SXM4"): the twin holds the same split
            lead_ref = pcie
            d.result = [pcie["configuration"]]
        self._nvlink_split_verdict(d, u, fit, lead_ref, setup_split)
        self._numbers(d, fit)
        if not ({"independent", "pipeline_parallel"} & w) and ref is not None:
            self._tp_syncs(d, u, fit, ref, n)
        if compare:
            self._same_job_both_ways(d, u, sxm, pcie)
        self._nvlink_split_rule(d, u, n)
        self._alternative_cards(d, u, one)
        d.suggest(follow_up(d.lang, "topology"))
        if fit["precision"] != "fp8":
            d.suggest(follow_up(d.lang, "fp8"))

    def _nvlink_split_verdict(
        self,
        d: Draft,
        u: Query,
        fit: dict[str, Any],
        ref: dict[str, Any] | None,
        setup_split: list[dict[str, Any]],
    ) -> None:
        """The first sentence for a split model: by the workload, or the split and the card when
        the workload is not said."""
        w = set(u.workloads)
        model = self._model_name(fit, d.lang)
        prec = precision_label(fit["precision"])
        n = ref["cards_needed"] if ref else 0
        split_txt = (
            t(
                d.lang,
                "split_across",
                n=n,
                label=d.link(ref["configuration"]),
                **need_usable(d.lang, ref),
            )
            if ref
            else ""
        )
        if "independent" in w:
            d.add(t(d.lang, "nvlink_independent") + d.cite("one-model-per-card"))
        elif "pipeline_parallel" in w:
            d.add(t(d.lang, "nvlink_pipeline") + d.cite("pipeline-parallelism"))
        elif self._training(u):
            d.add(t(d.lang, "nvlink_yes_training"))
        elif "low_concurrency" in w and "traffic" not in w:
            d.add(t(d.lang, "nvlink_low_concurrency", model=model, precision=prec, split=split_txt))
            self._no_pcie_holds(d, fit, model, prec)
        elif self._load_unsaid(u):
            # "Brauche ich NVLink für Llama 3.3 70B?": answered for the load the reading
            # assumes (one request at a time), saying what real traffic would change
            d.add(t(d.lang, "nvlink_low_concurrency", model=model, precision=prec, split=split_txt))
            self._no_pcie_holds(d, fit, model, prec)
            d.add(t(d.lang, "nvlink_load_assumed"))
            d.suggest(follow_up(d.lang, "traffic"))
        else:
            key = "nvlink_yes_traffic" if "traffic" in w else "nvlink_split_unknown_workload"
            card = self._split_card(d, fit["rows"], ref, setup_split)
            d.add(t(d.lang, key, model=model, precision=prec, split=split_txt, card=card))

    @staticmethod
    def _no_pcie_holds(d: Draft, fit: dict[str, Any], model: str, prec: str) -> None:
        """PCIe would do for the load, but no PCIe node of the catalog holds the model (DeepSeek
        R1: only 8x H200 and 8x B200 do): say so, so "PCIe works" does not send anyone looking
        for a PCIe node that cannot run it."""
        holding = [r for r in fit["rows"] if r["verdict"] != "does_not_fit"]
        if not holding or any(str(r.get("interconnect", "")).startswith("pcie") for r in holding):
            return
        labels = ", ".join(d.link(r["configuration"]) for r in holding[:3])
        d.add(t(d.lang, "nvlink_no_pcie_holds", model=model, precision=prec, labels=labels))

    @staticmethod
    def _load_unsaid(u: Query) -> bool:
        """No load said at all (no users, no requests at once, no workload word): the reading
        assumes one request at a time, and the NVLink verdict follows that assumption."""
        said = {"traffic", "low_concurrency", "training", "fine_tuning", "pipeline_parallel"}
        return not (said & set(u.workloads)) and u.users is None and u.concurrency is None

    @staticmethod
    def _split_card(
        d: Draft,
        rows: list[dict[str, Any]],
        ref: dict[str, Any] | None,
        setup_split: list[dict[str, Any]],
    ) -> str:
        """'80 GB' (de: '80-GB'): the memory per card of the node the model is split over."""
        split_rows = [r for r in rows if r["verdict"] == "split"]
        card_row = ref or (setup_split[0] if setup_split else split_rows[0] if split_rows else None)
        mem = smart(d.lang, card_row["memory_gb_per_card"]) if card_row else ""
        return (f"{mem}-GB" if d.lang == "de" else f"{mem} GB") if mem else ""

    def _tp_syncs(
        self, d: Draft, u: Query, fit: dict[str, Any], ref: dict[str, Any], n: int | None
    ) -> None:
        """Why: the all-reduces of tensor parallelism, per token."""
        tp = d.call(
            "tensor_parallel_cost",
            model=self._model_arg(u),
            configuration=ref["configuration"],
            cards=max(n or 2, 2),
        )
        if tp:
            d.add(
                t(
                    d.lang,
                    "tp_syncs",
                    layers=tp["syncs_per_token"],
                    model=self._model_name(fit, d.lang),
                )
                + d.cite("tensor-parallelism")
            )

    def _same_job_both_ways(
        self, d: Draft, u: Query, sxm: dict[str, Any] | None, pcie: dict[str, Any] | None
    ) -> None:
        """The same job on the SXM node and its PCIe twin: link, speed floor and prices."""
        pair = [r for r in (sxm, pcie) if r is not None]
        if not pair:
            return
        lines = [self._compare_row(d, u, r) for r in pair]
        d.add(t(d.lang, "compare_title") + d.cite("same-job-both-ways", contains=r"\$"))
        d.bullets(lines)
        d.add(
            t(d.lang, "speed_floor")
            + d.cite(
                "same-job-both-ways",
                contains=r"konservativ|"
                r"conservative|Untergrenze|floor",
            )
        )
        if sxm is None or pcie is None:
            return
        pq = d.call("price_quote", configurations=[r["configuration"] for r in pair])
        if (
            pq
            and pq.get("difference_usd_per_month")
            and Decimal(str(sxm["usd_per_month"])) > Decimal(str(pcie["usd_per_month"]))
        ):
            d.add(t(d.lang, "nvlink_premium", diff=usd(pq["difference_usd_per_month"])))

    def _compare_row(self, d: Draft, u: Query, r: dict[str, Any]) -> str:
        """One node of the same job both ways: its link, the speed floor, its price."""
        tput = d.call(
            "throughput_estimate",
            model=self._model_arg(u),
            configuration=r["configuration"],
            precision=u.precision,
        )
        node = d.call("interconnect_facts", configurations=[r["configuration"]])
        link = ""
        if node:
            info = node["nodes"][0]["link"]
            link = f"{info['name']} · {num(d.lang, info['bandwidth_gb_s'])} GB/s"
        speed = t(d.lang, "tps", tps=tokens(d.lang, tput["tokens_per_s"])) + ", " if tput else ""
        return t(
            d.lang,
            "compare_row",
            label=d.link(r["configuration"]),
            link=link,
            speed=speed,
            price=d.price(r["configuration"]),
        )

    def _nvlink_split_rule(self, d: Draft, u: Query, n: int | None) -> None:
        """The guide's rule for a split model; when the workload is not said, both rules and the
        question that decides between them."""
        w = set(u.workloads)
        training = self._training(u)
        traffic = "traffic" in w
        if "independent" in w:
            advice = self._advice(d, fits_one_card=False, independent_jobs=True)
        elif (
            traffic
            or training
            or {"low_concurrency", "pipeline_parallel"} & w
            or (self._load_unsaid(u))
        ):
            advice = self._advice(
                d,
                fits_one_card=False,
                cards_needed=n,
                workload="training" if training else "llm_serving",
                traffic="high" if traffic else "low",
                parallelism=self._parallelism(u),
            )
        else:
            advice = None
            d.add(t(d.lang, "ask_workload"))
            lines = []
            for args in ({"traffic": "low"}, {"traffic": "high"}):
                adv = self._advice(d, fits_one_card=False, cards_needed=n, **args)
                if adv and adv.get("rule"):
                    lines.append(self._rule_text(d, adv["rule"]))
            d.bullets(lines)
            d.suggest(follow_up(d.lang, "traffic"))
            d.suggest(follow_up(d.lang, "low"))
        self._add_advice(d, advice, with_also=False)

    def _alternative_cards(self, d: Draft, u: Query, one: dict[str, Any] | None) -> None:
        """The card that holds the split model alone: a bigger card in a multi-card node (when
        no hardware was named), or a single card."""
        if one is None:
            return
        if one["count"] > 1 and u.count is None and not u.configurations:
            d.add(
                t(
                    d.lang,
                    "alt_bigger_card",
                    label=d.link(one["configuration"]),
                    need=gb(d.lang, one["required_gb_per_card"]),
                    price=d.price(one["configuration"]),
                )
            )
        if one["count"] == 1:
            d.add(
                t(
                    d.lang,
                    "alt_one_card",
                    label=d.link(one["configuration"]),
                    need=gb(d.lang, one["required_gb_per_card"]),
                )
                + " "
                + d.price(one["configuration"])
                + d.cite("what-to-buy", contains=r"^\s*1\.")
            )

    @staticmethod
    def _cards_needed(rows: list[dict[str, Any]], targets: list[dict[str, Any]]) -> int:
        pool = [r["cards_needed"] for r in targets if r["cards_needed"]]
        pool = pool or [r["cards_needed"] for r in rows if r["cards_needed"]]
        return min(pool) if pool else 9
