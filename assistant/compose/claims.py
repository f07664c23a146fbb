"""Claims the user states, checked: the first word says whether the claim holds, in the user's
polarity, the rest gives the reason with the tool's figures and the guide passage behind it.

- `memory_adds_up` ("do the 4 × 32 GB add up to 128 GB for my model?"): for one LLM yes —
  tensor parallelism splits the weights across the cards (`fit_check` on the node asked about
  says whether the split fits); for one image or video pipeline no — each card holds the whole
  model (gpu-for-flux-sdxl#many-cards), so what counts is one card's memory.
- `active_sets_memory` ("only 3B are active, so it needs that little memory?"): no — every
  expert is loaded; `memory_need` gives the weights of all parameters next to those of the
  active ones; memory follows the total, speed the active parameters (mixture-of-experts).
- `same_size` / `larger` ("Q4_K_M and AWQ are both 4-bit, so the GGUF is as small?"): the
  weights of both formats from `memory_need`, bits per weight included.
- a guide concept asked yes/no (`Query.concept`, "Is FP8's quality loss noticeable?"): the
  passage that settles it, its verdict, and the passage quoted.

Trigger rows: `assistant.compose.table`; the claims are read by `assistant.nlu.claims`.
"""

from __future__ import annotations

from typing import Any

from assistant.compose.base import ComposerBase
from assistant.compose.draft import EXAMPLE_MODEL, Draft
from assistant.compose.guides import _excerpt
from assistant.compose.polarity import asks_the_negation
from assistant.nlu import Query
from assistant.texts import follow_up, gb, precision_label, render

FLUX_GUIDE = "gpu-for-flux-sdxl"
MOE_GUIDE = "mixture-of-experts"
QUANT_GUIDE = "awq-vs-gptq-vs-fp8"
# the guide's sentence that each card holds the whole model ("four 24 GB cards do not add up")
WHOLE_MODEL = r"whole model|ganze Modell"
# two formats whose weights differ by less than this share are "the same size"
SAME_SIZE_SHARE = 0.02

# concept -> (guide, section, the paragraph that settles it, its answer, phrase)
CONCEPT_PASSAGES: dict[str, tuple[str, str, str | None, bool, str]] = {
    "fp8_quality_loss": (QUANT_GUIDE, "quality", r"FP8 (?:and|und) Q8_0", False, "fp8_quality"),
    "four_bit_quality_loss": (QUANT_GUIDE, "quality", r"^\W*4[\s-]?Bit", True, "4bit_quality"),
    "kv_grows_with_context": (QUANT_GUIDE, "kv-cache", None, True, "kv_grows"),
    "kv_follows_weights": (QUANT_GUIDE, "kv-cache", None, False, "kv_stays"),
    "vllm_whole_card": (
        QUANT_GUIDE,
        "why-smallest-is-not-smallest",
        r"gpu_memory_utilization",
        False,
        "vllm_share",
    ),
    "moe_speed_active": (MOE_GUIDE, "short-answer", r"Speed|Tempo", True, "moe_speed"),
}

PHRASES: dict[str, tuple[str, str]] = {
    "yes": ("**Yes**", "**Ja**"),
    "no": ("**No**", "**Nein**"),
    # memory of several cards
    "pool_image": (
        "for one {model} pipeline the memory of {label} does not add up to {total}: each card "
        "must hold the whole model, so what counts is {mem} per card.",
        "für eine {model}-Pipeline addiert sich der Speicher von {label} nicht zu {total}: jede "
        "Karte muss das ganze Modell fassen, es zählen also {mem} pro Karte.",
    ),
    "pool_image_plain": (
        "for one image or video pipeline the memory of several cards does not add up: each card "
        "must hold the whole model.",
        "für eine einzelne Bild- oder Video-Pipeline addiert sich der Speicher mehrerer Karten "
        "nicht: jede Karte muss das ganze Modell fassen.",
    ),
    "pool_image_fits": (
        "{model} needs about {need} (published figure, without offloading), and one card holds "
        "that: the {n} cards run {n} copies side by side, one image or video each.",
        "{model} braucht etwa {need} (veröffentlichter Wert, ohne Offloading), und eine Karte "
        "fasst das: Die {n} Karten rechnen {n} Kopien nebeneinander, jede ihr eigenes Bild oder "
        "Video.",
    ),
    "pool_image_no_fit": (
        "{model} needs about {need} (published figure, without offloading), more than one card "
        "of this node has. Nodes whose single card holds it, cheapest first:",
        "{model} braucht etwa {need} (veröffentlichter Wert, ohne Offloading), mehr als eine "
        "Karte dieses Knotens hat. Knoten, deren einzelne Karte es fasst, günstigste zuerst:",
    ),
    "pool_llm_split": (
        "for one language model the memory adds up: tensor parallelism splits {model} in "
        "{prec} across the cards of {label}.",
        "bei einem Sprachmodell addiert sich der Speicher: Tensor-Parallelismus verteilt "
        "{model} in {prec} auf die Karten von {label}.",
    ),
    "pool_llm_one": (
        "the memory would add up under tensor parallelism, but {model} in {prec} fits on one "
        "card of {label} — splitting it only makes it slower.",
        "unter Tensor-Parallelismus würde sich der Speicher addieren, aber {model} passt in "
        "{prec} auf eine Karte von {label} — Aufteilen macht es nur langsamer.",
    ),
    "pool_llm_no_fit": (
        "the memory of {label} does add up under tensor parallelism, but {model} in {prec} "
        "needs more than its {total}.",
        "der Speicher von {label} addiert sich zwar unter Tensor-Parallelismus, aber {model} "
        "braucht in {prec} mehr als dessen {total}.",
    ),
    "pool_llm_plain": (
        "for one language model the memory of several cards adds up: tensor parallelism splits "
        "the weights across the cards, which then synchronise at every layer.",
        "bei einem Sprachmodell addiert sich der Speicher mehrerer Karten: Tensor-Parallelismus "
        "verteilt die Gewichte auf die Karten, die sich dann in jedem Layer abgleichen.",
    ),
    "pool_both": (
        "It depends on the job: for one language model the memory of several cards adds up "
        "(tensor parallelism splits the weights), for one image or video pipeline it does not "
        "(each card must hold the whole model).",
        "Das hängt vom Job ab: Bei einem Sprachmodell addiert sich der Speicher mehrerer Karten "
        "(Tensor-Parallelismus verteilt die Gewichte), bei einer Bild- oder Video-Pipeline nicht "
        "(jede Karte muss das ganze Modell fassen).",
    ),
    "pool_tp_cost": (
        "The cards then synchronise at every layer for every token, so the link between them "
        "sets the pace.",
        "Die Karten gleichen sich dann in jedem Layer für jedes Token ab; die Verbindung "
        "zwischen ihnen bestimmt das Tempo.",
    ),
    "cheaper_holders": ("Where it does fit, cheapest first:", "Wo es passt, günstigste zuerst:"),
    # MoE
    "active_no": (
        "all experts of {model} have to be in memory: in {prec} its weights take {total} (all "
        "{params}B parameters), not the {active} of the {active_b}B active ones.",
        "alle Experten von {model} müssen im Speicher liegen: In {prec} belegen seine Gewichte "
        "{total} (alle {params}B Parameter), nicht die {active} der {active_b}B aktiven.",
    ),
    "active_no_on": (
        "{model} does not fit on {label}: all its experts have to be in memory, in {prec} "
        "{total} of weights (all {params}B parameters), not the {active} of the {active_b}B "
        "active ones.",
        "{model} passt nicht auf {label}: Alle Experten müssen im Speicher liegen, in {prec} "
        "{total} Gewichte (alle {params}B Parameter), nicht die {active} der {active_b}B "
        "aktiven.",
    ),
    "active_yes_anyway": (
        "it fits on one card ({label}). That is not because only {active_b}B parameters are "
        "active: all experts of {model} are loaded, {total} of weights in {prec}.",
        "es passt auf eine Karte ({label}). Das liegt aber nicht daran, dass nur {active_b}B "
        "Parameter aktiv sind: Alle Experten von {model} werden geladen, {total} Gewichte in "
        "{prec}.",
    ),
    "active_yes_split": (
        "it fits, split across {n} cards ({label}). That is not because only {active_b}B "
        "parameters are active: all experts of {model} are loaded, {total} of weights in {prec}.",
        "es passt, auf {n} Karten aufgeteilt ({label}). Das liegt aber nicht daran, dass nur "
        "{active_b}B Parameter aktiv sind: Alle Experten von {model} werden geladen, {total} "
        "Gewichte in {prec}.",
    ),
    "active_plain": (
        "a mixture-of-experts model needs memory for all its experts, not only for the active "
        "ones: size it with the total parameters.",
        "ein Mixture-of-Experts-Modell braucht Speicher für alle Experten, nicht nur für die "
        "aktiven: Rechnen Sie mit den Gesamtparametern.",
    ),
    "active_speed": (
        "The active parameters decide the speed, not the memory: each token reads only the "
        "active experts, so it generates about as fast as a dense {active_b}B model.",
        "Die aktiven Parameter bestimmen das Tempo, nicht den Speicher: Pro Token werden nur die "
        "aktiven Experten gelesen, es generiert also etwa so schnell wie ein dichtes "
        "{active_b}B-Modell.",
    ),
    "on_hardware": ("On the hardware you named:", "Auf der genannten Hardware:"),
    "cheapest_holder": ("The cheapest node that holds it:", "Der günstigste Knoten, der es hält:"),
    # formats
    "size_larger": (
        "{a} is larger than {b}: {wa} against {wb} of weights for {model} ({ba} against {bb} "
        "bits per weight).",
        "{a} ist größer als {b}: {wa} gegenüber {wb} Gewichte bei {model} ({ba} gegenüber {bb} "
        "Bit pro Gewicht).",
    ),
    "size_smaller": (
        "{a} is smaller than {b}: {wa} against {wb} of weights for {model} ({ba} against {bb} "
        "bits per weight).",
        "{a} ist kleiner als {b}: {wa} gegenüber {wb} Gewichte bei {model} ({ba} gegenüber {bb} "
        "Bit pro Gewicht).",
    ),
    "size_same": (
        "{a} and {b} are about the same size: {wa} and {wb} of weights for {model} ({ba} and "
        "{bb} bits per weight).",
        "{a} und {b} sind etwa gleich groß: {wa} und {wb} Gewichte bei {model} ({ba} und {bb} "
        "Bit pro Gewicht).",
    ),
    "size_why": (
        '"4-bit" is the nominal width: scales, zero points and the tensors a format keeps at '
        "higher precision add to it, and the KV cache stays at 16 bits either way.",
        "„4 Bit“ ist die Nennbreite: Skalen, Nullpunkte und Tensoren, die ein Format genauer "
        "speichert, kommen hinzu, und der KV-Cache bleibt in beiden Fällen bei 16 Bit.",
    ),
    "example_model": (
        "(Llama 3.3 70B, the guide's example.)",
        "(Llama 3.3 70B, das Beispiel des Guides.)",
    ),
    # guide concepts
    "fp8_quality": (
        "FP8 is practically lossless; vLLM describes its effect on accuracy as minimal.",
        "FP8 ist praktisch verlustfrei; vLLM spricht von minimalem Einfluss auf die Genauigkeit.",
    ),
    "4bit_quality": (
        "4-bit formats (AWQ, GPTQ, Q4_K_M) lose a measurable amount of quality, less for large "
        "models than for small ones; code and maths suffer first.",
        "4-Bit-Formate (AWQ, GPTQ, Q4_K_M) verlieren messbar Qualität, bei großen Modellen "
        "weniger als bei kleinen; Code und Mathematik leiden zuerst.",
    ),
    "kv_grows": (
        "the KV cache grows with every token of context and every sequence served at once, in "
        "proportion to both.",
        "der KV-Cache wächst mit jedem Token Kontext und jeder gleichzeitigen Sequenz, im "
        "selben Verhältnis.",
    ),
    "kv_stays": (
        "quantised weights do nothing to the KV cache: it stays in BF16 unless you quantise it "
        "yourself (in vLLM with `--kv-cache-dtype fp8`).",
        "quantisierte Gewichte ändern nichts am KV-Cache: Er bleibt in BF16, solange Sie ihn "
        "nicht selbst quantisieren (in vLLM mit `--kv-cache-dtype fp8`).",
    ),
    "vllm_share": (
        "vLLM does not take the whole card: `gpu_memory_utilization` leaves a share of it "
        "unused by default.",
        "vLLM nimmt nicht die ganze Karte: `gpu_memory_utilization` lässt standardmäßig einen "
        "Teil ungenutzt.",
    ),
    "moe_speed": (
        "each token reads only the active experts, so a mixture-of-experts model generates about "
        "as fast as a dense model of its active size — its memory still follows the total "
        "parameters.",
        "pro Token werden nur die aktiven Experten gelesen, ein Mixture-of-Experts-Modell "
        "generiert also etwa so schnell wie ein dichtes Modell seiner aktiven Größe — der "
        "Speicher richtet sich trotzdem nach den Gesamtparametern.",
    ),
}


def p(lang: str, key: str, **kw: Any) -> str:
    return render(PHRASES, lang, key, **kw)


def states_claim(u: Query) -> bool:
    """A claim about a mechanism the question states (assistant/nlu/claims.py)."""
    return u.claim in ("memory_adds_up", "active_sets_memory", "same_size", "larger")


def asks_concept(u: Query) -> bool:
    """A yes/no question about a guide concept ('Is FP8's quality loss noticeable?')."""
    hardware = bool(u.cards or u.card_families or u.configurations)
    return (
        u.concept is not None
        and not hardware
        and not (u.asks_fit and u.has_subject)
        and (u.yes_no or "tag_question" in u.topics)
    )


class ClaimsMixin(ComposerBase):
    """Stated claims and guide concepts, answered yes or no first."""

    # ------------------------------------------------------------------ helpers

    def _yes_no(self, d: Draft, u: Query, holds: bool) -> str:
        """'**Yes** — ' / '**No** — ' for the claim as the user put it (nothing for a
        why / what question, which asks for the reason rather than a verdict)."""
        verdict = holds != asks_the_negation(u)
        d.verdict = verdict
        if "wh_question" in u.topics:  # "why …?" asks the reason, not a verdict
            return ""
        return p(d.lang, "yes" if verdict else "no") + " — "

    def _led(self, d: Draft, u: Query, holds: bool, text: str) -> str:
        """The yes/no for the claim and the phrase after it, capitalised when no yes/no comes
        first (a why-question)."""
        lead = self._yes_no(d, u, holds)
        return lead + _capital(text, lead)

    def _kind(self, u: Query) -> str | None:
        """'llm' or 'image' (image and video models) for the job asked about, else None."""
        model = self.deps.catalog.models.get(u.model) if u.model else None
        if model is not None:
            return "llm" if model.kind == "llm" else "image"
        if {"diffusion", "rendering"} & set(u.workloads) or "image_job" in u.topics:
            return "image"
        if u.params_b or u.unknown_model or "llm_job" in u.topics:
            return "llm"
        return None

    def _first_target(self, u: Query, fit: dict[str, Any] | None) -> dict[str, Any] | None:
        """The node asked about: named, or said as 'the 4 x 32 GB' (the reading's count and
        memory per card)."""
        if fit is None:
            return None
        targets = self._targets(u, fit)
        return targets[0] if targets else None

    # ------------------------------------------------------------------ memory of several cards

    def _claim_pooling(self, d: Draft, u: Query) -> None:
        kind = self._kind(u)
        fit = None
        if u.has_subject:  # an image model without a figure at the precision asked: its own
            fit = self._call_fit(d, u) or self._call_fit(
                d, u.model_copy(update={"precision": None})
            )
        row = self._first_target(u, fit)
        if kind == "image":
            self._pool_image(d, u, fit, row)
        elif kind == "llm":
            self._pool_llm(d, u, fit, row)
        else:
            d.add(
                p(d.lang, "pool_both")
                + d.cite("many-cards", contains=WHOLE_MODEL, guide=FLUX_GUIDE)
                + d.cite("tensor-parallelism")
            )
        d.suggest(follow_up(d.lang, "fit_example"))

    def _pool_image(
        self, d: Draft, u: Query, fit: dict[str, Any] | None, row: dict[str, Any] | None
    ) -> None:
        cite = d.cite("many-cards", contains=WHOLE_MODEL, guide=FLUX_GUIDE)
        lead = self._yes_no(d, u, False)
        if fit is None or row is None:
            d.add(lead + p(d.lang, "pool_image_plain") + cite)
            return
        model = self._model_name(fit, d.lang)
        d.add(
            lead
            + p(
                d.lang,
                "pool_image",
                model=model,
                label=d.link(row["configuration"]),
                total=gb(d.lang, row["total_memory_gb"]),
                mem=gb(d.lang, row["memory_gb_per_card"]),
            )
            + cite
        )
        need = gb(d.lang, row["required_gb_per_card"])
        if row["verdict"] == "fits_one_card":
            d.add(p(d.lang, "pool_image_fits", model=model, need=need, n=row["count"]))
            d.bullets([self._row_line(d, row)])
            return
        d.bullets([self._row_line(d, row)])
        d.add(p(d.lang, "pool_image_no_fit", model=model, need=need))
        holders = sorted(
            (r for r in fit["rows"] if r["verdict"] == "fits_one_card"),
            key=lambda r: (float(r["usd_per_month"]), r["configuration"]),
        )
        d.bullets([self._row_line(d, r) for r in holders[:3]])

    def _pool_llm(
        self, d: Draft, u: Query, fit: dict[str, Any] | None, row: dict[str, Any] | None
    ) -> None:
        cite = d.cite("tensor-parallelism")
        if fit is None or row is None:
            d.add(self._led(d, u, True, p(d.lang, "pool_llm_plain")) + cite)
            return
        kw = {
            "model": self._model_name(fit, d.lang),
            "prec": precision_label(fit["precision"]),
            "label": d.link(row["configuration"]),
            "total": gb(d.lang, row["total_memory_gb"]),
        }
        if row["verdict"] == "split":
            d.add(self._led(d, u, True, p(d.lang, "pool_llm_split", **kw)) + cite)
            d.bullets([self._row_line(d, row)])
            self._numbers(d, fit)
            d.add(p(d.lang, "pool_tp_cost") + d.cite("tensor-parallelism"))
        elif row["verdict"] == "fits_one_card":
            d.add(self._led(d, u, True, p(d.lang, "pool_llm_one", **kw)) + cite)
            d.bullets([self._row_line(d, row)])
            self._numbers(d, fit)
            d.add(p(d.lang, "pool_tp_cost") + d.cite("most-expensive-mistake"))
        else:
            d.add(self._led(d, u, False, p(d.lang, "pool_llm_no_fit", **kw)) + cite)
            d.bullets([self._row_line(d, row)])
            self._numbers(d, fit)
            self._holders(d, fit)

    def _holders(self, d: Draft, fit: dict[str, Any]) -> None:
        holders = sorted(
            (r for r in fit["rows"] if r["verdict"] != "does_not_fit"),
            key=lambda r: (float(r["usd_per_month"]), r["configuration"]),
        )
        if holders:
            d.add(p(d.lang, "cheaper_holders"))
            d.bullets([self._row_line(d, r) for r in holders[:3]])

    # ------------------------------------------------------------------ MoE active parameters

    def _claim_active(self, d: Draft, u: Query) -> None:
        model = self.deps.catalog.models.get(u.model) if u.model else None
        active_b = getattr(model, "active_params_b", None) if model else None
        cite = d.cite("total-vs-active", guide=MOE_GUIDE)
        if model is None or not active_b:
            d.add(self._led(d, u, False, p(d.lang, "active_plain")) + cite)
            d.suggest(follow_up(d.lang, "fit_example"))
            return
        mem = d.call("memory_need", model=u.model, precision=u.precision)
        fit = self._call_fit(d, u)
        if mem is None or fit is None:
            d.add(self._led(d, u, False, p(d.lang, "active_plain")) + cite)
            return
        row = self._first_target(u, fit)
        kw = {
            "model": mem["model"]["name"],
            "prec": precision_label(mem["precision"]),
            "total": gb(d.lang, mem["weights_gb"]),
            "active": gb(d.lang, mem["active_weights_gb"]),
            "params": _billions(d, mem["model"]["params_b"]),
            "active_b": _billions(d, active_b),
        }
        if row is not None and row["verdict"] != "does_not_fit":
            one = row["verdict"] == "fits_one_card"
            key = "active_yes_anyway" if one else "active_yes_split"
            on = {"label": d.label(row["configuration"]), "n": row.get("cards_needed") or ""}
            d.add(self._led(d, u, True, p(d.lang, key, **kw, **on)) + cite)
        else:
            # the node named that does not hold it is said in the lead ("… auf ne 4090, oder?")
            on = {"label": d.label(row["configuration"])} if row else {}
            key = "active_no_on" if on else "active_no"
            d.add(self._led(d, u, False, p(d.lang, key, **kw, **on)) + cite)
        if any(a.kind == "memory" for a in u.asks):  # "wieviel VRAM braucht es? nur 3B aktiv"
            self._memory_line(d, mem)
        if row is not None:
            d.add(p(d.lang, "on_hardware"))
            d.bullets([self._row_line(d, row)])
        holds = ("fits_one_card",) if u.constraints.one_card else ("fits_one_card", "split")
        cheapest = self._cheapest_row(fit["rows"], holds)
        if "cheapest" in u.intents and cheapest is not None:
            # "the cheapest server for mixtral? only 13b active…": the pick the price tool gives
            res = self._call_cheapest(d, u)
            top = res["cheapest"][0]["configuration"] if res and res["cheapest"] else None
            cheapest = next((r for r in fit["rows"] if r["configuration"] == top), cheapest)
        if cheapest is not None and (row is None or row["verdict"] == "does_not_fit"):
            d.add(p(d.lang, "cheapest_holder"))
            d.bullets([self._row_line(d, cheapest)])
        d.add(p(d.lang, "active_speed", **kw) + d.cite("short-answer", r"Speed|Tempo", MOE_GUIDE))
        d.suggest(follow_up(d.lang, "fit_example"))

    # ------------------------------------------------------------------ sizes of two formats

    def _claim_size(self, d: Draft, u: Query) -> None:
        a, b = u.formats[:2]
        model = self._model_arg(u) or EXAMPLE_MODEL
        ma = d.call("memory_need", model=model, precision=a)
        mb = d.call("memory_need", model=model, precision=b)
        if ma is None or mb is None or "weights_gb" not in ma or "weights_gb" not in mb:
            self._general(d, u)
            return
        wa, wb = float(ma["weights_gb"]), float(mb["weights_gb"])
        if wa > wb * (1 + SAME_SIZE_SHARE):
            key = "size_larger"
        elif wa < wb * (1 - SAME_SIZE_SHARE):
            key = "size_smaller"
        else:
            key = "size_same"
        # "gleich groß?" / "just as small?": the same size within SAME_SIZE_SHARE, either way
        # ("AWQ und Q4_K_M sind beide 4 Bit – also gleich groß?" is "Nein" when AWQ is smaller)
        holds = key == "size_larger" if u.claim == "larger" else key == "size_same"
        text = p(
            d.lang,
            key,
            a=precision_label(a),
            b=precision_label(b),
            wa=gb(d.lang, wa),
            wb=gb(d.lang, wb),
            ba=_bits(d, ma),
            bb=_bits(d, mb),
            model=ma["model"]["name"],
        )
        lead = self._yes_no(d, u, holds)
        d.add(lead + _capital(text, lead) + d.cite("formats", contains="GPTQ", guide=QUANT_GUIDE))
        if not (u.model or u.params_b):
            d.add(p(d.lang, "example_model"))
        d.add(p(d.lang, "size_why") + d.cite("why-smallest-is-not-smallest", guide=QUANT_GUIDE))
        if u.explain and "difference" in u.topics:
            self._general(d, u)  # "what is the difference between …, and why is … bigger?"
        d.suggest(follow_up(d.lang, "fit_example"))

    # ------------------------------------------------------------------ guide concepts

    def _claim_concept(self, d: Draft, u: Query) -> None:
        guide, anchor, contains, holds, key = CONCEPT_PASSAGES[u.concept or ""]
        sections = self.deps.guides
        passage = sections.section(guide, anchor, d.lang, contains) if sections else None
        if passage is None:
            self._general(d, u)
            return
        lead = self._yes_no(d, u, holds)
        d.add(lead + _capital(p(d.lang, key), lead) + d.cite_passage(passage))
        d.add(_excerpt(str(passage.text)) + d.cite_passage(passage))
        d.suggest(follow_up(d.lang, "fit_example"))


def _bits(d: Draft, mem: dict[str, Any]) -> str:
    value = float(mem.get("bits_per_weight") or 0)
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return text.replace(".", ",") if d.lang == "de" else text


def _billions(d: Draft, value: float) -> str:
    text = f"{float(value):g}"
    return text.replace(".", ",") if d.lang == "de" else text


def _capital(text: str, lead: str) -> str:
    """A phrase that opens the answer (no yes/no before it) starts with a capital."""
    return text if lead else text[:1].upper() + text[1:]
