"""The base every flow mixin inherits: `ComposerBase` with the shared helpers (the fit check
call, purchase advice and its rule text, the rows a question names, row lines, the numbers
paragraph, lower-precision and follow-up suggestions) and declarations of the flows one family
hands over to another, plus `generic_name` for models known only by parameter count.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from assistant.answer import Language
from assistant.compose.draft import CASE_ANCHORS, Draft
from assistant.nlu import CARD_FAMILIES, Query
from assistant.texts import follow_up, gb, num, precision_label, t, tokens

_RUNTIME_NAMES = {"vllm": "vLLM", "llama.cpp": "llama.cpp", "ollama": "Ollama"}


def runtime_name(runtime: str) -> str:
    """The engine as people write it (vLLM, llama.cpp, Ollama)."""
    return _RUNTIME_NAMES.get(runtime, runtime)


#: the precisions a model that does not fit is tried at next, the larger first
LOWER_PRECISIONS = ("fp8", "awq")


def _rows_at(d: Any, precision: str, cid: str) -> list[dict[str, Any]]:
    """The fit rows of configuration `cid` at `precision` a fit_check of the draft already has."""
    for call in d.calls:
        result = call.result if call.name == "fit_check" else None
        if isinstance(result, dict) and result.get("precision") == precision:
            rows = [r for r in result.get("rows", []) if r["configuration"] == cid]
            if rows:
                return rows
    return []


def need_usable(lang: Any, r: dict[str, Any]) -> dict[str, str]:
    """A fit row's need and usable memory per card, as the texts' {need} and {usable}; a need
    that rounds to the usable memory keeps two decimals (21.64 GB of 21.6 GB: it does not fit,
    "21.6 GB needed, 21.6 GB usable" would not say why)."""
    need, usable = gb(lang, r["required_gb_per_card"]), gb(lang, r["usable_gb_per_card"])
    if need == usable and r["required_gb_per_card"] != r["usable_gb_per_card"]:
        need = f"{num(lang, r['required_gb_per_card'], 2)} GB"
    return {"need": need, "usable": usable}


class ComposerBase:
    """The helpers every flow uses: tool calls (fit check, purchase advice), the rows asked about,
    row lines, verdict words, the guide rule and its citation."""

    def __init__(self, deps: Any) -> None:
        self.deps = deps

    # ------------------------------------------------------------------ helpers

    @staticmethod
    def _model_arg(u: Query) -> str | None:
        if u.model:
            return u.model
        if u.params_b:
            return f"{u.params_b:g}B"
        return None

    def _context_tokens(self, u: Query) -> int | None:
        """The context asked: the tokens named, or "at full context" the model's own limit
        (catalog max_context)."""
        if u.context_tokens is None and u.full_context and u.model:
            return getattr(self.deps.catalog.models.get(u.model), "max_context", None)
        return u.context_tokens

    def _call_fit(self, d: Draft, u: Query, **extra: Any) -> dict[str, Any] | None:
        context = self._context_tokens(u)
        return d.call(
            "fit_check",
            model=self._model_arg(u),
            precision=u.precision,
            context_tokens=context,
            concurrency=u.concurrency,
            **extra,
        )

    def _rule_text(self, d: Draft, rule: dict[str, Any]) -> str:
        text = rule["text_de"] if d.lang == "de" else rule["text_en"]
        marker = (
            d.cite(rule["anchor"], contains=rf"^\s*{rule['number']}\.")
            if rule.get("number")
            else d.cite(CASE_ANCHORS.get(rule["key"], rule["anchor"]))
        )
        return t(d.lang, "rule", rule=text) + marker

    def _advice(self, d: Draft, **args: Any) -> dict[str, Any] | None:
        return d.call("purchase_advice", **args)

    def _add_advice(
        self, d: Draft, advice: dict[str, Any] | None, with_also: bool = True, lead: str = ""
    ) -> None:
        if not advice:
            return
        if advice.get("rule"):
            d.add(lead, self._rule_text(d, advice["rule"]))
        if with_also:
            for item in advice.get("also", []):
                text = item["text_de"] if d.lang == "de" else item["text_en"]
                d.add(text + d.cite(CASE_ANCHORS.get(item["key"], item["anchor"])))

    def _assumptions(self, d: Draft, fit: dict[str, Any]) -> str:
        consts = fit.get("constants", {})
        util = consts.get("gpu_memory_utilization")
        overhead = consts.get("overhead_gb_per_card")
        if util is None or overhead is None:
            return ""
        reserve = consts.get("reserve_gb_per_card")
        return t(
            d.lang,
            "assumptions_reserve" if reserve is not None else "assumptions",
            context=num(d.lang, fit["context_tokens"]),
            conc=fit["concurrency"],
            util=f"{num(d.lang, util * 100)} %",
            reserve=gb(d.lang, reserve or 0.0),
            runtime=runtime_name(str(fit.get("runtime") or "vllm")),
            overhead=gb(d.lang, overhead),
        )

    def _model_name(self, fit: dict[str, Any], lang: Language = "en") -> str:
        return generic_name(str(fit["model"]["name"]), lang)

    def _is_image(self, fit: dict[str, Any]) -> bool:
        return bool(fit["model"]["kind"] != "llm")

    def _targets(self, u: Query, fit: dict[str, Any]) -> list[dict[str, Any]]:
        """The rows the user asked about: named configurations, cards, a card memory, a count."""
        rows = fit["rows"]
        by_id = {r["configuration"]: r for r in rows}
        wanted: list[str] = [c for c in u.configurations if c in by_id]
        cards = list(u.cards)
        for fam in u.card_families:
            cards.extend(CARD_FAMILIES[fam])
        if not wanted and cards:
            per_card = {card: _card_rows(rows, card, u.gen4) for card in cards}
            counted = {
                card: [r for r in cands if r["count"] == u.count]
                for card, cands in per_card.items()
            }
            # "a single A100": the family's card that comes in a one-card node, not the 4x SXM4
            exact = u.count is not None and any(counted.values())
            for card, cands in per_card.items():
                if exact:
                    cands = counted[card]
                elif u.count is not None:
                    cands = counted[card] or cands
                if not cands:
                    continue
                wanted.append(_nearest_node(cands)["configuration"])
        # "4x A100 SXM4 or 2x H200": no 2-card H200 node, so the nearest H200 node that holds it
        for _, card in u.absent_nodes if wanted else []:
            cands = [
                r for r in rows if r["gpu"] == card and not r["configuration"].endswith("gen4")
            ]
            if cands and _nearest_node(cands)["configuration"] not in wanted:
                wanted.append(_nearest_node(cands)["configuration"])
        if not wanted and u.memory_gb is not None:
            n = u.count or 1
            wanted = [
                r["configuration"]
                for r in rows
                if r["memory_gb_per_card"] == u.memory_gb
                and r["count"] == n
                and not r["configuration"].endswith("-gen4")
            ]
        return [by_id[c] for c in wanted][:4]

    def _row_line(self, d: Draft, r: dict[str, Any], with_price: bool = True) -> str:
        figures = need_usable(d.lang, r)
        label = d.link(r["configuration"])
        if r["verdict"] == "fits_one_card":
            line = t(d.lang, "cfg_fits_one", label=label, **figures)
        elif r["verdict"] == "split":
            line = t(d.lang, "cfg_split", label=label, n=r["cards_needed"], **figures)
        else:
            line = t(d.lang, "cfg_no_fit", label=label, **figures)
        if with_price:
            line += " " + d.price(r["configuration"])
        return line

    @staticmethod
    def _cheapest_row(
        rows: list[dict[str, Any]], verdicts: tuple[str, ...]
    ) -> dict[str, Any] | None:
        cands = [r for r in rows if r["verdict"] in verdicts]
        if not cands:
            return None
        return min(cands, key=lambda r: (Decimal(str(r["usd_per_month"])), r["configuration"]))

    def _image_room(
        self, d: Draft, shown: list[dict[str, Any]], rows: list[dict[str, Any]]
    ) -> None:
        """Image/video models: a shown card that holds the job only tightly (fit_check's `room`)
        gets the guide's "the cheapest card that fits is rarely the right one", and the
        cheapest node with room to spare."""
        tight = [r for r in shown if r.get("room") == "tight"]
        if not tight:
            return
        r = tight[0]
        spare = r["headroom_gb"]
        key = "room_none" if spare < 0.5 else "room_little"
        text = t(d.lang, key, label=d.label(r["configuration"]), spare=gb(d.lang, spare))
        text += d.cite("cheapest-is-rarely-right", guide="gpu-for-flux-sdxl")
        roomy = [x for x in rows if x.get("room") == "ample"]
        best = self._cheapest_row(
            [x for x in roomy if x["count"] == 1], ("fits_one_card",)
        ) or self._cheapest_row(roomy, ("fits_one_card",))
        if best is not None and best["configuration"] not in {x["configuration"] for x in shown}:
            cid = best["configuration"]
            text += " " + t(d.lang, "room_instead", label=d.link(cid)) + " " + d.price(cid)
        d.add(text)

    def _llm_room(self, d: Draft, shown: list[dict[str, Any]], rows: list[dict[str, Any]]) -> None:
        """Language models: a shown node that holds the job with no room to spare (fit's
        `room` 'tight': less than a second request's KV cache per card) is said to be tight,
        with the cheapest node that has room (issue 24)."""
        tight = [r for r in shown if r.get("room") == "tight"]
        if not tight:
            return
        r = tight[0]
        text = t(
            d.lang,
            "room_llm",
            label=d.label(r["configuration"]),
            spare=gb(d.lang, max(r["headroom_gb"], 0.0)),
        )
        best = self._cheapest_row(
            [x for x in rows if x.get("room") == "ample"], ("fits_one_card", "split")
        )
        if best is not None and best["configuration"] not in {x["configuration"] for x in shown}:
            cid = best["configuration"]
            text += " " + t(d.lang, "room_instead", label=d.link(cid)) + " " + d.price(cid)
        d.add(text)

    @staticmethod
    def _speed_no_fit(d: Draft, r: dict[str, Any], model: str, prec: str) -> str:
        """'X does not fit on N (need per card, usable): no speed to estimate.'"""
        label = d.link(r["configuration"])
        return t(
            d.lang,
            "speed_no_fit",
            model=model,
            precision=prec,
            label=label,
            **need_usable(d.lang, r),
        )

    def _verdict_with_need(self, d: Draft, r: dict[str, Any]) -> str:
        """'fits on one card, 146.4 GB of 162 GB per card': the verdict with what it rests on."""
        word = self._verdict_word(d, r)
        if r.get("room") == "tight" and r["verdict"] == "fits_one_card":
            word = t(d.lang, "v_fits_one_tight")  # the summary keeps what the figure says
        if r.get("required_gb_per_card") is None or r.get("usable_gb_per_card") is None:
            return word
        return word + t(d.lang, "need_of", **need_usable(d.lang, r))

    def _verdict_word(self, d: Draft, r: dict[str, Any]) -> str:
        if r["verdict"] == "fits_one_card":
            return t(d.lang, "v_fits_one")
        if r["verdict"] == "split":
            return t(d.lang, "v_split", n=r["cards_needed"])
        return t(d.lang, "v_no_fit")

    def _cite_topic_guides(self, d: Draft, u: Query, fit: dict[str, Any]) -> str:
        """A passage of the quantisation, MoE or image guide about this model or format."""
        sections = self.deps.guides
        if sections is None:
            return ""
        model = fit["model"]
        spec = self.deps.catalog.models.get(model["id"])
        names = [str(model["name"]).split(" [")[0].split(" (")[0], model["id"]]
        names += [str(a) for a in (getattr(spec, "aliases", None) or [])]
        guide = "gpu-for-flux-sdxl" if model["kind"] != "llm" else "mixture-of-experts"
        about = None
        if model["kind"] != "llm" or model.get("active_params_b"):
            about = sections.about(guide, d.lang, names)  # "### FLUX.1", "### DeepSeek V3"
        if about is not None and "kv_cache" not in u.topics:
            return d.cite_passage(about)
        if model["kind"] != "llm":
            # the guide says "SDXL", the catalog "Stable Diffusion XL 1.0": try the short forms
            for name in names:
                p = sections.find("gpu-for-flux-sdxl", d.lang, rf"\b{re.escape(name)}\b")
                if p is not None:
                    return d.cite_passage(p)
            return d.cite("short-answer", guide="gpu-for-flux-sdxl")
        if model.get("active_params_b"):
            if "kv_cache" in u.topics:
                return d.cite("kv-cache", guide="mixture-of-experts")
            name = re.escape(str(model["name"]).split(" ")[0])
            return d.cite_passage(sections.find("mixture-of-experts", d.lang, name))
        if u.precision in ("awq", "gptq", "fp8") or (u.precision or "").startswith("gguf"):
            word = {"awq": "AWQ", "gptq": "GPTQ", "fp8": "FP8"}.get(u.precision or "", "GGUF")
            return d.cite_passage(sections.find("awq-vs-gptq-vs-fp8", d.lang, word))
        return ""

    # ------------------------------------------------------------------ shared by several flows

    def _numbers(self, d: Draft, fit: dict[str, Any]) -> None:
        prec = precision_label(fit["precision"])
        if self._is_image(fit):
            d.add(t(d.lang, "image_need", need=gb(d.lang, fit["weights_gb"]), precision=prec))
            return
        parts = [t(d.lang, "weights_only", weights=gb(d.lang, fit["weights_gb"]), precision=prec)]
        if fit.get("kv_bytes_per_token"):
            # a KV cache at another precision than the default BF16 says which ("in FP8")
            kv_prec = fit.get("kv_precision") or "bf16"
            parts.append(
                t(
                    d.lang,
                    "kv_line" if kv_prec == "bf16" else "kv_line_at",
                    kv=gb(d.lang, fit["kv_gb"]),
                    per_token=num(d.lang, fit["kv_bytes_per_token"]),
                    kv_precision=precision_label(kv_prec),
                )
            )
        else:
            parts.append(t(d.lang, "kv_unknown"))
        if fit.get("kv_bytes_per_token_high") and fit.get("kv_gb_high") is not None:
            parts.append(  # architecture unknown: the KV cache bounded from the other side
                t(
                    d.lang,
                    "kv_generic_high",
                    high=num(d.lang, fit["kv_bytes_per_token_high"]),
                    kv=gb(d.lang, fit["kv_gb_high"]),
                )
            )
        parts.append(self._assumptions(d, fit))
        d.add(*parts)

    @staticmethod
    def _training(u: Query) -> bool:
        return bool({"training", "fine_tuning"} & set(u.workloads))

    @staticmethod
    def _parallelism(u: Query) -> str:
        if "pipeline_parallel" in u.workloads:
            return "pipeline"
        if "tensor_parallel" in u.workloads:
            return "tensor"
        if "independent" in u.workloads:
            return "replicas"
        return "auto"

    def _absent_note(self, d: Draft, u: Query, targets: list[dict[str, Any]]) -> None:
        """'4x A100 SXM4 or 2x H200': the other node exists, a 2-card H200 node does not; the
        nearest H200 node is answered instead, and this says so."""
        shown = {r["gpu"] for r in targets}
        for count, card in u.absent_nodes:
            if card in shown and u.configurations:
                name = self.deps.catalog.gpus[card].short_name
                d.add(t(d.lang, "no_such_count", count=count, card=name))

    def _count_note(self, d: Draft, u: Query, targets: list[dict[str, Any]]) -> None:
        """'2x H100 SXM5' asked, only 4/8-card nodes exist: say so before answering for them."""
        self._absent_note(d, u, targets)
        if not u.count or not targets or any(r["count"] == u.count for r in targets):
            return
        if u.configurations:
            return  # a configuration id named outright exists
        cards = {r["gpu"] for r in targets}
        names = ", ".join(sorted({self.deps.catalog.gpus[c].short_name for c in cards}))
        d.add(t(d.lang, "no_such_count", count=u.count, card=names))

    def _split_rules(
        self,
        d: Draft,
        u: Query,
        advice: dict[str, Any] | None,
        cards_needed: int | None,
        lead: str = "",
        with_also: bool = True,
    ) -> None:
        """The rule; when the load decides between rule 3 and rule 4 and the user didn't say,
        ask and quote both, never just one."""
        unknown_load = not (
            {"traffic", "low_concurrency", "training", "fine_tuning", "pipeline_parallel"}
            & set(u.workloads)
        )
        if advice and advice.get("rule", {}).get("number") in (3, 4) and unknown_load:
            d.add(t(d.lang, "ask_workload"))
            lines = []
            for traffic in ("low", "high"):
                adv = self._advice(
                    d, fits_one_card=False, cards_needed=cards_needed, traffic=traffic
                )
                if adv and adv.get("rule"):
                    lines.append(self._rule_text(d, adv["rule"]))
            d.bullets(lines)
            return
        self._add_advice(d, advice, with_also=with_also, lead=lead)

    def _call_cheapest(self, d: Draft, u: Query, **extra: Any) -> dict[str, Any] | None:
        """cheapest_fit for the query's model, precision, context and load; `extra` adds or
        overrides an argument (interconnect, one_card; concurrency=None sizes one copy)."""
        args: dict[str, Any] = {
            "model": self._model_arg(u),
            "precision": u.precision,
            "context_tokens": u.context_tokens,
            "concurrency": u.concurrency,
        }
        if u.constraints.one_card:
            args["one_card"] = True  # "das günstigste mit nur einer Karte"
        return d.call("cheapest_fit", **{**args, **extra})

    def _speed_lower(
        self, d: Draft, u: Query, r: dict[str, Any], fit: dict[str, Any]
    ) -> float | None:
        """A speed asked where the model does not fit at its precision on that node: its speed
        at the first lower precision that fits there (FP8, else 4-bit AWQ), as the fit answer
        names that precision ("wie viel token/s schafft mistral small 24b auf einer L40S?");
        returned (None when no lower precision fits)."""
        from tools.memory import BITS_PER_WEIGHT

        if fit["model"]["kind"] != "llm":
            return None
        bits = BITS_PER_WEIGHT.get(fit["precision"], 16.0)
        cid = r["configuration"]
        args = {"context_tokens": u.context_tokens, "concurrency": u.concurrency}
        for p in LOWER_PRECISIONS:
            if BITS_PER_WEIGHT[p] >= bits:
                continue
            rows = _rows_at(d, p, cid)  # the fit answer's own probe of that precision, if any
            if not rows:
                low = d.call(
                    "fit_check", model=self._model_arg(u), precision=p, configurations=[cid], **args
                )
                rows = [x for x in (low or {}).get("rows", []) if x["configuration"] == cid]
            if not rows or rows[0]["verdict"] == "does_not_fit":
                continue
            tput = d.call(
                "throughput_estimate",
                model=self._model_arg(u),
                configuration=cid,
                precision=p,
                **args,
            )
            if tput:
                d.add(
                    t(
                        d.lang,
                        "speed_in_lower",
                        precision=precision_label(p),
                        label=d.link(cid),
                        tps=tokens(d.lang, tput["tokens_per_s"]),
                        verdict=self._verdict_with_need(d, rows[0]),
                    )
                )
            return float(tput["tokens_per_s"]) if tput else None
        return None

    def _lower_precision(
        self, d: Draft, u: Query, fit: dict[str, Any], targets: list[dict[str, Any]]
    ) -> None:
        """The configurations asked about can't hold it: do they at FP8, or at 4-bit?"""
        from tools.memory import BITS_PER_WEIGHT

        bits = BITS_PER_WEIGHT.get(fit["precision"], 16.0)
        for p in LOWER_PRECISIONS:
            if BITS_PER_WEIGHT[p] >= bits:
                continue
            low = d.call(
                "fit_check",
                model=self._model_arg(u),
                precision=p,
                context_tokens=u.context_tokens,
                concurrency=u.concurrency,
                configurations=[r["configuration"] for r in targets],
            )
            if low is None:
                return
            fitting = [r for r in low["rows"] if r["verdict"] != "does_not_fit"]
            if fitting:
                word = "FP8" if p == "fp8" else "AWQ"
                guide = self.deps.guides
                cite = (
                    d.cite_passage(guide.find("awq-vs-gptq-vs-fp8", d.lang, word))
                    if guide is not None
                    else ""
                )
                d.add(t(d.lang, "fit_lower_precision", precision=precision_label(p)) + cite)
                d.bullets([self._row_line(d, r, with_price=False) for r in fitting])
                return

    def _fit_follow_ups(
        self, d: Draft, u: Query, fit: dict[str, Any], row: dict[str, Any] | None
    ) -> None:
        model = self._model_name(fit, d.lang)
        if self._is_image(fit):
            d.suggest(follow_up(d.lang, "nvlink", model=model))
            return
        if row is not None:
            d.suggest(follow_up(d.lang, "speed", label=d.label(row["configuration"])))
        if fit["precision"] != "fp8":
            d.suggest(follow_up(d.lang, "fp8"))
        d.suggest(follow_up(d.lang, "nvlink", model=model))

    # ------------------------------------------------------------------ flows of other mixins
    # Flows that fall back on (or hand over to) a flow of another family. Each mixin defines
    # its own; these declarations let every mixin call them and are never reached on Composer.

    def _general(self, d: Draft, u: Query) -> None:
        """The guide's own words (guides.GuidesMixin)."""
        raise NotImplementedError

    def _ask_model(self, d: Draft, u: Query) -> None:
        """Ask which model, with the general rule (guides.GuidesMixin)."""
        raise NotImplementedError

    def _fit_answer(self, d: Draft, u: Query) -> None:
        """Does the model fit, and where (fit.FitMixin)."""
        raise NotImplementedError

    def _cheapest(self, d: Draft, u: Query) -> None:
        """The cheapest node that holds the model (prices.PricesMixin)."""
        raise NotImplementedError

    def _nvlink_without_model(self, d: Draft, u: Query) -> None:
        """NVLink or PCIe by workload alone (nvlink.NvlinkMixin)."""
        raise NotImplementedError

    def _adapter_memory(self, d: Draft, u: Query, fit: dict[str, Any]) -> None:
        """LoRA / QLoRA fine-tuning memory and the rule (fit.FitMixin)."""
        raise NotImplementedError

    def _holds_line(self, d: Draft, r: dict[str, Any]) -> str:
        """A training_fit row that holds the job, with its price (fit.FitMixin)."""
        raise NotImplementedError

    def _training_at_count(
        self, d: Draft, u: Query, total_gb: float, nvlink_only: bool = False
    ) -> None:
        """The nodes of a count said alone that hold a full fine-tune (fit.FitMixin)."""
        raise NotImplementedError

    def _training_named(self, d: Draft, u: Query, fit: dict[str, Any], total_gb: float) -> None:
        """The named nodes judged by a full fine-tune's memory (fit.FitMixin)."""
        raise NotImplementedError

    def _price(self, d: Draft, u: Query) -> None:
        """Prices and facts of the named nodes (prices.PricesMixin)."""
        raise NotImplementedError

    def _speed(self, d: Draft, u: Query) -> None:
        """Tokens per second on the named nodes (speed.SpeedMixin)."""
        raise NotImplementedError

    def _memory_line(self, d: Draft, mem: dict[str, Any]) -> None:
        """The need of one copy from memory_need (asks.AsksMixin)."""
        raise NotImplementedError

    def _capacity_call(
        self, d: Draft, u: Query, r: dict[str, Any], ctx: int, **extra: Any
    ) -> dict[str, Any] | None:
        """`capacity_check` of the job on one node (speed.SpeedMixin)."""
        raise NotImplementedError

    def _capacity_of(
        self,
        d: Draft,
        u: Query,
        r: dict[str, Any],
        model: str,
        prec: str,
        context_lead: bool,
        with_price: bool = False,
    ) -> None:
        """One node's KV-cache room and longest context (speed.SpeedMixin)."""
        raise NotImplementedError


def generic_name(name: str, lang: Language) -> str:
    """'70B model (generic dense, parameter count only)' -> '70B model' / '70B-Modell'."""
    name = name.replace(" (generic dense, parameter count only)", "")
    if lang == "de":
        name = re.sub(r"^([\d.,]+B) model$", r"\1-Modell", name)
    return name


def _card_rows(rows: list[dict[str, Any]], card: str, gen4: bool) -> list[dict[str, Any]]:
    """The fit rows of one card's nodes (the Gen4 chassis only when asked for)."""
    return [
        r for r in rows if r["gpu"] == card and (gen4 or not r["configuration"].endswith("-gen4"))
    ]


def _nearest_node(cands: list[dict[str, Any]]) -> dict[str, Any]:
    """Of one card's nodes: the smallest that holds the model (else the largest)."""
    fitting = [r for r in cands if r["verdict"] != "does_not_fit"]
    if fitting:
        return min(fitting, key=lambda r: r["count"])
    return max(cands, key=lambda r: r["count"])
