"""Price flows: the price and facts of named nodes, two nodes compared for one model, the cheapest
node for a model, the most VRAM per dollar, where the prices come from, and price and speed
asked together.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from assistant.compose.base import ComposerBase
from assistant.compose.draft import EXAMPLE_MODEL, Draft
from assistant.compose.nodes import ARCH_NAMES, constraint_args
from assistant.compose.polarity import yes_no_word
from assistant.compose.speed import MUCH_FASTER
from assistant.nlu import CARD_FAMILIES, Query
from assistant.texts import follow_up, gb, num, precision_label, t, tokens, usd
from tools.load import concurrent_sequences


class PricesMixin(ComposerBase):
    """What it costs."""

    # ---- price
    def _price(self, d: Draft, u: Query) -> None:
        ids, intro = self._price_ids(d, u)
        if not ids:
            if u.has_subject:
                self._cheapest(d, u)
                return
            if constraint_args(u):
                # "at least 48 GB per card, under €1,000: what do you have?": the nodes within
                self._cheapest_without_model(d, u)
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
        hourly = "per_hour" in u.topics  # "whats the hourly rate on your A6000 server?"
        lines = [self._price_line(d, q, hourly) for q in pq["quotes"]]
        if len(lines) == 1:
            self._price_one(d, u, ids[0], pq["quotes"][0])
        else:
            self._price_many(d, u, intro, lines, pq)
        budget = u.constraints.budget_usd_month
        if budget is not None and u.yes_no and u.claim is None and pq["quotes"]:
            # "liegt das noch unter 20.000 € im Monat?": each node named against the budget
            d.verdict = all(float(q["usd_per_month"]) <= budget for q in pq["quotes"])
        published = [c for c in ids if c in ("4x-a100-pcie", "4x-a100-sxm4")]
        if published:
            key = "price_source_guide" if len(published) == 2 else "price_source_guide_one"
            d.add(t(d.lang, key) + d.cite("same-job-both-ways", contains=r"\$"))
        if any(self.deps.catalog.configurations[c].placeholder for c in ids):
            d.add(t(d.lang, "placeholder_note"))
        d.suggest(follow_up(d.lang, "nvlink_example"))
        d.suggest(follow_up(d.lang, "fit_example"))

    def _price_ids(self, d: Draft, u: Query) -> tuple[list[str], str]:
        """The configurations to price and the intro key of their list: those named; else the
        nearest counts of a card with no node of that count; else a family's nodes (of the count
        said); else every node of the cards named."""
        cat = self.deps.catalog
        ids = [c for c in u.configurations if c in cat.configurations]
        intro = "price_intro_many"
        cards = list(u.cards) + [c for f in u.card_families for c in CARD_FAMILIES[f]]
        if not ids and cards and u.count is not None:
            ids, intro = self._nearest_counts(d, u, cards, intro)
        if not ids and u.card_families:
            ids, intro = self._family_ids(d, u, intro)
        if not ids and u.cards:
            ids = [c.id for card in u.cards for c in cat.configurations.values() if c.gpu == card]
            intro = "price_card_all"
        return ids, intro

    def _nearest_counts(
        self, d: Draft, u: Query, cards: list[str], intro: str
    ) -> tuple[list[str], str]:
        """ "3x H100": no such node; the nearest counts below and above, with prices."""
        cat = self.deps.catalog
        same = [c for c in cat.configurations.values() if c.gpu in cards]
        if u.count is None or not same or any(c.count == u.count for c in same):
            return [], intro
        below = [c.count for c in same if c.count < u.count]
        above = [c.count for c in same if c.count > u.count]
        near = {max(below)} if below else set()
        near |= {min(above)} if above else set()
        ids = [c.id for c in same if c.count in near and not c.id.endswith("-gen4")]
        name = u.card_families[0].upper() if u.card_families else cat.gpus[cards[0]].short_name
        key = "price_no_single" if u.count == 1 else "price_no_count"
        d.add(t(d.lang, key, count=u.count, card=name))
        return ids, ""

    def _family_ids(self, d: Draft, u: Query, intro: str) -> tuple[list[str], str]:
        """The nodes of the card families named (of the count said), and what the list is."""
        cat = self.deps.catalog
        ids = [
            c.id
            for fam in u.card_families
            for card in CARD_FAMILIES[fam]
            for c in cat.configurations.values()
            if c.gpu == card and (u.count is None or c.count == u.count)
        ]
        if u.count is None or not ids:
            return ids, intro
        variants = {cat.configurations[c].gpu for c in ids}
        key = "price_family" if len(variants) > 1 else "price_family_one"
        d.add(t(d.lang, key, family=f"{u.count}x {u.card_families[0].upper()}"))
        return ids, ""

    def _price_line(self, d: Draft, q: dict[str, Any], hourly: bool = False) -> str:
        """One node of a price list: memory, link and price (per hour first when asked so)."""
        cid = q["configuration"]
        node = d.call("interconnect_facts", configurations=[cid])
        link = ""
        if node:
            info = node["nodes"][0]["link"]
            link = (
                f" ({gb(d.lang, q['total_memory_gb'])} VRAM, {info['name']} · "
                f"{num(d.lang, info['bandwidth_gb_s'])} GB/s)"
            )
        if hourly:
            per = t(d.lang, "price_line_hourly", per=usd(q["usd_per_hour"]), price=d.price(cid))
            return f"{d.link(cid)}{link}: {per}"
        return f"{d.link(cid)}{link}: **{d.price(cid)}**"

    def _price_one(self, d: Draft, u: Query, cid: str, q: dict[str, Any]) -> None:
        """One node: its price (per card when asked), its cards, memory and link; asked yes/no
        against a budget ("4.500 € im Monat Budget: geht sich 4x A100 SXM4 damit aus?"), whether
        the price is within it (a euro budget compared 1:1, docs/reading.md)."""
        budget = u.constraints.budget_usd_month
        if budget is not None and u.yes_no:
            d.verdict = q["usd_per_month"] <= budget
            key = "price_within_budget" if d.verdict else "price_over_budget"
            d.add(f"**{t(d.lang, key, label=d.link(cid), price=d.price(cid))}**")
        elif "per_hour" in u.topics:  # "was kostet eine H100 pro Stunde?": the hour leads
            per = usd(q["usd_per_hour"])
            d.add(t(d.lang, "price_per_hour", label=d.link(cid), per=per, price=d.price(cid)))
        else:
            d.add(f"**{d.link(cid)}: {d.price(cid)}**")
        if "per_card" in u.topics and q["count"] > 1:
            d.add(t(d.lang, "price_per_card", per=usd(q["usd_per_card_month"])))
        node = next((c.result for c in reversed(d.calls) if c.name == "interconnect_facts"), None)
        if not node:
            return
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

    def _price_many(
        self, d: Draft, u: Query, intro: str, lines: list[str], pq: dict[str, Any]
    ) -> None:
        """Several nodes: the intro, one line each, and the difference when there are two."""
        pair = len(lines) == 2 and bool(pq.get("difference_usd_per_month"))
        if pair and intro == "price_intro_many" and u.claim not in ("costlier", "cheaper"):
            # "What does A cost, and how much more than B?": A's price and the difference lead
            self._price_pair_lead(d, u, pq)
            d.bullets(lines)
            return
        if intro == "price_card_all":
            d.add(t(d.lang, intro, card=self.deps.catalog.gpus[u.cards[0]].short_name))
        elif intro:
            d.add(t(d.lang, intro))
        d.bullets(lines)
        if not pair:
            return
        if not self._price_claim(d, u, pq):
            d.add(d.price_difference(pq))

    def _price_pair_lead(self, d: Draft, u: Query, pq: dict[str, Any]) -> None:
        """Two nodes priced: the one named first, its price, and what it costs more or less
        than the other, from the quotes."""
        prices = {q["configuration"]: q["usd_per_month"] for q in pq["quotes"]}
        named = [c for c in u.configurations if c in prices] or list(prices)
        first = named[0]
        other = next(c for c in prices if c != first)
        key = "price_pair_more" if prices[first] > prices[other] else "price_pair_less"
        d.add(
            t(
                d.lang,
                key,
                first=d.label(first),
                price=d.price(first),
                other=d.label(other),
                diff=usd(pq["difference_usd_per_month"]),
            )
        )

    def _price_claim(self, d: Draft, u: Query, pq: dict[str, Any]) -> bool:
        """ "Is A more expensive than B? By how much?" / "Is A cheaper than B?" about the two
        nodes priced: the yes or no and the difference lead the price list, from the quotes (A
        is the one named first). False when the question asks no such claim."""
        if u.claim not in ("costlier", "cheaper"):
            return False
        prices = {q["configuration"]: q["usd_per_month"] for q in pq["quotes"]}
        named = [c for c in u.configurations if c in prices]
        if len(named) != 2 or prices[named[0]] == prices[named[1]]:
            return False
        first_costs_more = prices[named[0]] > prices[named[1]]
        d.verdict = first_costs_more if u.claim == "costlier" else not first_costs_more
        word = yes_no_word(d.lang, bool(d.verdict))
        lead = next(i for i, para in enumerate(d.paras) if not para.startswith("_"))
        d.paras.insert(lead, f"**{word} — {d.price_difference(pq)}**")
        return True

    # ---- two named nodes for a training job
    def _compare_training(self, d: Draft, u: Query, cids: list[str]) -> bool:
        """ "Full fine-tune of Llama 3.1 8B: would you go 4x A100 PCIe or 4x A100 SXM4, and
        what's the price difference?": both nodes judged for the training memory
        (training_fit), the one the guide's training rule picks (NVLink for a job split across
        cards), and the price difference. False when the tools cannot size it."""
        method = u.adapter or "full"
        tf = d.call("training_fit", model=self._model_arg(u), method=method, configurations=cids)
        pq = d.call("price_quote", configurations=cids)
        advice = self._advice(d, model=self._model_arg(u), workload="training", method=method)
        if not tf or not pq or not advice:
            return False
        rows = {r["configuration"]: r for r in tf["rows"]}
        holding = [c for c in cids if rows.get(c, {}).get("fits_node")]
        linked = [c for c in holding if rows[c]["link_kind"] == "nvlink"]
        pick: str | None = None
        if advice.get("needs_nvlink") and (linked or holding):
            pick = (linked or holding)[0]
        elif holding:
            pick = min(holding, key=lambda c: Decimal(str(rows[c]["usd_per_month"])))
        total = gb(d.lang, tf["total_gb"])
        key = "compare_train_pick" if pick else "compare_train_none"
        job = {"lora": "LoRA", "qlora": "QLoRA"}.get(method) or t(d.lang, "full_fine_tune_word")
        d.add(t(d.lang, key, label=d.link(pick) if pick else "", total=total, job=job))
        d.bullets([self._holds_line(d, rows[c]) if rows[c]["fits_node"] else
                   t(d.lang, "train_named_short", label=d.link(c), total=total,
                     usable=gb(d.lang, rows[c]["usable_gb_node"])) + " " + d.price(c)
                   for c in cids if c in rows])  # fmt: skip
        if pq.get("cheapest"):
            d.add(d.price_difference(pq))
        self._add_advice(d, advice, with_also=False)
        d.result = [pick] if pick else []
        return True

    # ---- two named nodes for one model
    def _compared_cards(self, u: Query, full: dict[str, Any]) -> list[str]:
        """The nodes of cards named without counts: one card of each when one of them holds the
        model by itself ("L40S or RTX 5090, which one can hold it?": the 5090 can't), else the
        smallest node of each that holds it."""
        singles = self._targets(u.model_copy(update={"count": 1}), full)
        if (
            u.count is None
            and len(singles) >= 2
            and all(r["count"] == 1 for r in singles)
            and any(r["verdict"] == "fits_one_card" for r in singles)
        ):
            return [r["configuration"] for r in singles][:4]
        return [r["configuration"] for r in self._targets(u, full)][:4]

    def _compare_nodes(self, d: Draft, u: Query) -> None:
        """Which of the named nodes is cheaper for the model: prices, fit and speed side by side."""
        cids = [c for c in u.configurations if c in self.deps.catalog.configurations][:4]
        if self._training(u) and len(cids) == 2 and self._compare_training(d, u, cids):
            return
        if len(cids) < 2:
            # cards without counts ("H200 or H100?"): the smallest node of each that holds it
            full = self._call_fit(d, u)
            if full is None:
                self._fit_answer(d, u)
                return
            cids = self._compared_cards(u, full)
            d.calls.pop()  # the catalog-wide fit was only for choosing the nodes
        fit = self._call_fit(d, u, configurations=cids)
        pq = d.call("price_quote", configurations=cids)
        if fit is None or pq is None:
            self._price(d, u)
            return
        model = self._model_name(fit, d.lang)
        prec = precision_label(fit["precision"])
        rows = {r["configuration"]: r for r in fit["rows"]}
        self._absent_note(d, u, list(rows.values()))
        cheap = pq.get("cheapest") or cids[0]
        diff = pq.get("difference_usd_per_month")
        if len(cids) == 2 and diff:
            other = next(c for c in cids if c != cheap)
            only_other = (
                cheap in rows
                and other in rows
                and rows[cheap]["verdict"] == "does_not_fit"
                and rows[other]["verdict"] != "does_not_fit"
            )
            d.result = [other if only_other else cheap]
            d.add(
                t(
                    d.lang,
                    "compare_only_other" if only_other else "compare_cheaper",
                    cheap=d.label(cheap) if only_other else d.link(cheap),
                    other=d.link(other) if only_other else d.label(other),
                    diff=usd(diff),
                    model=model,
                    precision=prec,
                )
            )
        else:
            d.add(t(d.lang, "compare_title_model", model=model, precision=prec))
        lead_at = len(d.paras) - 1
        topic = self._cite_topic_guides(d, u, fit)
        costs: dict[str, float] = {}
        speeds: dict[str, float] = {}
        d.bullets(
            [self._compared_line(d, u, rows[c], fit, costs, speeds) for c in cids if c in rows]
        )
        if len(cids) == 2:
            d.verdict = _first_wins(cids, rows, costs)  # "Is the B200 worth it over the H200?"
        if len(cids) > 2 or not (len(cids) == 2 and diff) or u.claim == "worth_it":
            d.paras[lead_at] = self._compare_verdict(d, rows, costs, model, prec)
        faster = _speed_lead(d, u, speeds, model, prec)
        if faster:  # "… and how many tok/s vs a single H100?": the speed asked, not the price
            d.paras[lead_at] = faster
            if u.claim == "faster" and len(cids) == 2 and all(c in speeds for c in cids):
                first, second = speeds[cids[0]], speeds[cids[1]]
                d.verdict = first >= MUCH_FASTER * second if u.claim_by_much else first > second
        d.paras[lead_at] += topic
        key = "weights_only" if not self._is_image(fit) else "image_need"
        d.add(
            t(
                d.lang,
                key,
                weights=gb(d.lang, fit["weights_gb"]),
                need=gb(d.lang, fit["weights_gb"]),
                precision=prec,
            )
        )
        if self._is_image(fit):
            self._image_room(d, [rows[c] for c in cids if c in rows], fit["rows"])
            if (u.concurrency or 0) > 1:  # "4 designers at the same time": a card each
                d.add(
                    t(d.lang, "image_copies", n=u.concurrency)
                    + d.cite("many-cards", guide="gpu-for-flux-sdxl")
                )
        if any(c in ("4x-a100-pcie", "4x-a100-sxm4") for c in cids):
            d.add(
                t(d.lang, "speed_floor")
                + d.cite("same-job-both-ways", contains=r"konservativ|conservative")
            )
        split = [r for r in rows.values() if r["verdict"] == "split"]
        one = [  # a one-card node that holds it (not one card of a 4/8-card H200 node)
            c
            for c in cids
            if c in rows and rows[c]["verdict"] == "fits_one_card" and rows[c]["count"] == 1
        ]
        if split and one and not self._is_image(fit):
            # "2x L40S vs 1x A100": one of the named nodes holds it on one card, so the guide's
            # rule is rule 1 (buy one card), not the rules for a model too big for one card
            advice = self._advice(d, fits_one_card=True)
            lead = t(d.lang, "rule_bridge_one_card", label=d.link(one[0]))
            self._add_advice(d, advice, with_also=False, lead=lead)
        elif split and not self._is_image(fit):
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

    def _compared_line(
        self,
        d: Draft,
        u: Query,
        r: dict[str, Any],
        fit: dict[str, Any],
        costs: dict[str, float],
        speeds: dict[str, float],
    ) -> str:
        """One compared node: fit, speed (into `speeds`, its cost per million tokens into
        `costs`), price."""
        cid = r["configuration"]
        line = self._row_line(d, r, with_price=False)
        if r["verdict"] != "does_not_fit" and not self._is_image(fit):
            tput = d.call(
                "throughput_estimate",
                model=self._model_arg(u),
                configuration=cid,
                precision=u.precision,
            )
            if tput:
                speeds[cid] = float(tput["tokens_per_s"])
                line += " " + t(d.lang, "tps", tps=tokens(d.lang, tput["tokens_per_s"])) + "."
                if tput.get("usd_per_million_tokens") is not None:
                    costs[cid] = float(tput["usd_per_million_tokens"])
        return line + " " + d.price(cid)

    def _nvlink_outside(self, d: Draft, u: Query, why: str) -> None:
        """The guide's rule asks for NVLink but no NVLink node within the constraints holds the
        model (issue 26: a PCIe pick beside "buy SXM" said nothing): say so, with the cheapest
        NVLink node outside them and its price."""
        filters, d.filters = d.filters, {}
        try:
            nv = self._call_cheapest(d, u, interconnect="nvlink")
        finally:
            d.filters = filters
        if nv and nv["cheapest"]:
            cid = nv["cheapest"][0]["configuration"]
            d.add(
                t(d.lang, "cheapest_nvlink_outside", why=why, label=d.link(cid))
                + " "
                + d.price(cid)
            )

    def _cheapest_with_room(self, d: Draft, u: Query, top: dict[str, Any]) -> None:
        """An image/video model on the cheapest card that only just holds it: the guide's
        warning and the cheapest node with room to spare."""
        full = self._call_fit(d, u)
        if full is None:
            return
        same = [r for r in full["rows"] if r["configuration"] == top["configuration"]]
        self._image_room(d, same, full["rows"])

    def _compare_verdict(
        self,
        d: Draft,
        rows: dict[str, dict[str, Any]],
        costs: dict[str, float],
        model: str,
        prec: str,
    ) -> str:
        """The winner of a comparison and its criterion: the lowest cost per million tokens
        among the nodes that hold the model, else the cheapest that holds it."""
        holding = [c for c, r in rows.items() if r["verdict"] != "does_not_fit"]
        if not holding:
            return t(d.lang, "compare_none_holds", model=model, precision=prec)
        priced = [c for c in holding if c in costs]
        if len(priced) >= 1 and len(holding) >= 2:
            winner = min(priced, key=lambda c: (costs[c], c))
            d.result = [winner]
            return t(
                d.lang,
                "compare_best_value",
                label=d.link(winner),
                model=model,
                precision=prec,
                cost=usd(costs[winner]),
            )
        best = self._cheapest_row([rows[c] for c in holding], ("fits_one_card", "split"))
        assert best is not None
        d.result = [best["configuration"]]
        return t(
            d.lang,
            "compare_cheapest_holding",
            label=d.link(best["configuration"]),
            model=model,
            precision=prec,
        )

    # ---- VRAM per dollar, price sources
    def _vram_per_dollar(self, d: Draft, u: Query) -> None:
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

    def _price_sources(self, d: Draft, u: Query) -> None:
        published = ["4x-a100-pcie", "4x-a100-sxm4"]
        d.call("price_quote", configurations=published)
        d.add(t(d.lang, "price_sources"))
        d.bullets([f"{d.link(c)}: **{d.price(c)}**" for c in published])
        d.add(t(d.lang, "price_source_guide") + d.cite("same-job-both-ways", contains=r"\$"))
        d.add(t(d.lang, "placeholder_note"))
        d.suggest(follow_up(d.lang, "price_example"))

    # ---- price and speed in one question
    def _price_and_speed(self, d: Draft, u: Query) -> None:
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
    def _cheapest_without_model(self, d: Draft, u: Query) -> None:
        """'The cheapest node (with NVLink / within my constraints)': no model to size. Within
        constraints, `nodes_within` names the cheapest node meeting all of them and the cheaper
        node each constraint alone excluded."""
        nvlink = "nvlink_named" in u.topics and not u.constraints.exclude_link
        args = constraint_args(u)
        if nvlink and "require_link" not in args:
            args["require_link"] = "nvlink"
        if not args:
            self._cheapest_in_catalog(d, u)
            return
        res = d.call("nodes_within", **args)
        if not res or not res["cheapest"]:
            self._ask_model(d, u)
            return
        top, more = res["cheapest"][0], res["cheapest"][1:3]
        key = "cheapest_within" if u.constraints.active() else "cheapest_catalog_nvlink"
        cid = top["configuration"]
        d.add(t(d.lang, key, label=d.link(cid)) + " " + d.price(cid))
        d.bullets([f"{d.link(r['configuration'])}: {d.price(r['configuration'])}" for r in more])
        for ex in res["excluded_by_one"][:2]:
            d.add(self._excluded_line(d, ex))
        d.suggest(follow_up(d.lang, "fit_example"))

    def _excluded_line(self, d: Draft, ex: dict[str, Any]) -> str:
        """'4x A100 SXM4 ($4,395/month) costs less but has no FP8 tensor cores.'"""
        cid = ex["configuration"]
        why = _WHY_EXCLUDED.get(ex["constraint"], "why_constraint")
        if why == "why_link":
            why += "_" + ex["link_kind"]
        arch = ARCH_NAMES.get(ex.get("architecture") or "", "")
        return t(
            d.lang,
            "excluded_cheaper",
            label=d.label(cid),
            price=d.price(cid),
            why=t(
                d.lang,
                why,
                mem=gb(d.lang, ex["total_memory_gb"]),
                per=gb(d.lang, ex["memory_gb_per_card"]),
                arch=arch,
            ),
        )

    def _cheapest_in_catalog(self, d: Draft, u: Query) -> None:
        configs = self.deps.catalog.configurations
        ids = list(d.filters.get("configurations") or configs)
        pq = d.call("price_quote", configurations=ids) if ids else None
        if pq and pq.get("cheapest"):
            cid = pq["cheapest"]
            d.add(t(d.lang, "cheapest_catalog", label=d.link(cid)) + " " + d.price(cid))
        self._ask_model(d, u)

    def _oversized(self, d: Draft, u: Query) -> None:
        """ "Is an H100 overkill for Llama 3.1 8B?": yes when a cheaper node holds the same job
        (the cheapest one, with its price against the one named), no when the one named is the
        cheapest that holds it. Led with, before the fit rows of the node named."""
        fits = [c.result for c in d.calls if c.name == "fit_check" and isinstance(c.result, dict)]
        named = self._targets(u, fits[0]) if fits and u.has_subject else []
        if not named or named[0]["verdict"] == "does_not_fit":
            return
        res = self._call_cheapest(d, u)
        if not res or not res["cheapest"]:
            return
        top, mine = res["cheapest"][0], named[0]
        diff = 0.0  # the difference the price tool quotes, when the cheapest is another node
        if top["configuration"] != mine["configuration"]:
            pq = d.call("price_quote", configurations=[mine["configuration"], top["configuration"]])
            if pq is None or pq.get("cheapest") != top["configuration"]:
                return
            diff = float(pq.get("difference_usd_per_month") or 0)
        model = self._model_name(res, d.lang)
        word = {True: "Yes", False: "No"} if d.lang == "en" else {True: "Ja", False: "Nein"}
        key = "oversized_yes" if diff > 0 else "oversized_no"
        lead = t(
            d.lang,
            key,
            word=word[diff > 0],
            named=d.label(mine["configuration"]),
            model=model,
            label=d.link(top["configuration"]),
            verdict=self._verdict_with_need(d, top),
            diff=usd(diff),
        )
        for i, para in enumerate(d.paras[:3]):
            fit_lead = re.match(r"\*\*(?:Yes|No|Ja|Nein) — (.)", para)
            if fit_lead:  # the fit's own yes/no answers another question: kept as a statement
                d.paras[i] = "**" + fit_lead.group(1).upper() + para[fit_lead.end() :]
                break
        d.paras.insert(0, lead + " " + d.price(top["configuration"]))
        d.verdict = diff > 0

    def _image_one_copy(
        self, d: Draft, u: Query, model: str, prec: str, interconnect: str | None
    ) -> bool:
        """An image/video job for N at once that no node within the constraints gives a card
        each: said so, and the cheapest that holds one copy (the images take turns on it)."""
        n = u.concurrency or 0
        if n < 2:
            return False
        one = self._call_cheapest(d, u, concurrency=None, interconnect=interconnect)
        if not one or one["model"]["kind"] == "llm" or not one["cheapest"]:
            return False
        top = one["cheapest"][0]
        d.verdict = False
        d.add(
            t(d.lang, "image_no_card_each", n=n, model=model, precision=prec)
            + d.cite("many-cards", guide="gpu-for-flux-sdxl")
        )
        d.add(
            t(
                d.lang,
                "image_one_copy",
                label=d.link(top["configuration"]),
                verdict=self._verdict_with_need(d, top),
            )
            + " "
            + d.price(top["configuration"])
        )
        d.result = [top["configuration"]]
        return True

    def _cheapest_none(
        self, d: Draft, u: Query, model: str, prec: str, interconnect: str | None, one_card: bool
    ) -> None:
        """Nothing the pick may take holds the job: no single card (and the split instead), an
        image job's one copy, or no configuration at all."""
        if one_card and self._no_single_card(d, u, model, prec, interconnect):
            return
        if not self._image_one_copy(d, u, model, prec, interconnect):
            d.add(t(d.lang, "cheapest_none", model=model, precision=prec))

    def _no_single_card(
        self, d: Draft, u: Query, model: str, prec: str, interconnect: str | None
    ) -> bool:
        """A one-card pick that nothing gives ("reicht da nicht eine Karte?" with a budget): no
        single card (within the constraints) holds it, with the need on one card
        (memory_need), and the cheapest node that holds it split across its cards. False when
        nothing holds it at all."""
        split = self._call_cheapest(d, u, interconnect=interconnect, one_card=False)
        rows = split["cheapest"] if split else []
        mem = (
            d.call(
                "memory_need",
                model=self._model_arg(u),
                precision=u.precision,
                context_tokens=u.context_tokens,
                concurrency=u.concurrency,
            )
            if rows
            else None
        )
        if not rows or not mem:
            return False  # nothing holds it, or no figure for the need: "no configuration"
        need = gb(d.lang, mem["required_gb_per_card"])
        d.verdict = False
        key = "cheapest_no_single_card_within" if d.filters else "cheapest_no_single_card"
        d.add(t(d.lang, key, model=model, precision=prec, need=need))
        cid = rows[0]["configuration"]
        d.result = [cid]
        verdict = self._verdict_with_need(d, rows[0])
        line = t(d.lang, "cheapest_split_instead", label=d.link(cid), verdict=verdict)
        d.add(line + " " + d.price(cid))
        return True

    def _cheapest_room(self, d: Draft, u: Query, res: dict[str, Any], top: dict[str, Any]) -> None:
        """After the pick: an image job's card per person at once and its room to spare, or a
        tight LLM pick's cheapest with room."""
        if res["model"]["kind"] != "llm":
            if (u.concurrency or 0) > 1:  # a card for each job at once (the tool keeps only those)
                d.add(
                    t(d.lang, "image_copies", n=u.concurrency)
                    + d.cite("many-cards", guide="gpu-for-flux-sdxl")
                )
            self._cheapest_with_room(d, u, top)
        elif top.get("room") == "tight":
            roomy = res.get("cheapest_with_room")
            self._llm_room(d, [top], [top, roomy] if roomy else [top])

    def _cheapest(self, d: Draft, u: Query) -> None:
        if not u.has_subject:
            self._cheapest_without_model(d, u)
            return
        if self._training(u):
            # fine-tuning or training needs gradients and optimizer state, not the serving
            # memory: the fit flow sizes that and names the cheapest node that holds it
            self._fit_answer(d, u)
            return
        # "the cheapest NVLink/SXM node", "the cheapest PCIe node": only that kind
        # (the reader's constraints: "Do we need NVLink?" names NVLink without requiring it)
        interconnect = u.constraints.require_link or {"nvlink": "pcie", "pcie": "nvlink"}.get(
            u.constraints.exclude_link or ""
        )
        # "the cheapest single card for X" or a one-card pick the reading requires: only where it
        # fits on one card (never `one_card=None`, which would lift the reading's requirement)
        # (not "we run it on a single A100 today": a card named with its count is a setup)
        one_card = (
            u.count == 1 and not (u.configurations or u.cards or u.card_families)
        ) or u.constraints.one_card
        only_one = {"one_card": True} if one_card else {}
        res = self._call_cheapest(d, u, interconnect=interconnect, **only_one)
        if res is None:
            self._general(d, u)
            return
        model = self._model_name(res, d.lang)
        prec = precision_label(res["precision"])
        rows = res["cheapest"]
        d.verdict = bool(rows)  # "Can I rent X?": something holds it
        asks_pick = u.claim is None or "is_the_cheapest" in u.topics  # "…that runs it?"
        if rows and u.yes_no and asks_pick and u.configurations:
            # "ist 4x L40S das günstigste für Mixtral?": yes when the node named is the pick
            d.verdict = rows[0]["configuration"] in u.configurations
        if not rows:
            self._cheapest_none(d, u, model, prec, interconnect, one_card)
            return
        top = rows[0]
        d.result = [top["configuration"]]
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
                verdict=self._verdict_with_need(d, top),
            )
            + " "
            + d.price(top["configuration"])
            + self._cite_topic_guides(d, u, res)
        )
        self._cheapest_room(d, u, res, top)
        more = [
            f"{d.link(r['configuration'])} ({self._verdict_word(d, r)}): "
            f"{d.price(r['configuration'])}"
            for r in rows[1:3]
        ]
        if more:
            d.add(t(d.lang, "cheapest_more"))
            d.bullets(more)
        w = set(u.workloads)
        # a one-card node among the cheapest holds it: the guide's case is "fits on one card",
        # even when two smaller cards cost less (never "too big for one card" beside it)
        one = next((r for r in rows if r["verdict"] == "fits_one_card" and r["count"] == 1), None)
        if top["verdict"] == "split" and one is None and ("traffic" in w or self._training(u)):
            nv = self._call_cheapest(d, u, interconnect="nvlink")
            why = t(d.lang, "why_training" if self._training(u) else "why_traffic")
            if nv and nv["cheapest"] and "recommend" in u.topics:
                # "which server would you recommend?": the guide's pick leads, the cheapest follows
                pick = nv["cheapest"][0]
                cid = pick["configuration"]
                lead = t(
                    d.lang,
                    "recommend_nvlink",
                    model=model,
                    precision=prec,
                    why=why,
                    label=d.link(cid),
                    verdict=self._verdict_with_need(d, pick),
                )
                d.paras.insert(0, lead + " " + d.price(cid))
                d.result = [cid]
            elif nv and nv["cheapest"]:
                cid = nv["cheapest"][0]["configuration"]
                d.add(t(d.lang, "cheapest_nvlink", why=why, label=d.link(cid)) + " " + d.price(cid))
            elif d.filters:
                self._nvlink_outside(d, u, why)
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
        if res["model"]["kind"] == "llm" and res["concurrency"] > 1:
            d.add(
                t(
                    d.lang,
                    "sized_for_load",
                    conc=res["concurrency"],
                    context=num(d.lang, res["context_tokens"]),
                    kv=gb(d.lang, res["kv_gb"]),
                )
            )
        by_share = bool(u.users) and res["concurrency"] == concurrent_sequences(u.users or 1)
        if res["model"]["kind"] == "llm" and by_share:
            d.add(t(d.lang, "users_share", users=u.users, conc=res["concurrency"]))
        fits_one = top["verdict"] == "fits_one_card" or one is not None
        cards_needed = top["cards_needed"] if not fits_one else None
        advice = self._advice(
            d,
            fits_one_card=fits_one,
            cards_needed=cards_needed,
            workload="training"
            if self._training(u)
            else ("image_video" if res["model"]["kind"] != "llm" else "llm_serving"),
            traffic="high" if "traffic" in w else "low",
        )
        bridge = (
            t(d.lang, "rule_bridge_one_card", label=d.link(one["configuration"]))
            if one is not None and top["verdict"] != "fits_one_card"
            else ""
        )
        self._split_rules(d, u, advice, cards_needed, lead=bridge, with_also=False)
        if top.get("price_source") == "placeholder":
            d.add(t(d.lang, "placeholder_note"))
        self._fit_follow_ups(d, u, {**fit_like, "rows": rows}, top)


# why a cheaper node is left out, per constraint (texts.py keys)
_WHY_EXCLUDED = {
    "require_fp8": "why_no_fp8",
    "require_link": "why_link",
    "min_total_memory_gb": "why_memory",
    "min_memory_per_card_gb": "why_per_card",
    "architectures": "why_arch",
    "exclude_architectures": "why_arch",
    "exclude_cards": "why_card",
    "max_price_usd_month": "why_budget",
}


def _speed_lead(d: Draft, u: Query, speeds: dict[str, float], model: str, prec: str) -> str | None:
    """The lead of a comparison that asks the speed and not the price: the faster of two nodes
    that hold the model, with both figures (None otherwise)."""
    kinds = {a.kind for a in u.asks}
    if "speed" not in kinds or len(speeds) != 2:
        return None
    if "price" in kinds and u.claim != "faster":  # ("ist die deutlich schneller, und was
        return None  # kostet sie?": the speed's yes/no leads, the prices follow)
    fast, slow = sorted(speeds, key=lambda c: (-speeds[c], c))
    return t(
        d.lang,
        "compare_faster",
        fast=d.link(fast),
        tps=tokens(d.lang, speeds[fast]),
        slow=d.label(slow),
        slow_tps=tokens(d.lang, speeds[slow]),
        model=model,
        precision=prec,
    )


def _first_wins(cids: list[str], rows: dict[str, Any], costs: dict[str, float]) -> bool | None:
    """Is the first node named the better one for the model: it holds it and the other does not,
    or both hold it and the first costs less per million tokens."""
    a, b = cids
    holds = {c: c in rows and rows[c]["verdict"] != "does_not_fit" for c in cids}
    if holds[a] != holds[b]:
        return holds[a]
    if holds[a] and a in costs and b in costs:
        return costs[a] < costs[b]
    return None
