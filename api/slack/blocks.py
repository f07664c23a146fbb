"""The one Answer type as Slack Block Kit: verdict, key numbers, price table, numbered citations,
follow-up and feedback buttons; split into messages within Slack's limits.

Slack limits honoured here (https://api.slack.com/reference/block-kit): 50 blocks per message,
3,000 characters per section text, 2,000 per field and 10 fields per section, 10 context
elements, 75 characters of button text, 2,000 of button value, 150 of plain_text header.
"""

import json
import re
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from api.slack.mrkdwn import SECTION_TEXT_LIMIT, escape, split_mrkdwn, to_mrkdwn
from assistant.answer import Answer, Citation, PriceQuote

MAX_BLOCKS = 50
MAX_FIELDS = 10
FIELD_LIMIT = 2000
BUTTON_TEXT_LIMIT = 75
BUTTON_VALUE_LIMIT = 2000
FALLBACK_TEXT_LIMIT = 3000
MAX_FOLLOW_UPS = 3

# action ids (the Bolt app listens to these)
ACTION_FEEDBACK_UP = "sizing_feedback_up"
ACTION_FEEDBACK_DOWN = "sizing_feedback_down"
ACTION_SHARE = "sizing_share"
ACTION_ADJUST = "sizing_adjust"  # opens the "Adjust" modal (api/slack/adjust.py)
ACTION_FOLLOW_UP_PREFIX = "sizing_follow_up_"
FOLLOW_UP_ACTION = re.compile(rf"^{ACTION_FOLLOW_UP_PREFIX}\d+$")
ACTION_CHOICE_PREFIX = "sizing_choice_"  # one of the answer's choices: re-answer with its fields
CHOICE_ACTION = re.compile(rf"^{ACTION_CHOICE_PREFIX}\d+$")
ACTIONS_BLOCK_ID = "sizing_actions"
ACTION_OFFER_COPY = "sizing_offer_copy"  # "Copy as text": the offer's forward text, verbatim
OFFER_BLOCK_ID = "sizing_offer"

_LABELS = {
    "en": {
        "prices": "Prices",
        "configuration": "Configuration",
        "price": "Price per month",
        "per_month": "/month",
        "placeholder": "placeholder price",
        "sources": "Sources",
        "follow_ups": "Ask next",
        "helpful": "Helpful",
        "not_helpful": "Not helpful",
        "share": "Share in channel",
        "adjust": "Adjust",
        "question": "Question",
        "shared_by": "Shared by",
        "offline": "Offline answer from the gpuserver.io guides and catalog",
        "llm": "LLM answer, checked against the gpuserver.io guides and catalog",
        "continued": "(continued)",
        "offer": "Offer for the customer",
        "recommended": "Recommended",
        "cheaper": "Cheaper",
        "safer": "More headroom",
        "assumptions": "Assumptions",
        "copy": "Copy as text",
        "offer_text": "Text to forward (copy it from here):",
        "details_below": "🧵 Details, sources and follow-ups in the thread",
        "details": "Details",
    },
    "de": {
        "prices": "Preise",
        "configuration": "Konfiguration",
        "price": "Preis pro Monat",
        "per_month": "/Monat",
        "placeholder": "Platzhalterpreis",
        "sources": "Quellen",
        "follow_ups": "Weiterfragen",
        "helpful": "Hilfreich",
        "not_helpful": "Nicht hilfreich",
        "share": "Im Kanal teilen",
        "adjust": "Anpassen",
        "question": "Frage",
        "shared_by": "Geteilt von",
        "offline": "Offline-Antwort aus den Guides und dem Katalog von gpuserver.io",
        "llm": "LLM-Antwort, geprüft gegen die Guides und den Katalog von gpuserver.io",
        "continued": "(Fortsetzung)",
        "offer": "Angebot für den Kunden",
        "recommended": "Empfohlen",
        "cheaper": "Günstiger",
        "safer": "Mehr Reserve",
        "assumptions": "Annahmen",
        "copy": "Als Text kopieren",
        "offer_text": "Text zum Weiterleiten (hier kopieren):",
        "details_below": "🧵 Details, Quellen und Weiterfragen im Thread",
        "details": "Details",
    },
}

_MARKER = re.compile(r"(?<![<|\w])\[(\d{1,3})\](?![(|>])")


def labels(language: str) -> dict[str, str]:
    return _LABELS.get(language, _LABELS["en"])


def format_usd(amount: Decimal) -> str:
    """$4,395 (whole dollars) or $4,157.50, as the catalog and the guide write prices."""
    if amount == amount.to_integral_value():
        return f"${int(amount):,}"
    return f"${amount:,.2f}"


def _truncate(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _section(text: str) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


def _context(text: str) -> dict[str, Any]:
    return {"type": "context", "elements": [{"type": "mrkdwn", "text": _truncate(text, 3000)}]}


def _button(text: str, action_id: str, value: str, style: str | None = None) -> dict[str, Any]:
    button: dict[str, Any] = {
        "type": "button",
        "text": {"type": "plain_text", "text": _truncate(text, BUTTON_TEXT_LIMIT), "emoji": True},
        "action_id": action_id,
        "value": value[:BUTTON_VALUE_LIMIT],
    }
    if style:
        button["style"] = style
    return button


def link_markers(mrkdwn: str, citations: list[Citation]) -> str:
    """Turn the citation markers [n] in the text into links to the cited guide sections."""
    urls = {c.n: c.url for c in citations}

    def repl(m: re.Match[str]) -> str:
        n = int(m.group(1))
        return f"<{urls[n]}|[{n}]>" if n in urls else m.group(0)

    # not inside code blocks or code spans
    parts = re.split(r"(```.*?```|`[^`\n]*`)", mrkdwn, flags=re.S)
    return "".join(p if p.startswith("`") else _MARKER.sub(repl, p) for p in parts)


def _paragraphs(markdown: str) -> tuple[str, str]:
    """The verdict (first paragraph) and the rest of the answer."""
    text = markdown.strip()
    # keep a fenced block or table in one piece: split at the first blank line outside a fence
    in_fence = False
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
        elif not line.strip() and not in_fence and i > 0:
            return "\n".join(lines[:i]).strip(), "\n".join(lines[i + 1 :]).strip()
    return text, ""


def price_blocks(prices: list[PriceQuote], language: str) -> list[dict[str, Any]]:
    """A two-column price table (configuration with link | price per month) as section fields."""
    if not prices:
        return []
    lab = labels(language)
    blocks: list[dict[str, Any]] = [_section(f"*{lab['prices']}*")]
    fields: list[dict[str, Any]] = []
    for quote in prices:
        name = f"<{quote.url}|{escape(quote.label)}>" if quote.url else escape(quote.label)
        price = f"*{format_usd(quote.usd_per_month)}*{lab['per_month']}"
        if quote.placeholder:
            price += f" _({lab['placeholder']})_"
        fields.append({"type": "mrkdwn", "text": _truncate(name, FIELD_LIMIT)})
        fields.append({"type": "mrkdwn", "text": _truncate(price, FIELD_LIMIT)})
    for start in range(0, len(fields), MAX_FIELDS):
        blocks.append({"type": "section", "fields": fields[start : start + MAX_FIELDS]})
    return blocks


def citation_lines(citations: list[Citation]) -> list[str]:
    lines = []
    for c in sorted(citations, key=lambda c: c.n):
        label = c.title if not c.section or c.section == c.title else f"{c.title} › {c.section}"
        label = escape(label.replace("|", "/").replace(">", "›"))
        lines.append(f"[{c.n}] <{c.url}|{label}>")
    return lines


def citation_blocks(citations: list[Citation], language: str) -> list[dict[str, Any]]:
    if not citations:
        return []
    text = f"*{labels(language)['sources']}*\n" + "\n".join(citation_lines(citations))
    return [_section(piece) for piece in split_mrkdwn(text, SECTION_TEXT_LIMIT)]


# names in a suggested question: "Llama 3.3 70B", "Qwen2.5 72B", "L40S", "4 × NVIDIA B200"
_NAME = re.compile(
    r"\b(?:[A-Z][A-Za-z]*[- ]?\d[\w.]*(?:[- ]\d+(?:\.\d+)?[BbMm]\b)?|"
    r"[A-Z][A-Za-z]+[- ]\d+(?:\.\d+)?[BbMm]\b)"
)
_NOT_A_SUBJECT = re.compile(r"^(?:[BF]P\d+|BF\d+|INT\d+|FP\d+|Q\d\w*|NV\d+|PCIe\w*|Gen\d)$", re.I)


def _squash(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def answer_subjects(answer: Answer) -> str:
    """What the answer is about, squashed for matching: its text, question, priced
    configurations and the arguments of the tool calls it made."""
    parts = [answer.answer, answer.question]
    parts += [f"{q.label} {q.configuration}" for q in answer.prices]
    parts += [json.dumps(call.arguments, ensure_ascii=False) for call in answer.tool_calls]
    return _squash(" ".join(parts))


def relevant_follow_ups(answer: Answer) -> list[str]:
    """The suggested next questions that stay on the answer's subject: every model or card a
    suggestion names must appear in the answer (its text, prices or tool calls). "Do I need
    NVLink for Llama 3.3 70B?" under a 2 × L40S price check is dropped; "And in FP8?" stays."""
    subjects = answer_subjects(answer)
    kept = []
    for question in answer.follow_ups:
        names = [n for n in _NAME.findall(question) if not _NOT_A_SUBJECT.match(n)]
        if all(_squash(n) in subjects for n in names):
            kept.append(question)
    return kept


def follow_up_block(answer: Answer) -> dict[str, Any] | None:
    follow_ups = relevant_follow_ups(answer)
    if not follow_ups:
        return None
    buttons = [
        _button(
            q,
            f"{ACTION_FOLLOW_UP_PREFIX}{i}",
            json.dumps({"q": q[:1500], "s": answer.session_id}, ensure_ascii=False),
        )
        for i, q in enumerate(follow_ups[:MAX_FOLLOW_UPS])
    ]
    return {"type": "actions", "block_id": "sizing_follow_ups", "elements": buttons}


def choices_block(answer: Answer) -> dict[str, Any] | None:
    """`Answer.choices` (e.g. the models proposed when none was named) as buttons; a click
    re-answers the session's question with the choice's reading fields."""
    if not answer.choices:
        return None
    buttons = [
        _button(
            f"↪ {c.label}",
            f"{ACTION_CHOICE_PREFIX}{i}",
            json.dumps({"s": answer.session_id, "e": c.reading, "l": c.label}, ensure_ascii=False),
        )
        for i, c in enumerate(answer.choices[:MAX_FOLLOW_UPS])
    ]
    return {"type": "actions", "block_id": "sizing_choices", "elements": buttons}


def actions_block(answer: Answer, *, share: bool, adjust: bool = True) -> dict[str, Any]:
    """👍 / 👎, "Adjust" when the answer carries a reading (opens the modal to correct it), and
    "Share in channel" on ephemeral answers."""
    lab = labels(answer.language)
    ref = json.dumps({"s": answer.session_id, "m": answer.message_id})
    elements = [
        _button(f"👍 {lab['helpful']}", ACTION_FEEDBACK_UP, ref),
        _button(f"👎 {lab['not_helpful']}", ACTION_FEEDBACK_DOWN, ref),
    ]
    if adjust and answer.reading is not None:
        elements.append(_button(f"✏️ {lab['adjust']}", ACTION_ADJUST, ref))
    if share:
        elements.append(_button(lab["share"], ACTION_SHARE, answer.message_id, style="primary"))
    return {"type": "actions", "block_id": ACTIONS_BLOCK_ID, "elements": elements}


_MARKER_RUN = re.compile(r"\s*(?:\[\d{1,3}\](?:,\s*)?)+(?![(|>])")


UNDERSTOOD_BLOCK_ID = "sizing_understood"


def understood_block(answer: Answer) -> dict[str, Any]:
    """`Answer.understood` ("Sized for: Llama 3.3 70B · FP8 · …") as a context block."""
    block = _context(f"🔎 {escape(answer.understood)}")
    block["block_id"] = UNDERSTOOD_BLOCK_ID
    return block


def fallback_text(answer: Answer) -> str:
    """The message's `text`: shown in notifications and by clients that cannot render blocks.
    Without citation markers ("[1]" means nothing in a notification)."""
    verdict, _ = _paragraphs(answer.answer)
    text = _MARKER_RUN.sub("", to_mrkdwn(verdict)).strip()
    return _truncate(text, FALLBACK_TEXT_LIMIT) or "…"


def offer_blocks(answer: Answer) -> list[dict[str, Any]]:
    """`Answer.offer` for staff: the recommended configuration and its price, the cheaper and
    the safer alternative with their trade-offs, the assumptions, and a "Copy as text" button
    that posts the ready-to-forward text (in the customer's language) on its own."""
    offer = answer.offer
    if offer is None:
        return []
    lab = labels(answer.language)
    lines = [f"*📨 {lab['offer']}*"]
    for option in (offer.recommended, offer.cheaper, offer.safer):
        if option is None:
            continue
        name = f"<{option.url}|{escape(option.label)}>" if option.url else escape(option.label)
        price = f"*{format_usd(option.usd_per_month)}*{lab['per_month']}"
        if option.placeholder:
            price += f" _({lab['placeholder']})_"
        line = f"• *{lab[option.role]}:* {name}: {price}"
        if option.trade_off:
            line += f"\n   _{escape(option.trade_off)}_"
        lines.append(line)
    blocks = [_section(piece) for piece in split_mrkdwn("\n".join(lines), SECTION_TEXT_LIMIT)]
    blocks[0]["block_id"] = OFFER_BLOCK_ID
    if offer.assumptions:
        said = " · ".join(escape(a) for a in offer.assumptions)
        blocks.append(_context(f"*{lab['assumptions']}:* {said}"))
    if offer.text:
        # the text rides in the button when it fits (it survives a restart and other workers);
        # else the click looks the answer up by its message id
        ref = {"s": answer.session_id, "m": answer.message_id, "l": answer.language}
        carried = json.dumps({**ref, "t": offer.text}, ensure_ascii=False)
        value = carried if len(carried) <= BUTTON_VALUE_LIMIT else json.dumps(ref)
        copy = _button(f"📋 {lab['copy']}", ACTION_OFFER_COPY, value)
        blocks.append({"type": "actions", "block_id": "sizing_offer_actions", "elements": [copy]})
    return blocks


def offer_text_message(offer_text: str, language: str) -> dict[str, Any]:
    """The offer's forward text as a message of its own (code blocks, verbatim, each within a
    section's limit): what "Copy as text" posts."""
    lab = labels(language)
    text = offer_text.replace(FENCE, "'" * 3)
    size = SECTION_TEXT_LIMIT - 8
    pieces = [text[i : i + size] for i in range(0, len(text), size)] or [""]
    blocks = [_context(lab["offer_text"])]
    blocks += [_section(f"{FENCE}{piece}{FENCE}") for piece in pieces]
    return {"text": _truncate(text, FALLBACK_TEXT_LIMIT), "blocks": blocks}


FENCE = "`" * 3


def answer_blocks(
    answer: Answer,
    *,
    share: bool = False,
    feedback: bool = True,
    show_question: bool = False,
    shared_by: str | None = None,
    notes: Sequence[str] = (),
    adjust: bool = True,
) -> list[dict[str, Any]]:
    """All blocks for an answer, in order (may be more than one message's worth; see
    `answer_messages`). `notes` are mrkdwn lines shown above the answer (what context it
    carried, who asked)."""
    lab = labels(answer.language)
    blocks: list[dict[str, Any]] = []
    if shared_by:
        blocks.append(_context(f"{lab['shared_by']} <@{shared_by}>"))
    if show_question:
        question = escape(" ".join(answer.question.split()))
        blocks.append(_context(f"*{lab['question']}:* {_truncate(question, 500)}"))
    blocks.extend(_context(note) for note in notes)
    if answer.understood:  # what was understood, correctable with "Adjust"
        blocks.append(understood_block(answer))
    verdict, rest = _paragraphs(answer.answer)
    for part in (verdict, rest):
        mrkdwn = link_markers(to_mrkdwn(part), answer.citations)
        blocks.extend(_section(piece) for piece in split_mrkdwn(mrkdwn, SECTION_TEXT_LIMIT))
    if answer.notice:
        blocks.append(_context(f"⚠️ {escape(answer.notice)}"))
    blocks.extend(price_blocks(answer.prices, answer.language))
    blocks.extend(offer_blocks(answer))
    blocks.extend(citation_blocks(answer.citations, answer.language))
    choices = choices_block(answer) if adjust else None  # re-answering needs `reanswer`
    if choices:
        blocks.append(choices)
    follow_ups = follow_up_block(answer)
    if follow_ups:
        blocks.append(follow_ups)
    if feedback or share:
        if feedback:
            blocks.append(actions_block(answer, share=share, adjust=adjust))
        else:
            action = actions_block(answer, share=True)
            action["elements"] = action["elements"][-1:]
            blocks.append(action)
    blocks.append(_context(lab["llm" if answer.mode == "llm" else "offline"]))
    return blocks


def answer_messages(
    answer: Answer,
    *,
    share: bool = False,
    feedback: bool = True,
    show_question: bool = False,
    shared_by: str | None = None,
    notes: Sequence[str] = (),
    adjust: bool = True,
) -> list[dict[str, Any]]:
    """The answer as one or more Slack messages ({"text", "blocks"}), each within 50 blocks.
    The buttons and the footer always land in the last message."""
    blocks = answer_blocks(
        answer,
        share=share,
        feedback=feedback,
        show_question=show_question,
        shared_by=shared_by,
        notes=notes,
        adjust=adjust,
    )
    text = fallback_text(answer)
    continued = labels(answer.language)["continued"]
    messages = []
    for start in range(0, len(blocks), MAX_BLOCKS):
        chunk = blocks[start : start + MAX_BLOCKS]
        messages.append({"text": text if start == 0 else f"{continued} {text}", "blocks": chunk})
    return messages


def _chunks(blocks: list[dict[str, Any]], text: str, continued: str) -> list[dict[str, Any]]:
    return [
        {"text": text if i == 0 else f"{continued} {text}", "blocks": blocks[i : i + MAX_BLOCKS]}
        for i in range(0, len(blocks), MAX_BLOCKS)
    ]


def summary_messages(
    answer: Answer,
    *,
    notes: Sequence[str] = (),
    adjust: bool = True,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The answer short first (issue 26): the messages for where it was asked (the summary, what
    was understood, prices, the offer, choices and the buttons) and the details for its thread
    (the whole answer, sources, follow-ups). An answer without a summary: all of it in the
    first messages (`answer_messages`), no details."""
    if not answer.summary:
        return answer_messages(answer, notes=notes, adjust=adjust), []
    lab = labels(answer.language)
    head: list[dict[str, Any]] = [_context(note) for note in notes]
    if answer.understood:
        head.append(understood_block(answer))
    summary = link_markers(to_mrkdwn(answer.summary), answer.citations)
    head.extend(_section(piece) for piece in split_mrkdwn(summary, SECTION_TEXT_LIMIT))
    if answer.notice:
        head.append(_context(f"⚠️ {escape(answer.notice)}"))
    head.extend(price_blocks(answer.prices, answer.language))
    head.extend(offer_blocks(answer))
    choices = choices_block(answer) if adjust else None
    if choices:
        head.append(choices)
    head.append(actions_block(answer, share=False, adjust=adjust))
    mode = lab["llm" if answer.mode == "llm" else "offline"]
    head.append(_context(f"{lab['details_below']} · {mode}"))
    details: list[dict[str, Any]] = [_context(f"*{lab['details']}*")]
    verdict, rest = _paragraphs(answer.answer)
    for part in (verdict, rest):
        mrkdwn = link_markers(to_mrkdwn(part), answer.citations)
        details.extend(_section(piece) for piece in split_mrkdwn(mrkdwn, SECTION_TEXT_LIMIT))
    details.extend(citation_blocks(answer.citations, answer.language))
    follow_ups = follow_up_block(answer)
    if follow_ups:
        details.append(follow_ups)
    text = _truncate(_MARKER_RUN.sub("", to_mrkdwn(answer.summary)).strip(), FALLBACK_TEXT_LIMIT)
    continued = lab["continued"]
    return (
        _chunks(head, text or "…", continued),
        _chunks(details, fallback_text(answer), continued),
    )


def notice_message(text: str) -> dict[str, Any]:
    """A short one-section message (errors, help, acknowledgements)."""
    return {"text": text, "blocks": [_section(_truncate(text, SECTION_TEXT_LIMIT))]}
