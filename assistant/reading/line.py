"""The reading in one short line, shown with every answer so the user can see (and correct) what
was understood: "Sized for: Qwen2.5 72B · FP8 · 12 at once of 80 users · 8k context ·
≤ $5,000/month".

Only what the user said (or a session carried over) appears; the line holds no figure a tool
computed. Parts are in a fixed order: task, model, precision, runtime, load, context, hardware,
constraints.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from assistant.language import Language
from assistant.reading.model import Reading

_LEAD: dict[str, tuple[str, str]] = {
    "sized": ("Sized for", "Berechnet für"),
    "read": ("Understood", "Verstanden"),
}
_TASK: dict[str, tuple[str, str]] = {
    "fine_tune": ("fine-tuning", "Fine-Tuning"),
    "train": ("training", "Training"),
    "images_video": ("images/video", "Bild/Video"),
    "diagnose": ("diagnosis", "Diagnose"),
    "explain": ("explanation", "Erklärung"),
    "price": ("prices", "Preise"),
    "compare": ("comparison", "Vergleich"),
    "out_of_scope": ("outside sizing", "außerhalb der Dimensionierung"),
}
_SIZING_TASKS = ("serve", "fine_tune", "train", "images_video", "compare", "price")


def _pick(pair: tuple[str, str], lang: Language) -> str:
    return pair[1] if lang == "de" else pair[0]


def _num(n: float, lang: Language) -> str:
    text = f"{n:,.0f}"
    return text.replace(",", ".") if lang == "de" else text


def _tokens(n: int) -> str:
    return (
        f"{n // 1000}k"
        if n >= 1000 and n % 1000 == 0
        else (f"{n // 1024}k" if n % 1024 == 0 else str(n))
    )


def _model(r: Reading, catalog: Any, lang: Language) -> str | None:
    if r.model:
        spec = getattr(catalog, "models", {}).get(r.model)
        return str(getattr(spec, "name", r.model))
    if r.model_name:
        return r.model_name
    return f"{r.params_b:g}B" if r.params_b else None


def _load(r: Reading, lang: Language) -> str | None:
    at_once = r.concurrent_sequences
    assumed = "concurrent_sequences" in r.assumed
    if r.users and at_once and at_once != r.users and assumed:
        if lang == "de":
            return (
                f"{_num(at_once, lang)} gleichzeitig (angenommen) von {_num(r.users, lang)} Nutzern"
            )
        return f"{_num(at_once, lang)} at once (assumed) of {_num(r.users, lang)} users"
    if r.users and at_once and at_once != r.users:
        if lang == "de":
            return f"{_num(at_once, lang)} gleichzeitig von {_num(r.users, lang)} Nutzern"
        return f"{_num(at_once, lang)} at once of {_num(r.users, lang)} users"
    if r.users:
        word = "Nutzer" if lang == "de" else ("user" if r.users == 1 else "users")
        return f"{_num(r.users, lang)} {word}"
    if at_once:
        return f"{_num(at_once, lang)} {'gleichzeitig' if lang == 'de' else 'at once'}"
    return None


def _hardware(r: Reading, catalog: Any, lang: Language) -> str | None:
    configs = getattr(catalog, "configurations", {})
    labels = []
    for cid in r.configurations[:3]:
        c = configs.get(cid)
        labels.append(str(getattr(c, "label", cid)) if c else cid)
    if labels:
        return " / ".join(labels)
    if r.cards:
        gpus = getattr(catalog, "gpus", {})
        names = [str(getattr(gpus.get(c), "short_name", c)) for c in r.cards[:3]]
        prefix = f"{r.count} × " if r.count else ""
        return prefix + " / ".join(names)
    return None


def _budget(r: Reading, lang: Language) -> str | None:
    if r.budget_usd_per_month is None:
        return None
    sign = "€" if r.budget_currency == "EUR" else "$"
    per = "/Monat" if lang == "de" else "/month"
    return f"≤ {sign}{_num(r.budget_usd_per_month, lang)}{per}"


def _exclusions(r: Reading, catalog: Any, lang: Language) -> str | None:
    parts = []
    gpus = getattr(catalog, "gpus", {})
    for card in r.exclude_cards[:3]:
        parts.append(str(getattr(gpus.get(card), "short_name", card)))
    if r.exclude_link:
        parts.append("NVLink" if r.exclude_link == "nvlink" else "PCIe")
    if not parts:
        return None
    return ("ohne " if lang == "de" else "no ") + ", ".join(parts)


_ASSUMED = ("assumed", "angenommen")


def _marked(text: str | None, field: str, r: Reading, lang: Language) -> str | None:
    """A part of the line, marked when the planner assumed it (a starting point)."""
    if text and field in r.assumed:
        return f"{text} ({_pick(_ASSUMED, lang)})"
    return text


def _task(r: Reading, lang: Language) -> str | None:
    """The task said ("fine-tuning"), with its method when an adapter is read ("QLoRA
    fine-tuning"); nothing for a price or a comparison (their parts say it)."""
    task = _TASK.get(r.task)
    if r.adapter and r.task in ("fine_tune", "train"):
        method = "QLoRA" if r.adapter == "qlora" else "LoRA"
        return f"{method}-Fine-Tuning" if lang == "de" else f"{method} fine-tuning"
    return _pick(task, lang) if task and r.task not in ("price", "compare") else None


_LINKS = {"nvlink": "NVLink", "pcie": "PCIe"}


def _output(r: Reading, lang: Language) -> str | None:
    """A batch to time: "100,000 tokens to write"."""
    if not r.output_tokens:
        return None
    words = "Token zu schreiben" if lang == "de" else "tokens to write"
    return f"{_num(r.output_tokens, lang)} {words}"


def _required_link(r: Reading, lang: Language) -> str | None:
    if not r.require_link:
        return None
    return f"{_LINKS.get(r.require_link, r.require_link)} {'nötig' if lang == 'de' else 'required'}"


def _parts(r: Reading, catalog: Any, lang: Language) -> list[str | None]:
    ctx = r.context_tokens
    context = f"{_tokens(ctx)} {'Kontext' if lang == 'de' else 'context'}" if ctx else None
    builders: list[Callable[[], str | None]] = [
        lambda: _task(r, lang),
        lambda: _marked(_model(r, catalog, lang), "model", r, lang),
        lambda: _marked((r.precision or "").upper() or None, "precision", r, lang),
        lambda: r.runtime,
        lambda: _load(r, lang),
        lambda: _marked(context, "context_tokens", r, lang),
        lambda: _output(r, lang),
        lambda: _hardware(r, catalog, lang),
        lambda: _budget(r, lang),
        lambda: _exclusions(r, catalog, lang),
        lambda: _required_link(r, lang),
        lambda: (
            f"≥ {r.min_memory_per_card_gb:g} GB/{'Karte' if lang == 'de' else 'card'}"
            if r.min_memory_per_card_gb
            else None
        ),
    ]
    return [build() for build in builders]


def understood_line(r: Reading, catalog: Any = None, lang: Language | None = None) -> str:
    """One short line of what was understood, or "" when the reading holds nothing to show."""
    lang = lang or r.language
    parts = [p for p in _parts(r, catalog, lang) if p]
    if not parts:
        return ""
    lead = "sized" if r.task in _SIZING_TASKS and r.has_subject else "read"
    return f"{_pick(_LEAD[lead], lang)}: " + " · ".join(parts)
