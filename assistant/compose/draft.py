"""What every flow writes into: the `Draft` of an answer (paragraphs, tool calls, citations,
prices) and the finished `Composed` answer, plus the constants all flows share: the NVLink
guide's id, its example model, the anchors of its "link does not matter" cases and the
SXM/PCIe twins of a card. The logger keeps the name `assistant.compose`.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any

from assistant.answer import Citation, Language, PriceQuote, ToolCall
from assistant.nlu.query import Claim
from assistant.registry import ToolError, call_tool
from assistant.texts import monthly, t, usd

log = logging.getLogger("assistant.compose")

NVLINK_GUIDE = "nvlink-vs-pcie"
# the tools whose configurations the question's constraints filter
FILTERED_TOOLS = ("fit_check", "cheapest_fit")
# the tools that size memory: the question's runtime and KV-cache precision go to each of them
RUNTIME_TOOLS = (
    "fit_check",
    "cheapest_fit",
    "capacity_check",
    "memory_need",
    "throughput_estimate",
    "purchase_advice",
)
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
    # the configuration(s) the answer chose as its result (the cheapest that holds the model,
    # a comparison's winner): what "on it" / "da" in the next question refers to
    result: list[str] = field(default_factory=list)


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
    flow: str = ""  # the flow-table row writing this answer
    verdict: bool | None = None  # the flow's answer to its yes/no claim, when it has one
    # the claim the lead's yes/no answers when a flow answered another than its own (None: the
    # flow's claim)
    answered_claim: Claim | None = None
    # the fit on the hardware the question names is stated already (the NVLink answer's "does
    # not fit on the configuration you named"): a fit ask beside it adds no second list
    named_fit_stated: bool = False
    # the question's constraints as tool filters (budget, minimum memory, exclusions): every
    # fit_check / cheapest_fit call of a filtered flow carries them
    filters: dict[str, Any] = field(default_factory=dict)
    within: str = ""  # those constraints in words ("your budget, without H100") while filtered
    sizing: dict[str, Any] = field(default_factory=dict)  # runtime, kv_precision as asked
    result: list[str] = field(default_factory=list)  # the configuration(s) the answer chose

    # ---- tools
    def call(self, name: str, **arguments: Any) -> dict[str, Any] | None:
        args = {k: v for k, v in arguments.items() if v is not None}
        if name in FILTERED_TOOLS and self.filters and "configurations" not in args:
            args = {**args, **self.filters}
        if name in RUNTIME_TOOLS:
            args = {**self.sizing, **args}
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
    def price_difference(self, pq: dict[str, Any]) -> str:
        """ "A costs $X a month more than B" for the two nodes of a price_quote result (its
        cheapest and the other), from the quote's own difference."""
        cheap = pq["cheapest"]
        other = next(q["configuration"] for q in pq["quotes"] if q["configuration"] != cheap)
        return t(
            self.lang,
            "price_diff",
            more=self.label(other),
            less=self.label(cheap),
            diff=usd(pq["difference_usd_per_month"]),
        )

    def price(self, cid: str) -> str:
        c = self.deps.catalog.configurations[cid]
        url = c.url if self.lang == "de" else c.url_en
        self._prices[cid] = PriceQuote(
            configuration=c.id,
            label=c.label_in(self.lang),
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
        return f"[{c.label_in(self.lang)}]({url})"

    def label(self, cid: str) -> str:
        return self.deps.catalog.configurations[cid].label_in(self.lang)

    def add(self, *parts: str) -> None:
        text = " ".join(p for p in parts if p)
        if text and text not in self.paras:  # two models, one rule: say it once
            self.paras.append(text)

    def bullets(self, lines: list[str]) -> None:
        lines = [line for line in lines if line]  # a bullet a flow leaves out is ""
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
        # one citation per passage (its URL): two parts of one section share a number
        numbers: dict[str, int] = {}
        number = {
            idx: numbers.setdefault(str(self._passages[idx].url), len(numbers) + 1) for idx in order
        }
        text = re.sub(r"\x00(\d+)\x00", lambda m: f"[{number[int(m.group(1))]}]", text)
        text = re.sub(r"(\[\d+\])(?: \1)+", r"\1", text)  # "[1] [1]" -> "[1]"
        citations: dict[int, Citation] = {}
        for idx in order:
            p = self._passages[idx]
            cited = citations.setdefault(
                number[idx],
                Citation(
                    n=number[idx],
                    guide=str(p.guide),
                    title=str(p.title),
                    section=str(p.section),
                    url=str(p.url),
                    quote=str(p.text),
                ),
            )
            if str(p.text) not in cited.quote:
                cited.quote += "\n…\n" + str(p.text)
        return Composed(
            text=text,
            citations=list(citations.values()),
            prices=list(self._prices.values()),
            tool_calls=self.calls,
            follow_ups=self.follow_ups,
            result=list(self.result),
        )
