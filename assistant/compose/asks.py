"""The asks a flow leaves open: a question with several asks (`Query.asks`) gets each answered.

The planner (`Composer.compose`) runs the flow for the first ask; `_other_asks` then answers every
other ask that the flow's answer does not already carry, with the method `table.ASKS` names for
its kind, and puts those answers right after the lead (the first sentence stays the primary
ask's). Whether an ask is answered is read off the draft: its flow's `answers`, the prices it
quotes, the precisions it timed. Each answer makes its own tool call:

- `fit`: `fit_check` for the hardware named (at the context and precision asked), its rows;
- `price`: `price_quote` for the hardware named that the answer has not priced yet;
- `speed`: `throughput_estimate` at the ask's precision on the nodes the answer timed (or that
  were named), or "does not fit" where the model does not fit at that precision;
- `context`: `capacity_check` on the hardware named: KV-cache room and the longest context.
"""

from __future__ import annotations

from typing import Any

from assistant.compose.base import ComposerBase
from assistant.compose.draft import Draft
from assistant.compose.speed import context_unknown, speed_lines
from assistant.compose.table import ASKS, Flow
from assistant.nlu import Query
from assistant.nlu.query import Ask, Claim
from assistant.texts import gb, num, precision_label, render, smart, t, usd

PHRASES: dict[str, tuple[str, str]] = {
    "ask_fit": (
        "**{model} in {precision}** on the hardware you named:",
        "**{model} in {precision}** auf der genannten Hardware:",
    ),
    "ask_fit_context": (
        "**{model} in {precision} with {ctx} tokens of context** on the hardware you named:",
        "**{model} in {precision} mit {ctx} Token Kontext** auf der genannten Hardware:",
    ),
    "ask_price": ("The price of what you named:", "Der Preis der genannten Konfiguration:"),
    "link_needed": (
        "**On NVLink: yes, this job needs it** — the cards must exchange data on every token; "
        "rent an SXM (NVLink) node.",
        "**Zu NVLink: ja, dieser Job braucht es** — die Karten tauschen bei jedem Token Daten "
        "aus; mieten Sie einen SXM-Knoten (NVLink).",
    ),
    "link_needed_yes": (
        "**Yes — this job needs NVLink**: the cards exchange data on every token; rent an SXM "
        "node.",
        "**Ja — dieser Job braucht NVLink**: Die Karten tauschen bei jedem Token Daten aus; "
        "mieten Sie einen SXM-Knoten.",
    ),
    # training: the cards exchange gradients every step, not data every token
    "link_needed_train": (
        "**On NVLink: yes, this job needs it** — the cards exchange gradients on every training "
        "step; rent an SXM (NVLink) node.",
        "**Zu NVLink: ja, dieser Job braucht es** — die Karten tauschen bei jedem "
        "Trainingsschritt Gradienten aus; mieten Sie einen SXM-Knoten (NVLink).",
    ),
    "link_needed_yes_train": (
        "**Yes — this job needs NVLink**: the cards exchange gradients on every training step; "
        "rent an SXM node.",
        "**Ja — dieser Job braucht NVLink**: Die Karten tauschen bei jedem Trainingsschritt "
        "Gradienten aus; mieten Sie einen SXM-Knoten.",
    ),
    "link_needed_no": (
        "**No — PCIe is not enough for this job**: it needs NVLink (an SXM node).",
        "**Nein — PCIe reicht für diesen Job nicht**: Er braucht NVLink (einen SXM-Knoten).",
    ),
    "link_not_needed_yes": (
        "**Yes — PCIe is enough for this job**; NVLink is not needed.",
        "**Ja — PCIe reicht für diesen Job**; NVLink ist nicht nötig.",
    ),
    "link_not_needed_no": (
        "**No — you don't need NVLink for this job**: PCIe is enough.",
        "**Nein — NVLink brauchen Sie für diesen Job nicht**: PCIe reicht.",
    ),
    "link_not_needed": (
        "**On NVLink: you don't need it here — PCIe is enough** for this job.",
        "**Zu NVLink: hier nicht nötig — PCIe reicht** für diesen Job.",
    ),
    "ask_memory": (
        "**{model} in {precision} needs about {total} of GPU memory** for {n} × {ctx} tokens, "
        "one copy before any split across cards: weights {weights}, KV cache {kv} and "
        "{overhead} of runtime overhead.",
        "**{model} braucht in {precision} etwa {total} GPU-Speicher** für {n} × {ctx} Token, "
        "eine Kopie vor jeder Aufteilung auf Karten: Gewichte {weights}, KV-Cache {kv} und "
        "{overhead} Laufzeit-Overhead.",
    ),
    "beyond_context": (
        "**{model} itself reads at most {limit} tokens of context**: {asked} tokens are beyond "
        "the model, on any node. Sized at its limit:",
        "**{model} verarbeitet selbst höchstens {limit} Token Kontext**: {asked} Token gehen "
        "über das Modell hinaus, auf jedem Knoten. Gerechnet mit seiner Grenze:",
    ),
    "beyond_context_memory": (
        "Extended beyond its limit (RoPE scaling, which the model was not trained for), {asked} "
        "tokens would take about {need} for one copy.",
        "Über seine Grenze hinaus erweitert (RoPE-Skalierung, für die das Modell nicht trainiert "
        "ist) bräuchten {asked} Token etwa {need} für eine Kopie.",
    ),
    "beyond_context_no": (
        "**No — {model} itself reads at most {limit} tokens of context**: {asked} tokens are "
        "beyond the model, on any node. Sized at its limit:",
        "**Nein — {model} verarbeitet selbst höchstens {limit} Token Kontext**: {asked} Token "
        "gehen über das Modell hinaus, auf jedem Knoten. Gerechnet mit seiner Grenze:",
    ),
}


def p(lang: str, key: str, **kw: Any) -> str:
    return render(PHRASES, lang, key, **kw)


#: the claims about a mechanism whose flows answer the claim (compose/claims.py), not the asks
_MECHANISM_CLAIMS = frozenset({"memory_adds_up", "active_sets_memory"})


class AsksMixin(ComposerBase):
    """Each ask of the question that its flow left open, answered after the lead."""

    def _other_asks(self, d: Draft, u: Query, flow: Flow) -> None:
        # the NVLink flow answers the yes/no of "Is PCIe enough …? And what does it cost?" and
        # leaves every ask open; other flows without asks of their own (a paste's check, an
        # explanation) answer only a price asked of the node named ("ist das so ok? und was
        # zahlt er im Monat für die Kiste?")
        asks = u.asks
        if not (flow.answers or flow.claim == "nvlink_needed"):
            # a claim about a mechanism ("sind ja nur 3b aktiv, sollte doch flott sein") with
            # "wie schnell ist es?" beside it: the speed too, in figures
            # ("sind ja nur 39b aktiv — wie viel VRAM brauch ich?": the need too, in figures)
            mechanism = flow.claim in _MECHANISM_CLAIMS
            kinds = ("price", "speed", "memory") if mechanism else ("price",)
            asks = [a for a in asks if a.kind in kinds and (u.configurations or a.kind == "memory")]
        if not asks:
            return
        start = len(d.paras)
        for ask in asks:
            if not self._answered(d, u, ask, flow):
                getattr(self, ASKS[ask.kind])(d, u, ask)
        after_lead(d, start)

    def _answered(self, d: Draft, u: Query, ask: Ask, flow: Flow) -> bool:
        if ask.kind == "price":  # quoted by the price tool, not only shown beside a row
            return self._priced(d, u)
        if ask.kind == "fit" and ask.precision is None and d.named_fit_stated:
            return True  # "passt in BF16 nicht auf die genannte Konfiguration …": said once
        if ask.precision is not None:  # "BF16 vs FP8": each precision its own figure
            if ask.kind == "speed":
                timed = (c for c in d.calls if c.name == "throughput_estimate")
                return any(c.result.get("precision") == ask.precision for c in timed)
            # a fit at that precision the answer states in full (not a probe of one node)
            fits = (c for c in d.calls if c.name == "fit_check")
            return any(
                c.result.get("precision") == ask.precision and "configurations" not in c.arguments
                for c in fits
            )
        if ask.kind == "context":
            return "context" in flow.answers or any(c.name == "capacity_check" for c in d.calls)
        if ask.kind == "memory":  # the fit flow states the need per card; else memory_need
            return flow.name == "fit" or any(c.name == "memory_need" for c in d.calls)
        return ask.kind in flow.answers

    def _priced(self, d: Draft, u: Query) -> bool:
        """The nodes asked are quoted by the price tool, with their difference stated when the
        question asks for it ("Was ist der Preisunterschied zwischen A und B?")."""
        nodes = self._asked_nodes(d, u)
        quotes = [c.result for c in d.calls if c.name == "price_quote"]
        quoted = {q["configuration"] for r in quotes for q in r.get("quotes", [])}
        if not all(c in quoted for c in nodes):
            return False
        if len(nodes) != 2 or "difference_asked" not in u.topics:
            return True
        diffs = [
            usd(r["difference_usd_per_month"]) for r in quotes if r.get("difference_usd_per_month")
        ]
        return any(diff in para for diff in diffs for para in d.paras)

    # ---- a context beyond the model's own limit
    def _within_model_context(self, u: Query) -> tuple[Query, int | None]:
        """A context asked beyond the model's own limit (catalog max_context: "Qwen2.5 72B with
        128K context") is sized at that limit; returns the query to size and the context asked
        (None when it is within the limit)."""
        model = self.deps.catalog.models.get(u.model) if u.model else None
        limit = getattr(model, "max_context", None)
        if not limit or u.context_tokens is None or u.context_tokens <= limit:
            return u, None
        return u.model_copy(update={"context_tokens": limit}), u.context_tokens

    def _beyond_model_context(self, d: Draft, u: Query, asked: int) -> None:
        """The lead says that the context asked is beyond the model itself (a yes/no question
        gets its "no"), before the answer at the model's limit."""
        model = self.deps.catalog.models[u.model]
        key = "beyond_context_no" if u.yes_no or u.claim else "beyond_context"
        text = p(
            d.lang,
            key,
            model=model.name,
            limit=num(d.lang, model.max_context),
            asked=num(d.lang, asked),
        )
        at = next((i for i, para in enumerate(d.paras) if not para.startswith("_")), 0)
        d.paras.insert(at, text)
        if any(a.kind == "memory" for a in u.asks):
            self._beyond_memory(d, u, asked)

    def _beyond_memory(self, d: Draft, u: Query, asked: int) -> None:
        """The memory the context asked would take, for those who extend the model's context
        (RoPE scaling): said after the answer at its limit, never as the lead."""
        mem = d.call(
            "memory_need",
            model=self._model_arg(u),
            precision=u.precision,
            context_tokens=asked,
            concurrency=u.concurrency,
            kv_precision=u.kv_precision,
        )
        if mem is None or mem.get("required_gb_total") is None:
            return
        d.add(
            p(
                d.lang,
                "beyond_context_memory",
                asked=num(d.lang, asked),
                need=gb(d.lang, mem["required_gb_total"]),
            )
        )

    # ---- the nodes the question names, as the fit rows resolve them
    def _asked_rows(self, d: Draft, u: Query) -> list[dict[str, Any]]:
        fit = self._fit_of(d, u)
        return self._targets(u, fit) if fit is not None else []

    def _asked_nodes(self, d: Draft, u: Query) -> list[str]:
        named = [c for c in u.configurations if c in self.deps.catalog.configurations]
        return named or [r["configuration"] for r in self._asked_rows(d, u)]

    def _fit_of(self, d: Draft, u: Query) -> dict[str, Any] | None:
        """The fit result for the query's model, precision and context: the draft's own when a
        flow called it already (no second call), else a new `fit_check`."""
        context = self._context_tokens(u)
        for call in d.calls:
            res = call.result
            if (
                call.name == "fit_check"
                and (u.precision is None or res.get("precision") == u.precision)
                and (context is None or res.get("context_tokens") == context)
                and "configurations" not in call.arguments
            ):
                return res
        return self._call_fit(d, u)

    # ---- one method per kind of ask (table.ASKS)
    def _ask_fit(self, d: Draft, u: Query, ask: Ask) -> None:
        q = u.model_copy(update={"precision": ask.precision or u.precision})
        fit = self._fit_of(d, q)
        if fit is None:
            return
        rows = self._targets(q, fit)
        if not rows:
            return
        if self._training(u) and u.adapter is None:
            self._training_fit_asked(d, u, fit)
            return
        context_asked = u.context_tokens is not None or u.full_context
        d.add(
            p(
                d.lang,
                "ask_fit_context" if context_asked else "ask_fit",
                model=self._model_name(fit, d.lang),
                precision=precision_label(fit["precision"]),
                ctx=num(d.lang, fit["context_tokens"]),
            )
        )
        d.bullets(
            [self._row_line(d, r, with_price=r["configuration"] not in d._prices) for r in rows]
        )

    def _training_fit_asked(self, d: Draft, u: Query, fit: dict[str, Any]) -> None:
        """ "Is the 2x A100 PCIe enough for a full fine-tune, or do we need the SXM one?" beside
        the link's answer: the named nodes judged by the training memory (`training_fit`), not
        by serving the model; the lead's verdict stays the link's."""
        mem = d.call("memory_need", model=self._model_arg(u), training=True)
        if mem is None:
            return
        verdict = d.verdict
        self._training_named(d, u, fit, mem["total_gb"])
        d.verdict = verdict if verdict is not None else d.verdict

        # ---- the NVLink yes/no beside another ask

    def _link_verdict(self, d: Draft, u: Query, flow: Flow) -> None:
        """ "Which server within our budget? Do we need NVLink, or is PCIe fine?": a question
        about the link that another flow leads is answered after the lead, from the guide's
        purchase rule for the job (`purchase_advice` for the configuration the answer chose)."""
        if u.claim not in ("nvlink_needed", "pcie_enough") or flow.claim == "nvlink_needed":
            return
        if not u.has_subject or flow.name in _DIAGNOSES:
            return
        given = [c.result for c in d.calls if c.name == "purchase_advice"]
        if len({bool(a.get("needs_nvlink")) for a in given}) > 1:
            return  # the rule depends on the workload: the answer gives both and asks which
        advice = given[0] if given else None
        if advice is None:
            advice = self._advice_for(d, u)
            if advice is None:
                return
            self._add_advice(d, advice, with_also=False)
        start = len(d.paras)
        needs = bool(advice.get("needs_nvlink"))
        train = "_train" if self._training(u) else ""
        if u.yes_no:  # the yes/no is the question's first: its answer leads, in its polarity
            yes = needs if u.claim == "nvlink_needed" else not needs
            key = f"link_{'needed' if needs else 'not_needed'}_{'yes' if yes else 'no'}"
            d.add(p(d.lang, key + train if key == "link_needed_yes" else key))
            _as_lead(d, start)
            return
        # (image and video: several cards run copies, the guide's own section says why)
        copies = {"diffusion", "rendering"} & set(u.workloads) and not needs
        why = d.cite("many-cards", guide="gpu-for-flux-sdxl") if copies else ""
        d.add(p(d.lang, "link_needed" + train if needs else "link_not_needed") + why)
        after_lead(d, start)

    def _advice_for(self, d: Draft, u: Query) -> dict[str, Any] | None:
        w = set(u.workloads)
        return self._advice(
            d,
            model=self._model_arg(u),
            precision=u.precision,
            context_tokens=u.context_tokens,
            concurrency=u.concurrency,
            configuration=d.result[0] if d.result else None,
            workload="training" if self._training(u) else "llm_serving",
            traffic="high" if "traffic" in w else "low" if "low_concurrency" in w else None,
            independent_jobs=("independent" in w) or None,
        )

    # ---- the yes/no about the hardware named
    def _named_verdict(self, d: Draft, u: Query, flow: Flow) -> Claim | None:
        """A yes/no about a fit on hardware the question names ("Reicht eine RTX 5090? Falls
        nicht: welche Karte wäre die günstigste?", "does it fit on one H100, how fast, what
        does it cost?") is answered for that hardware, whatever the flow's own lead decided
        (the cheapest flow's "something holds it", the speed flow's tokens/s): from the fit rows
        of the named nodes, stated as the lead when the flow is not the fit flow. Returns the
        claim the first word answers (None: the flow's own)."""
        if d.answered_claim is not None or not self._asks_named_fit(u, flow):
            return None  # (a lead that answered its own claim keeps its word)
        rows = self._named_rows(d, u) if flow.name == "fit" else []
        if not rows:
            start = len(d.paras)
            self._ask_fit(d, u, Ask(kind="fit"))
            _as_lead(d, start)  # the yes/no's own hardware leads, the flow's answer follows
            rows = self._named_rows(d, u)
        if not rows:
            return None
        if len(u.configurations) > 1:  # "Reicht eine L4, oder brauchen wir eine L40S?": the
            rows = rows[:1]  # yes answers the node named first (rows in the question's order)
        if u.count and u.count > 1:  # "on 2x A100": the 2-card nodes, not the 4-card SXM4 shown
            rows = [r for r in rows if r["count"] == u.count] or rows  # for the absent variant
        if u.count == 1 or u.memory_gb:
            d.verdict = any(r["verdict"] == "fits_one_card" for r in rows)
        else:
            d.verdict = any(r["verdict"] != "does_not_fit" for r in rows)
        return "fits"

    def _asks_named_fit(self, u: Query, flow: Flow) -> bool:
        """The question asks yes or no whether its model fits hardware it names, first."""
        named = u.configurations or u.cards or u.card_families or u.memory_gb
        stated = u.claim in ("fits", "too_small") and (not u.asks or u.asks[0].kind == "fit")
        # ("ist 4x L40S das günstigste für X?" asks whether it is the pick, not whether it fits;
        # "a 4090 would do? if not, what's the cheapest?" asks the fit)
        picks = flow.name in ("cheapest", "constrained_pick") and bool(u.configurations)
        picks = picks and "is_the_cheapest" in u.topics
        # ("Budget max. 8.000 €, bleiben wir damit drunter?" of a node: its price is the yes/no)
        budget = flow.name == "price" and u.constraints.budget_usd_month is not None
        asked = not (picks or budget) and (
            stated or (flow.claim == "fits" and u.yes_no and u.claim is None)
        )
        if not (named and asked) or self._training(u) or u.adapter or u.models[1:]:
            return False  # training and several models have verdicts of their own
        sizing = flow.claim == "fits" or "fit" in flow.answers  # not a guide or a claim flow
        return u.has_subject and sizing and not u.explain and flow.name != "fit_several"

    def _named_rows(self, d: Draft, u: Query) -> list[dict[str, Any]]:
        """The fit rows of the hardware named, from a fit the answer states in full."""
        for call in d.calls:
            if call.name == "fit_check" and "configurations" not in call.arguments:
                rows = self._targets(u, call.result)
                if rows and (u.precision is None or call.result.get("precision") == u.precision):
                    return rows
        return []

    def _ask_price(self, d: Draft, u: Query, ask: Ask) -> None:
        """The price asked of the hardware named, from `price_quote`: a line for each node the
        answer has not priced yet, and the monthly difference when two are named."""
        cids = self._asked_nodes(d, u)[:4]
        pq = d.call("price_quote", configurations=cids) if cids else None
        if pq is None:
            return
        lines = [f"{d.link(c)}: **{d.price(c)}**" for c in cids if c not in d._prices]
        if lines:
            d.add(p(d.lang, "ask_price"))
            d.bullets(lines)
        if len(cids) == 2 and pq.get("difference_usd_per_month"):
            d.add(d.price_difference(pq))

    def _ask_speed(self, d: Draft, u: Query, ask: Ask) -> None:
        q = u.model_copy(update={"precision": ask.precision or u.precision})
        fit = self._fit_of(d, q)
        if fit is None or self._is_image(fit):
            return
        timed = [
            c.arguments.get("configuration") for c in d.calls if c.name == "throughput_estimate"
        ]
        # the nodes timed already, else those named, else the answer's pick ("was ist der
        # günstigste Server dafür und wie viele Token/s schafft der?")
        picked = [r for r in fit["rows"] if r["configuration"] in (d.result or [])]
        rows = (
            [r for r in fit["rows"] if r["configuration"] in timed]
            or self._targets(q, fit)
            or picked
        )
        model, prec = self._model_name(fit, d.lang), precision_label(fit["precision"])
        for r in rows[:2]:
            if r["verdict"] == "does_not_fit":
                if d.flow != "fit":  # the fit answer already said it does not fit there
                    d.add(self._speed_no_fit(d, r, model, prec))
                self._speed_lower(d, q, r, fit)
                continue
            tput = d.call(
                "throughput_estimate",
                model=self._model_arg(q),
                configuration=r["configuration"],
                precision=fit["precision"],
                context_tokens=u.context_tokens,
                output_tokens=u.output_tokens,  # "… and how long would 1,000 answers take?"
            )
            if tput:
                d.add(*speed_lines(d, r["configuration"], tput, model, prec))

    def _ask_memory(self, d: Draft, u: Query, ask: Ask) -> None:
        """ "How much VRAM does it need?": weights and KV cache at the load asked, from
        memory_need (one copy, before splitting); for fine-tuning or training, the training
        memory instead."""
        if self._training(u) and self._ask_training_memory(d, u):
            return
        mem = d.call(
            "memory_need",
            model=self._model_arg(u),
            precision=ask.precision or u.precision,
            context_tokens=u.context_tokens,
            concurrency=u.concurrency,
            kv_precision=u.kv_precision,
        )
        if mem is None:
            return
        if mem.get("required_gb_total") is None:  # an image/video model: its published need
            d.add(
                t(
                    d.lang,
                    "image_need",
                    need=gb(d.lang, mem["vram_gb"]),
                    precision=precision_label(mem["precision"]),
                )
            )
            return
        self._memory_line(d, mem)

    def _memory_line(self, d: Draft, mem: dict[str, Any]) -> None:
        """The need of one copy (`memory_need`): weights, KV cache and overhead, in one line."""
        d.add(
            p(
                d.lang,
                "ask_memory",
                model=self._model_name(mem, d.lang),
                precision=precision_label(mem["precision"]),
                total=gb(d.lang, mem["required_gb_total"]),
                weights=gb(d.lang, mem["weights_gb"]),
                kv=gb(d.lang, mem["kv_gb_total"]),
                ctx=num(d.lang, mem["context_tokens"]),
                n=num(d.lang, mem["concurrency"]),
                overhead=gb(d.lang, mem["overhead_gb_per_card"]),
            )
        )
        model = mem.get("model") or {}
        if model.get("active_params_b"):  # a mixture of experts: held whole, read in part
            d.add(
                t(
                    d.lang,
                    "moe_memory",
                    total=smart(d.lang, model["params_b"]),
                    active=smart(d.lang, model["active_params_b"]),
                )
            )

    def _memory_answer(self, d: Draft, u: Query) -> None:
        """ "How much VRAM does X need?": the need from memory_need leads, then where it fits
        (the fit flow), or the cheapest node that holds it when that is asked too."""
        self._ask_memory(d, u, u.asks[0])
        if "cheapest" in u.intents:
            self._cheapest(d, u)
        else:
            self._fit_answer(d, u)

    def _ask_training_memory(self, d: Draft, u: Query) -> bool:
        """The memory of a full fine-tune (weights, gradients, FP32 master, Adam) or of a LoRA /
        QLoRA fine-tune (frozen base + adapter state), from memory_need (False: no training
        memory for this model, e.g. an image model)."""
        adapter = u.adapter
        mem = d.call(
            "memory_need",
            model=self._model_arg(u),
            training=adapter is None or None,
            adapter=adapter,
            lora_rank=u.lora_rank if adapter else None,
        )
        if mem is None or mem.get("total_gb") is None:
            return False
        model = self._model_name(mem, d.lang)
        total = gb(d.lang, mem["total_gb"])
        if adapter is not None:
            name = "QLoRA" if adapter == "qlora" else "LoRA"
            d.add(t(d.lang, "adapter_need", method=name, model=model, total=total))
            return True
        key = "train_need" if "fine_tuning" in u.workloads else "train_need_training"
        d.add(t(d.lang, key, model=model, total=total, bpp=smart(d.lang, mem["bytes_per_param"])))
        return True

    def _ask_context(self, d: Draft, u: Query, ask: Ask) -> None:
        fit = self._fit_of(d, u)
        if fit is None or self._is_image(fit):
            return
        model, prec = self._model_name(fit, d.lang), precision_label(fit["precision"])
        for r in self._targets(u, fit)[:2]:
            self._capacity_of(d, u, r, model, prec, context_lead=context_unknown(u))
        if fit.get("kv_bytes_per_token") and fit.get("context_tokens"):
            # what the context asked costs: the KV cache at that context and its precision
            d.bullets(
                [
                    t(
                        d.lang,
                        "kv_at_context",
                        ctx=num(d.lang, fit["context_tokens"]),
                        kv_precision=precision_label(fit.get("kv_precision") or "bf16"),
                        kv=gb(d.lang, fit["kv_gb"]),
                        per_token=num(d.lang, fit["kv_bytes_per_token"]),
                    )
                ]
            )


_DIAGNOSES = frozenset(
    {"allreduce_paste", "topology_paste", "topology_described", "allreduce_measured"}
)


def _as_lead(d: Draft, start: int) -> None:
    """Move the paragraphs written from `start` on to the lead's place (after any notices)."""
    added = d.paras[start:]
    if not added:
        return
    del d.paras[start:]
    at = next((i for i, para in enumerate(d.paras) if not para.startswith("_")), len(d.paras))
    d.paras[at:at] = added


def after_lead(d: Draft, start: int) -> None:
    """Move the paragraphs written from `start` on to just after the lead: the first paragraph
    and the verdict lines (bold) and lists right after it, before the assumptions and rules."""
    added = d.paras[start:]
    if not added:
        return
    del d.paras[start:]
    at = next((i for i, para in enumerate(d.paras) if not para.startswith("_")), len(d.paras))
    at = min(at + 1, len(d.paras))
    while at < len(d.paras) and d.paras[at].startswith(("- ", "**")):
        at += 1
    d.paras[at:at] = added
