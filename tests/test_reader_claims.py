"""The rule reader's yes/no and claim, as people phrase them: a tag question ("…, right?") is
no "healthy" claim, an opening "ok" claims nothing, "passt das auf …" asks a fit, an A100 PCIe
is a card (not "PCIe enough"), "… or do I need something bigger?" is still yes/no, a label
before a colon ("Kunde fragt: reichen …") does not hide the yes/no."""

from __future__ import annotations

import pytest

from assistant.service import Assistant

WITH_GUIDE_INDEX = True  # tests/conftest.py builds the shipped guide index for `deps`


@pytest.mark.parametrize(
    ("question", "claim", "yes_no"),
    [
        ("Does FLUX.1 dev fit on an RTX 4090 in bf16 or do I need something bigger?", "fits", True),
        ("Kunde fragt: reichen 2x A100 PCIe für Mixtral 8x7B in BF16?", "fits", True),
        ("Llama 3.3 70B in FP8 should fit on 4x L40S, right?", "fits", True),
        ("ok and if it's only inference in FP8, would 4x H100 SXM5 hold Qwen3 32B?", "fits", True),
        ("my 4x A100 SXM4 shows NV12 between every pair, is that right?", "healthy", True),
        ("Reicht PCIe für Llama 3.3 70B auf 4x L40S?", "pcie_enough", True),
        ("Should I use the A100 or the H100 for Llama 3.1 8B?", None, False),
    ],
)
def test_claim_and_yes_no(
    assistant: Assistant, question: str, claim: str | None, yes_no: bool
) -> None:
    a = assistant.ask(question)
    assert a.reading is not None
    assert a.reading.claim == claim
    assert a.reading.yes_no is yes_no


@pytest.mark.parametrize(
    ("question", "users"),
    [
        ("passt lama 3.1 8b auf ne L4?? nutz das nur ich alleine", 1),
        ("Reicht eine L40S für Gemma 3 27B in FP8? Ist nur für mich zum Testen.", 1),
        ("How long can the context get for Llama 3.1 8B on one RTX 4090, one user?", 1),
        ("Llama 3.1 8B for 200 users on 1x L40S?", 200),
    ],
)
def test_one_user_is_read(assistant: Assistant, question: str, users: int) -> None:
    a = assistant.ask(question)
    assert a.reading is not None and a.reading.users == users


def test_a_family_named_again_as_its_variant_is_that_variant(assistant: Assistant) -> None:
    a = assistant.ask(
        "Betreff: Anfrage 8x H100\n\nwir wollen Llama 3.1 405B in FP8 betreiben. Passt das auf "
        "euren Server mit 8x H100 SXM5, und was kostet der im Monat?"
    )
    assert a.reading is not None
    assert a.reading.configurations == ["8x-h100-sxm5"] and not a.reading.card_families


@pytest.mark.parametrize(
    ("question", "field", "value"),
    [
        (
            "The 8x L4 box has 192 GB in total – so SDXL in one pipeline fits across it, right?",
            "claim",
            "memory_adds_up",
        ),
        (
            "Mixtral only activates 13B parameters per token, so one 24 GB card is plenty, right?",
            "claim",
            "active_sets_memory",
        ),
        ("is 24gb of vram enough for Llama 3.1 8B in BF16?", "memory_gb", 24.0),
        ("Sind 80 GB zu wenig für Llama 3.3 70B in FP8?", "claim", "too_small"),
        ("Sind 80 GB zu wenig für Llama 3.3 70B in FP8?", "memory_gb", 80.0),
        ("Wie viele 16k-Chats schafft Qwen3 14B auf einer RTX 5090?", "context_tokens", 16384),
        (
            "Ich hab 900 € im Monat, was bekomme ich für Llama 3.1 8B?",
            "budget_usd_per_month",
            900.0,
        ),
    ],
)
def test_the_reader_places_what_people_say(
    assistant: Assistant, question: str, field: str, value: object
) -> None:
    a = assistant.ask(question)
    assert a.reading is not None and getattr(a.reading, field) == value


def test_how_many_sessions_a_card_manages_is_a_capacity_question(assistant: Assistant) -> None:
    a = assistant.ask(
        "Wie viele gleichzeitige 8k-Sessions schafft Llama 3.1 8B in FP8 auf einer L40S – und "
        "was kostet die Karte?"
    )
    assert a.reading is not None
    assert a.reading.intents[0] == "capacity" and "fit" not in [k.kind for k in a.reading.asks]
    cap = [c for c in a.tool_calls if c.name == "capacity_check"]
    assert cap and cap[0].arguments["context_tokens"] == 8192
    assert "1x-l40s" in {p.configuration for p in a.prices}
