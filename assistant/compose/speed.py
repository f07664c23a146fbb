"""Speed and capacity flows: tokens per second (and cost per million tokens) of a model on a node,
and how many sequences or how long a context fit beside the weights.
"""

from __future__ import annotations

from typing import Any

from assistant.compose.base import ComposerBase
from assistant.compose.draft import Draft
from assistant.compose.polarity import yes_no_word
from assistant.language import Language
from assistant.nlu import Query
from assistant.texts import follow_up, gb, num, precision_label, t, tokens, usd


def context_unknown(u: Query) -> bool:
    """Whether a capacity answer leads with the longest context (else with how many sequences
    fit at the context given). The words decide when they ask for the length; a context given
    ("with 32k context each, how many at once?") leaves the count unknown, a count at once
    given ("10 at once: how much context?") the context; with neither or both, a context
    ask leads with the context."""
    if "longest_context" in u.topics:  # "what's the max context …", "wie lang darf …"
        return True
    given = u.context_tokens is not None or u.full_context
    if given != (u.concurrency is not None):
        return not given  # one of the two given: the other is the unknown
    if "how_many" in u.topics:
        return False  # "and how many at once?": the count
    return any(a.kind == "context" for a in u.asks)


def _tp_on(u: Query, r: dict[str, Any]) -> int | None:
    """The tensor-parallel degree said ("tp=4") where the node has that many cards."""
    tp = u.tensor_parallel
    return tp if tp is not None and tp <= int(r.get("count") or 0) else None


def _whole_node(r: dict[str, Any]) -> int | None:
    """A node's capacity is asked of the whole node: the model split over all its cards (the
    KV cache of every card pooled for the longest context and the most sequences), as
    `sizing capacity` reports it; None where the fit found no cards."""
    count = int(r.get("count") or 0)
    return count if count > 1 else None


def speed_cost(d: Draft, cid: str, tput: dict[str, Any]) -> str:
    """What a million output tokens cost at that speed and the node's price."""
    if tput.get("usd_per_million_tokens") is None:
        return ""
    cost = usd(tput["usd_per_million_tokens"])
    return t(d.lang, "speed_cost", price=d.price(cid), cost=cost)


def speed_lines(d: Draft, cid: str, tput: dict[str, Any], model: str, prec: str) -> list[str]:
    """The speed on one configuration and what it costs; with a batch to write ("200 texts of
    500 tokens each"), how long one stream takes and what that time of the node costs."""
    split = t(d.lang, "speed_split", n=tput["cards"]) if tput["cards"] > 1 else ""
    kw = {"model": model, "precision": prec, "label": d.link(cid), "split": split}
    tps = tokens(d.lang, tput["tokens_per_s"])
    if tput.get("output_seconds") is None:
        return [t(d.lang, "speed_one", tps=tps, **kw), speed_cost(d, cid, tput)]
    total = num(d.lang, tput["output_tokens"])
    line = t(d.lang, "speed_batch", tps=tps, total=total, duration=duration(d.lang, tput), **kw)
    if tput.get("usd_for_output") is None:
        return [line]
    cost = t(d.lang, "batch_cost", cost=usd(tput["usd_for_output"]), price=d.price(cid))
    return [line, cost]


def duration(lang: Language, tput: dict[str, Any]) -> str:
    """A batch's time in the largest unit that keeps it readable (8,472 s: 2.4 hours)."""
    seconds = float(tput["output_seconds"])
    if seconds < 120:
        return t(lang, "dur_seconds", n=num(lang, seconds))
    exact = f" ({num(lang, round(seconds))} s)"  # "about 4.5 hours (16,060 s)"
    if seconds < 120 * 60:
        return t(lang, "dur_minutes", n=num(lang, tput["output_minutes"])) + exact
    if seconds < 48 * 3600:
        return t(lang, "dur_hours", n=num(lang, tput["output_hours"], 1)) + exact
    return t(lang, "dur_days", n=num(lang, tput["output_days"], 1)) + exact


#: "is it much faster?": yes from a quarter faster on (a few percent is "only slightly")
MUCH_FASTER = 1.25
#: two speeds within this ratio are said to be close ("only slightly faster")
CLOSE_SPEEDS = 1.1


def _fastest_lead(d: Draft, speeds: dict[str, float], best: str, order: list[str]) -> str:
    """The fastest of the nodes timed; of two close ones, both figures side by side."""
    tps = tokens(d.lang, speeds[best])
    other = next((c for c in order if c != best), None)
    if len(speeds) != 2 or other is None or speeds[best] > CLOSE_SPEEDS * speeds[other]:
        return t(d.lang, "speed_fastest", label=d.link(best), tps=tps)
    other_tps = tokens(d.lang, speeds[other])
    key = "speed_same" if other_tps == tps else "speed_close"
    return t(d.lang, key, label=d.link(best), other=d.link(other), tps=tps, other_tps=other_tps)


#: a measured speed this share of the conservative estimate or more is what the node should
#: give (the estimate is a rounded lower bound; "about 6 tok/s" beside 6.2 is not a slow node)
MEASURED_NEAR = 0.9


class SpeedMixin(ComposerBase):
    """How fast, and how much it holds."""

    # ---- speed
    def _speed(self, d: Draft, u: Query) -> None:
        if not u.has_subject:
            self._ask_model(d, u)
            return
        fit = self._call_fit(d, u)
        if fit is None:
            self._general(d, u)
            return
        targets = self._targets(u, fit)
        if self._speed_is_a_fit(d, u, fit, targets):
            return
        model = self._model_name(fit, d.lang)
        prec = precision_label(fit["precision"])
        self._count_note(d, u, targets)
        if not targets:
            res = self._call_cheapest(d, u)
            targets = (res or {}).get("cheapest", [])[:2]
            if targets:
                d.add(t(d.lang, "speed_pick"))
        any_split = False
        lead_at = len(d.paras)
        speeds: dict[str, float] = {}
        for r in targets:
            if r["verdict"] == "does_not_fit":
                d.add(self._speed_no_fit(d, r, model, prec))
                lower = self._speed_lower(d, u, r, fit)
                if lower is not None and u.claim == "faster" and len(u.models) <= 1:
                    # "ist ne L40S in BF16 deutlich schneller?" than the 4090 that runs it only
                    # in FP8: against that speed
                    speeds[r["configuration"]] = lower
                continue
            tput = d.call(
                "throughput_estimate",
                model=self._model_arg(u),
                configuration=r["configuration"],
                precision=u.precision,
                context_tokens=u.context_tokens,
                concurrency=u.concurrency,
                cards=_tp_on(u, r),
                output_tokens=u.output_tokens,
            )
            if not tput:
                continue
            speeds[r["configuration"]] = float(tput["tokens_per_s"])
            any_split = any_split or tput["cards"] > 1
            d.add(*speed_lines(d, r["configuration"], tput, model, prec))
        if u.output_tokens and speeds:
            d.add(t(d.lang, "batch_parallel"))
        self._fastest(d, u, speeds, lead_at)
        self._measured_speed(d, u, speeds, lead_at)
        if u.min_tokens_per_s is not None and speeds:
            # "mehr als 20 Token pro Sekunde?": the claim "faster" against the speed asked (one
            # answer when every node timed agrees)
            above = {v > u.min_tokens_per_s for v in speeds.values()}
            d.verdict = above.pop() if len(above) == 1 else None
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

    def _measured_speed(self, d: Draft, u: Query, speeds: dict[str, float], at: int) -> None:
        """A speed the user measured ("we get 12 tok/s on 4x A100 … normal?") against the
        node's estimate, which the guide treats as a lower bound: below it, the node is not
        giving what it should, and the guide's day-one checks come next."""
        measured = u.measured.tokens_per_s
        if measured is None or len(speeds) != 1:
            return
        ((cid, estimate),) = speeds.items()
        # "~6 tok/s" beside an estimate of 6.2: within the estimate's own precision is as expected
        near = MEASURED_NEAR * estimate <= measured < estimate
        below = measured < estimate and not near
        verdict = below if u.claim == "defect" else not below  # "too slow?" / "normal?"
        word = yes_no_word(d.lang, verdict)
        key = "speed_measured_low" if below else "speed_measured_ok"
        lead = t(
            d.lang,
            "speed_measured_near" if near else key,
            word=word,
            measured=tokens(d.lang, measured),
            tps=tokens(d.lang, estimate),
            label=d.link(cid),
        )
        d.paras.insert(
            at, lead + d.cite("same-job-both-ways", contains=r"lower bounds|Untergrenzen")
        )
        d.verdict = verdict
        if below:
            d.add(t(d.lang, "speed_measured_check") + d.cite("measure-it-yourself"))

    # ---- capacity: longest context, most sequences
    def _fastest(self, d: Draft, u: Query, speeds: dict[str, float], at: int) -> None:
        """Two or more nodes timed: the fastest first, and the yes/no of "is the first one named
        faster than the second?" ("much faster?": by at least `MUCH_FASTER`)."""
        if len(speeds) < 2:
            return
        order = list(speeds)
        best = max(order, key=lambda c: (speeds[c], c))
        d.paras.insert(at, _fastest_lead(d, speeds, best, order))
        if u.min_tokens_per_s is None:  # "is the first named faster than the second?"
            first, second = speeds[order[0]], speeds[order[1]]
            d.verdict = first >= MUCH_FASTER * second if u.claim_by_much else first > second

    def _capacity(self, d: Draft, u: Query) -> None:
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
        context_lead = context_unknown(u)
        for r in targets[:2]:
            self._capacity_of(d, u, r, model, prec, context_lead, with_price=True)
        if targets:
            self._capacity_kv_other(d, u, targets[0])
        self._numbers(d, fit)
        d.add(t(d.lang, "capacity_guide") + d.cite("worked-example", guide="awq-vs-gptq-vs-fp8"))
        d.suggest(
            follow_up(d.lang, "speed", label=d.label(targets[0]["configuration"]))
            if targets
            else ""
        )
        d.suggest(follow_up(d.lang, "fp8"))

    def _speed_is_a_fit(
        self, d: Draft, u: Query, fit: dict[str, Any], targets: list[dict[str, Any]]
    ) -> bool:
        """A speed question the fit flow answers instead: an image model (no tokens/s), or a
        plan to split a model that fits one card for speed ("mit tp=4 auf 4x H100, 'mehr Karten
        = schneller' — stimmt das?": no, the guide's most expensive mistake)."""
        if self._is_image(fit):
            d.calls.clear()
            self._fit_answer(d, u)
            d.add(t(d.lang, "speed_image"))
            return True
        if self._tp_asked_faster(u, targets):
            d.calls.clear()
            self._fit_answer(d, u.model_copy(update={"claim": "fits"}))
            d.named_fit_stated = True  # the fit on the node named is in that answer
            return True
        return False

    def _tp_asked_faster(self, u: Query, targets: list[dict[str, Any]]) -> bool:
        """A yes/no on whether splitting a model over a node's cards (tensor parallelism) makes
        it faster, where it fits one card: the speed rows would say yes, the guide says no."""
        planned = "tensor_parallel" in u.workloads and (u.count or 0) > 1
        if not (u.yes_no and planned and u.min_tokens_per_s is None):
            return False
        return bool(targets) and all(r["verdict"] == "fits_one_card" for r in targets)

    def _capacity_call(
        self, d: Draft, u: Query, r: dict[str, Any], ctx: int, **extra: Any
    ) -> dict[str, Any] | None:
        """`capacity_check` of the job on one node at `ctx` tokens (`extra`: e.g. another KV
        precision)."""
        return d.call(
            "capacity_check",
            model=self._model_arg(u),
            configuration=r["configuration"],
            precision=u.precision,
            context_tokens=ctx,
            concurrency=u.concurrency,
            cards=_tp_on(u, r) or _whole_node(r),
            **extra,
        )

    def _capacity_kv_other(self, d: Draft, u: Query, r: dict[str, Any]) -> None:
        """ "… und wie viele mit BF16-KV?": the sequences of the context asked on the node with
        the KV cache in the other precision asked (`kv_precisions`)."""
        asked = u.kv_precision or "bf16"
        ctx = self._context_tokens(u) or 8192
        for other in (k for k in u.kv_precisions if k != asked):
            cap = self._capacity_call(d, u, r, ctx, kv_precision=other)
            if cap is None or not cap["fits"]:
                continue
            d.add(
                t(
                    d.lang,
                    "capacity_kv_other",
                    other=precision_label(other),
                    kv_prec=precision_label(asked),
                    n=cap["max_concurrency"],
                    ctx=num(d.lang, ctx),
                )
            )

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
        """One node's capacity (`capacity_check`): its KV-cache room and the longest context, led
        by the longest context or by the most sequences of the context asked."""
        ctx = self._context_tokens(u) or 8192
        cap = self._capacity_call(d, u, r, ctx)
        if cap is None:
            return
        label = d.link(r["configuration"])
        # one sequence or none at the context given: the longest context says more
        context_lead = context_lead or cap["max_concurrency"] < 2
        if u.yes_no and d.verdict is None and u.claim in (None, "fits"):
            d.verdict = bool(cap["load_fits"])  # "the full 128K on one RTX 5090?": the load asked
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
            return
        lead = (
            t(
                d.lang,
                # "how many 32k sequences on a 4090?": not one; the longest context instead
                "capacity_none_at_context"
                if cap["max_concurrency"] == 0 and u.context_tokens
                else "capacity_context_lead",
                ctx=num(d.lang, ctx),
                model=model,
                precision=prec,
                label=label,
                max_ctx=num(d.lang, cap["max_context_capped"]),
                conc=cap["concurrency"],
            )
            if context_lead
            else t(
                d.lang,
                "capacity_lead",
                model=model,
                precision=prec,
                label=label,
                n=cap["max_concurrency"],
                ctx=num(d.lang, ctx),
            )
        )
        d.add(lead + (" " + d.price(r["configuration"]) if with_price else ""))
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
                    model_max=num(d.lang, cap["model_max_context"] or cap["max_context_capped"]),
                ),
                # "the longest context for one chat? and how many 8k convos at once?": both
                t(d.lang, "capacity_count", n=cap["max_concurrency"], ctx=num(d.lang, ctx))
                if context_lead and "how_many" in u.topics
                else "",
            ]
        )
