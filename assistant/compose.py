"""The offline composer: from the understood question, tool results and guide passages to an answer.

Order of an answer: the verdict first (bold), then the key numbers with their assumptions, the
guide's purchase rule as the recommendation, prices with links, citations [n]. Every figure in the
text is formatted from a tool result recorded in `tool_calls` (or sits in a quoted passage), so
the grounding check can trace it. Missing information gets a clarifying question plus the general
rule, never a guess.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from assistant.answer import Citation, Language, PriceQuote, ToolCall
from assistant.nlu import CARD_FAMILIES, Understanding
from assistant.registry import ToolError, call_tool
from assistant.texts import (
    follow_up,
    gb,
    monthly,
    num,
    precision_label,
    smart,
    t,
    tokens,
    usd,
)

log = logging.getLogger("assistant.compose")

NVLINK_GUIDE = "nvlink-vs-pcie"
# the model of the guide's own speed table (nvlink-vs-pcie#same-job-both-ways)
EXAMPLE_MODEL = "llama-3.3-70b"
# the subsection each "link does not matter" case and the warning come from (both languages)
CASE_ANCHORS = {
    "case.one-model-per-card": "one-model-per-card",
    "case.pipeline-parallelism": "pipeline-parallelism",
    "case.diffusion-rendering": "diffusion-and-rendering",
    "mistake.unneeded-tensor-parallelism": "most-expensive-mistake",
}
# the same card class with and without NVLink (the guide's own comparison: A100 PCIe vs SXM4)
PCIE_TWIN = {"a100-sxm4": "a100-pcie", "h100-sxm5": "h100-pcie"}
SXM_TWIN = {v: k for k, v in PCIE_TWIN.items()}


@dataclass
class Composed:
    text: str
    citations: list[Citation]
    prices: list[PriceQuote]
    tool_calls: list[ToolCall]
    follow_ups: list[str]


@dataclass
class Draft:
    """An answer being written: paragraphs, and what they cite, quote and call."""

    deps: Any
    lang: Language
    paras: list[str] = field(default_factory=list)
    calls: list[ToolCall] = field(default_factory=list)
    follow_ups: list[str] = field(default_factory=list)
    _passages: list[Any] = field(default_factory=list)
    _passage_keys: dict[tuple[str, str], int] = field(default_factory=dict)
    _prices: dict[str, PriceQuote] = field(default_factory=dict)

    # ---- tools
    def call(self, name: str, **arguments: Any) -> dict[str, Any] | None:
        args = {k: v for k, v in arguments.items() if v is not None}
        try:
            record = call_tool(self.deps, name, args)
        except ToolError as exc:
            log.info("tool %s failed: %s", name, exc)
            return None
        self.calls.append(record)
        result: dict[str, Any] = record.result
        return result

    # ---- citations: a placeholder now, numbered by first appearance at the end
    def cite_passage(self, passage: Any) -> str:
        if passage is None:
            return ""
        key = (str(getattr(passage, "id", "")), str(getattr(passage, "text", ""))[:80])
        if key not in self._passage_keys:
            self._passage_keys[key] = len(self._passages)
            self._passages.append(passage)
        return f" \x00{self._passage_keys[key]}\x00"

    def cite(self, anchor: str, contains: str | None = None, guide: str = NVLINK_GUIDE) -> str:
        sections = self.deps.guides
        if sections is None:
            return ""
        return self.cite_passage(sections.section(guide, anchor, self.lang, contains))

    # ---- prices
    def price(self, cid: str) -> str:
        c = self.deps.catalog.configurations[cid]
        url = c.url if self.lang == "de" else c.url_en
        self._prices[cid] = PriceQuote(
            configuration=c.id,
            label=c.label,
            usd_per_month=c.usd_per_month,
            url=url,
            placeholder=c.placeholder,
        )
        text = monthly(self.lang, c.usd_per_month)
        if c.placeholder:
            text += t(self.lang, "placeholder")
        return text

    def link(self, cid: str) -> str:
        c = self.deps.catalog.configurations[cid]
        url = c.url if self.lang == "de" else c.url_en
        return f"[{c.label}]({url})"

    def label(self, cid: str) -> str:
        return str(self.deps.catalog.configurations[cid].label)

    def add(self, *parts: str) -> None:
        text = " ".join(p for p in parts if p)
        if text and text not in self.paras:  # two models, one rule: say it once
            self.paras.append(text)

    def bullets(self, lines: list[str]) -> None:
        if lines:
            self.paras.append("\n".join(f"- {line}" for line in lines))

    def suggest(self, text: str) -> None:
        if text and text not in self.follow_ups and len(self.follow_ups) < 3:
            self.follow_ups.append(text)

    # ---- finish
    def finish(self) -> Composed:
        text = "\n\n".join(self.paras)
        order: list[int] = []
        for m in re.finditer(r"\x00(\d+)\x00", text):
            idx = int(m.group(1))
            if idx not in order:
                order.append(idx)
        number = {idx: n for n, idx in enumerate(order, 1)}
        text = re.sub(r"\x00(\d+)\x00", lambda m: f"[{number[int(m.group(1))]}]", text)
        text = re.sub(r"(\[\d+\])(?: \1)+", r"\1", text)  # "[1] [1]" -> "[1]"
        citations = []
        for idx in order:
            p = self._passages[idx]
            citations.append(
                Citation(
                    n=number[idx],
                    guide=str(p.guide),
                    title=str(p.title),
                    section=str(p.section),
                    url=str(p.url),
                    quote=str(p.text),
                )
            )
        return Composed(
            text=text,
            citations=citations,
            prices=list(self._prices.values()),
            tool_calls=self.calls,
            follow_ups=self.follow_ups,
        )


# --------------------------------------------------------------------------- composer


class Composer:
    def __init__(self, deps: Any) -> None:
        self.deps = deps

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
                r"\b(?:vs\.?|versus|or|oder|gegenüber|compared|verglichen|better|besser|lohnt)\b",
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

    # ------------------------------------------------------------------ helpers

    @staticmethod
    def _model_arg(u: Understanding) -> str | None:
        if u.model:
            return u.model
        if u.params_b:
            return f"{u.params_b:g}B"
        return None

    def _call_fit(self, d: Draft, u: Understanding, **extra: Any) -> dict[str, Any] | None:
        context = u.context_tokens
        if context is None and u.full_context and u.model:
            # "at full context": the model's own limit (catalog max_context)
            context = getattr(self.deps.catalog.models.get(u.model), "max_context", None)
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
        return t(
            d.lang,
            "assumptions",
            context=num(d.lang, fit["context_tokens"]),
            conc=fit["concurrency"],
            util=f"{num(d.lang, util * 100)} %",
            overhead=gb(d.lang, overhead),
        )

    def _model_name(self, fit: dict[str, Any], lang: Language = "en") -> str:
        return generic_name(str(fit["model"]["name"]), lang)

    def _is_image(self, fit: dict[str, Any]) -> bool:
        return bool(fit["model"]["kind"] != "llm")

    def _targets(self, u: Understanding, fit: dict[str, Any]) -> list[dict[str, Any]]:
        """The rows the user asked about: named configurations, cards, a card memory, a count."""
        rows = fit["rows"]
        by_id = {r["configuration"]: r for r in rows}
        wanted: list[str] = [c for c in u.configurations if c in by_id]
        cards = list(u.cards)
        for fam in u.card_families:
            cards.extend(CARD_FAMILIES[fam])
        if not wanted and cards:
            for card in cards:
                cands = [
                    r
                    for r in rows
                    if (r["gpu"] == card and not r["configuration"].endswith("-gen4"))
                    or (r["gpu"] == card and u.gen4)
                ]
                if u.count is not None:
                    cands = [r for r in cands if r["count"] == u.count] or cands
                if not cands:
                    continue
                # no count said: the smallest node of that card that holds it (else the largest)
                fitting = [r for r in cands if r["verdict"] != "does_not_fit"]
                pick = (
                    min(fitting, key=lambda r: r["count"])
                    if fitting
                    else max(cands, key=lambda r: r["count"])
                )
                wanted.append(pick["configuration"])
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
        need = gb(d.lang, r["required_gb_per_card"])
        usable = gb(d.lang, r["usable_gb_per_card"])
        label = d.link(r["configuration"])
        if r["verdict"] == "fits_one_card":
            line = t(d.lang, "cfg_fits_one", label=label, need=need, usable=usable)
        elif r["verdict"] == "split":
            line = t(
                d.lang, "cfg_split", label=label, n=r["cards_needed"], need=need, usable=usable
            )
        else:
            line = t(d.lang, "cfg_no_fit", label=label, need=need, usable=usable)
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

    def _verdict_word(self, d: Draft, r: dict[str, Any]) -> str:
        if r["verdict"] == "fits_one_card":
            return t(d.lang, "v_fits_one")
        if r["verdict"] == "split":
            return t(d.lang, "v_split", n=r["cards_needed"])
        return t(d.lang, "v_no_fit")

    def _cite_topic_guides(self, d: Draft, u: Understanding, fit: dict[str, Any]) -> str:
        """A passage of the quantisation, MoE or image guide about this model or format."""
        sections = self.deps.guides
        if sections is None:
            return ""
        model = fit["model"]
        if model["kind"] != "llm":
            # the guide says "SDXL", the catalog "Stable Diffusion XL 1.0": try the short forms
            spec = self.deps.catalog.models.get(model["id"])
            names = [str(model["name"]).split(" [")[0].split(" (")[0], model["id"]]
            names += [str(a) for a in (getattr(spec, "aliases", None) or [])]
            for name in names:
                p = sections.find("gpu-for-flux-sdxl", d.lang, rf"\b{re.escape(name)}\b")
                if p is not None:
                    return d.cite_passage(p)
            return d.cite("short-answer", guide="gpu-for-flux-sdxl")
        if model.get("active_params_b"):
            if re.search(r"kv[\s-]*cache", u.question.lower()):
                return d.cite("kv-cache", guide="mixture-of-experts")
            name = re.escape(str(model["name"]).split(" ")[0])
            return d.cite_passage(sections.find("mixture-of-experts", d.lang, name))
        if u.precision in ("awq", "gptq", "fp8") or (u.precision or "").startswith("gguf"):
            word = {"awq": "AWQ", "gptq": "GPTQ", "fp8": "FP8"}.get(u.precision or "", "GGUF")
            return d.cite_passage(sections.find("awq-vs-gptq-vs-fp8", d.lang, word))
        return ""

    # ------------------------------------------------------------------ flows

    def _off_topic(self, d: Draft, u: Understanding) -> None:
        d.add(t(d.lang, "off_topic"))
        d.suggest(follow_up(d.lang, "fit_example"))
        d.suggest(follow_up(d.lang, "nvlink_example"))
        d.suggest(follow_up(d.lang, "price_example"))

    def _unknown_model(self, d: Draft, u: Understanding) -> None:
        name = u.unknown_model or ""
        d.add(t(d.lang, "unknown_model", name=name))
        if u.unknown_model_closest:
            d.add(t(d.lang, "unknown_model_closest", names=", ".join(u.unknown_model_closest)))
        if u.params_b:
            p = f"{u.params_b:g}"
            example = follow_up(d.lang, "size_params", params=p)
            d.add(t(d.lang, "unknown_model_offer_params", params=p, example=example))
            d.suggest(example)
        else:
            example = follow_up(d.lang, "size_params", params="70")
            d.add(t(d.lang, "unknown_model_offer", example=example))
        d.suggest(follow_up(d.lang, "fit_example"))

    def _ask_model(self, d: Draft, u: Understanding) -> None:
        d.add(f"**{t(d.lang, 'ask_model')}**")
        d.add(t(d.lang, "general_rule_title"))
        advice = self._advice(d, fits_one_card=True)
        self._add_advice(d, advice, with_also=False)
        d.suggest(follow_up(d.lang, "fit_example"))
        d.suggest(follow_up(d.lang, "nvlink_example"))

    # ---- fit
    def _fit_answer(self, d: Draft, u: Understanding) -> None:
        fit = self._call_fit(d, u)
        if (
            fit is not None
            and self._training(u)
            and not self._is_image(fit)
            and not re.search(r"\b(?:q?lora|peft|adapter)", u.question.lower())
        ):
            self._training_memory(d, u, fit)  # "how much memory to fully fine-tune X?"
            return
        note = ""
        if fit is None and u.precision is not None:
            # an image model has published figures only for some precisions: answer with those
            fit = d.call(
                "fit_check",
                model=self._model_arg(u),
                context_tokens=u.context_tokens,
                concurrency=u.concurrency,
            )
            if fit is not None:
                note = t(
                    d.lang,
                    "no_figure_for_precision",
                    model=self._model_name(fit, d.lang),
                    asked=precision_label(u.precision),
                    precision=precision_label(fit["precision"]),
                )
        if fit is None:
            self._general(d, u)
            return
        model = self._model_name(fit, d.lang)
        prec = precision_label(fit["precision"])
        rows = fit["rows"]
        targets = self._targets(u, fit)
        topic = self._cite_topic_guides(d, u, fit)
        if (
            fit.get("kv_bytes_per_token")
            and re.search(r"kv[\s-]*cache", u.question.lower())
            and re.search(
                r"how much|how big|wie viel|wie groß|take|braucht|belegt|size", u.question.lower()
            )
        ):
            # "How much does the KV cache of X take at full context?": that figure first
            d.add(
                t(
                    d.lang,
                    "kv_lead",
                    model=model,
                    ctx=num(d.lang, fit["context_tokens"]),
                    kv=gb(d.lang, fit["kv_gb"]),
                    per_token=num(d.lang, fit["kv_bytes_per_token"]),
                )
                + topic
            )
        one = self._cheapest_row(
            [r for r in rows if r["count"] == 1], ("fits_one_card",)
        ) or self._cheapest_row(rows, ("fits_one_card",))
        split = self._cheapest_row(rows, ("split",))
        if targets:
            self._count_note(d, u, targets)
            verdicts = {r["verdict"] for r in targets}
            if verdicts == {"fits_one_card"} and self._plans_tp(u):
                # "TP 4 for a model that fits one card. Good idea?": no, the guide's worst mistake
                lead = t(d.lang, "fit_tp_mistake", model=model, precision=prec, n=u.count)
                d.add(lead + d.cite(CASE_ANCHORS["mistake.unneeded-tensor-parallelism"]) + topic)
            else:
                d.add(t(d.lang, self._fit_lead(verdicts), model=model, precision=prec) + topic)
            d.bullets([self._row_line(d, r) for r in targets])
            no_fit = [r for r in targets if r["verdict"] == "does_not_fit"]
            if no_fit and not self._is_image(fit):
                self._lower_precision(d, u, fit, no_fit)
            if verdicts == {"does_not_fit"}:
                alts = self._alternatives(u, rows, targets, one, split)
                if alts:
                    d.add(t(d.lang, "fit_instead"))
                    d.bullets([self._row_line(d, r) for r in alts])
        elif u.one_node and not (one is not None and one["count"] == 1):
            # "on one node/server": every node that holds it, cheapest first
            nodes = sorted(
                (r for r in rows if r["verdict"] != "does_not_fit"),
                key=lambda r: (Decimal(str(r["usd_per_month"])), r["configuration"]),
            )
            if nodes:
                d.add(t(d.lang, "fit_node_yes", model=model, precision=prec) + topic)
                d.bullets([self._row_line(d, r) for r in nodes[:6]])
                if any(r["verdict"] == "split" for r in nodes):
                    d.add(t(d.lang, "fit_node_split"))
            else:
                d.add(t(d.lang, "verdict_no_fit_anywhere", model=model, precision=prec) + topic)
        elif one is not None and (one["count"] == 1 or split is None):
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
            if one is not None:
                d.add(
                    t(
                        d.lang,
                        "verdict_big_card_only",
                        model=model,
                        precision=prec,
                        label=d.link(one["configuration"]),
                    )
                    + topic
                )
            else:
                d.add(t(d.lang, "verdict_must_split", model=model, precision=prec) + topic)
            lines = [self._row_line(d, split)]
            if one is not None:  # one card holds it only on the biggest cards (4/8-card nodes)
                lines.append(self._row_line(d, one))
            nv = self._cheapest_nvlink(rows)
            if nv is not None and nv["configuration"] != split["configuration"]:
                lines.append(self._row_line(d, nv))
            d.bullets(lines)
        else:
            d.add(t(d.lang, "verdict_no_fit_anywhere", model=model, precision=prec) + topic)
        if "independent" in u.workloads and u.count and u.count > 1:
            reps = [r for r in rows if r["verdict"] == "fits_one_card" and r["replicas"] >= u.count]
            best = self._cheapest_row(reps, ("fits_one_card",))
            if best is not None:
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
        d.add(note)
        self._numbers(d, fit)
        # recommendation: the guide's rule for this case
        if not self._is_image(fit):
            fits_one, cards_needed = self._one_card_case(rows, targets, one, split)
            # the asked configuration can't hold it, a single card elsewhere can: say which one
            # the rule is about, so "does not fit here" and "buy one card" don't contradict
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
        else:
            advice = self._advice(d, fits_one_card=one is not None, workload="image_video")
            self._add_advice(d, advice)
        fitting = [r for r in targets if r["verdict"] != "does_not_fit"]
        self._fit_follow_ups(d, u, fit, (fitting[0] if fitting else None) or one or split)

    def _numbers(self, d: Draft, fit: dict[str, Any]) -> None:
        prec = precision_label(fit["precision"])
        if self._is_image(fit):
            d.add(t(d.lang, "image_need", need=gb(d.lang, fit["weights_gb"]), precision=prec))
            return
        parts = [t(d.lang, "weights_only", weights=gb(d.lang, fit["weights_gb"]), precision=prec)]
        if fit.get("kv_bytes_per_token"):
            parts.append(
                t(
                    d.lang,
                    "kv_line",
                    kv=gb(d.lang, fit["kv_gb"]),
                    per_token=num(d.lang, fit["kv_bytes_per_token"]),
                )
            )
        else:
            parts.append(t(d.lang, "kv_unknown"))
        parts.append(self._assumptions(d, fit))
        d.add(*parts)

    @staticmethod
    def _cards_needed(rows: list[dict[str, Any]], targets: list[dict[str, Any]]) -> int:
        pool = [r["cards_needed"] for r in targets if r["cards_needed"]]
        pool = pool or [r["cards_needed"] for r in rows if r["cards_needed"]]
        return min(pool) if pool else 9

    def _training_memory(self, d: Draft, u: Understanding, fit: dict[str, Any]) -> None:
        """Full fine-tuning / training memory (weights, gradients, FP32 master, Adam) instead of
        the serving fit, and the training rule."""
        model = self._model_name(fit, d.lang)
        mem = d.call("memory_need", model=self._model_arg(u), training=True)
        if mem is None:
            d.calls.clear()
            self._nvlink_without_model(d, u)
            return
        util = fit["constants"]["gpu_memory_utilization"]
        cat = self.deps.catalog
        holders = [g for g in cat.gpus.values() if g.memory_gb * util >= mem["total_gb"]]
        single = [
            c
            for c in cat.configurations.values()
            if c.count == 1 and any(g.id == c.gpu for g in holders)
        ]
        d.add(
            t(
                d.lang,
                "train_need" if "fine_tuning" in u.workloads else "train_need_training",
                model=model,
                total=gb(d.lang, mem["total_gb"]),
                bpp=smart(d.lang, mem["bytes_per_param"]),
            )
        )
        if single:
            cheapest = min(single, key=lambda c: (c.usd_per_month, c.id))
            d.add(
                t(d.lang, "train_one_card", label=d.link(cheapest.id)) + " " + d.price(cheapest.id)
            )
        elif holders:
            names = sorted({g.short_name for g in holders})
            joined = (
                names[0]
                if len(names) == 1
                else ", ".join(names[:-1]) + (" oder " if d.lang == "de" else " or ") + names[-1]
            )
            d.add(t(d.lang, "train_big_card_only", cards=joined))
        else:
            d.add(t(d.lang, "train_must_split"))
        advice = self._advice(
            d,
            fits_one_card=bool(single),
            workload="training",
            parallelism=self._parallelism(u),
        )
        self._add_advice(d, advice)
        d.suggest(follow_up(d.lang, "nvlink", model=model))
        d.suggest(follow_up(d.lang, "cheapest", model=model))

    def _split_rules(
        self,
        d: Draft,
        u: Understanding,
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

    def _count_note(self, d: Draft, u: Understanding, targets: list[dict[str, Any]]) -> None:
        """'2x H100 SXM5' asked, only 4/8-card nodes exist: say so before answering for them."""
        if not u.count or not targets or any(r["count"] == u.count for r in targets):
            return
        if u.configurations:
            return  # a configuration id named outright exists
        cards = {r["gpu"] for r in targets}
        names = ", ".join(sorted({self.deps.catalog.gpus[c].short_name for c in cards}))
        d.add(t(d.lang, "no_such_count", count=u.count, card=names))

    @staticmethod
    def _plans_tp(u: Understanding) -> bool:
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

    def _lower_precision(
        self, d: Draft, u: Understanding, fit: dict[str, Any], targets: list[dict[str, Any]]
    ) -> None:
        """The configurations asked about can't hold it: do they at FP8, or at 4-bit?"""
        from tools.memory import BITS_PER_WEIGHT

        bits = BITS_PER_WEIGHT.get(fit["precision"], 16.0)
        for p in ("fp8", "awq"):
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

    def _alternatives(
        self,
        u: Understanding,
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

    @staticmethod
    def _training(u: Understanding) -> bool:
        return bool({"training", "fine_tuning"} & set(u.workloads))

    @staticmethod
    def _parallelism(u: Understanding) -> str:
        if "pipeline_parallel" in u.workloads:
            return "pipeline"
        if "tensor_parallel" in u.workloads:
            return "tensor"
        if "independent" in u.workloads:
            return "replicas"
        return "auto"

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

    def _fit_follow_ups(
        self, d: Draft, u: Understanding, fit: dict[str, Any], row: dict[str, Any] | None
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

    # ---- NVLink
    def _nvlink(self, d: Draft, u: Understanding) -> None:
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
            either_or = re.search(
                r"(?:sxm|nvlink)\b.{0,12}\b(?:or|oder|vs\.?|versus)\b.{0,12}\bpcie|"
                r"pcie\b.{0,12}\b(?:or|oder|vs\.?|versus)\b.{0,12}\b(?:sxm|nvlink)",
                u.question.lower(),
            )
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

    def _nvlink_without_model(self, d: Draft, u: Understanding) -> None:
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

    def _pair(self, u: Understanding, fit: dict[str, Any]) -> tuple[Any, Any]:
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
        self, rows: list[dict[str, Any]], kind: str, count: int | None, u: Understanding
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

    def _pipeline_or_tensor(self, d: Draft, u: Understanding, fit: dict[str, Any]) -> None:
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

    def _nvlink_training(self, d: Draft, u: Understanding, fit: dict[str, Any]) -> None:
        """Training or full fine-tuning: weights, gradients, master weights and Adam moments."""
        model = self._model_name(fit, d.lang)
        mem = d.call("memory_need", model=self._model_arg(u), training=True)
        advice = self._advice(d, model=self._model_arg(u), workload="training")
        if advice is None or mem is None:
            self._nvlink_without_model(d, u)
            return
        rec = advice.get("recommendation")
        if rec == "not_offered":
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
        ar = d.call("gradient_allreduce_time", model=self._model_arg(u))
        if ar:
            lines = [
                t(
                    d.lang,
                    "allreduce_row",
                    link=r["name"],
                    bw=f"{num(d.lang, r['bandwidth_gb_s'])} GB/s",
                    t=f"{smart(d.lang, r['seconds'])} s",
                    ring=f"{smart(d.lang, r['ring_seconds'])} s",
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

    def _nvlink_for_model(self, d: Draft, u: Understanding, fit: dict[str, Any]) -> None:
        w = set(u.workloads)
        if {"pipeline_parallel", "tensor_parallel"} <= w and not self._training(u):
            self._pipeline_or_tensor(d, u, fit)
            return
        if self._training(u) and not ({"independent", "pipeline_parallel"} & w):
            self._nvlink_training(d, u, fit)
            return
        rows = fit["rows"]
        model = self._model_name(fit, d.lang)
        prec = precision_label(fit["precision"])
        targets = self._targets(u, fit)
        if targets and all(r["verdict"] == "does_not_fit" for r in targets):
            # the node asked about can't hold it at all: say so first (and whether a lower
            # precision would), then answer for the nodes where it does fit
            d.add(t(d.lang, "nvlink_setup_no_fit", model=model, precision=prec))
            d.bullets([self._row_line(d, r) for r in targets])
            if not self._is_image(fit):
                self._lower_precision(d, u, fit, targets)
            u = u.model_copy(
                update={"configurations": [], "cards": [], "card_families": [], "memory_gb": None}
            )
            targets = []
        one = self._cheapest_row(rows, ("fits_one_card",))
        single = self._cheapest_row([r for r in rows if r["count"] == 1], ("fits_one_card",))
        # a one-card node that holds it settles it (rule 1); otherwise the user's own setup
        # decides ("on four cards" / "on 4x A100" where it must be split)
        setup_split = [r for r in targets if r["verdict"] == "split"]
        if not targets and u.count and u.count > 1:
            setup_split = [r for r in rows if r["count"] == u.count and r["verdict"] == "split"]
        # a model that fits one card only on the biggest cards (sold in 4- and 8-card nodes) is
        # still a split job on the usual cards: answer that, and name the bigger card as option
        any_split = any(r["verdict"] == "split" for r in rows)
        must_split = single is None and (bool(setup_split) or one is None or any_split)
        if single is not None:
            one = single
        if single is None and targets and all(r["verdict"] == "fits_one_card" for r in targets):
            # the card asked about holds it alone ("and on an H200?"): no split, no NVLink
            must_split = False
            one = self._cheapest_row(targets, ("fits_one_card",))
        if not must_split:
            # fits on one card: no NVLink (rule 1); warn against sharding it
            assert one is not None
            d.add(
                t(d.lang, "nvlink_not_needed_fits", model=model, precision=prec)
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
                independent_jobs="independent" in w,
                planned_tensor_parallel=u.count if (u.count or 0) > 1 else None,
                parallelism=self._parallelism(u),
            )
            self._numbers(d, fit)
            self._add_advice(d, advice)
            d.suggest(follow_up(d.lang, "speed", label=d.label(one["configuration"])))
            d.suggest(follow_up(d.lang, "topology"))
            return
        if not any(r["verdict"] != "does_not_fit" for r in rows):
            d.add(t(d.lang, "verdict_no_fit_anywhere", model=model, precision=prec))
            self._numbers(d, fit)
            self._add_advice(d, self._advice(d, fits_one_card=False, cards_needed=9))
            return
        sxm, pcie = self._pair(u, fit)
        ref = sxm or pcie
        n = ref["cards_needed"] if ref else self._cards_needed(rows, setup_split)
        split_txt = (
            t(d.lang, "split_across", n=n, label=d.link(ref["configuration"])) if ref else ""
        )
        split_rows = [r for r in rows if r["verdict"] == "split"]
        card_row = ref or (setup_split[0] if setup_split else split_rows[0] if split_rows else None)
        mem = smart(d.lang, card_row["memory_gb_per_card"]) if card_row else ""
        card = (f"{mem}-GB" if d.lang == "de" else f"{mem} GB") if mem else ""
        traffic = "traffic" in w
        training = self._training(u)
        if "independent" in w:
            d.add(t(d.lang, "nvlink_independent") + d.cite("one-model-per-card"))
        elif "pipeline_parallel" in w:
            d.add(t(d.lang, "nvlink_pipeline") + d.cite("pipeline-parallelism"))
        elif training:
            d.add(t(d.lang, "nvlink_yes_training"))
        elif traffic:
            d.add(
                t(
                    d.lang,
                    "nvlink_yes_traffic",
                    model=model,
                    precision=prec,
                    split=split_txt,
                    card=card,
                )
            )
        elif "low_concurrency" in w:
            d.add(t(d.lang, "nvlink_low_concurrency", model=model, precision=prec, split=split_txt))
        else:
            d.add(
                t(
                    d.lang,
                    "nvlink_split_unknown_workload",
                    model=model,
                    precision=prec,
                    split=split_txt,
                    card=card,
                )
            )
        self._numbers(d, fit)
        # why: the all-reduce of tensor parallelism
        if not ({"independent", "pipeline_parallel"} & w) and ref is not None:
            tp = d.call(
                "tensor_parallel_cost",
                model=self._model_arg(u),
                configuration=ref["configuration"],
                cards=max(n or 2, 2),
            )
            if tp:
                d.add(
                    t(d.lang, "tp_syncs", layers=tp["syncs_per_token"], model=model)
                    + d.cite("tensor-parallelism")
                )
        # the same job on both nodes: speed floor and prices
        pair = [r for r in (sxm, pcie) if r is not None]
        if pair:
            lines = []
            for r in pair:
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
                speed = (
                    t(d.lang, "tps", tps=tokens(d.lang, tput["tokens_per_s"])) + ", "
                    if tput
                    else ""
                )
                lines.append(
                    t(
                        d.lang,
                        "compare_row",
                        label=d.link(r["configuration"]),
                        link=link,
                        speed=speed,
                        price=d.price(r["configuration"]),
                    )
                )
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
            if len(pair) == 2:
                pq = d.call("price_quote", configurations=[r["configuration"] for r in pair])
                if (
                    pq
                    and pq.get("difference_usd_per_month")
                    and sxm is not None
                    and Decimal(str(sxm["usd_per_month"])) > Decimal(str(pcie["usd_per_month"]))
                ):
                    d.add(t(d.lang, "nvlink_premium", diff=usd(pq["difference_usd_per_month"])))
        # the rule
        if "independent" in w:
            advice = self._advice(d, fits_one_card=False, independent_jobs=True)
        elif traffic or training or "low_concurrency" in w or "pipeline_parallel" in w:
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
        if one is not None and one["count"] > 1 and u.count is None and not u.configurations:
            d.add(
                t(
                    d.lang,
                    "alt_bigger_card",
                    label=d.link(one["configuration"]),
                    need=gb(d.lang, one["required_gb_per_card"]),
                    price=d.price(one["configuration"]),
                )
            )
        if one is not None and one["count"] == 1:
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
        d.suggest(follow_up(d.lang, "topology"))
        if fit["precision"] != "fp8":
            d.suggest(follow_up(d.lang, "fp8"))

    # ---- price
    def _price(self, d: Draft, u: Understanding) -> None:
        cat = self.deps.catalog
        ids = [c for c in u.configurations if c in cat.configurations]
        intro = "price_intro_many"
        cards = list(u.cards) + [c for f in u.card_families for c in CARD_FAMILIES[f]]
        if not ids and cards and u.count is not None:
            same = [c for c in cat.configurations.values() if c.gpu in cards]
            if same and not any(c.count == u.count for c in same):
                # "3x H100": no such node; the nearest counts below and above, with prices
                below = [c.count for c in same if c.count < u.count]
                above = [c.count for c in same if c.count > u.count]
                near = {max(below)} if below else set()
                near |= {min(above)} if above else set()
                ids = [c.id for c in same if c.count in near and not c.id.endswith("-gen4")]
                name = (
                    u.card_families[0].upper() if u.card_families else cat.gpus[cards[0]].short_name
                )
                key = "price_no_single" if u.count == 1 else "price_no_count"
                d.add(t(d.lang, key, count=u.count, card=name))
                intro = ""
        if not ids and u.card_families:
            for fam in u.card_families:
                for card in CARD_FAMILIES[fam]:
                    ids += [
                        c.id
                        for c in cat.configurations.values()
                        if c.gpu == card and (u.count is None or c.count == u.count)
                    ]
            if u.count is not None and u.card_families:
                fam_label = f"{u.count}x {u.card_families[0].upper()}"
                d.add(t(d.lang, "price_family", family=fam_label))
                intro = ""
        if not ids and u.cards:
            for card in u.cards:
                ids += [c.id for c in cat.configurations.values() if c.gpu == card]
            intro = "price_card_all"
        if not ids:
            if u.has_subject:
                self._cheapest(d, u)
                return
            d.add(f"**{t(d.lang, 'ask_configuration')}**")
            d.suggest(follow_up(d.lang, "price_example"))
            d.suggest(follow_up(d.lang, "fit_example"))
            return
        ids = ids[:8]
        pq = d.call("price_quote", configurations=ids)
        if pq is None:
            d.add(f"**{t(d.lang, 'ask_configuration')}**")
            return
        lines = []
        for q in pq["quotes"]:
            cid = q["configuration"]
            node = d.call("interconnect_facts", configurations=[cid])
            link = ""
            if node:
                info = node["nodes"][0]["link"]
                link = (
                    f" ({gb(d.lang, q['total_memory_gb'])} VRAM, {info['name']} · "
                    f"{num(d.lang, info['bandwidth_gb_s'])} GB/s)"
                )
            lines.append(f"{d.link(cid)}{link}: **{d.price(cid)}**")
        if len(lines) == 1:
            d.add(f"**{d.link(ids[0])}: {d.price(ids[0])}**")
            q = pq["quotes"][0]
            if (
                re.search(
                    r"per (?:gpu|card)|pro (?:gpu|karte)|je (?:gpu|karte)", u.question.lower()
                )
                and q["count"] > 1
            ):
                d.add(t(d.lang, "price_per_card", per=usd(q["usd_per_card_month"])))
            node = next(
                (c.result for c in reversed(d.calls) if c.name == "interconnect_facts"), None
            )
            if node:
                info = node["nodes"][0]["link"]
                d.add(
                    t(
                        d.lang,
                        "node_facts_one" if q["count"] == 1 else "node_facts",
                        count=q["count"],
                        mem=gb(d.lang, q["total_memory_gb"]),
                        link=info["name"],
                        bw=num(d.lang, info["bandwidth_gb_s"]),
                    )
                )
        else:
            if intro == "price_card_all":
                d.add(t(d.lang, intro, card=cat.gpus[u.cards[0]].short_name))
            elif intro:
                d.add(t(d.lang, intro))
            d.bullets(lines)
            if pq.get("difference_usd_per_month") and len(lines) == 2:
                cheap = pq["cheapest"]
                other = next(
                    q["configuration"] for q in pq["quotes"] if q["configuration"] != cheap
                )
                d.add(
                    t(
                        d.lang,
                        "price_diff",
                        more=d.label(other),
                        less=d.label(cheap),
                        diff=usd(pq["difference_usd_per_month"]),
                    )
                )
        published = [c for c in ids if c in ("4x-a100-pcie", "4x-a100-sxm4")]
        if published:
            key = "price_source_guide" if len(published) == 2 else "price_source_guide_one"
            d.add(t(d.lang, key) + d.cite("same-job-both-ways", contains=r"\$"))
        if any(cat.configurations[c].placeholder for c in ids):
            d.add(t(d.lang, "placeholder_note"))
        d.suggest(follow_up(d.lang, "nvlink_example"))
        d.suggest(follow_up(d.lang, "fit_example"))

    # ---- two named nodes for one model
    def _compare_nodes(self, d: Draft, u: Understanding) -> None:
        """Which of the named nodes is cheaper for the model: prices, fit and speed side by side."""
        cids = [c for c in u.configurations if c in self.deps.catalog.configurations][:4]
        if len(cids) < 2:
            # cards without counts ("H200 or H100?"): the smallest node of each that holds it
            full = self._call_fit(d, u)
            if full is None:
                self._fit_answer(d, u)
                return
            cids = [r["configuration"] for r in self._targets(u, full)][:4]
            d.calls.pop()  # the catalog-wide fit was only for choosing the nodes
        fit = self._call_fit(d, u, configurations=cids)
        pq = d.call("price_quote", configurations=cids)
        if fit is None or pq is None:
            self._price(d, u)
            return
        model = self._model_name(fit, d.lang)
        prec = precision_label(fit["precision"])
        rows = {r["configuration"]: r for r in fit["rows"]}
        cheap = pq.get("cheapest") or cids[0]
        diff = pq.get("difference_usd_per_month")
        if len(cids) == 2 and diff:
            other = next(c for c in cids if c != cheap)
            d.add(
                t(
                    d.lang,
                    "compare_cheaper",
                    cheap=d.link(cheap),
                    other=d.label(other),
                    diff=usd(diff),
                    model=model,
                    precision=prec,
                )
            )
        else:
            d.add(t(d.lang, "compare_title_model", model=model, precision=prec))
        lines = []
        for cid in cids:
            r = rows.get(cid)
            if r is None:
                continue
            line = self._row_line(d, r, with_price=False)
            if r["verdict"] != "does_not_fit" and not self._is_image(fit):
                tput = d.call(
                    "throughput_estimate",
                    model=self._model_arg(u),
                    configuration=cid,
                    precision=u.precision,
                )
                if tput:
                    line += " " + t(d.lang, "tps", tps=tokens(d.lang, tput["tokens_per_s"])) + "."
            lines.append(line + " " + d.price(cid))
        d.bullets(lines)
        if any(c in ("4x-a100-pcie", "4x-a100-sxm4") for c in cids):
            d.add(
                t(d.lang, "speed_floor")
                + d.cite("same-job-both-ways", contains=r"konservativ|conservative")
            )
        split = [r for r in rows.values() if r["verdict"] == "split"]
        if split and not self._is_image(fit):
            n = min(r["cards_needed"] for r in split)
            advice = self._advice(
                d,
                fits_one_card=False,
                cards_needed=n,
                workload="training" if self._training(u) else "llm_serving",
                traffic="high" if "traffic" in u.workloads else "low",
            )
            self._split_rules(d, u, advice, n, with_also=False)
        d.suggest(follow_up(d.lang, "nvlink", model=model))

    # ---- card specs
    def _card_facts(self, d: Draft, u: Understanding) -> None:
        cards = list(u.cards) + [c for f in u.card_families for c in CARD_FAMILIES[f]]
        mem = u.memory_gb
        if mem is None and not cards:
            m = re.search(r"(\d{2,4})\s*-?\s*gb", u.question.lower())
            mem = float(m.group(1)) if m else None
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
        if cards and re.search(r"bandwidth|bandbreite", u.question.lower()):
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

    def _most_vram(self, d: Draft, u: Understanding) -> None:
        pq = d.call("price_quote", configurations=list(self.deps.catalog.configurations))
        if not pq:
            self._price(d, u)
            return
        top = max(pq["quotes"], key=lambda q: (q["total_memory_gb"], -q["usd_per_month"]))
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
                    "most_vram_card",
                    count=top["count"],
                    per=gb(d.lang, c["memory_gb"]),
                    usable=gb(d.lang, c["usable_gb"]),
                )
            )
        d.suggest(follow_up(d.lang, "fit_example"))

    # ---- VRAM per dollar, price sources
    def _vram_per_dollar(self, d: Draft, u: Understanding) -> None:
        ids = list(self.deps.catalog.configurations)
        pq = d.call("price_quote", configurations=ids)
        if not pq:
            self._price(d, u)
            return
        best = sorted(pq["quotes"], key=lambda q: (q["usd_per_gb_month"], q["configuration"]))[:3]
        top = best[0]
        d.add(
            t(
                d.lang,
                "vram_per_dollar",
                label=d.link(top["configuration"]),
                per_gb=usd(top["usd_per_gb_month"]),
                mem=gb(d.lang, top["total_memory_gb"]),
            )
            + " "
            + d.price(top["configuration"])
        )
        d.bullets(
            [
                f"{d.link(q['configuration'])}: {usd(q['usd_per_gb_month'])} "
                + t(d.lang, "per_gb_month")
                + f" ({gb(d.lang, q['total_memory_gb'])}), {d.price(q['configuration'])}"
                for q in best[1:]
            ]
        )
        d.add(t(d.lang, "placeholder_note"))
        d.suggest(follow_up(d.lang, "fit_example"))

    def _price_sources(self, d: Draft, u: Understanding) -> None:
        published = ["4x-a100-pcie", "4x-a100-sxm4"]
        d.call("price_quote", configurations=published)
        d.add(t(d.lang, "price_sources"))
        d.bullets([f"{d.link(c)}: **{d.price(c)}**" for c in published])
        d.add(t(d.lang, "price_source_guide") + d.cite("same-job-both-ways", contains=r"\$"))
        d.add(t(d.lang, "placeholder_note"))
        d.suggest(follow_up(d.lang, "price_example"))

    # ---- price and speed in one question
    def _price_and_speed(self, d: Draft, u: Understanding) -> None:
        """Both halves answered: with a model its speed on the node(s) plus their prices; without
        one the price, the guide's own example (Llama 3.3 70B in BF16) labelled as such, and
        the question which model."""
        if u.has_subject:
            self._speed(d, u)
            named = [c for c in u.configurations if c in self.deps.catalog.configurations]
            unpriced = [c for c in named if c not in d._prices]
            if unpriced:
                d.bullets([f"{d.link(c)}: **{d.price(c)}**" for c in unpriced])
            return
        self._price(d, u)
        ids = [c for c in d._prices if c in self.deps.catalog.configurations]
        lines = []
        for cid in ids[:2]:
            tput = d.call(
                "throughput_estimate",
                model=EXAMPLE_MODEL,
                configuration=cid,
                precision="bf16",
            )
            if not tput:
                continue
            split = t(d.lang, "speed_split", n=tput["cards"]) if tput["cards"] > 1 else ""
            lines.append(
                t(
                    d.lang,
                    "speed_example_row",
                    label=d.link(cid),
                    tps=tokens(d.lang, tput["tokens_per_s"]),
                    split=split,
                )
            )
        if lines:
            d.add(
                t(d.lang, "speed_example_title")
                + d.cite("same-job-both-ways", contains=r"konservativ|conservative")
            )
            d.bullets(lines)
        d.add(f"**{t(d.lang, 'speed_which_model')}**")
        d.follow_ups.clear()
        if ids:
            d.suggest(follow_up(d.lang, "speed_model", label=d.label(ids[0])))
        d.suggest(follow_up(d.lang, "nvlink_example"))

    # ---- cheapest
    def _cheapest(self, d: Draft, u: Understanding) -> None:
        if not u.has_subject:
            configs = self.deps.catalog.configurations
            ids = list(configs)
            q = u.question.lower()
            if re.search(r"nvlink|\bsxm", q):  # "the cheapest node with NVLink"
                links = self.deps.catalog.links
                ids = [c for c in ids if links[configs[c].interconnect].kind == "nvlink"]
            pq = d.call("price_quote", configurations=ids)
            if pq and pq.get("cheapest"):
                cid = pq["cheapest"]
                key = "cheapest_catalog_nvlink" if len(ids) < len(configs) else "cheapest_catalog"
                d.add(t(d.lang, key, label=d.link(cid)) + " " + d.price(cid))
            self._ask_model(d, u)
            return
        # "the cheapest NVLink/SXM node", "the cheapest PCIe node": only that kind
        q = u.question.lower()
        interconnect = None
        if "nvlink" in u.intents and re.search(r"nvlink|nvswitch|\bsxm\b", q):
            interconnect = "nvlink"
        elif "nvlink" in u.intents and re.search(r"\bpcie\b|pci-e", q):
            interconnect = "pcie"
        # "the cheapest single card for X": only where it fits on one card
        one_card = u.count == 1 and not u.configurations and not u.cards
        res = d.call(
            "cheapest_fit",
            model=self._model_arg(u),
            precision=u.precision,
            context_tokens=u.context_tokens,
            concurrency=u.concurrency,
            interconnect=interconnect,
            one_card=one_card or None,
        )
        if res is None:
            self._general(d, u)
            return
        model = self._model_name(res, d.lang)
        prec = precision_label(res["precision"])
        rows = res["cheapest"]
        if not rows:
            d.add(t(d.lang, "cheapest_none", model=model, precision=prec))
            return
        top = rows[0]
        d.add(
            t(
                d.lang,
                "cheapest_one_" + interconnect
                if interconnect
                else "cheapest_one_card"
                if one_card
                else "cheapest_one",
                model=model,
                precision=prec,
                label=d.link(top["configuration"]),
                verdict=self._verdict_word(d, top),
            )
            + " "
            + d.price(top["configuration"])
        )
        more = [
            f"{d.link(r['configuration'])} ({self._verdict_word(d, r)}): "
            f"{d.price(r['configuration'])}"
            for r in rows[1:3]
        ]
        if more:
            d.add(t(d.lang, "cheapest_more"))
            d.bullets(more)
        w = set(u.workloads)
        if top["verdict"] == "split" and ("traffic" in w or self._training(u)):
            nv = d.call(
                "cheapest_fit",
                model=self._model_arg(u),
                precision=u.precision,
                context_tokens=u.context_tokens,
                concurrency=u.concurrency,
                interconnect="nvlink",
            )
            if nv and nv["cheapest"]:
                why = t(d.lang, "why_training" if self._training(u) else "why_traffic")
                cid = nv["cheapest"][0]["configuration"]
                d.add(t(d.lang, "cheapest_nvlink", why=why, label=d.link(cid)) + " " + d.price(cid))
        fit_like = {
            "model": res["model"],
            "precision": res["precision"],
            "weights_gb": res["weights_gb"],
        }
        d.add(
            t(d.lang, "weights_only", weights=gb(d.lang, res["weights_gb"]), precision=prec)
            if res["model"]["kind"] == "llm"
            else t(d.lang, "image_need", need=gb(d.lang, res["weights_gb"]), precision=prec)
        )
        advice = self._advice(
            d,
            fits_one_card=top["verdict"] == "fits_one_card",
            cards_needed=top["cards_needed"] if top["verdict"] == "split" else None,
            workload="training"
            if self._training(u)
            else ("image_video" if res["model"]["kind"] != "llm" else "llm_serving"),
            traffic="high" if "traffic" in w else "low",
        )
        self._split_rules(
            d,
            u,
            advice,
            top["cards_needed"] if top["verdict"] == "split" else None,
            with_also=False,
        )
        if top.get("price_source") == "placeholder":
            d.add(t(d.lang, "placeholder_note"))
        self._fit_follow_ups(d, u, {**fit_like, "rows": rows}, top)

    # ---- speed
    def _speed(self, d: Draft, u: Understanding) -> None:
        if not u.has_subject:
            self._ask_model(d, u)
            return
        fit = self._call_fit(d, u)
        if fit is None:
            self._general(d, u)
            return
        if self._is_image(fit):  # no tokens/s for image models: answer the fit question
            d.calls.clear()
            self._fit_answer(d, u)
            d.add(t(d.lang, "speed_image"))
            return
        targets = self._targets(u, fit)
        model = self._model_name(fit, d.lang)
        prec = precision_label(fit["precision"])
        self._count_note(d, u, targets)
        if not targets:
            res = d.call(
                "cheapest_fit",
                model=self._model_arg(u),
                precision=u.precision,
                context_tokens=u.context_tokens,
                concurrency=u.concurrency,
            )
            targets = (res or {}).get("cheapest", [])[:2]
            if targets:
                d.add(t(d.lang, "speed_pick"))
        any_split = False
        for r in targets:
            if r["verdict"] == "does_not_fit":
                d.add(
                    t(
                        d.lang,
                        "speed_no_fit",
                        model=model,
                        precision=prec,
                        label=d.link(r["configuration"]),
                    )
                )
                continue
            tput = d.call(
                "throughput_estimate",
                model=self._model_arg(u),
                configuration=r["configuration"],
                precision=u.precision,
                context_tokens=u.context_tokens,
            )
            if not tput:
                continue
            split = t(d.lang, "speed_split", n=tput["cards"]) if tput["cards"] > 1 else ""
            any_split = any_split or tput["cards"] > 1
            d.add(
                t(
                    d.lang,
                    "speed_one",
                    model=model,
                    precision=prec,
                    label=d.link(r["configuration"]),
                    tps=tokens(d.lang, tput["tokens_per_s"]),
                    split=split,
                )
            )
            if tput.get("usd_per_million_tokens") is not None:
                d.add(
                    t(
                        d.lang,
                        "speed_cost",
                        price=d.price(r["configuration"]),
                        cost=usd(tput["usd_per_million_tokens"]),
                    )
                )
        d.add(
            t(d.lang, "speed_floor")
            + d.cite("same-job-both-ways", contains=r"konservativ|conservative")
        )
        if any_split:
            tp = (
                d.call(
                    "tensor_parallel_cost",
                    model=self._model_arg(u),
                    configuration=targets[0]["configuration"],
                )
                if targets
                else None
            )
            if tp:
                d.add(
                    t(d.lang, "tp_syncs", layers=tp["syncs_per_token"], model=model)
                    + d.cite("tensor-parallelism")
                )
        d.suggest(follow_up(d.lang, "nvlink", model=model))
        if fit["precision"] != "fp8":
            d.suggest(follow_up(d.lang, "fp8"))
        d.suggest(follow_up(d.lang, "cheapest", model=model))

    # ---- link facts: bandwidths, the NVLink : PCIe ratio, which link a node has
    def _link_facts(self, d: Draft, u: Understanding) -> None:
        cfgs = list(u.configurations)
        cat = self.deps.catalog
        q = u.question.lower()
        if u.gen4 and re.search(r"gen\s*5|pcie\s*5", q):
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
                    f"{num(d.lang, info['bandwidth_gb_s'])} GB/s — {topo}"
                )
        else:
            for info in facts["links"]:
                topo = info["topology_de"] if d.lang == "de" else info["topology"]
                lines.append(
                    f"**{info['name']}**: {num(d.lang, info['bandwidth_gb_s'])} GB/s — {topo}"
                )
        nodes = facts.get("nodes") or []
        kinds = {str(n["link"]["id"]).startswith("nvlink") for n in nodes}
        yes_no = re.match(
            r"\W*(?:do|does|is|are|has|have|can|hat|haben|ist|sind|gibt|kann|können)\b", q
        )
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
        elif nodes and len(kinds) == 1 and yes_no and re.search(r"nvlink|sxm", q):
            # "Do H200s have NVLink?": answer it first
            key = "link_yes_nvlink" if kinds == {True} else "link_no_nvlink"
            d.add(t(d.lang, key) + d.cite("interconnects"))
        elif nodes:
            d.add(t(d.lang, "link_nodes") + d.cite("interconnects"))
        d.bullets(lines)
        d.add(t(d.lang, "link_matters") + d.cite("when-it-matters"))
        d.suggest(follow_up(d.lang, "nvlink_example"))
        d.suggest(follow_up(d.lang, "allreduce", model="Llama 3.3 70B"))

    # ---- all-reduces per token under tensor parallelism
    def _tp_sync(self, d: Draft, u: Understanding) -> None:
        model_arg = self._model_arg(u)
        cfg = u.configurations[0] if u.configurations else "4x-a100-pcie"
        tp = (
            d.call("tensor_parallel_cost", model=model_arg, configuration=cfg)
            if model_arg and cfg in self.deps.catalog.configurations
            else None
        )
        if tp is not None:
            model = str(tp["model"]["name"])
            if re.search(r"\blayers?\b", u.question.lower()) and tp["model"].get("layers"):
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

    # ---- capacity: longest context, most sequences
    def _capacity(self, d: Draft, u: Understanding) -> None:
        fit = self._call_fit(d, u)
        if fit is None or self._is_image(fit):
            d.calls.clear()
            self._fit_answer(d, u)
            return
        targets = self._targets(u, fit)
        if not targets:
            best = self._cheapest_row(fit["rows"], ("fits_one_card", "split"))
            targets = [best] if best else []
            if best:
                d.add(t(d.lang, "capacity_pick"))
        model = self._model_name(fit, d.lang)
        prec = precision_label(fit["precision"])
        self._count_note(d, u, targets)
        ctx = u.context_tokens or 8192
        for r in targets[:2]:
            cap = d.call(
                "capacity_check",
                model=self._model_arg(u),
                configuration=r["configuration"],
                precision=u.precision,
                context_tokens=ctx,
                concurrency=u.concurrency,
            )
            if cap is None:
                continue
            label = d.link(r["configuration"])
            if not cap["fits"] or cap["kv_tokens"] == 0:
                d.add(
                    t(
                        d.lang,
                        "capacity_none",
                        model=model,
                        precision=prec,
                        label=label,
                        weights=gb(d.lang, cap["weights_gb_per_card"]),
                        usable=gb(d.lang, cap["usable_gb_per_card"]),
                    )
                )
                continue
            d.add(
                t(
                    d.lang,
                    "capacity_lead",
                    model=model,
                    precision=prec,
                    label=label,
                    n=cap["max_concurrency"],
                    ctx=num(d.lang, ctx),
                )
                + " "
                + d.price(r["configuration"])
            )
            d.bullets(
                [
                    t(
                        d.lang,
                        "capacity_room",
                        room=gb(d.lang, cap["kv_room_gb_per_card"]),
                        tp=cap["tensor_parallel"],
                        tokens=num(d.lang, cap["kv_tokens"]),
                    ),
                    t(
                        d.lang,
                        "capacity_context",
                        conc=cap["concurrency"],
                        max_ctx=num(d.lang, cap["max_context_capped"]),
                        model_max=num(
                            d.lang, cap["model_max_context"] or cap["max_context_capped"]
                        ),
                    ),
                ]
            )
        self._numbers(d, fit)
        d.add(t(d.lang, "capacity_guide") + d.cite("worked-example", guide="awq-vs-gptq-vs-fp8"))
        d.suggest(
            follow_up(d.lang, "speed", label=d.label(targets[0]["configuration"]))
            if targets
            else ""
        )
        d.suggest(follow_up(d.lang, "fp8"))

    # ---- pasted all_reduce_perf output
    def _allreduce_paste(self, d: Draft, u: Understanding) -> None:
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
        key = {"ok": "nccl_ok", "warning": "nccl_low"}.get(res["status"], "nccl_bad")
        d.add(
            t(
                d.lang,
                key,
                label=d.link(cfg),
                peak=f"{smart(d.lang, res['peak_busbw_gb_s'])} GB/s",
                link=res["link"]["name"],
                rated=f"{smart(d.lang, res['rated_gb_s'])} GB/s",
                pct=f"{num(d.lang, res['ratio_to_rated_percent'])} %",
            )
            + d.cite("measure-it-yourself")
        )
        d.add(t(d.lang, "nccl_note"))
        if res["status"] == "defect":
            d.add(t(d.lang, "topo_report"))
        d.suggest(follow_up(d.lang, "topology"))

    # ---- all-reduce
    def _allreduce(self, d: Draft, u: Understanding) -> None:
        model_arg = self._model_arg(u)
        links: list[str] = []
        for cid in u.configurations:
            node = d.call("interconnect_facts", configurations=[cid])
            if node:
                lid = node["nodes"][0]["link"]["id"]
                if lid not in links:
                    links.append(lid)
        for lid in _named_links(u.question):
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
                    "allreduce_row",
                    link=r["name"],
                    bw=f"{num(d.lang, r['bandwidth_gb_s'])} GB/s",
                    t=f"{smart(d.lang, r['seconds'])} s",
                    ring=f"{smart(d.lang, r['ring_seconds'])} s",
                )
            )
        d.bullets(lines)
        d.add(t(d.lang, "allreduce_note", cards=res["cards"]))
        advice = self._advice(d, fits_one_card=False, cards_needed=2, workload="training")
        self._add_advice(d, advice, with_also=False)
        d.suggest(follow_up(d.lang, "topology"))
        if example:
            d.suggest(follow_up(d.lang, "allreduce", model="Llama 3.1 405B"))

    # ---- topology
    def _topology_howto(self, d: Draft, u: Understanding) -> None:
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
        d.suggest(follow_up(d.lang, "nvlink_example"))

    def _guide_code(self, d: Draft) -> str:
        sections = self.deps.guides
        if sections is None:
            return ""
        for p in sections.chunks(NVLINK_GUIDE, "measure-it-yourself", d.lang):
            m = re.search(r"```.*?```", p.text, re.S)
            if m:
                return m.group(0)
        return ""

    def _topology_paste(self, d: Draft, u: Understanding) -> None:
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
            pcie=len(pairs) - len(nv),
        )
        cfg_txt = f" ({d.label(cfg)})" if cfg else ""
        if res["node_kind"] is None:
            key = "topo_info"
        else:
            key = "topo_ok" if res["status"] == "ok" else "topo_bad"
        d.add(t(d.lang, key, cfg=cfg_txt, summary=summary) + d.cite("measure-it-yourself"))
        bad = [p for p in pairs if p["status"] != "ok"]
        lines = [
            f"`{p['a']}`–`{p['b']}`: `{p['label']}` — {self._pair_msg(d, p, res)}"
            for p in (bad or [])[:8]
        ]
        d.bullets(lines)
        if res["node_kind"] is None:
            if sys_:
                d.add(t(d.lang, "topo_sys_note"))
            d.add(t(d.lang, "topo_ask_node"))
        if res["status"] == "defect":
            d.add(t(d.lang, "topo_report"))
        d.add(t(d.lang, "topo_legend"))
        d.suggest(follow_up(d.lang, "topology"))

    def _topology_described(self, d: Draft, u: Understanding) -> None:
        """A topology described in words: the label between all cards of a named node, judged by
        check_topology_output on the matrix the words describe."""
        m = _described_topo(u.question)
        assert m is not None
        label = m.group(1).upper()
        cat = self.deps.catalog
        cfg = u.configurations[0] if u.configurations else None
        if cfg is None:
            cards = list(u.cards) + [c for f in u.card_families for c in CARD_FAMILIES[f]]
            same = [c for c in cat.configurations.values() if c.gpu in cards]
            if u.count:
                same = [c for c in same if c.count == u.count] or same
            cfg = min(same, key=lambda c: (c.count, c.id)).id if same else None
        n = cat.configurations[cfg].count if cfg else (u.count or 4)
        n = max(n, 2)
        names = [f"GPU{i}" for i in range(n)]
        rows = ["\t" + "\t".join(names)]
        for i, name in enumerate(names):
            rows.append(name + "\t" + "\t".join(" X " if j == i else label for j in range(n)))
        res = d.call("check_topology_output", text="\n".join(rows), configuration=cfg)
        if res is None:
            self._general(d, u)
            return
        cfg_txt = d.link(cfg) if cfg else ""
        if res["status"] == "ok":
            d.add(
                t(d.lang, "described_ok", label=label, cfg=cfg_txt) + d.cite("measure-it-yourself")
            )
        else:
            want = res.get("expected_label") or "NV#"
            d.add(
                t(d.lang, "described_bad", label=label, cfg=cfg_txt, want=want)
                + d.cite("measure-it-yourself")
            )
            d.add(t(d.lang, "topo_report"))
        legend = (
            self.deps.guides.section(NVLINK_GUIDE, "measure-it-yourself", d.lang, r"`SYS`")
            if self.deps.guides is not None
            else None
        )
        if legend is not None:
            d.add(_excerpt(str(legend.text)) + d.cite_passage(legend))
        d.suggest(follow_up(d.lang, "topology"))

    def _pair_msg(self, d: Draft, p: dict[str, Any], res: dict[str, Any]) -> str:
        label = p["label"]
        if res["node_kind"] == "sxm":
            if label.startswith("NV"):
                return t(d.lang, "pair_nv_fewer", want=res.get("expected_label") or "NV#")
            return t(d.lang, "pair_pcie_on_sxm")
        if label in ("SYS", "SOC"):
            return t(d.lang, "pair_sys")
        return p["message"]

    # ---- general: retrieval
    def _general(self, d: Draft, u: Understanding) -> None:
        passages = self._search(d, u)
        if not passages:
            d.add(t(d.lang, "general_none"))
            d.suggest(follow_up(d.lang, "fit_example"))
            d.suggest(follow_up(d.lang, "nvlink_example"))
            return
        top = passages[0]
        sections = self.deps.guides
        if len(str(top.text)) < 200 and sections is not None and bool(getattr(top, "anchor", "")):
            # a one-line chunk (a section's closing sentence): quote the section's body
            parts = sections.chunks(top.guide, top.anchor, d.lang)
            joined = "\n\n".join(str(p.text) for p in parts)
            if parts and len(joined) > len(str(top.text)):
                top = dataclasses.replace(parts[0], text=joined)
        title = str(top.title).rstrip(".")
        where = title if top.section in (top.title, title) else f"{title} › {top.section}"
        d.add(t(d.lang, "general_intro") + f" **[{where}]({top.url})**")
        excerpt = _excerpt(_best_part(top.text, u.question))
        self._quote_prices(d, excerpt)
        d.add(excerpt + d.cite_passage(top))
        more = [p for p in passages[1:3] if p.section != top.section]
        if more:
            links = ", ".join(f"[{p.section}]({p.url}){d.cite_passage(p)}" for p in more)
            d.add(t(d.lang, "read_more", links=links))
        d.suggest(follow_up(d.lang, "fit_example"))
        d.suggest(follow_up(d.lang, "nvlink_example"))

    def _quote_prices(self, d: Draft, text: str) -> None:
        """A quoted passage that states monthly prices: list the configurations they belong to
        (the catalog's exact price), so the prices the answer shows are all accounted for."""
        from assistant.grounding import number_candidates

        configs = self.deps.catalog.configurations
        for m in re.finditer(r"\$\s?(\d+(?:[.,]\d+)*)\s*/\s*(?:Monat|month)", text, re.I):
            values = {v for v, _ in number_candidates(m.group(1))}
            for c in configs.values():
                if Decimal(c.usd_per_month) in values and not c.placeholder:
                    d.price(c.id)

    def _pinned_passage(self, d: Draft, question: str) -> Any:
        """A few questions name their guide section outright (see _PINNED): quote that one."""
        sections = self.deps.guides
        if sections is None:
            return None
        q = question.lower()
        for rx, guide, anchor, contains in _PINNED:
            if re.search(rx, q):
                named = re.search(r"deepseek|mixtral|qwen", q)
                if anchor == "total-vs-active" and named:
                    contains = named.group(0)  # the paragraph about the model asked about
                return sections.section(guide, anchor, d.lang, contains)
        return None

    def _search(self, d: Draft, u: Understanding) -> list[Any]:
        index = self.deps.index
        passages: list[Any] = []
        pinned = self._pinned_passage(d, u.question)
        guide = _topic_guide(u.question)
        if index is not None:
            try:
                if guide is not None:  # one guide is plainly about this: search it first
                    passages = list(index.search(u.question, k=3, language=d.lang, guide=guide))
                if not passages:
                    passages = list(index.search(u.question, k=3, language=d.lang))
            except Exception as exc:  # index missing / server down: fall back to keywords
                log.warning("retrieval failed, using keyword fallback: %s", exc)
        if not passages and self.deps.guides is not None:
            passages = self.deps.guides.keyword_search(u.question, d.lang, k=3)
        if len(passages) > 1 and not getattr(passages[0], "anchor", "x"):
            # a guide's introduction says what the guide covers, not the answer: quote the
            # best section instead and keep the introduction as a link
            passages = [*passages[1:], passages[0]]
        if pinned is not None:
            rest = [p for p in passages if getattr(p, "anchor", None) != pinned.anchor]
            passages = [pinned, *rest][:3]
        if passages:
            d.calls.append(
                ToolCall(
                    name="search_guides",
                    arguments={"query": u.question, "language": d.lang},
                    result=[
                        {"guide": p.guide, "section": p.section, "url": p.url, "text": p.text}
                        for p in passages
                    ],
                )
            )
        return passages


_TOPICS = {
    "awq-vs-gptq-vs-fp8": r"\b(?:awq|gptq|gguf|quanti[sz]\w*|fp8|bf16|fp16|int4|int8|4-bit|vllm|"
    r"w8a16|q4_k_m|q8_0)\b",
    "mixture-of-experts": r"\b(?:moe|mixture|experts?|expert\w*|active param\w*|aktive\w* param\w*|"
    r"deepseek|mixtral|qwen3|mla)\b",
    "gpu-for-flux-sdxl": r"\b(?:flux|sdxl|diffusion|image|images|bild\w*|video\w*|wan|comfyui)\b",
    "nvlink-vs-pcie": r"\b(?:nvlink|pcie|sxm|tensor\w*|nccl|busbw|all-?reduce|topolog\w*|p2p|"
    r"peer-to-peer|nvswitch)\b",
}


_FORMAT = r"(?:awq|gptq|gguf|fp8|int4|int8|bf16|q4_k_m|exl2)"
# questions that name a guide section plainly: (pattern, guide, anchor, narrowing regex)
_PINNED: tuple[tuple[str, str, str, str | None], ...] = (
    (
        rf"(?:difference|unterschied|vs\.?|versus|compare|vergleich).{{0,40}}\b{_FORMAT}\b"
        rf".{{0,20}}\b{_FORMAT}\b|\b{_FORMAT}\b.{{0,20}}\b(?:vs\.?|versus|or|oder)\s+{_FORMAT}\b",
        "awq-vs-gptq-vs-fp8",
        "formats",
        r"GPTQ",  # the table, not its caption
    ),
    (
        r"\bactive param|\baktive\w* param|\ball (?:its |the )?experts|\balle\w* experten|"
        r"experts? .{0,30}(?:activ|per token|pro token)|(?:activ|aktiv)\w* .{0,20}expert",
        "mixture-of-experts",
        "total-vs-active",
        None,
    ),
    (
        r"(?:support|unterstütz)\w*.{0,20}\bfp8\b|\bfp8\b.{0,20}(?:support|unterstütz)|"
        r"(?:which|welche) (?:cards?|karten?|gpus?) .{0,20}\bfp8\b|"
        r"(?:a100|a6000|ampere|l4|l40s?|h100|h200|b200|4090|5090)\b.{0,30}\bfp8\b.{0,20}"
        r"(?:use|run|nutzen|verwenden|laufen|work|funktionier)|"
        r"\bfp8\b.{0,30}(?:on|auf) (?:an? |einer? )?(?:a100|a6000|rtx|ampere|l4|l40s?|h100)",
        "awq-vs-gptq-vs-fp8",
        "speed",
        r"A100.*Ampere|Ampere.*A100",  # "FP8 in the catalog: ... yes. A100 ... no"
    ),
    (
        r"(?=.*\b(?:topo|nvidia-smi)\b)(?=.*\b(?:mean|means|bedeut\w*|stands? for|steht|"
        r"what is|what's|was ist|heißt)\b).*\b(?:sys|pix|pxb|phb|node|nv#|nv\d+)\b",
        "nvlink-vs-pcie",
        "measure-it-yourself",
        r"`SYS`",  # the legend paragraph
    ),
    (
        r"gpu_memory_utili[sz]ation|(?:vllm).{0,60}(?:default|standardmäßig|by default)|"
        r"(?:default|standardmäßig).{0,60}vllm",
        "awq-vs-gptq-vs-fp8",
        "why-smallest-is-not-smallest",
        r"gpu_memory_utilization",
    ),
    (
        r"(?:moe|mixture|experts?|experten).{0,60}(?:nvlink|interconnect|verbindung|all-to-all)|"
        r"(?:nvlink|interconnect|verbindung|all-to-all).{0,60}(?:moe|mixture|experts?|experten)",
        "mixture-of-experts",
        "interconnect",
        r"all-to-all",
    ),
    (
        r"(?:\badd up\b|\baddier\w*|\bzusammenzähl\w*|\bsummier\w*|\bcombine[ds]?\b|"
        r"\bpool(?:ed)?\b).{0,60}(?:flux|sdxl|diffusion|image|bild|video|wan)|"
        r"(?:flux|sdxl|diffusion|image|bild|video|wan).{0,60}(?:\badd up\b|\baddier\w*|"
        r"\bzusammenzähl\w*|\bsummier\w*|\bcombine[ds]?\b|\bpool(?:ed)?\b)",
        "gpu-for-flux-sdxl",
        "many-cards",
        None,
    ),
)


def _topic_guide(question: str) -> str | None:
    """The one guide a question is plainly about (its terms name no other), else None."""
    q = question.lower()
    hits = [g for g, rx in _TOPICS.items() if re.search(rx, q)]
    return hits[0] if len(hits) == 1 else None


_LINK_MENTIONS = (
    ("pcie-gen4-x16", r"(?:pcie|pci-e|pci express)?\s*gen\s*4|pcie\s*4(?:\.0)?\b"),
    ("pcie-gen5-x16", r"(?:pcie|pci-e|pci express)?\s*gen\s*5|pcie\s*5(?:\.0)?\b"),
    ("nvlink-3", r"nvlink\s*3"),
    ("nvlink-4", r"nvlink\s*4"),
    ("nvlink-5", r"nvlink\s*5"),
)


def _asks_card_facts(u: Understanding) -> bool:
    """A question about a card's own specs (memory, bandwidth), no model: "How much VRAM does
    the H200 have?", "Which GPUs have 48 GB?"."""
    if u.has_subject or u.configurations or (u.count or 1) > 1:
        return False  # "4x A100 zusammen": the node's facts (price flow)
    q = u.question.lower()
    names_card = bool(u.cards or u.card_families)
    asks_spec = re.search(
        r"\bvram\b|\bmemory\b|\bspeicher\w*|\bhbm\b|\bgb\b|bandwidth|bandbreite", q
    )
    if re.search(r"nvlink|pcie|interconnect|verbindung", q) and not re.search(
        r"memory bandwidth|speicherbandbreite|vram|hbm", q
    ):
        return False  # link questions have their own flow
    if not asks_spec or re.search(r"\bcost|\bprice|preis|kostet|per dollar|pro dollar", q):
        return False
    if names_card:
        return bool(
            re.search(
                r"\b(?:have|has|hat|haben|does|do|wie viel|how much|what is|what's|was ist|"
                r"wie (?:hoch|groß)|welche)\b",
                q,
            )
        )
    return bool(re.search(r"\b(?:which|what|welche)\b.{0,20}\b(?:gpus?|cards?|karten?)\b", q))


_MOST_VRAM = re.compile(
    r"most (?:vram|memory|gpu memory)|(?:meiste[nr]?|größte[nr]?|grösste[nr]?) "
    r"(?:vram|speicher|grafikspeicher)|largest (?:vram|memory)|biggest (?:node|vram|memory)|"
    r"größte[nr]? knoten"
)

_VRAM_PER_DOLLAR = re.compile(
    r"(?:vram|memory|speicher|gb)\s*(?:per|pro|je)\s*(?:dollar|\$|euro)|"
    r"(?:per|pro|je)\s*gb\b.{0,30}(?:cheapest|günstigst|billigst|lowest|niedrigst)|"
    r"(?:cheapest|günstigst|billigst|lowest|niedrigst)\w*.{0,30}(?:per|pro|je)\s*gb\b"
)
_PRICE_SOURCE = re.compile(
    r"(?:prices?|preise?)\b.{0,40}\b(?:real|actual|binding|verbindlich|echt|placeholder|"
    r"platzhalter|published|veröffentlicht|official|offiziell)"
)

_PER_TOKEN = re.compile(r"million|mio\.?\b|per (?:1m |1 m )?tokens?|pro (?:million )?token")

_DESCRIBED_TOPO = re.compile(
    r"(?=.*\b(?:shows?|showing|zeigt|zeigen|between|zwischen|überall|everywhere|"
    r"all (?:cards|pairs)|alle[nr]? (?:karten|paare))\b)(?=.*(?:topo|nvidia-smi))"
)


def _described_topo(question: str) -> re.Match[str] | None:
    """'... shows PHB between all cards in topo -m': the label (upper case as printed)."""
    if not _DESCRIBED_TOPO.match(question.lower()):
        return None
    return re.search(r"\b(PHB|PIX|PXB|NODE|SYS|SOC|NV\d+)\b", question)


def _named_links(question: str) -> list[str]:
    """Link ids a question names outright ('over PCIe Gen4', 'NVLink 4'), in question order."""
    q = question.lower()
    hits = []
    for lid, rx in _LINK_MENTIONS:
        m = re.search(rx, q)
        if m:
            hits.append((m.start(), lid))
    return [lid for _, lid in sorted(hits)]


def generic_name(name: str, lang: Language) -> str:
    """'70B model (generic dense, parameter count only)' -> '70B model' / '70B-Modell'."""
    name = name.replace(" (generic dense, parameter count only)", "")
    if lang == "de":
        name = re.sub(r"^([\d.,]+B) model$", r"\1-Modell", name)
    return name


def _terms(text: str) -> set[str]:
    """Content words and figures of a text (no function words)."""
    from assistant.nlu import FUNCTION_WORDS

    words = re.findall(r"[a-zäöüß0-9][a-zäöüß0-9._-]*", text.lower())
    out = {w.rstrip("._-") for w in words if len(w) >= 3 or any(c.isdigit() for c in w)}
    return out - FUNCTION_WORDS


def _best_part(text: str, question: str, limit: int = 700) -> str:
    """A long passage narrowed to the paragraph that shares the most terms with the question
    (numbers like '128K' count), so the quote holds the answer rather than the section's start.
    Short passages, code blocks and tables stay whole."""
    if len(text) <= limit or "```" in text:
        return text
    blocks = []
    for b in re.split(r"\n\s*\n", text):
        if b.strip():  # list items count one by one
            blocks += [i for i in re.split(r"\n(?=\s*(?:[-*]|\d+\.)\s)", b) if i.strip()]
    if len(blocks) < 2:
        return text
    q = _terms(question)
    scores = [len(q & _terms(b)) for b in blocks]
    best = max(range(len(blocks)), key=lambda i: (scores[i], -i))
    if scores[best] < 2:  # no paragraph stands out: the section's start
        return text
    # the best paragraph with its neighbours, as far as the quote's length allows
    lo = hi = best
    size = len(blocks[best])
    while True:
        grew = False
        if hi + 1 < len(blocks) and size + len(blocks[hi + 1]) + 2 <= limit:
            hi += 1
            size += len(blocks[hi]) + 2
            grew = True
        if lo > 0 and size + len(blocks[lo - 1]) + 2 <= limit:
            lo -= 1
            size += len(blocks[lo]) + 2
            grew = True
        if not grew:
            break
    out = blocks[lo]
    for prev, cur in zip(blocks[lo:hi], blocks[lo + 1 : hi + 1], strict=True):
        both_items = all(re.match(r"\s*(?:[-*]|\d+\.)\s", b) for b in (prev, cur))
        out += ("\n" if both_items else "\n\n") + cur
    return out


def _excerpt(text: str, limit: int = 700) -> str:
    """The passage (or its first paragraphs up to `limit` characters), quoted as a block."""
    paras = [p for p in re.split(r"\n\s*\n", text.strip()) if p.strip()]
    out: list[str] = []
    size = 0
    for p in paras:
        if out and size + len(p) > limit:
            items = re.split(r"\n(?=\s*(?:[-*]|\d+\.)\s)", p)
            if len(items) > 1:  # a long list: as many whole items as fit
                kept: list[str] = []
                for item in items:
                    if kept and size + len(item) > limit:
                        break
                    kept.append(item)
                    size += len(item)
                out.append("\n".join(kept))
            break
        out.append(p)
        size += len(p)
    lines = "\n\n".join(out).splitlines()
    return "\n".join(("> " + line) if line.strip() else ">" for line in lines)
