"""Fit flows: does a model fit, on which node (the configurations asked about, the cheapest single
card or split, alternatives when it does not fit), the purchase rule for that case, and the
memory a full fine-tune needs.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from typing import Any

from assistant.compose.base import ComposerBase
from assistant.compose.draft import CASE_ANCHORS, Draft
from assistant.compose.polarity import yes_no_word
from assistant.nlu import Query
from assistant.texts import follow_up, gb, num, precision_label, smart, t

#: "LoRA in 4-bit": a 4-bit base is QLoRA
_FOUR_BIT = frozenset({"awq", "gptq", "gguf-q4_k_m"})


def kv_in(kv_precision: str | None) -> str:
    """ " in FP8" for a KV cache kept in another precision than the model's BF16 (else "")."""
    return f" in {precision_label(kv_precision)}" if kv_precision not in (None, "bf16") else ""


class FitMixin(ComposerBase):
    """Does it fit, and where."""

    # ---- fit
    def _fit_answer(self, d: Draft, u: Query) -> None:
        fit = self._call_fit(d, u)
        if fit is not None and self._training(u) and not self._is_image(fit):
            if u.adapter is not None:
                self._adapter_memory(d, u, fit)  # "QLoRA Llama 3.1 8B on one L4?"
            else:
                self._training_memory(d, u, fit)  # "how much memory to fully fine-tune X?"
            return
        note = ""
        if fit is None and u.precision is not None:
            fit, note = self._fit_published_precision(d, u)
        if fit is None:
            self._general(d, u)
            return
        rows = fit["rows"]
        targets = self._targets(u, fit)
        topic = self._cite_topic_guides(d, u, fit)
        self._kv_lead(d, u, fit, topic)
        one = self._cheapest_row(
            [r for r in rows if r["count"] == 1], ("fits_one_card",)
        ) or self._cheapest_row(rows, ("fits_one_card",))
        split = self._cheapest_row(rows, ("split",))
        if targets:
            self._fit_targets(d, u, fit, targets, one, split, topic)
        else:
            self._fit_anywhere(d, u, fit, one, split, topic)
        self._replicas(d, u, rows)
        if self._is_image(fit):
            self._image_room(d, targets or ([one] if one is not None else []), rows)
            self._image_copies(d, u, targets, rows)
            self._image_not_split(d, targets)
            self._image_table(d, targets)
        else:
            self._llm_room(d, targets or ([one] if one is not None else []), rows)
        d.add(note)
        self._numbers(d, fit)
        self._fit_rule(d, u, fit, targets, one, split)
        fitting = [r for r in targets if r["verdict"] != "does_not_fit"]
        self._fit_follow_ups(d, u, fit, (fitting[0] if fitting else None) or one or split)

    def _fit_published_precision(self, d: Draft, u: Query) -> tuple[dict[str, Any] | None, str]:
        """An image model has published figures only for some precisions: the fit with those,
        and the note that the asked precision has none."""
        fit = d.call(
            "fit_check",
            model=self._model_arg(u),
            context_tokens=u.context_tokens,
            concurrency=u.concurrency,
        )
        if fit is None or u.precision is None:
            return fit, ""
        note = t(
            d.lang,
            "no_figure_for_precision",
            model=self._model_name(fit, d.lang),
            asked=precision_label(u.precision),
            precision=precision_label(fit["precision"]),
        )
        return fit, note

    def _kv_lead(self, d: Draft, u: Query, fit: dict[str, Any], topic: str) -> None:
        """ "How much does the KV cache of X take at full context?": that figure first."""
        if not (fit.get("kv_bytes_per_token") and "kv_cache_size" in u.topics):
            return
        n = int(fit.get("concurrency") or 1)  # the KV cache of all sequences at once, said so
        # the KV cache asked is the memory need's own figure (`memory_need`), as the fit uses it
        mem = d.call(
            "memory_need",
            model=self._model_arg(u),
            precision=fit.get("precision") or u.precision,
            context_tokens=fit["context_tokens"],
            concurrency=n,
            kv_precision=fit.get("kv_precision"),
        )
        kv = mem["kv_gb_total"] if mem else fit["kv_gb"]
        per_token = mem["kv_bytes_per_token"] if mem else fit["kv_bytes_per_token"]
        d.add(
            t(
                d.lang,
                "kv_lead" if n == 1 else "kv_lead_many",
                model=self._model_name(fit, d.lang),
                ctx=num(d.lang, fit["context_tokens"]),
                kv=gb(d.lang, kv),
                per_token=num(d.lang, per_token),
                n=n,
                kv_prec=kv_in(fit.get("kv_precision")),
            )
            + topic
        )
        self._kv_other(d, u, fit)

    def _kv_other(self, d: Draft, u: Query, fit: dict[str, Any]) -> None:
        """ "… and with an FP8 KV cache instead?": the KV cache of one sequence in the other
        precision asked (`kv_precisions`), from `memory_need`."""
        asked = fit.get("kv_precision") or "bf16"
        for other in (k for k in u.kv_precisions if k != asked):
            n = int(fit.get("concurrency") or 1)
            mem = d.call(
                "memory_need",
                model=self._model_arg(u),
                precision=u.precision,
                context_tokens=fit["context_tokens"],
                concurrency=n,
                kv_precision=other,
            )
            if mem is None:
                continue
            d.add(
                t(
                    d.lang,
                    "kv_other" if n == 1 else "kv_other_many",
                    n=n,
                    other=precision_label(other),
                    kv_prec=precision_label(asked),
                    kv=gb(d.lang, mem["kv_gb_total"]),
                    per_token=num(d.lang, mem["kv_bytes_per_token"]),
                )
            )

    def _fit_targets(
        self,
        d: Draft,
        u: Query,
        fit: dict[str, Any],
        targets: list[dict[str, Any]],
        one: dict[str, Any] | None,
        split: dict[str, Any] | None,
        topic: str,
    ) -> None:
        """The configurations asked about: the verdict, one line each, a lower precision for
        those that can't hold it, and where it fits instead when none can."""
        model = self._model_name(fit, d.lang)
        prec = precision_label(fit["precision"])
        self._count_note(d, u, targets)
        verdicts = {r["verdict"] for r in targets}
        if verdicts == {"fits_one_card"} and self._plans_tp(u):
            # "TP 4 for a model that fits one card. Good idea?": no, the guide's worst mistake
            lead = t(d.lang, "fit_tp_mistake", model=model, precision=prec, n=u.count)
            d.add(lead + d.cite(CASE_ANCHORS["mistake.unneeded-tensor-parallelism"]) + topic)
            d.answered_claim = "fits"  # its "No" answers the plan, not whether the node holds it
        else:
            d.add(t(d.lang, self._fit_lead(verdicts), model=model, precision=prec) + topic)
        d.bullets([self._row_line(d, r) for r in targets])
        no_fit = [r for r in targets if r["verdict"] == "does_not_fit"]
        if no_fit and not self._is_image(fit):
            self._most_at_once(d, u, no_fit)
            self._lower_precision(d, u, fit, no_fit)
        if verdicts != {"does_not_fit"}:
            return
        alts = self._alternatives(u, fit["rows"], targets, one, split)
        if alts:
            d.add(t(d.lang, "fit_instead"))
            d.bullets([self._row_line(d, r) for r in alts])

    def _most_at_once(self, d: Draft, u: Query, no_fit: list[dict[str, Any]]) -> None:
        """ "and with 16 users at once, 4k each? still ok?" on a node that holds the model but
        not that many sequences: how many it does hold (`capacity_check`)."""
        asked = u.concurrency or 1
        if asked < 2 or "concurrent_sequences" in u.assumed or self._training(u):
            return
        if any(a.kind == "context" for a in u.asks):
            return  # the capacity asked is answered in full by its own ask (`_ask_context`)
        ctx = self._context_tokens(u) or 8192
        for r in no_fit[:2]:
            cap = self._capacity_call(d, u, r, ctx)
            if cap is None or not cap["fits"] or not 0 < cap["max_concurrency"] < asked:
                continue
            label = d.link(r["configuration"])
            n, c = cap["max_concurrency"], num(d.lang, ctx)
            key = "fit_most_at_once" if n > 1 else "fit_one_at_once"
            d.add(t(d.lang, key, label=label, n=n, ctx=c, asked=asked))

    def _fit_anywhere(
        self,
        d: Draft,
        u: Query,
        fit: dict[str, Any],
        one: dict[str, Any] | None,
        split: dict[str, Any] | None,
        topic: str,
    ) -> None:
        """No configuration asked about: every node on one server, the cheapest single card, or
        the cheapest split."""
        model = self._model_name(fit, d.lang)
        prec = precision_label(fit["precision"])
        one_card = one is not None and one["count"] == 1
        if u.one_node and not one_card:
            self._fit_one_node(d, fit, topic)
        elif one is not None and (one_card or split is None):
            d.result = [one["configuration"]]  # "und was kostet die?" asks about this node
            d.add(
                t(
                    d.lang,
                    "verdict_fits_one",
                    model=model,
                    precision=prec,
                    need=gb(d.lang, one["required_gb_per_card"]),
                    label=d.link(one["configuration"]),
                )
                + " "
                + d.price(one["configuration"])
                + topic
            )
        elif split is not None:
            self._fit_split(d, u, fit, one, split, topic)
        else:
            d.add(t(d.lang, "verdict_no_fit_anywhere", model=model, precision=prec) + topic)

    def _fit_one_node(self, d: Draft, fit: dict[str, Any], topic: str) -> None:
        """ "on one node/server": every node that holds it, cheapest first."""
        model = self._model_name(fit, d.lang)
        prec = precision_label(fit["precision"])
        nodes = sorted(
            (r for r in fit["rows"] if r["verdict"] != "does_not_fit"),
            key=lambda r: (Decimal(str(r["usd_per_month"])), r["configuration"]),
        )
        if not nodes:
            d.add(t(d.lang, "verdict_no_fit_anywhere", model=model, precision=prec) + topic)
            return
        d.add(t(d.lang, "fit_node_yes", model=model, precision=prec) + topic)
        d.bullets([self._row_line(d, r) for r in nodes[:6]])
        if any(r["verdict"] == "split" for r in nodes):
            d.add(t(d.lang, "fit_node_split"))

    def _fit_split(
        self,
        d: Draft,
        u: Query,
        fit: dict[str, Any],
        one: dict[str, Any] | None,
        split: dict[str, Any],
        topic: str,
    ) -> None:
        """It must be split (or one card holds it only on the biggest cards, sold in 4- and
        8-card nodes): the cheapest split, that big card, and the cheapest NVLink node."""
        model = self._model_name(fit, d.lang)
        prec = precision_label(fit["precision"])
        if one is not None:
            label = d.link(one["configuration"])
            lead = t(d.lang, "verdict_big_card_only", model=model, precision=prec, label=label)
        else:
            # "can you guys run DeepSeek?": yes, split across the cards of a node
            key = "verdict_runs_split" if "catalog_ask" in u.topics else "verdict_must_split"
            lead = t(d.lang, key, model=model, precision=prec)
        d.add(lead + topic)
        lines = [self._row_line(d, split)]
        if one is not None:
            lines.append(self._row_line(d, one))
        nv = self._cheapest_nvlink(fit["rows"])
        if nv is not None and nv["configuration"] != split["configuration"]:
            lines.append(self._row_line(d, nv))
        d.bullets(lines)

    def _replicas(self, d: Draft, u: Query, rows: list[dict[str, Any]]) -> None:
        """Independent copies ("8 copies, one per card"): the cheapest node that holds them."""
        if not ("independent" in u.workloads and u.count and u.count > 1):
            return
        reps = [r for r in rows if r["verdict"] == "fits_one_card" and r["replicas"] >= u.count]
        best = self._cheapest_row(reps, ("fits_one_card",))
        if best is None:
            return
        d.add(
            t(
                d.lang,
                "replicas",
                n=u.count,
                label=d.link(best["configuration"]),
                r=best["replicas"],
            )
            + " "
            + d.price(best["configuration"])
        )

    def _adapter_need(
        self, d: Draft, u: Query, method: str, rank: int | None, targets: str | None
    ) -> dict[str, Any] | None:
        """`memory_need` of a LoRA or QLoRA fine-tune of the question's model."""
        return d.call(
            "memory_need",
            model=self._model_arg(u),
            adapter=method,
            lora_rank=rank,
            lora_targets=targets,
        )

    def _other_adapter(
        self, d: Draft, u: Query, method: str, rank: int | None, targets: str | None
    ) -> None:
        """ "LoRA oder QLoRA – wie viel Speicher jeweils?": the other method's memory too."""
        if not u.adapters_compared:
            return
        mem = self._adapter_need(d, u, method, rank, targets)
        if mem is None:
            return
        d.add(
            t(
                d.lang,
                "adapter_other",
                method="QLoRA" if method == "qlora" else "LoRA",
                total=gb(d.lang, mem["total_gb"]),
                base=gb(d.lang, mem["base_weights_gb"]),
                base_format=t(d.lang, "base_4bit" if method == "qlora" else "base_bf16"),
                state=gb(d.lang, mem["adapter_state_gb"]),
            )
        )
        trained = any(c.name == "memory_need" and c.arguments.get("training") for c in d.calls)
        if "full_named" in u.topics and not trained:  # "full FT vs LoRA vs QLoRA": full too
            full = d.call("memory_need", model=self._model_arg(u), training=True)
            if full is not None and full.get("total_gb") is not None:
                total, bpp = gb(d.lang, full["total_gb"]), smart(d.lang, full["bytes_per_param"])
                d.add(t(d.lang, "full_other", total=total, bpp=bpp))

    @staticmethod
    def _image_not_split(d: Draft, targets: list[dict[str, Any]]) -> None:
        """An image or video model that no card of a named multi-card node holds: the cards'
        memory does not add up, every card must hold the whole model
        (gpu-for-flux-sdxl#many-cards), which is why the node's total does not help."""
        if any(r["verdict"] == "does_not_fit" and r["count"] > 1 for r in targets):
            d.add(
                t(d.lang, "image_not_split")
                + d.cite(
                    "many-cards", contains=r"whole model|ganze Modell", guide="gpu-for-flux-sdxl"
                )
            )

    def _image_table(self, d: Draft, targets: list[dict[str, Any]]) -> None:
        """A named card's row of the guide's table of which card holds which image model
        (gpu-for-flux-sdxl#which-card), cited beside the verdict on that card."""
        if not targets or not d.paras:
            return
        gpu = self.deps.catalog.gpus.get(targets[0]["gpu"])
        name = getattr(gpu, "short_name", None)
        if not name:
            return
        d.paras[0] += d.cite("which-card", contains=re.escape(name), guide="gpu-for-flux-sdxl")

    def _image_copies(
        self, d: Draft, u: Query, targets: list[dict[str, Any]], rows: list[dict[str, Any]]
    ) -> None:
        """Image/video models for several people at once: every card renders its own images
        (gpu-for-flux-sdxl#many-cards), so N at once need N cards; what the asked node runs at
        a time and, when that is fewer, the cheapest node with a card for each (with room to
        spare when one has it, as the guide advises)."""
        n = u.concurrency or 0
        if n < 2:
            return
        text = t(d.lang, "image_copies", n=n)
        text += d.cite("many-cards", guide="gpu-for-flux-sdxl")
        held = [r for r in targets if r["verdict"] == "fits_one_card"]
        if held:
            r = held[0]
            text += " " + t(
                d.lang,
                "image_copies_here",
                label=d.label(r["configuration"]),
                r=min(r["replicas"], n),
            )
        if any(r["replicas"] >= n for r in held):
            d.add(text)
            return
        enough = [r for r in rows if r["verdict"] == "fits_one_card" and r["replicas"] >= n]
        best = self._cheapest_row(
            [r for r in enough if r.get("room") == "ample"], ("fits_one_card",)
        ) or self._cheapest_row(enough, ("fits_one_card",))
        if best is not None:
            cid = best["configuration"]
            text += " " + t(d.lang, "image_copies_node", label=d.link(cid)) + " " + d.price(cid)
        if not targets and d.paras:  # no node asked about: the setup for N at once comes next
            d.paras.insert(1, text)
            return
        d.add(text)

    def _fit_rule(
        self,
        d: Draft,
        u: Query,
        fit: dict[str, Any],
        targets: list[dict[str, Any]],
        one: dict[str, Any] | None,
        split: dict[str, Any] | None,
    ) -> None:
        """The recommendation: the guide's rule for this case."""
        rows = fit["rows"]
        if self._is_image(fit):
            advice = self._advice(d, fits_one_card=one is not None, workload="image_video")
            self._add_advice(d, advice)
            return
        fits_one, cards_needed = self._one_card_case(rows, targets, one, split)
        # the asked configuration can't hold it, a single card elsewhere can: say which one the
        # rule is about, so "does not fit here" and "buy one card" don't contradict
        bridge = (
            t(d.lang, "rule_bridge_one_card", label=d.link(one["configuration"]))
            if fits_one
            and one is not None
            and targets
            and all(r["verdict"] == "does_not_fit" for r in targets)
            else ""
        )
        advice = self._advice(
            d,
            fits_one_card=fits_one,
            cards_needed=cards_needed,
            workload="training" if self._training(u) else "llm_serving",
            traffic="high" if "traffic" in u.workloads else "low",
            independent_jobs="independent" in u.workloads,
            parallelism=self._parallelism(u),
            planned_tensor_parallel=u.count if "tensor_parallel" in u.workloads else None,
        )
        self._split_rules(d, u, advice, cards_needed, lead=bridge)
        self._nvlink_instead(d, u, advice, targets, rows)

    def _training_memory(self, d: Draft, u: Query, fit: dict[str, Any]) -> None:
        """Full fine-tuning / training memory (weights, gradients, FP32 master, Adam) instead of
        the serving fit, and the training rule."""
        model = self._model_name(fit, d.lang)
        mem = d.call("memory_need", model=self._model_arg(u), training=True)
        if mem is None:
            d.calls.clear()
            self._nvlink_without_model(d, u)
            return
        util = fit["constants"]["gpu_memory_utilization"]
        holders, cheapest = self._training_holders(d, u, "full")
        serve_named = self._served_on_named(d, u, fit)
        d.add(
            t(
                d.lang,
                "train_need" if "fine_tuning" in u.workloads else "train_need_training",
                model=model,
                total=gb(d.lang, mem["total_gb"]),
                bpp=smart(d.lang, mem["bytes_per_param"]),
            )
        )
        # "full fine-tune vs LoRA vs QLoRA, how much each?": the adapters' memory beside it
        targets_arg = "attention" if u.lora_attention_only else None
        for method in ("lora", "qlora"):
            self._other_adapter(d, u, method, u.lora_rank, targets_arg)
        if not serve_named:
            self._training_named(d, u, fit, mem["total_gb"])
            self._training_at_count(d, u, mem["total_gb"])
            if "serve_after" in u.topics:  # "… und danach auf derselben Maschine ausliefern"
                self._served_after(d, u, fit, self._named_fit_rows(u, fit))
        if u.count == 1 and d.verdict is None:  # "reicht eine Karte?" with no card named
            d.verdict = bool(holders)  # a card holds it alone (a B200 in its 4/8-card node)
        if cheapest is not None:
            d.add(
                t(d.lang, "train_one_card", label=d.link(cheapest.id)) + " " + d.price(cheapest.id)
            )
            d.result = d.result or [cheapest.id]  # "and what would that cost?" asks about it
        alone = cheapest is not None or self._no_single_card_node(
            d, holders, split_gb=mem["total_gb"], util=util
        )
        # the cards one job needs, on the biggest card: more than a node holds is rule 5
        biggest = max(g.memory_gb for g in self.deps.catalog.gpus.values()) * util
        needed = None if alone else max(2, math.ceil(mem["total_gb"] / biggest))
        advice = self._advice(
            d,
            fits_one_card=alone,
            cards_needed=needed,
            workload="training",
            parallelism=self._parallelism(u),
        )
        self._add_advice(d, advice)
        d.suggest(follow_up(d.lang, "nvlink", model=model))
        d.suggest(follow_up(d.lang, "cheapest", model=model))

    def _adapter_memory(self, d: Draft, u: Query, fit: dict[str, Any]) -> None:
        """LoRA / QLoRA fine-tuning memory (frozen base weights + adapter state) instead of the
        serving fit: the card asked about (or the cheapest one-card node), the breakdown, the
        assumptions and the training rule."""
        model = self._model_name(fit, d.lang)
        # QLoRA means a 4-bit base: "LoRA in 4-bit" is QLoRA, "in BF16" (not naming QLoRA) LoRA
        qlora = u.adapter == "qlora"
        if u.precision in _FOUR_BIT:
            qlora = True
        elif u.precision in ("bf16", "fp16") and "qlora_named" not in u.topics:
            qlora = False
        method = "qlora" if qlora else "lora"
        rank = u.lora_rank  # said now or earlier in the conversation (nlu, sessions)
        targets_arg = "attention" if u.lora_attention_only else None
        mem = self._adapter_need(d, u, method, rank, targets_arg)
        name = "QLoRA" if qlora else "LoRA"
        if mem is None:
            spec = self.deps.catalog.models.get(u.model) if u.model else None
            key = (
                "adapter_mla"
                if spec is not None and spec.attention == "mla"
                else "adapter_no_shapes"
            )
            d.add(t(d.lang, key, method=name, model=model))
            d.suggest(follow_up(d.lang, "full_fine_tune", model=model))
            return
        util = fit["constants"]["gpu_memory_utilization"]
        total = mem["total_gb"]
        holders, cheapest = self._training_holders(d, u, method)
        serve_named = self._served_on_named(d, u, fit)
        asked = [] if serve_named else self._named_fit_rows(u, fit)
        need = gb(d.lang, total)
        tf = (
            self._call_training_fit(d, u, method, [r["configuration"] for r in asked])
            if asked
            else None
        )
        holds, sharded = _adapter_holds(u, (tf or {}).get("rows", []))
        bridge = ""
        if asked:
            if not (u.yes_no or u.claim) and any(a.kind == "memory" for a in u.asks):
                key = "adapter_need"  # "und mit QLoRA, wie viel Speicher braucht das?": a figure
            elif all(holds.values()):
                key = "adapter_yes_sharded" if sharded else "adapter_yes"
            elif not any(holds.values()):
                key = "adapter_no"
            else:
                key = "adapter_depends"
            d.add(t(d.lang, key, method=name, model=model, total=need))
            by_cfg = {row["configuration"]: row for row in (tf or {}).get("rows", [])}
            d.bullets([self._adapter_line(d, r, holds, sharded, by_cfg, need) for r in asked])
            fits_one = any(h and c not in sharded for c, h in holds.items())  # (not sharded)
            if not fits_one:
                if cheapest is not None:
                    d.add(
                        t(d.lang, "adapter_instead", label=d.link(cheapest.id))
                        + " "
                        + d.price(cheapest.id)
                    )
                    fits_one = True
                    bridge = t(d.lang, "rule_bridge_one_card", label=d.link(cheapest.id))
                else:
                    fits_one = self._no_single_card_node(d, holders, split_gb=total, util=util)
        else:
            d.add(t(d.lang, "adapter_need", method=name, model=model, total=need))
            fits_one = cheapest is not None
            if u.count == 1 and d.verdict is None:  # "reicht da eine einzelne Karte?"
                d.verdict = bool(holders)  # a card holds it alone (a B200 in its 4/8-card node)
            if cheapest is not None:
                d.add(
                    t(d.lang, "train_one_card", label=d.link(cheapest.id))
                    + " "
                    + d.price(cheapest.id)
                )
                d.result = d.result or [cheapest.id]  # "what would that card cost?"
            else:
                fits_one = self._no_single_card_node(d, holders, split_gb=total, util=util)
        d.add(
            t(
                d.lang,
                "adapter_breakdown_qlora" if qlora else "adapter_breakdown_lora",
                base=gb(d.lang, mem["base_weights_gb"]),
                bits=num(d.lang, mem["base_bits_per_param"], 3),
                state=gb(d.lang, mem["adapter_state_gb"]),
                params=smart(d.lang, mem["adapter_params_m"]),
                bpp=smart(d.lang, mem["adapter_bytes_per_param"]),
                total=need,
            )
        )
        self._other_adapter(d, u, "lora" if qlora else "qlora", rank, targets_arg)
        self._served_after(d, u, fit, asked)
        experts = fit["model"].get("active_params_b") is not None
        d.add(
            t(
                d.lang,
                "adapter_assumptions",
                rank=mem["lora_rank"],
                targets=t(
                    d.lang,
                    "adapter_targets_attention"
                    if mem["lora_targets"] == "attention"
                    else "adapter_targets_all_moe"
                    if experts
                    else "adapter_targets_all",
                ),
                util=f"{num(d.lang, util * 100)} %",
            )
        )
        advice = self._advice(
            d, fits_one_card=fits_one, workload="training", parallelism=self._parallelism(u)
        )
        self._add_advice(d, advice, lead=bridge)
        d.suggest(follow_up(d.lang, "lora" if qlora else "qlora", model=model))
        d.suggest(follow_up(d.lang, "full_fine_tune", model=model))

    def _named_fit_rows(self, u: Query, fit: dict[str, Any]) -> list[dict[str, Any]]:
        """The fit rows of the hardware named; "on one A100": the one-card nodes of that card."""
        asked = self._targets(u, fit)
        if u.count is not None:
            asked = [r for r in asked if r["count"] == u.count] or asked
        return asked

    def _served_on_named(self, d: Draft, u: Query, fit: dict[str, Any]) -> bool:
        """ "… und reicht zum Ausliefern danach eine L4?" (topic serve_on_named): the hardware
        named is for serving the tuned model, so its serving fit answers the yes/no, first; the
        training is sized on its own. False when the question names no hardware for that."""
        if "serve_on_named" not in u.topics:
            return False
        asked = self._named_fit_rows(u, fit)
        if not asked:
            return False
        d.verdict = any(r["verdict"] != "does_not_fit" for r in asked)
        line = t(
            d.lang,
            "serve_named_after",
            model=self._model_name(fit, d.lang),
            precision=precision_label(fit["precision"]),
        )
        if not u.yes_no:  # "How much …, and can we then serve it on one 4090?": its word here
            line = f"**{yes_no_word(d.lang, d.verdict)}** — {line}"
        d.add(line)
        d.bullets([f"{d.link(r['configuration'])}: {self._verdict_with_need(d, r)}" for r in asked])
        return True

    def _adapter_line(
        self,
        d: Draft,
        r: dict[str, Any],
        holds: dict[str, bool],
        sharded: set[str],
        training_rows: dict[str, dict[str, Any]],
        need: str,
    ) -> str:
        """A named node's line for an adapter fine-tune: on one card, across its cards (from its
        training_fit row), or not."""
        cid = r["configuration"]
        if cid in sharded:
            return self._holds_line(d, training_rows[cid])
        key = "adapter_cfg_fits" if holds.get(cid) else "adapter_cfg_no"
        line = t(
            d.lang, key, label=d.link(cid), need=need, usable=gb(d.lang, r["usable_gb_per_card"])
        )
        return line + " " + d.price(cid)

    def _served_after(
        self, d: Draft, u: Query, fit: dict[str, Any], asked: list[dict[str, Any]]
    ) -> None:
        """A fine-tune whose model is then served on the hardware named ("danach auf derselben
        Maschine ausliefern"): the serving need there, from the fit rows."""
        serving = {"traffic", "low_concurrency"} & set(u.workloads) or "serve_after" in u.topics
        if not serving:
            return
        if asked:
            lines = [
                f"{d.link(r['configuration'])}: {self._verdict_with_need(d, r)}" for r in asked
            ]
            d.add(
                t(
                    d.lang,
                    "adapter_then_serve",
                    model=self._model_name(fit, d.lang),
                    precision=precision_label(fit["precision"]),
                )
            )
            d.bullets(lines)
        if "cheapest" in u.intents:
            self._served_after_cheapest(d, u, fit)

    def _served_after_cheapest(self, d: Draft, u: Query, fit: dict[str, Any]) -> None:
        """ "Danach soll es in FP8 laufen, 10 Anfragen gleichzeitig: was wäre der günstigste
        Server?": the cheapest node that serves it at the precision and load asked."""
        res = self._call_cheapest(d, u)
        if not res or not res["cheapest"]:
            return
        top = res["cheapest"][0]
        cid = top["configuration"]
        line = t(
            d.lang,
            "serve_after_cheapest",
            model=self._model_name(fit, d.lang),
            precision=precision_label(res["precision"]),
            label=d.link(cid),
            verdict=self._verdict_with_need(d, top),
        )
        d.add(line + " " + d.price(cid))

    def _training_holders(self, d: Draft, u: Query, method: str) -> tuple[list[Any], Any]:
        """The cards whose usable memory holds the training memory, and the cheapest one-card
        node among them (None: no one-card node does), from the training_fit tool."""
        cat = self.deps.catalog
        allowed = d.filters.get("configurations")  # "budget so 1500 € im Monat": within it
        tf = self._call_training_fit(d, u, method, allowed)
        if allowed and tf and not (tf["cheapest_one_card"] or tf["cheapest_split_nvlink"]):
            # nothing within the constraints holds it: say so, then size it without them
            d.add(t(d.lang, "train_none_within", what=d.within))
            d.verdict = False
            d.filters = {}
            tf = self._call_training_fit(d, u, method, None)
        if tf is None:
            return [], None
        holders = [g for g in cat.gpus.values() if g.short_name in set(tf["holders"])]
        one = tf.get("cheapest_one_card")
        return holders, cat.configurations[one["configuration"]] if one else None

    def _call_training_fit(
        self, d: Draft, u: Query, method: str, configurations: list[str] | None
    ) -> dict[str, Any] | None:
        return d.call(
            "training_fit",
            model=self._model_arg(u),
            method=method,
            lora_rank=u.lora_rank if method != "full" else None,
            lora_targets="attention" if u.lora_attention_only and method != "full" else None,
            **({"configurations": configurations} if configurations else {}),
        )

    def _training_named(self, d: Draft, u: Query, fit: dict[str, Any], total_gb: float) -> None:
        """The nodes the question names, judged by the training_fit rows ("Will a full fine-tune
        of Llama 3.1 8B work on our 4x RTX 4090?"): whether their cards together hold the
        training memory, which decides the yes/no."""
        asked = self._targets(u, fit) if (u.configurations or u.cards or u.card_families) else []
        if u.count is not None:  # "on one A100": the one-card nodes of that card
            asked = [r for r in asked if r["count"] == u.count] or asked
        named = [r["configuration"] for r in asked]
        if not named:
            return
        tf = d.call("training_fit", model=self._model_arg(u), method="full", configurations=named)
        rows = (tf or {}).get("rows", [])
        if not rows:
            return
        one_card = u.count == 1
        # "Wie viel VRAM braucht …? Und reicht dafür eine A100?": the yes/no asked after the
        # figure gets its word where it is answered
        second = not u.yes_no and len(rows) == 1 and any(a.kind == "fit" for a in u.asks)
        for r in rows:
            holds = r["fits_one_card"] if one_card else r["fits_node"]
            key = "train_named_holds" if holds else "train_named_short"
            if r["count"] == 1:
                key += "_one"
            line = t(
                d.lang,
                key,
                label=d.link(r["configuration"]),
                usable=gb(d.lang, r["usable_gb_node"]),
                total=gb(d.lang, total_gb),
                n=r["cards_needed"] or r["count"],
            )
            if second:
                line = f"**{yes_no_word(d.lang, holds)}** — {line}"
            d.add(line)
        d.verdict = any(r["fits_one_card"] if one_card else r["fits_node"] for r in rows)
        self._beyond_named_node(d, u, rows, total_gb)

    def _beyond_named_node(
        self, d: Draft, u: Query, rows: list[dict[str, Any]], total_gb: float
    ) -> None:
        """A node named whose cards would be more than eight for one training job ("a full
        fine-tune of Llama 3.3 70B on your 8x H100 SXM5?": 18 cards): on that node the job needs
        a fabric between nodes, the guide's rule 5, whatever bigger cards elsewhere hold it."""

        def needed(r: dict[str, Any]) -> int:  # of that node's cards, at their usable memory
            per_card = float(r.get("usable_gb_per_card") or 0)
            return math.ceil(total_gb / per_card) if per_card > 0 else 0

        beyond = [r for r in rows if not r["fits_node"] and needed(r) > 8]
        if not beyond:
            return
        r = beyond[0]
        advice = self._advice(
            d,
            fits_one_card=False,
            cards_needed=needed(r),
            workload="training",
            parallelism=self._parallelism(u),
        )
        gpu = self.deps.catalog.configurations[r["configuration"]].gpu
        card = self.deps.catalog.gpus[gpu].name
        lead = t(d.lang, "train_named_beyond", card=card, n=needed(r))
        self._add_advice(d, advice, with_also=False, lead=lead)

    def _training_at_count(
        self, d: Draft, u: Query, total_gb: float, nvlink_only: bool = False
    ) -> None:
        """ "on one of your 8-gpu nodes": no card named, only a count; the nodes of that count
        whose cards together hold the training memory (training_fit over them, the cheapest
        four; `nvlink_only`: the SXM ones, as the NVLink answer recommends), or none."""
        cat = self.deps.catalog
        if u.configurations or u.cards or u.card_families or (u.count or 0) < 2:
            return
        ids = [
            c.id
            for c in cat.configurations.values()
            if c.count == u.count
            and (not nvlink_only or cat.links[c.interconnect].kind == "nvlink")
        ]
        tf = d.call("training_fit", model=self._model_arg(u), method="full", configurations=ids)
        if not tf or not tf["rows"]:
            return
        holding = sorted(
            (r for r in tf["rows"] if r["fits_node"]),
            key=lambda r: (Decimal(str(r["usd_per_month"])), r["configuration"]),
        )
        key = "train_count_holds_nvlink" if nvlink_only else "train_count_holds"
        if not holding:
            key = "train_count_none_nvlink" if nvlink_only else "train_count_none"
        d.add(t(d.lang, key, n=u.count, total=gb(d.lang, total_gb)))
        d.bullets([self._holds_line(d, r) for r in holding[:4]])

    def _holds_line(self, d: Draft, r: dict[str, Any]) -> str:
        """ "8 × B200 holds it: one of its cards alone (162 GB usable)", or sharded over n."""
        if r["fits_one_card"]:
            line = t(d.lang, "train_holds_on_one", label=d.link(r["configuration"]),
                     usable=gb(d.lang, r["usable_gb_per_card"]))  # fmt: skip
        else:
            line = t(
                d.lang,
                "train_named_holds",
                label=d.link(r["configuration"]),
                usable=gb(d.lang, r["usable_gb_node"]),
                n=r["cards_needed"] or r["count"],
            )
        return line + " " + d.price(r["configuration"])

    def _no_single_card_node(
        self,
        d: Draft,
        holders: list[Any],
        split_gb: float | None = None,
        util: float = 1.0,
    ) -> bool:
        """No one-card node holds the training memory: only a big card (which comes in 4/8-card
        nodes) or a split across cards. With split_gb: the cheapest SXM node whose cards together
        hold it, with its price, since a split training job wants NVLink (rule 4). True when one
        card of that node holds the job alone ("only NVLink boxes" leaves no one-card node, yet
        an A100 SXM4 holds a 24B LoRA by itself): the job is not split and the link adds nothing.
        """
        cat = self.deps.catalog
        allowed = d.filters.get("configurations")  # within the constraints, when any
        split_key = "train_must_split"
        if allowed is not None:  # "only NVLink boxes": the cards those nodes have
            within = {cat.configurations[c].gpu for c in allowed if c in cat.configurations}
            split_key = "train_must_split_within" if holders else split_key
            holders = [g for g in holders if g.id in within]
        if holders:
            names = sorted({g.short_name for g in holders})
            joined = (
                names[0]
                if len(names) == 1
                else ", ".join(names[:-1]) + (" oder " if d.lang == "de" else " or ") + names[-1]
            )
            d.add(t(d.lang, "train_big_card_only", cards=joined))
        else:
            d.add(t(d.lang, split_key))
        if split_gb is None:
            return False
        ids = [
            c.id
            for c in cat.configurations.values()
            if c.count > 1
            and cat.links[c.interconnect].kind == "nvlink"
            and c.count * cat.gpus[c.gpu].memory_gb * util >= split_gb
            and (allowed is None or c.id in allowed)
        ]
        pq = d.call("price_quote", configurations=ids) if ids else None
        if pq and pq["quotes"]:
            cid = (
                pq.get("cheapest") or pq["quotes"][0]["configuration"]
            )  # (one quote: no "cheapest")
            card = cat.gpus[cat.configurations[cid].gpu]
            alone = card.memory_gb * util >= split_gb
            key = "train_node_one_card" if alone else "adapter_split_node"
            usable = gb(d.lang, card.memory_gb * util)
            d.add(t(d.lang, key, label=d.link(cid), usable=usable) + " " + d.price(cid))
            return alone
        return False

    @staticmethod
    def _plans_tp(u: Query) -> bool:
        """The user plans tensor parallelism over several cards."""
        return "tensor_parallel" in u.workloads and (u.count or 0) > 1

    @staticmethod
    def _fit_lead(verdicts: set[str]) -> str:
        """The verdict sentence for the configurations asked about."""
        if verdicts == {"fits_one_card"}:
            return "fit_yes_one"
        if verdicts == {"split"}:
            return "fit_yes_split"
        if verdicts == {"does_not_fit"}:
            return "fit_no"
        if "fits_one_card" in verdicts:
            return "fit_depends"
        return "fit_mixed"  # split on some, not at all on others

    @staticmethod
    def _one_card_case(
        rows: list[dict[str, Any]],
        targets: list[dict[str, Any]],
        one: dict[str, Any] | None,
        split: dict[str, Any] | None,
    ) -> tuple[bool, int | None]:
        """Which purchase rule's case this is: (fits on one card, cards one job needs).

        The configurations asked about decide when they hold the model; when none does, the
        answer recommends the alternatives: one card if a single-card node holds it (or nothing
        but one big card does), else a split over the fewest cards that hold it.
        """
        verdicts = {r["verdict"] for r in targets}
        if "fits_one_card" in verdicts:
            return True, None
        if "split" in verdicts:
            return False, min(r["cards_needed"] for r in targets if r["verdict"] == "split")
        if one is not None and (one["count"] == 1 or split is None):
            return True, None
        splits = [r["cards_needed"] for r in rows if r["verdict"] == "split"]
        return False, (min(splits) if splits else 9)

    def _alternatives(
        self,
        u: Query,
        rows: list[dict[str, Any]],
        targets: list[dict[str, Any]],
        one: dict[str, Any] | None,
        split: dict[str, Any] | None,
    ) -> list[dict[str, Any]]:
        """Where it fits instead of the configurations asked about, cheapest first: more of
        the same card, the cheapest single card, the cheapest split (and with real traffic or
        training the cheapest NVLink node). One card of a big multi-card node only when
        nothing smaller holds it."""
        cands: list[dict[str, Any]] = []
        gpus = {r["gpu"] for r in targets}
        biggest = max(r["count"] for r in targets)
        more = [
            r
            for r in rows
            if r["gpu"] in gpus
            and r["count"] > biggest
            and r["verdict"] != "does_not_fit"
            and not r["configuration"].endswith("-gen4")
        ]
        if more:
            cands.append(min(more, key=lambda r: (r["count"], Decimal(str(r["usd_per_month"])))))
        if one is not None and (one["count"] == 1 or split is None):
            cands.append(one)
        if split is not None:
            cands.append(split)
        if {"traffic", "training", "fine_tuning"} & set(u.workloads):
            nv = self._cheapest_nvlink(rows)
            if nv is not None:
                cands.append(nv)
        seen: set[str] = set()
        alts = []
        for r in cands:
            if r["configuration"] not in seen:
                seen.add(r["configuration"])
                alts.append(r)
        return sorted(alts, key=lambda r: (Decimal(str(r["usd_per_month"])), r["configuration"]))

    def _nvlink_instead(
        self,
        d: Draft,
        u: Query,
        advice: dict[str, Any] | None,
        targets: list[dict[str, Any]],
        rows: list[dict[str, Any]],
    ) -> None:
        """The guide's rule says SXM (real traffic or training on a split model) and the node
        asked about is PCIe: the cheapest NVLink node of that size that holds it, with its
        price."""
        rule = (advice or {}).get("rule") or {}
        links = self.deps.catalog.links
        pcie = [r for r in targets if links[r["interconnect"]].kind == "pcie"]
        if rule.get("number") != 4 or not pcie or len(pcie) < len(targets):
            return
        best = self._cheapest_nvlink(rows, count=pcie[0]["count"]) or self._cheapest_nvlink(rows)
        if best is None or best["configuration"] in d._prices:
            return
        why = t(d.lang, "why_training" if self._training(u) else "why_traffic")
        cid = best["configuration"]
        d.add(t(d.lang, "cheapest_nvlink", why=why, label=d.link(cid)) + " " + d.price(cid))

    def _cheapest_nvlink(self, rows: list[dict[str, Any]], count: int | None = None) -> Any:
        links = self.deps.catalog.links
        cands = [
            r
            for r in rows
            if r["verdict"] != "does_not_fit"
            and links[r["interconnect"]].kind == "nvlink"
            and (count is None or r["count"] == count)
        ]
        return self._cheapest_row(cands, ("fits_one_card", "split"))


def _adapter_holds(u: Query, rows: list[dict[str, Any]]) -> tuple[dict[str, bool], set[str]]:
    """Whether each named node holds an adapter fine-tune, from its training_fit row: on one
    card, or (a node of several cards, no single card asked) across its cards, sharded; and the
    nodes held only so."""
    holds: dict[str, bool] = {}
    sharded: set[str] = set()
    for r in rows:
        one = bool(r["fits_one_card"])
        across = r["count"] > 1 and u.count != 1 and bool(r["fits_node"])
        holds[r["configuration"]] = one or across
        if across and not one:
            sharded.add(r["configuration"])
    return holds, sharded
