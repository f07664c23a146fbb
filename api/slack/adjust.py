"""The "Adjust" modal: the answer's reading as inputs, and a submission turned into reading edits.

    adjust_modal(answer, catalog, metadata) -> the view for `views.open`
    submitted(view_state)                   -> {reading field: value or None}, field errors
    edits_between(reading, values)          -> only the fields that changed
    field_errors(message, edits)            -> {block_id: text} for `response_action: errors`

The inputs are the editable reading fields (`assistant.reading.model.EDITABLE`) a sizing answer
holds or commonly needs: model, precision, users, at once (concurrent sequences), context tokens,
configurations and budget. The modal never parses text: its values are reading fields, applied
with `Assistant.reanswer(session_id, edits)`.

Slack limits honoured (https://api.slack.com/reference/block-kit): a modal title, submit and
close text ≤ 24 characters, ≤ 100 options per select, option text ≤ 75, private_metadata ≤ 3,000.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from api.reading_edits import MAXIMA, reading_options
from api.slack.blocks import format_usd
from api.slack.mrkdwn import escape
from assistant.answer import Answer
from assistant.reading.model import Reading

ADJUST_CALLBACK_ID = "sizing_adjust_view"
MAX_OPTIONS = 100
OPTION_TEXT_LIMIT = 75
METADATA_LIMIT = 3000


@dataclass(frozen=True)
class Field:
    """One input of the modal: its block (and action) id and the reading field it edits."""

    field: str
    kind: str  # "select", "multi_select", "integer", "decimal"

    @property
    def block_id(self) -> str:
        return f"adjust_{self.field}"

    @property
    def action_id(self) -> str:
        return self.field


FIELDS: tuple[Field, ...] = (
    Field("model", "select"),
    Field("precision", "select"),
    Field("users", "integer"),
    Field("concurrent_sequences", "integer"),
    Field("context_tokens", "integer"),
    Field("configurations", "multi_select"),
    Field("budget_usd_per_month", "decimal"),
)
BY_FIELD = {f.field: f for f in FIELDS}

_LABELS = {
    "en": {
        "title": "Adjust the answer",
        "submit": "Answer again",
        "close": "Cancel",
        "intro": "Change what the answer was sized for; it is answered again from these values "
        "(nothing is read from the question again).",
        "model": "Model",
        "precision": "Precision (weights)",
        "users": "Users",
        "concurrent_sequences": "At once (requests generating together)",
        "concurrent_sequences_hint": "Leave as it is when you change the users: the usual share "
        "of them at once is used.",
        "context_tokens": "Context (tokens per request)",
        "configurations": "Configurations",
        "configurations_hint": "None: the cheapest configuration that fits.",
        "budget_usd_per_month": "Budget per month ({currency})",
        "pick": "Choose…",
        "number": "must be a whole number",
        "amount": "must be an amount",
        "at_most": "at most {n}",
        "adjusted": "✏️ <@{user}> adjusted: {changes}",
        "cleared": "not set",
    },
    "de": {
        "title": "Antwort anpassen",
        "submit": "Neu beantworten",
        "close": "Abbrechen",
        "intro": "Ändere, wofür die Antwort berechnet wurde; sie wird aus diesen Werten neu "
        "beantwortet (die Frage wird nicht neu gelesen).",
        "model": "Modell",
        "precision": "Präzision (Gewichte)",
        "users": "Nutzer",
        "concurrent_sequences": "Gleichzeitig (Anfragen, die zugleich generieren)",
        "concurrent_sequences_hint": "Lass das Feld, wenn du die Nutzer änderst: dann gilt der "
        "übliche Anteil gleichzeitig.",
        "context_tokens": "Kontext (Tokens pro Anfrage)",
        "configurations": "Konfigurationen",
        "configurations_hint": "Keine: die günstigste Konfiguration, die passt.",
        "budget_usd_per_month": "Budget pro Monat ({currency})",
        "pick": "Auswählen…",
        "number": "muss eine ganze Zahl sein",
        "amount": "muss ein Betrag sein",
        "at_most": "höchstens {n}",
        "adjusted": "✏️ <@{user}> hat angepasst: {changes}",
        "cleared": "nicht gesetzt",
    },
}


def labels(language: str) -> dict[str, str]:
    return _LABELS.get(language, _LABELS["en"])


def _text(text: str, limit: int = OPTION_TEXT_LIMIT) -> dict[str, Any]:
    text = text if len(text) <= limit else text[: limit - 1] + "…"
    return {"type": "plain_text", "text": text, "emoji": True}


def _option(value: str, text: str) -> dict[str, Any]:
    return {"text": _text(text), "value": value}


def model_options(options: dict[str, Any], current: str | None = None) -> list[dict[str, Any]]:
    """The catalog's models as `GET /api/reading/options` lists them (at most 100; the current
    one always among them)."""
    models = options["models"]
    chosen = models[:MAX_OPTIONS]
    if current and current not in {m["id"] for m in chosen}:
        chosen = chosen[: MAX_OPTIONS - 1] + [m for m in models if m["id"] == current]
    return [_option(m["id"], m["name"]) for m in chosen]


def precision_options(options: dict[str, Any]) -> list[dict[str, Any]]:
    return [_option(p, p.upper()) for p in options["precisions"]]


def configuration_options(
    options: dict[str, Any], current: list[str], language: str
) -> list[dict[str, Any]]:
    """The catalog's configurations with their price (at most 100; the current ones always
    among them), in the order `GET /api/reading/options` gives them."""
    configs = options["configurations"]
    keep = [c for c in configs if c["id"] in current]
    rest = [c for c in configs if c["id"] not in current][: max(0, MAX_OPTIONS - len(keep))]
    per_month = "/Monat" if language == "de" else "/month"
    return [
        _option(
            c["id"], f"{c['label']} · {format_usd(Decimal(str(c['usd_per_month'])))}{per_month}"
        )
        for c in configs
        if c in keep or c in rest
    ]


def _number(value: float | int | None) -> str | None:
    """A number as a number_input takes it: "20000", "6000.5" (never "2e+04")."""
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _input(
    field: Field, label: str, element: dict[str, Any], hint: str | None = None
) -> dict[str, Any]:
    block: dict[str, Any] = {
        "type": "input",
        "block_id": field.block_id,
        "optional": True,
        "label": _text(label, 2000),
        "element": {"action_id": field.action_id, **element},
    }
    if hint:
        block["hint"] = _text(hint, 2000)
    return block


def _select(options: list[dict[str, Any]], current: str | None, pick: str) -> dict[str, Any]:
    element: dict[str, Any] = {
        "type": "static_select",
        "placeholder": _text(pick),
        "options": options,
    }
    initial = next((o for o in options if o["value"] == current), None)
    if initial is not None:  # Slack refuses an initial option that is not among the options
        element["initial_option"] = initial
    return element


def _number_input(field: str, current: float | int | None, decimal: bool) -> dict[str, Any]:
    element: dict[str, Any] = {
        "type": "number_input",
        "is_decimal_allowed": decimal,
        "min_value": "1",
        "max_value": _number(MAXIMA[field]),
    }
    if (initial := _number(current)) is not None:
        element["initial_value"] = initial
    return element


def input_blocks(reading: Reading, catalog: Any, language: str) -> list[dict[str, Any]]:
    """One input block per field, prefilled from `reading`."""
    lab = labels(language)
    currency = reading.budget_currency or "USD"
    options = reading_options(catalog, language)
    configs = configuration_options(options, reading.configurations, language)
    multi: dict[str, Any] = {
        "type": "multi_static_select",
        "placeholder": _text(lab["pick"]),
        "options": configs,
    }
    by_id = {o["value"]: o for o in configs}
    initial = [by_id[c] for c in reading.configurations if c in by_id]  # in the reading's order
    if initial:
        multi["initial_options"] = initial
    return [
        _input(
            BY_FIELD["model"],
            lab["model"],
            _select(model_options(options, reading.model), reading.model, lab["pick"]),
        ),
        _input(
            BY_FIELD["precision"],
            lab["precision"],
            _select(precision_options(options), reading.precision, lab["pick"]),
        ),
        _input(BY_FIELD["users"], lab["users"], _number_input("users", reading.users, False)),
        _input(
            BY_FIELD["concurrent_sequences"],
            lab["concurrent_sequences"],
            _number_input("concurrent_sequences", reading.concurrent_sequences, False),
            lab["concurrent_sequences_hint"],
        ),
        _input(
            BY_FIELD["context_tokens"],
            lab["context_tokens"],
            _number_input("context_tokens", reading.context_tokens, False),
        ),
        _input(
            BY_FIELD["configurations"], lab["configurations"], multi, lab["configurations_hint"]
        ),
        _input(
            BY_FIELD["budget_usd_per_month"],
            lab["budget_usd_per_month"].format(currency=currency),
            _number_input("budget_usd_per_month", reading.budget_usd_per_month, True),
        ),
    ]


def adjust_modal(answer: Answer, catalog: Any, metadata: dict[str, Any]) -> dict[str, Any]:
    """The modal for `views.open`: the answer's understood line, then the inputs prefilled from
    its reading. `metadata` (session, message, where to answer) goes into private_metadata."""
    if answer.reading is None:
        raise ValueError("the answer carries no reading to adjust")
    lab = labels(answer.language)
    private = json.dumps(metadata, ensure_ascii=False)
    if len(private) > METADATA_LIMIT:
        raise ValueError("private_metadata over Slack's 3,000 characters")
    intro = lab["intro"]
    if answer.understood:
        intro = f"*{escape(answer.understood)}*\n{intro}"
    return {
        "type": "modal",
        "callback_id": ADJUST_CALLBACK_ID,
        "private_metadata": private,
        "title": _text(lab["title"], 24),
        "submit": _text(lab["submit"], 24),
        "close": _text(lab["close"], 24),
        "blocks": [
            {"type": "section", "text": {"type": "mrkdwn", "text": intro}},
            *input_blocks(answer.reading, catalog, answer.language),
        ],
    }


def submitted(state: dict[str, Any], language: str = "en") -> tuple[dict[str, Any], dict[str, str]]:
    """The modal's values by reading field (None: left empty), and errors by block id for
    values that are not numbers (Slack checks them in the client; a request may not)."""
    lab = labels(language)
    values: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for field in FIELDS:
        element = (state.get(field.block_id) or {}).get(field.action_id)
        if element is None:
            continue  # not in this modal: left as it is
        if field.kind == "select":
            option = element.get("selected_option") or {}
            values[field.field] = option.get("value")
        elif field.kind == "multi_select":
            values[field.field] = [o["value"] for o in element.get("selected_options") or []]
        else:
            raw = element.get("value")
            if raw in (None, ""):
                values[field.field] = None
                continue
            try:
                number = Decimal(str(raw).strip())
                if not number.is_finite():
                    raise InvalidOperation
            except InvalidOperation:
                errors[field.block_id] = lab["amount" if field.kind == "decimal" else "number"]
                continue
            if number > Decimal(str(MAXIMA[field.field])):
                errors[field.block_id] = lab["at_most"].format(n=f"{MAXIMA[field.field]:,.0f}")
                continue
            if field.kind == "integer":
                if number != number.to_integral_value():
                    errors[field.block_id] = lab["number"]
                    continue
                values[field.field] = int(number)
            else:
                values[field.field] = float(number)
    return values, errors


def edits_between(reading: Reading, values: dict[str, Any]) -> dict[str, Any]:
    """The fields whose submitted value differs from `reading` (only those are edits). A select
    left empty is no edit (a select cannot be cleared); an emptied number clears its field; the
    configurations compare as a set."""
    edits: dict[str, Any] = {}
    for field, value in values.items():
        current = getattr(reading, field)
        if BY_FIELD[field].kind == "select":
            if value is not None and value != current:
                edits[field] = value
        elif BY_FIELD[field].kind == "multi_select":
            if set(value) != set(current):
                edits[field] = [v for v in current if v in value] + [
                    v for v in value if v not in current
                ]
        elif value != current:
            edits[field] = value
    return edits


_FIELD_IN_ERROR = re.compile(r"reading\.(\w+)")
# fields an edit sets besides its own (a model sets `models`, configurations set `cards`)
_SET_BY = {
    "models": "model",
    "params_b": "model",
    "precisions": "precision",
    "cards": "configurations",
    "count": "configurations",
}


def field_errors(message: str, edits: dict[str, Any]) -> dict[str, str]:
    """An `InvalidRequest` from applying `edits` as Slack field errors: on the block of the
    field it names (`reading.<field>`), else on the first edited field's block."""
    found = _FIELD_IN_ERROR.search(message)
    field = found.group(1) if found else ""
    field = _SET_BY.get(field, field)
    if field not in BY_FIELD:
        field = next((f for f in edits if f in BY_FIELD), FIELDS[0].field)
    text = re.sub(r"^reading\.\w+:\s*", "", message).strip() or message
    text = text if len(text) <= 150 else text[:149] + "…"
    return {BY_FIELD[field].block_id: text}


def describe_edits(edits: dict[str, Any], catalog: Any, language: str) -> str:
    """ "Precision → FP8, Users → 40": what a submission changed, for the note above the
    re-answer."""
    lab = labels(language)
    parts = []
    for field, value in edits.items():
        name = lab[field].format(currency="").split(" (")[0].strip()
        parts.append(f"{name} → {escape(_shown(field, value, catalog, lab))}")
    return ", ".join(parts)


def _shown(field: str, value: Any, catalog: Any, lab: dict[str, str]) -> str:
    if value in (None, []):
        return lab["cleared"]
    if field == "model":
        spec = getattr(catalog, "models", {}).get(value)
        return str(getattr(spec, "name", value))
    if field == "precision":
        return str(value).upper()
    if field == "configurations":
        configs = getattr(catalog, "configurations", {})
        return " / ".join(str(getattr(configs.get(c), "label", c)) for c in value)
    if isinstance(value, float):
        return f"{value:,.2f}".rstrip("0").rstrip(".")
    return f"{value:,}" if isinstance(value, int) else str(value)
