"""After a 👎 in Slack (issue 26): a modal asking what was wrong — the reasons the widget offers
(wrong, unclear, too long, missed my question) and a text box — stored with the vote
(`store.feedback`, `reasons` and `comment`).

    view = why_modal(language, {"s": session_id, "m": message_id})   # views.open
    reasons, comment = why_submitted(view["state"]["values"])         # view_submission
"""

from __future__ import annotations

import json
from typing import Any

from store.feedback import MAX_COMMENT_CHARS, REASONS

WHY_CALLBACK_ID = "sizing_feedback_why"
_REASONS_BLOCK, _COMMENT_BLOCK = "why_reasons", "why_comment"

_LABELS = {
    "en": {
        "title": "What was wrong?",
        "submit": "Send",
        "close": "Skip",
        "reasons": "The answer was …",
        "comment": "What did you need? (optional)",
        "wrong": "Wrong",
        "unclear": "Unclear",
        "too_long": "Too long",
        "missed_question": "Missed my question",
    },
    "de": {
        "title": "Was war nicht gut?",
        "submit": "Senden",
        "close": "Überspringen",
        "reasons": "Die Antwort war …",
        "comment": "Was hätten Sie gebraucht? (optional)",
        "wrong": "Falsch",
        "unclear": "Unklar",
        "too_long": "Zu lang",
        "missed_question": "An der Frage vorbei",
    },
}


def _text(text: str) -> dict[str, Any]:
    return {"type": "plain_text", "text": text}


def why_modal(language: str, metadata: dict[str, Any]) -> dict[str, Any]:
    """The modal for `views.open` (`metadata`: the vote's session and message ids)."""
    lab = _LABELS.get(language, _LABELS["en"])
    return {
        "type": "modal",
        "callback_id": WHY_CALLBACK_ID,
        "private_metadata": json.dumps(metadata),
        "title": _text(lab["title"]),
        "submit": _text(lab["submit"]),
        "close": _text(lab["close"]),
        "blocks": [
            {
                "type": "input",
                "block_id": _REASONS_BLOCK,
                "optional": True,
                "label": _text(lab["reasons"]),
                "element": {
                    "type": "checkboxes",
                    "action_id": "reasons",
                    "options": [{"text": _text(lab[r]), "value": r} for r in REASONS],
                },
            },
            {
                "type": "input",
                "block_id": _COMMENT_BLOCK,
                "optional": True,
                "label": _text(lab["comment"]),
                "element": {
                    "type": "plain_text_input",
                    "action_id": "comment",
                    "multiline": True,
                    "max_length": MAX_COMMENT_CHARS,
                },
            },
        ],
    }


def why_submitted(values: dict[str, Any]) -> tuple[list[str], str | None]:
    """The reasons ticked (known ones only) and the text written (None: empty)."""
    chosen = (values.get(_REASONS_BLOCK) or {}).get("reasons") or {}
    reasons = [
        str(o.get("value"))
        for o in chosen.get("selected_options") or []
        if o.get("value") in REASONS
    ]
    comment = ((values.get(_COMMENT_BLOCK) or {}).get("comment") or {}).get("value")
    return reasons, (str(comment).strip() or None) if comment else None
