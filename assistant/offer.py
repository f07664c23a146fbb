"""Offers for support staff (issue 26): when a message carries a customer's requirements (a
forwarded e-mail, a budget, users, a model), the answer carries an `Offer` besides its text:

- the recommended configuration and its price (the NVLink node the guide's rule asks for when
  the model is split and serves real traffic, else the configuration the answer chose);
- one cheaper and one safer alternative, each with its trade-off in words;
- the assumptions the sizing made;
- a ready-to-forward text in the customer's language.

Every figure is a tool's typed result: the configurations that hold the job and their prices
from `fit_check` (the answer's own sizing call, re-run), the safer option from `fit_check` at
twice (then four times) the simultaneous requests, tokens/s from `throughput_estimate`. The
forward text is checked like every answer (`assistant.grounding.check_answer` against those
calls); a text that fails is left out, the options stay.

    offer = offer_for(deps, answer, language="de")   # None: the answer sized nothing
    answer = with_offer(deps, answer)                # the answer carrying it

Surfaces: Slack shows it as a block with "Copy as text" (api/slack/blocks.py), the CLI with
`sizing ask --offer`.
"""

from __future__ import annotations

import contextlib
import logging
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field

from assistant.chart import Link, fit_args, holding_rows, link_of, sizing_call, speed, speed_call
from assistant.language import Language
from tools.money import USD

if TYPE_CHECKING:
    from assistant.answer import Answer, ToolCall

log = logging.getLogger("assistant.offer")

Role = Literal["recommended", "cheaper", "safer"]
#: the loads the safer option is sized for, as multiples of the job's simultaneous requests
SAFER_FACTORS = (2, 4)


class OfferOption(BaseModel):
    role: Role
    configuration: str
    label: str
    usd_per_month: USD
    url: str
    placeholder: bool = False
    link: Link
    cards_needed: int | None = None
    replicas: int = 1
    headroom_total_gb: float = Field(description="memory left over the cards used (fit_check)")
    tokens_per_s: float | None = Field(default=None, description="single-stream decode speed")
    fp8_weight_only: bool = Field(
        default=False, description="FP8 asked on a card without FP8 tensor cores (fit_check)"
    )
    trade_off: str = Field(default="", description="what it gains or gives up, in words")


class Offer(BaseModel):
    """An offer staff can forward: recommended, cheaper, safer, assumptions, text."""

    language: Language = Field(description="the language of `text` (the customer's)")
    recommended: OfferOption
    cheaper: OfferOption | None = None
    safer: OfferOption | None = None
    assumptions: list[str] = []
    text: str = Field(default="", description="ready to forward, plain text ('' if unchecked)")
    budget_lines: list[str] = Field(
        default=[], description="the assumptions about the budget (for staff, not forwarded)"
    )
    tool_calls: list[Any] = Field(
        default=[], description="the tool calls whose results the offer states"
    )


# --------------------------------------------------------------------------- words

_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "hello": "Hello,",
        "intro": "thank you for your request. For {job} we recommend:",
        "job": "{model} in {precision} with {conc} simultaneous requests of {ctx} tokens each",
        "job_one": "{model} in {precision}, one request at a time of {ctx} tokens",
        "job_other": "{model} in {precision}",
        "alternatives": "Alternatives:",
        "cheaper": "Cheaper",
        "safer": "More headroom",
        "assumptions": "Assumptions:",
        "closing": "Prices are per month, as listed on the configuration pages. Best regards",
        "per_month": "/month",
        "placeholder": " (placeholder price)",
        "no_nvlink": "no NVLink: the {cards} cards the model is split across talk over PCIe, "
        "slower under load",
        "nvlink": "NVLink between the cards the model is split across",
        "slower": "{tps} tokens/s per request instead of {rec}",
        "faster": "{tps} tokens/s per request",
        "less_room": "{gb} GB of memory to spare instead of {rec}",
        "room": "room for {conc} simultaneous requests",
        "more_room": "{gb} GB of memory to spare instead of {rec}",
        "copies": "{n} copies of the model side by side, for more requests at once",
        "fp8": "FP8 weights: slightly lower quality than {precision}",
        "weight_only": "FP8 runs weight-only on this card (it has no FP8 tensor cores)",
        "a_model": "model: {model} in {precision}",
        "a_load": "{conc} requests at the same moment, {ctx} tokens of context each",
        "a_load_one": "one request at a time, {ctx} tokens of context",
        "a_users": "{users} users, of whom {conc} are served at the same moment",
        "a_budget": "budget: {budget} per month{eur}",
        "a_eur": " (a euro budget is compared 1:1 with the dollar prices)",
        "a_speed": "tokens/s: one request on its own, bound by memory bandwidth (a floor)",
        "a_placeholder": "prices marked as placeholders are demo values, check the page",
    },
    "de": {
        "hello": "Guten Tag,",
        "intro": "vielen Dank für Ihre Anfrage. Für {job} empfehlen wir:",
        "job": "{model} in {precision} mit {conc} gleichzeitigen Anfragen zu je {ctx} Tokens",
        "job_one": "{model} in {precision}, eine Anfrage zur Zeit mit {ctx} Tokens",
        "job_other": "{model} in {precision}",
        "alternatives": "Alternativen:",
        "cheaper": "Günstiger",
        "safer": "Mehr Reserve",
        "assumptions": "Annahmen:",
        "closing": "Die Preise gelten pro Monat, wie auf den Konfigurationsseiten angegeben. "
        "Mit freundlichen Grüßen",
        "per_month": "/Monat",
        "placeholder": " (Platzhalterpreis)",
        "no_nvlink": "kein NVLink: die {cards} Karten, auf die das Modell verteilt ist, "
        "sprechen über PCIe, langsamer unter Last",
        "nvlink": "NVLink zwischen den Karten, auf die das Modell verteilt ist",
        "slower": "{tps} Tokens/s pro Anfrage statt {rec}",
        "faster": "{tps} Tokens/s pro Anfrage",
        "less_room": "{gb} GB Speicher in Reserve statt {rec}",
        "room": "Platz für {conc} gleichzeitige Anfragen",
        "more_room": "{gb} GB Speicher in Reserve statt {rec}",
        "copies": "{n} Kopien des Modells nebeneinander, für mehr gleichzeitige Anfragen",
        "fp8": "FP8-Gewichte: etwas geringere Qualität als {precision}",
        "weight_only": "FP8 läuft auf dieser Karte nur als Gewichtsformat (keine FP8-Tensorkerne)",
        "a_model": "Modell: {model} in {precision}",
        "a_load": "{conc} Anfragen im selben Moment, je {ctx} Tokens Kontext",
        "a_load_one": "eine Anfrage zur Zeit, {ctx} Tokens Kontext",
        "a_users": "{users} Nutzer, davon {conc} im selben Moment bedient",
        "a_budget": "Budget: {budget} pro Monat{eur}",
        "a_eur": " (ein Euro-Budget wird 1:1 mit den Dollarpreisen verglichen)",
        "a_speed": "Tokens/s: eine Anfrage allein, durch die Speicherbandbreite begrenzt "
        "(eine Untergrenze)",
        "a_placeholder": "als Platzhalter markierte Preise sind Demowerte, bitte die Seite prüfen",
    },
}


def _w(lang: str, key: str, **kw: Any) -> str:
    return _WORDS.get(lang, _WORDS["en"])[key].format(**kw)


def _num(lang: str, value: float, places: int = 0) -> str:
    from assistant.texts import num

    return num("de" if lang == "de" else "en", value, places)


def _usd(value: Any) -> str:
    from assistant.texts import usd

    return usd(value)


def _speed(lang: str, value: float | None) -> str:
    return "" if value is None else _num(lang, value, 1 if value < 100 else 0)


# --------------------------------------------------------------------------- building


class _Job:
    """What was sized: the sizing call's arguments, the rows that hold it, the calls made."""

    def __init__(self, deps: Any, answer: Answer, args: dict[str, Any]) -> None:
        self.deps = deps
        self.answer = answer
        self.args = args
        self.calls: list[ToolCall] = []
        self.rows = self.holding(args)

    def holding(self, args: dict[str, Any]) -> list[Any]:
        from assistant.registry.core import ToolError, call_tool_typed

        rows = holding_rows(self.deps, args)
        try:  # recorded: the offer states these prices and headroom figures
            record, _ = call_tool_typed(self.deps, "fit_check", fit_args(args))
            self.calls.append(record)
        except ToolError:
            pass
        return rows

    def tps(self, configuration: str) -> float | None:
        from assistant.registry.core import ToolError, call_tool_typed

        value = speed(self.deps, self.args, configuration)
        if value is not None:
            call = speed_call(self.args, configuration)
            with contextlib.suppress(ToolError):
                self.calls.append(call_tool_typed(self.deps, "throughput_estimate", call)[0])
        return value

    def option(self, row: Any, role: Role, lang: str) -> OfferOption:
        c = self.deps.catalog.configurations[row.configuration]
        return OfferOption(
            role=role,
            configuration=row.configuration,
            label=c.label_in(lang),
            usd_per_month=row.usd_per_month,
            url=c.url if lang == "de" else c.url_en,
            placeholder=c.placeholder,
            link=link_of(row.sold_as),
            cards_needed=row.cards_needed,
            replicas=row.replicas,
            headroom_total_gb=row.headroom_total_gb,
            tokens_per_s=self.tps(row.configuration),
            fp8_weight_only=str(self.args.get("precision") or "") == "fp8" and not row.fp8_native,
        )


def _price(row: Any) -> Decimal:
    return Decimal(str(row.usd_per_month))


def _needs_nvlink(answer: Answer) -> bool:
    """The guide's rule, as the answer's purchase_advice call decided it: buy SXM."""
    for call in answer.tool_calls:
        if call.name == "purchase_advice" and isinstance(call.result, dict):
            return call.result.get("recommendation") == "sxm"
    return False


def _recommended(job: _Job, chosen: list[str]) -> Any:
    rows = job.rows
    if _needs_nvlink(job.answer):
        nvlink = [r for r in rows if link_of(r.sold_as) == "nvlink"]
        if nvlink:
            return nvlink[0]
    for cid in chosen:
        row = next((r for r in rows if r.configuration == cid), None)
        if row is not None:
            return row
    return rows[0]


def _cheaper(job: _Job, rec: Any) -> tuple[Any, bool] | None:
    """The cheapest row below the recommended one; else the cheapest at FP8 (when the job is
    in 16 bits) below it. (row, at_fp8)."""
    below = [r for r in job.rows if _price(r) < _price(rec)]
    if below:
        return below[0], False
    precision = str(job.args.get("precision") or "")
    if precision not in ("", "bf16", "fp16"):
        return None
    rows = job.holding({**job.args, "precision": "fp8"})
    below = [r for r in rows if _price(r) < _price(rec)]
    return (below[0], True) if below else None


def _above(rec: Any, row: Any) -> bool:
    """A row that may replace the recommended one as the safer choice: not cheaper, and not
    trading NVLink for PCIe."""
    if row.configuration == rec.configuration or _price(row) < _price(rec):
        return False
    return not (link_of(rec.sold_as) == "nvlink" and link_of(row.sold_as) != "nvlink")


def _safer(job: _Job, rec: Any) -> tuple[Any, int | None] | None:
    """The cheapest row above the recommended one that holds twice, else four times, the
    simultaneous requests (row, that load); when the recommended one holds those too, the
    cheapest above it with more memory left (row, None)."""
    conc = int(job.args.get("concurrency", 1))
    for factor in SAFER_FACTORS:
        load = conc * factor
        rows = job.holding({**job.args, "concurrency": load})
        if any(r.configuration == rec.configuration for r in rows):
            continue  # the recommended one already holds this load: try more
        row = next((r for r in rows if _above(rec, r)), None)
        if row is not None:
            return row, load
    roomier = [
        r
        for r in job.rows
        if _above(rec, r)
        and (r.replicas > rec.replicas or r.headroom_total_gb > rec.headroom_total_gb)
    ]
    return (roomier[0], None) if roomier else None


def _trade_off(lang: str, option: OfferOption, rec: OfferOption, *, fp8: bool = False) -> str:
    parts = []
    if fp8:
        parts.append(_w(lang, "fp8", precision="BF16"))
    if option.fp8_weight_only and not rec.fp8_weight_only:
        parts.append(_w(lang, "weight_only"))
    if option.link == "pcie" and rec.link == "nvlink" and (option.cards_needed or 1) > 1:
        parts.append(_w(lang, "no_nvlink", cards=option.cards_needed))
    elif option.link == "nvlink" and rec.link == "pcie" and (option.cards_needed or 1) > 1:
        parts.append(_w(lang, "nvlink"))
    if option.tokens_per_s is not None and rec.tokens_per_s is not None:
        if option.tokens_per_s < rec.tokens_per_s:
            parts.append(
                _w(
                    lang,
                    "slower",
                    tps=_speed(lang, option.tokens_per_s),
                    rec=_speed(lang, rec.tokens_per_s),
                )
            )
        elif option.tokens_per_s > rec.tokens_per_s:
            parts.append(_w(lang, "faster", tps=_speed(lang, option.tokens_per_s)))
    if option.headroom_total_gb < rec.headroom_total_gb and option.role == "cheaper":
        parts.append(
            _w(
                lang,
                "less_room",
                gb=_num(lang, option.headroom_total_gb, 1),
                rec=_num(lang, rec.headroom_total_gb, 1),
            )
        )
    return "; ".join(parts)


def _assumptions(
    deps: Any, answer: Answer, args: dict[str, Any], lang: str, budget_lines: list[str]
) -> list[str]:
    from assistant.texts import precision_label

    reading = answer.reading
    model = deps.catalog.models.get(args["model"])
    precision = precision_label(args.get("precision") or getattr(model, "native_precision", ""))
    conc = int(args.get("concurrency", 1))
    ctx = _num(lang, int(args.get("context_tokens", 0)))
    out = [_w(lang, "a_model", model=getattr(model, "name", args["model"]), precision=precision)]
    if _is_llm(model):
        out.append(_w(lang, "a_load" if conc > 1 else "a_load_one", conc=conc, ctx=ctx))
    if reading is not None and reading.users and reading.users != conc:
        out.append(_w(lang, "a_users", users=_num(lang, reading.users), conc=conc))
    if reading is not None and reading.budget_usd_per_month:
        sign = "€" if reading.budget_currency == "EUR" else "$"
        amount = f"{sign}{_num(lang, reading.budget_usd_per_month)}"
        eur = _w(lang, "a_eur") if reading.budget_currency == "EUR" else ""
        out.append(_w(lang, "a_budget", budget=amount, eur=eur))
        budget_lines.append(out[-1])
    if _is_llm(model):
        out.append(_w(lang, "a_speed"))
    return out


def _is_llm(model: Any) -> bool:
    """A language model (sized by context and requests, measured in tokens/s)."""
    return getattr(model, "kind", "llm") == "llm"


def _line(lang: str, option: OfferOption) -> str:
    price = _usd(option.usd_per_month) + _w(lang, "per_month")
    if option.placeholder:
        price += _w(lang, "placeholder")
    return f"{option.label}: {price}"


def forward_text(deps: Any, offer: Offer, args: dict[str, Any]) -> str:
    """The offer as plain text the customer can read (no markup, no internal words)."""
    from assistant.texts import precision_label

    lang = offer.language
    model = deps.catalog.models.get(args["model"])
    precision = precision_label(args.get("precision") or getattr(model, "native_precision", ""))
    conc = int(args.get("concurrency", 1))
    key = "job" if conc > 1 else "job_one"
    job = _w(
        lang,
        key if _is_llm(model) else "job_other",
        model=getattr(model, "name", args["model"]),
        precision=precision,
        conc=conc,
        ctx=_num(lang, int(args.get("context_tokens", 0))),
    )
    rec = offer.recommended
    lines = [_w(lang, "hello"), "", _w(lang, "intro", job=job), "", _line(lang, rec), rec.url]
    if rec.tokens_per_s is not None:
        said = _w(lang, "faster", tps=_speed(lang, rec.tokens_per_s))
        lines.append(said[:1].upper() + said[1:])
    if rec.fp8_weight_only:
        lines.append(_w(lang, "weight_only"))
    alternatives = [o for o in (offer.cheaper, offer.safer) if o is not None]
    if alternatives:
        lines += ["", _w(lang, "alternatives")]
        for o in alternatives:
            name = _w(lang, o.role)
            lines.append(f"- {name}: {_line(lang, o)}. {o.trade_off[:1].upper()}{o.trade_off[1:]}")
            lines.append(f"  {o.url}")
    lines += ["", _w(lang, "assumptions")]
    # the customer knows their budget: staff see it (and how a euro budget was compared)
    lines += [f"- {a}" for a in offer.assumptions if a not in offer.budget_lines]
    if any(o.placeholder for o in (rec, *alternatives)):
        lines.append(f"- {_w(lang, 'a_placeholder')}")
    lines += ["", _w(lang, "closing")]
    return "\n".join(lines)


def _checked(deps: Any, answer: Answer, offer: Offer) -> bool:
    """The forward text checked like an answer: its figures against the offer's tool calls."""
    from assistant.answer import PriceQuote
    from assistant.grounding import catalog_prices, check_answer

    options = [o for o in (offer.recommended, offer.cheaper, offer.safer) if o is not None]
    probe = answer.model_copy(
        update={
            "answer": offer.text,
            "language": offer.language,
            "citations": [],
            "tool_calls": [*answer.tool_calls, *offer.tool_calls],
            "prices": [
                PriceQuote(
                    configuration=o.configuration,
                    label=o.label,
                    usd_per_month=o.usd_per_month,
                    url=o.url,
                    placeholder=o.placeholder,
                )
                for o in options
            ],
        }
    )
    violations = check_answer(probe, catalog_prices(deps.catalog))
    for v in violations:
        log.error("offer text violation kind=%s text=%r detail=%s", v.kind, v.text, v.detail)
    return not violations


def offer_for(
    deps: Any, answer: Answer, language: Language | None = None, chosen: list[str] | None = None
) -> Offer | None:
    """The offer for an answer that sized a job on configurations; None when it sized none
    (a topology check, a concept question) or nothing holds the job. `language`: the
    customer's (default: the answer's)."""
    args = sizing_call(answer)
    if args is None:
        return None
    job = _Job(deps, answer, args)
    if not job.rows:
        return None
    lang: Language = language or answer.language
    rec_row = _recommended(
        job, chosen or list(answer._chosen) or [q.configuration for q in answer.prices]
    )
    rec = job.option(rec_row, "recommended", lang)
    cheaper = safer = None
    found = _cheaper(job, rec_row)
    if found is not None:
        cheaper = job.option(found[0], "cheaper", lang)
        cheaper.trade_off = _trade_off(lang, cheaper, rec, fp8=found[1])
    more = _safer(job, rec_row)
    if more is not None:
        safer = job.option(more[0], "safer", lang)
        room = _w(lang, "room", conc=more[1]) if more[1] else ""
        if not room and safer.replicas > rec.replicas:
            room = _w(lang, "copies", n=safer.replicas)
        elif not room:
            room = _w(
                lang,
                "more_room",
                gb=_num(lang, safer.headroom_total_gb, 1),
                rec=_num(lang, rec.headroom_total_gb, 1),
            )
        safer.trade_off = "; ".join(p for p in (room, _trade_off(lang, safer, rec)) if p)
    budget: list[str] = []
    offer = Offer(
        language=lang,
        recommended=rec,
        cheaper=cheaper,
        safer=safer,
        assumptions=_assumptions(deps, answer, args, lang, budget),
        budget_lines=budget,
        tool_calls=list(job.calls),
    )
    offer.text = forward_text(deps, offer, args)
    if not _checked(deps, answer, offer):
        offer.text = ""  # a figure the tools do not back: the options stay, the text goes
    return offer


def with_offer(deps: Any, answer: Answer, language: Language | None = None) -> Answer:
    """The answer carrying its offer (unchanged when there is none). Never raises: a failing
    offer leaves the answer as it was."""
    try:
        offer = offer_for(deps, answer, language)
    except Exception as exc:  # the answer is shown without the offer, never dropped
        log.exception("offer failed: %s", exc)
        return answer
    if offer is None:
        return answer
    out = answer.model_copy(update={"offer": offer})
    out._chosen = list(answer._chosen)
    return out


def for_staff(answer: Answer) -> Answer:
    """The answer as support staff read it (Slack): a defect found in a pasted topology or
    all-reduce output says what to check and what to tell the customer, not "please report it
    to support" (which is the customer's next step, not the staff's)."""
    from assistant.texts import t

    lang = answer.language
    visitor, staff = t(lang, "topo_report"), t(lang, "topo_report_staff")
    if visitor not in answer.answer:
        return answer
    out = answer.model_copy(update={"answer": answer.answer.replace(visitor, staff)})
    out._chosen = list(answer._chosen)
    return out
