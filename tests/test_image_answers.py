"""Image and video models asked for several people at once: each card renders its own images
with its own copy (gpu-for-flux-sdxl#many-cards), so the answer says how many run in parallel
on the asked node and names the cheapest node with a card for each when the asked one has fewer.
The memory verdict stays the tool's (one copy per card)."""

from __future__ import annotations

from assistant.deps import Deps
from assistant.service import Assistant
from tests.answers import ok as _ok


def _rows(a, deps: Deps) -> dict[str, dict]:  # type: ignore[no-untyped-def]
    fit = next(t for t in a.tool_calls if t.name == "fit_check").result
    return {r["configuration"]: r for r in fit["rows"]}


def test_one_card_for_three_at_once_names_a_node_with_three_cards(
    assistant: Assistant, deps: Deps
) -> None:
    a = assistant.ask(
        "reicht eine rtx 4090 für flux schnell wenn 3 leute gleichzeitig bilder machen?"
    )
    text = _ok(a, "de")
    assert text.startswith("**Ja")  # the memory verdict: one copy fits the card
    rows = _rows(a, deps)
    enough = [
        r
        for r in rows.values()
        if r["verdict"] == "fits_one_card" and r["replicas"] >= 3 and r["room"] == "ample"
    ]
    best = min(enough, key=lambda r: (float(r["usd_per_month"]), r["configuration"]))
    named = {p.configuration for p in a.prices}
    assert best["configuration"] in named
    assert "1 × NVIDIA RTX 4090 schafft 1 gleichzeitig" in text
    assert any(c.url.endswith("#many-cards") for c in a.citations)


def test_a_node_with_enough_cards_is_not_sent_elsewhere(assistant: Assistant) -> None:
    a = assistant.ask("does flux dev fit on 4x l40s for 3 people at once?")
    text = _ok(a, "en")
    assert text.startswith("**Yes")
    assert "4 × NVIDIA L40S runs 3 at a time" in text
    assert "cheapest node with a card for each" not in text


def test_one_person_gets_no_copies_paragraph(assistant: Assistant) -> None:
    text = _ok(assistant.ask("does flux dev fit on an rtx 5090?"), "en")
    assert "at once" not in text
