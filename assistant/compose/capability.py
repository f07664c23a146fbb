"""What a card can do, beyond its memory: native FP8. "Does the A100 support FP8?" gets its yes
or no from the card facts, with the guide's line on FP8 in the catalog; a sizing in FP8 that
lands on an Ampere card (A100, RTX A6000) says that FP8 runs there weight-only and names the
cheapest node with native FP8 that holds the job. Trigger rows: `assistant.compose.table`.
"""

from __future__ import annotations

import re
from typing import Any

from assistant.compose.base import ComposerBase
from assistant.compose.draft import Draft
from assistant.nlu import CARD_FAMILIES, Query
from assistant.texts import follow_up, render

QUANT_GUIDE = "awq-vs-gptq-vs-fp8"
# the guide's "FP8 in the catalog: ... yes. A100 ... (Ampere) no" line
FP8_LINE = r"A100.*Ampere|Ampere.*A100"

PHRASES: dict[str, tuple[str, str]] = {
    "fp8_yes": (
        "**Yes — {cards} {have} FP8 tensor cores: FP8 runs natively there (W8A8).**",
        "**Ja — {cards} {have} FP8-Tensor-Cores: FP8 läuft dort nativ (W8A8).**",
    ),
    "fp8_no": (
        "**No — {cards} {have} no FP8 tensor cores.** FP8 checkpoints still load there as a "
        "weight-only variant (W8A16): half the memory of BF16, but the maths runs in 16 bits.",
        "**Nein — {cards} {have} keine FP8-Tensor-Cores.** FP8-Checkpoints laden dort trotzdem "
        "als reine Gewichtsvariante (W8A16): halber Speicher gegenüber BF16, gerechnet wird aber "
        "in 16 Bit.",
    ),
    "fp8_mixed": (
        "**Only some of them: {yes} {have_yes} FP8 tensor cores, {no} {have_no} not** (FP8 "
        "runs there weight-only, W8A16).",
        "**Nur zum Teil: {yes} {have_yes} FP8-Tensor-Cores, {no} {have_no} nicht** (FP8 läuft "
        "dort nur als Gewichtsvariante, W8A16).",
    ),
    "fp8_native_list": (
        "Native FP8 in the catalog: {cards}.",
        "Natives FP8 im Katalog: {cards}.",
    ),
    "fp8_not_native_note": (
        "{cards} {have} no FP8 tensor cores: FP8 runs there weight-only (W8A16), half the "
        "memory but without the FP8 speed-up.",
        "{cards} {have} keine FP8-Tensor-Cores: FP8 läuft dort nur als Gewichtsvariante (W8A16), "
        "halber Speicher, aber ohne den FP8-Geschwindigkeitsgewinn.",
    ),
    "fp8_native_instead": (
        "The cheapest node with native FP8 that holds it:",
        "Der günstigste Knoten mit nativem FP8, der es hält:",
    ),
    "have_one": ("has", "hat"),
    "have_many": ("have", "haben"),
}


def p(lang: str, key: str, **kw: Any) -> str:
    return render(PHRASES, lang, key, **kw)


def asks_fp8_support(u: Query) -> bool:
    """'Does the A100 support FP8?', 'FP8 auf der RTX A6000 möglich?' (no model to size)."""
    named = bool(u.cards or u.card_families or "architecture_named" in u.topics)
    picks = u.constraints.require_fp8 or bool(u.constraints.exclude_architectures)
    return named and not u.has_subject and not picks and "fp8_support" in u.topics


class CapabilityMixin(ComposerBase):
    """FP8 support of the cards asked about; the FP8-on-Ampere note of a sizing."""

    def _asked_cards(self, u: Query) -> list[str]:
        cards = list(u.cards) + [c for f in u.card_families for c in CARD_FAMILIES[f]]
        gpus = self.deps.catalog.gpus
        if "ampere" in u.topics:  # the catalog's Ampere cards: the ones without FP8
            cards += [g for g, spec in gpus.items() if not spec.fp8_native]
        return list(dict.fromkeys(c for c in cards if c in gpus))

    def _fp8_support(self, d: Draft, u: Query) -> None:
        cards = self._asked_cards(u)
        res = d.call("card_facts", cards=cards) if cards else None
        if not res or not res["cards"]:
            self._general(d, u)
            return
        cite = d.cite("speed", contains=FP8_LINE, guide=QUANT_GUIDE)
        subject = [c for c in res["cards"] if c["id"] in u.subject_cards]
        if subject and len(subject) < len(res["cards"]):
            self._fp8_compared(d, subject, [c for c in res["cards"] if c not in subject], cite)
            return
        yes = [c["short_name"] for c in res["cards"] if c["fp8_native"]]
        no = [c["short_name"] for c in res["cards"] if not c["fp8_native"]]
        if yes and no:
            d.add(
                p(
                    d.lang,
                    "fp8_mixed",
                    yes=", ".join(yes),
                    no=", ".join(no),
                    have_yes=_have(d.lang, yes),
                    have_no=_have(d.lang, no),
                )
                + cite
            )
        elif yes:
            d.add(p(d.lang, "fp8_yes", cards=", ".join(yes), have=_have(d.lang, yes)) + cite)
        else:
            d.add(p(d.lang, "fp8_no", cards=", ".join(no), have=_have(d.lang, no)) + cite)
            everyone = d.call("card_facts")
            if everyone:
                native = [c["short_name"] for c in everyone["cards"] if c["fp8_native"]]
                d.add(p(d.lang, "fp8_native_list", cards=", ".join(native)))
        d.suggest(follow_up(d.lang, "fit_example"))

    def _fp8_compared(
        self, d: Draft, subject: list[dict[str, Any]], others: list[dict[str, Any]], cite: str
    ) -> None:
        """'Has the RTX A6000 FP8 tensor cores like the L40S?': the lead answers for the card
        asked about, then the card it was compared with."""
        for i, group in enumerate((subject, others)):
            for native in (True, False):
                names = [c["short_name"] for c in group if c["fp8_native"] is native]
                if not names:
                    continue
                text = p(d.lang, "fp8_yes" if native else "fp8_no", cards=", ".join(names),
                         have=_have(d.lang, names))  # fmt: skip
                d.add(text + cite if i == 0 else _plain(text))
        d.suggest(follow_up(d.lang, "fit_example"))

    def _fp8_note(self, d: Draft, u: Query) -> None:
        """After a sizing in FP8: the Ampere cards it named or recommended run FP8 weight-only."""
        fit = next(
            (
                c
                for c in d.calls
                if c.name in ("fit_check", "cheapest_fit") and c.result.get("precision") == "fp8"
            ),
            None,
        )
        if fit is None:
            return
        shown = set(d._prices)
        rows = fit.result.get("rows") or fit.result.get("cheapest") or []
        gpus = self.deps.catalog.gpus
        ampere = sorted(
            {
                r["gpu"]
                for r in rows
                if r["configuration"] in shown and not gpus[r["gpu"]].fp8_native
            }
        )
        if not ampere:
            return
        names = [gpus[g].short_name for g in ampere]
        note = p(d.lang, "fp8_not_native_note", cards=", ".join(names), have=_have(d.lang, names))
        d.add(note + d.cite("speed", contains=FP8_LINE, guide=QUANT_GUIDE))
        native = [r for r in rows if gpus[r["gpu"]].fp8_native and r["verdict"] != "does_not_fit"]
        best = self._cheapest_row(native, ("fits_one_card", "split"))
        if best is not None and best["configuration"] not in shown:
            d.add(p(d.lang, "fp8_native_instead"))
            d.bullets([self._row_line(d, best)])


def _have(lang: str, names: list[str]) -> str:
    return p(lang, "have_one" if len(names) == 1 else "have_many")


def _plain(text: str) -> str:
    """A phrase without its bold yes/no lead ('**No — X has …**' -> 'X has …')."""
    return re.sub(r"^\*\*(?:Yes|No|Ja|Nein) — ", "", text).replace("**", "", 2)
