"""Flows about what one node can and cannot be: a job for more than one node (not offered: no
fabric between nodes; what the largest node does instead), a measured bus bandwidth given in
words, and the tool filters a question's constraints set. Trigger rows: `assistant.compose.table`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from assistant.compose.base import ComposerBase, generic_name
from assistant.compose.draft import Draft
from assistant.nlu import CARD_FAMILIES, Query
from assistant.texts import follow_up, precision_label, render

PHRASES: dict[str, tuple[str, str]] = {
    "multi_node": (
        "**No — one job across {what} is not something you can rent here:** every configuration "
        "is a single server, and there is no fabric between servers.",
        "**Nein — ein Job über {what} lässt sich hier nicht mieten:** Jede Konfiguration ist ein "
        "einzelner Server, und zwischen Servern gibt es kein Fabric.",
    ),
    "multi_node_no_fit_lead": (
        "**No — {model} in {precision} does not fit on any one node here, and one job across "
        "{what} is not something you can rent:** every configuration is a single server, and "
        "there is no fabric between servers.",
        "**Nein — {model} passt in {precision} auf keinen einzelnen Knoten, und ein Job über "
        "{what} lässt sich hier nicht mieten:** Jede Konfiguration ist ein einzelner Server, und "
        "zwischen Servern gibt es kein Fabric.",
    ),
    "multi_node_what_nodes": ("{n} nodes", "{n} Knoten"),
    "multi_node_what_cards": ("{n} cards", "{n} Karten"),
    "multi_node_fits": (
        "What one node does instead: {model} in {precision} fits on the largest nodes, the "
        "cheapest being {label}",
        "Was ein Knoten stattdessen schafft: {model} passt in {precision} auf die größten Knoten, "
        "am günstigsten {label}",
    ),
    "multi_node_no_fit": (
        "What one node does instead: nothing here holds {model} in {precision}; the largest "
        "node falls short:",
        "Was ein Knoten stattdessen schafft: Kein Knoten hält {model} in {precision}; auch der "
        "größte reicht nicht:",
    ),
    "multi_node_largest": (
        "The largest nodes are 8-card servers; the most memory in one node:",
        "Die größten Knoten sind Server mit 8 Karten; am meisten Speicher in einem Knoten:",
    ),
    "multi_node_replicas": (
        "If the nodes would only run independent copies (no job spans them), that works: rent "
        "the nodes separately, each serves its own copy.",
        "Sollen die Knoten nur unabhängige Kopien betreiben (kein Job über mehrere Knoten), geht "
        "das: Mieten Sie die Knoten einzeln, jeder bedient seine eigene Kopie.",
    ),
    "constraints_none": (
        "**Nothing in the catalog meets all of your constraints** ({what}).",
        "**Keine Konfiguration im Katalog erfüllt alle Ihre Vorgaben** ({what}).",
    ),
    "constraints_considered": (
        "Only configurations within your constraints are considered ({what}).",
        "Berücksichtigt sind nur Konfigurationen innerhalb Ihrer Vorgaben ({what}).",
    ),
    "constraints_no_fit": (
        "**No — nothing within your constraints ({what}) holds {model} in {precision}.**",
        "**Nein — innerhalb Ihrer Vorgaben ({what}) hält keine Konfiguration {model} in "
        "{precision}.**",
    ),
    "constraints_outside": (
        "The cheapest configuration outside them that holds it:",
        "Die günstigste Konfiguration außerhalb dieser Vorgaben, die es hält:",
    ),
    "constraints_over_budget": (
        "Above your budget, the cheapest configuration that holds it in {precision}:",
        "Über Ihrem Budget die günstigste Konfiguration, die es in {precision} hält:",
    ),
    "constraints_lower_precision": (
        "Within them it fits at a lower precision, in {precision}:",
        "Innerhalb dieser Vorgaben passt es in geringerer Präzision, in {precision}:",
    ),
    "c_budget": ("your budget", "Ihr Budget"),
    "c_memory": ("the total memory you need", "Ihr Mindestspeicher"),
    "c_exclude": ("without {cards}", "ohne {cards}"),
    "c_nvlink": ("NVLink nodes only", "nur NVLink-Knoten"),
    "c_pcie": ("PCIe nodes only", "nur PCIe-Knoten"),
    "c_fp8": ("FP8 tensor cores", "FP8-Tensorkerne"),
    "c_arch": ("{archs} only", "nur {archs}"),
    "c_per_card": ("the memory per card you need", "Ihr Mindestspeicher pro Karte"),
    "or": ("or", "oder"),
    "and": ("and", "und"),
}

ARCH_NAMES = {"ampere": "Ampere", "ada": "Ada", "hopper": "Hopper", "blackwell": "Blackwell"}


def _archs(archs: Sequence[str], lang: str, join: str = "or") -> str:
    names = [ARCH_NAMES.get(a, a) for a in archs]
    if len(names) < 2:
        return "".join(names)
    return ", ".join(names[:-1]) + f" {p(lang, join)} " + names[-1]


def constraint_args(u: Query) -> dict[str, Any]:
    """The question's constraints as the filters of `tools.constraints.Constraints` (the
    tools' argument names): budget, memory in the node and per card, excluded cards, the link,
    FP8 tensor cores, card generations."""
    c = u.constraints
    link = c.require_link or {"nvlink": "pcie", "pcie": "nvlink"}.get(c.exclude_link or "")
    args: dict[str, Any] = {
        "max_price_usd_month": c.budget_usd_month,
        "min_total_memory_gb": c.min_total_memory_gb,
        "min_memory_per_card_gb": c.min_memory_per_card_gb,
        "exclude_cards": list(c.exclude_cards),
        "require_link": link,
        "require_fp8": c.require_fp8,
        "architectures": list(c.architectures),
        "exclude_architectures": list(c.exclude_architectures),
    }
    return {k: v for k, v in args.items() if v not in (None, [], False)}


def p(lang: str, key: str, **kw: Any) -> str:
    return render(PHRASES, lang, key, **kw)


class NodesMixin(ComposerBase):
    """Jobs bigger than one node; the constraint filters every filtered flow's tools carry."""

    def _filters(self, u: Query) -> dict[str, Any]:
        """The question's constraints as the configurations fit_check / cheapest_fit consider
        (empty: no constraint; ``{"configurations": []}``: nothing meets them)."""
        from tools.constraints import Constraints, configurations_within

        if not u.constraints.active():
            return {}
        cat = self.deps.catalog
        filters = Constraints(**constraint_args(u))
        allowed = configurations_within(cat.configurations.values(), cat.gpus, cat.links, filters)
        return {"configurations": allowed}

    def _constrained(self, d: Draft, u: Query, method: str) -> None:
        """Run a filtered flow within the constraints. When nothing within them holds the job,
        say so first, then where it fits within them at a lower precision, else the cheapest
        configuration outside them that holds it."""
        allowed = d.filters.get("configurations")
        if allowed is None:
            getattr(self, method)(d, u)
            return
        words = d.within = self._constraint_words(d, u)
        if not allowed:
            d.filters = {}
            d.add(p(d.lang, "constraints_none", what=words))
            getattr(self, method)(d, u)
            d.verdict = False  # "Under $200, is there anything that runs it?": no
            return
        # a training job is judged by its training memory (the flow's training_fit, within the
        # constraints), not by the serving fit this probe runs
        if u.has_subject and not self._training(u) and not self._holds_any(d, u, allowed):
            self._nothing_within(d, u, allowed, words)
            d.verdict = False
            return
        getattr(self, method)(d, u)
        if d.filters:  # (a flow that found nothing within them said so and looked outside)
            d.add(p(d.lang, "constraints_considered", what=words))

    def _holds_any(self, d: Draft, u: Query, allowed: list[str]) -> bool:
        fit = self._call_fit(d, u, configurations=allowed)
        d.calls.pop() if fit is not None else None  # only a probe: the flow calls again
        return fit is None or any(r["verdict"] != "does_not_fit" for r in fit["rows"])

    def _nothing_within(self, d: Draft, u: Query, allowed: list[str], words: str) -> None:
        fit = self._call_fit(d, u, configurations=allowed)
        assert fit is not None
        d.add(
            p(
                d.lang,
                "constraints_no_fit",
                model=self._model_name(fit, d.lang),
                precision=precision_label(fit["precision"]),
                what=words,
            )
        )
        self._numbers(d, fit)
        self._lower_precision_within(d, u, allowed)
        # then the cheapest node that holds it at the precision asked: above the budget (the
        # budget is what gives way, exclusions stay), else outside the constraints ("kein
        # NVLink" for DeepSeek R1: only the 8x H200 and 8x B200 hold it in FP8)
        if u.constraints.budget_usd_month is not None:
            self._over_budget(d, u, fit)
            return
        d.filters = {}
        res = self._call_fit(d, u, sort="price")
        best = self._cheapest_row(res["rows"], ("fits_one_card", "split")) if res else None
        if best is not None:
            d.add(p(d.lang, "constraints_outside"))
            d.bullets([self._row_line(d, best)])
        if u.constraints.exclude_link or u.constraints.require_link:
            # "ohne NVLink?": the guide's rule for the job, with what the catalog holds it on
            w = set(u.workloads)
            advice = self._advice(
                d,
                model=self._model_arg(u),
                precision=fit["precision"],
                workload="llm_serving",
                traffic="high" if "traffic" in w else "low" if "low_concurrency" in w else None,
            )
            self._add_advice(d, advice, with_also=False)

    def _over_budget(self, d: Draft, u: Query, fit: dict[str, Any]) -> None:
        """Nothing within the budget holds it: the cheapest node above the budget that does, at
        the precision asked, keeping every other constraint ("keine A6000")."""
        rest = u.constraints.model_copy(update={"budget_usd_month": None})
        allowed = self._filters(u.model_copy(update={"constraints": rest})).get("configurations")
        d.filters = {}
        res = d.call(
            "cheapest_fit",
            model=self._model_arg(u),
            precision=fit["precision"],
            context_tokens=u.context_tokens,
            concurrency=u.concurrency,
            **({"configurations": allowed} if allowed else {}),
        )
        if not res or not res["cheapest"]:
            return
        top = res["cheapest"][0]
        d.result = d.result or [top["configuration"]]  # "und wie schnell wäre das auf dem server?"
        d.add(p(d.lang, "constraints_over_budget", precision=precision_label(fit["precision"])))
        d.bullets(
            [
                f"{d.link(top['configuration'])} ({self._verdict_word(d, top)}): "
                f"{d.price(top['configuration'])}"
            ]
        )

    def _lower_precision_within(self, d: Draft, u: Query, allowed: list[str]) -> bool:
        """Nothing within the constraints holds it at this precision: the cheapest allowed
        configuration that holds it in FP8, else in 4-bit AWQ."""
        asked = u.precision or "bf16"
        for precision in ("fp8", "awq"):
            if precision == asked or (asked in ("fp8", "int8") and precision == "fp8"):
                continue
            if asked.startswith(("awq", "gptq", "gguf")):
                return False
            res = self._call_fit(
                d, u.model_copy(update={"precision": precision}), configurations=allowed
            )
            best = self._cheapest_row(res["rows"], ("fits_one_card", "split")) if res else None
            if best is not None:
                label = precision_label(precision)
                d.add(p(d.lang, "constraints_lower_precision", precision=label))
                d.bullets([self._row_line(d, best)])
                return True
        return False

    def _constraint_words(self, d: Draft, u: Query) -> str:
        c = u.constraints
        words = []
        if c.budget_usd_month:
            words.append(p(d.lang, "c_budget"))
        if c.min_total_memory_gb:
            words.append(p(d.lang, "c_memory"))
        if c.exclude_cards:
            words.append(p(d.lang, "c_exclude", cards=", ".join(self._card_names(c.exclude_cards))))
        link = c.require_link or {"nvlink": "pcie", "pcie": "nvlink"}.get(c.exclude_link or "")
        if link:
            words.append(p(d.lang, "c_" + link))
        if c.require_fp8:
            words.append(p(d.lang, "c_fp8"))
        if c.architectures:
            words.append(p(d.lang, "c_arch", archs=_archs(c.architectures, d.lang)))
        if c.exclude_architectures:
            words.append(p(d.lang, "c_exclude", cards=_archs(c.exclude_architectures, d.lang)))
        if c.min_memory_per_card_gb:
            words.append(p(d.lang, "c_per_card"))
        return ", ".join(words)

    def _card_names(self, cards: list[str]) -> list[str]:
        """'H100' for both H100s, else each card's short name."""
        names, left = [], list(cards)
        for family, members in CARD_FAMILIES.items():
            if set(members) <= set(left):
                names.append(family.upper())
                left = [c for c in left if c not in members]
        return names + [self.deps.catalog.gpus[g].short_name for g in left]

    def _multi_node(self, d: Draft, u: Query) -> None:
        what = (
            p(d.lang, "multi_node_what_nodes", n=u.nodes)
            if u.nodes and u.nodes > 1
            else p(d.lang, "multi_node_what_cards", n=u.total_cards)
        )
        fit = None
        if u.has_subject:
            ids = sorted(c.id for c in self.deps.catalog.configurations.values() if c.count == 8)
            fit = self._call_fit(d, u, configurations=ids, sort="price")
        if fit is not None and all(r["verdict"] == "does_not_fit" for r in fit["rows"]):
            model = self._model_name(fit, d.lang)
            prec = precision_label(fit["precision"])
            d.add(p(d.lang, "multi_node_no_fit_lead", model=model, precision=prec, what=what))
        else:
            d.add(p(d.lang, "multi_node", what=what))
        advice = self._advice(
            d,
            fits_one_card=False,
            cards_needed=max(u.total_cards or 0, 9),
            workload="training" if self._training(u) else "llm_serving",
        )
        self._add_advice(d, advice, with_also=False)
        eight = [c for c in self.deps.catalog.configurations.values() if c.count == 8]
        if fit is not None:
            self._largest_node_fit(d, fit)
        elif not u.has_subject:
            biggest = sorted(
                eight,
                key=lambda c: -self.deps.catalog.gpus[c.gpu].memory_gb * c.count,
            )[:2]
            d.call("price_quote", configurations=[c.id for c in biggest])
            d.add(p(d.lang, "multi_node_largest"))
            d.bullets([f"{d.link(c.id)}: {d.price(c.id)}" for c in biggest])
        if "independent" in u.workloads or "traffic" in u.workloads:
            d.add(p(d.lang, "multi_node_replicas"))
        if u.has_subject:
            spec = self.deps.catalog.models.get(u.model) if u.model else None
            name = generic_name(spec.name if spec else self._model_arg(u) or "", d.lang)
            d.suggest(follow_up(d.lang, "cheapest", model=name))
        d.suggest(follow_up(d.lang, "fit_example"))
        d.suggest(follow_up(d.lang, "price_example"))

    def _largest_node_fit(self, d: Draft, fit: dict[str, Any]) -> None:
        model = self._model_name(fit, d.lang)
        prec = precision_label(fit["precision"])
        holds = [r for r in fit["rows"] if r["verdict"] != "does_not_fit"]
        if holds:
            best = self._cheapest_row(holds, ("fits_one_card", "split"))
            assert best is not None
            d.add(
                p(
                    d.lang,
                    "multi_node_fits",
                    model=model,
                    precision=prec,
                    label=d.link(best["configuration"]),
                )
                + " "
                + d.price(best["configuration"])
                + "."
            )
            d.bullets([self._row_line(d, best)])
            return
        d.add(p(d.lang, "multi_node_no_fit", model=model, precision=prec))
        rows = sorted(fit["rows"], key=lambda r: -r["usable_gb_per_card"])[:1]
        d.bullets([self._row_line(d, r) for r in rows])
        self._numbers(d, fit)
