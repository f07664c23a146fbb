"""Unit tests of what the Slack surface makes of a message before the assistant sees it: the
customer situation (assistant.situation), the prompt built from it, session scoping and the
follow-up buttons / notification text (issue 18). End-to-end versions: test_slack_staff.py."""

from decimal import Decimal

from api.slack.blocks import fallback_text, relevant_follow_ups
from api.slack.conversation import MemoryConversations, Scoper, build_prompt, pick_context
from assistant.answer import Answer, PriceQuote, ToolCall
from assistant.situation import looks_like_follow_up, read_situation, split_reset
from tests.slack_stub import GERMAN_TOPO_QUESTION, topo_8x_h100

EMAIL = """What should we offer them?

---------- Forwarded message ---------
From: Jane Doe <jane@acme.example>
Date: Mon, 3 Mar 2025 at 10:12
Subject: GPU server for our chatbot
To: <sales@gpuserver.io>

Hi team,

we want to run Qwen2.5 72B for inference, about 40 concurrent users at 32k context. We might
fine-tune it later on our own data.
Our budget is $15,000 per month. FP8 is fine for us.

Best regards,
Jane
ACME Corp
"""


def test_forwarded_email_splits_into_question_and_requirements() -> None:
    s = read_situation(EMAIL)
    assert s.question == "What should we offer them?"
    assert "Jane" not in s.customer and "From:" not in s.customer  # headers and signature
    assert [(r.kind, r.text) for r in s.requirements] == [
        (
            "model",
            "we want to run Qwen2.5 72B for inference, about 40 concurrent users at 32k context.",
        ),
        ("model", "FP8 is fine for us."),
        ("budget", "Our budget is $15,000 per month."),
        ("plans", "We might fine-tune it later on our own data."),  # a wrapped line, joined
    ]
    assert s.language == "en" and s.language_detected


def test_prompt_puts_requirements_first_question_last_and_keeps_plans_apart() -> None:
    prompt = build_prompt(read_situation(EMAIL))
    lines = prompt.text.split("\n")
    assert "Qwen2.5 72B" in lines[0]
    assert lines[-1] == "What should we offer them?"
    assert prompt.text.index("$15,000") < prompt.text.index("What should we offer")
    assert "fine-tune" not in prompt.text and "fine-tune" in " ".join(prompt.plans)
    assert prompt.question == "What should we offer them?"


def test_quoted_lines_are_customer_text_and_a_question_is_supplied_if_missing() -> None:
    s = read_situation("> we need Llama 3.3 70B for 20 users\n> Budget 5000 EUR/month")
    assert s.question == "" and [r.kind for r in s.requirements] == ["model", "budget"]
    assert build_prompt(s).text.endswith("What should we offer them?")


def test_a_budget_given_later_in_a_thread_goes_before_the_question() -> None:
    thread = [read_situation("Customer wants Qwen2.5 72B for 40 users"), read_situation("ok")]
    later = read_situation("Forgot: their budget is $9,000 a month")
    prompt = build_prompt(read_situation("which node should we offer?"), [*thread, later])
    lines = prompt.text.split("\n")
    assert lines[0].startswith("Customer wants Qwen2.5 72B")
    assert lines.index("Forgot: their budget is $9,000 a month") < len(lines) - 1
    assert lines[-1] == "which node should we offer?"


def test_language_comes_from_the_prose_not_from_pasted_output() -> None:
    for text in (
        f"{GERMAN_TOPO_QUESTION}\n```\n{topo_8x_h100()}\n```",  # fenced
        f"{GERMAN_TOPO_QUESTION}\n{topo_8x_h100()}",  # pasted as plain text
    ):
        s = read_situation(text)
        assert (s.language, s.language_detected) == ("de", True)
        assert s.question == GERMAN_TOPO_QUESTION
        assert len(s.pasted) == 1 and "Legend" in s.pasted[0].text and "NIC9" in s.pasted[0].text
        assert len(text) >= 2657 and s.pasted_chars > 2000


def test_follow_up_cues_and_reset_word() -> None:
    assert looks_like_follow_up("and in FP8?")
    assert looks_like_follow_up("Und auf 8 Karten?")
    assert looks_like_follow_up("how fast is it?")
    assert looks_like_follow_up("Was kostet das?")
    assert not looks_like_follow_up("can the customer get the server by Friday?")
    assert not looks_like_follow_up("Passt das Modell Llama 3.1 8B auf eine L4?")
    assert split_reset("neu: Llama 3.1 8B auf L4?") == (True, "Llama 3.1 8B auf L4?")
    assert split_reset("New question: and in FP8?") == (True, "and in FP8?")
    assert split_reset("Newer cards?") == (False, "Newer cards?")


def test_slash_scope_continues_only_a_recent_clear_follow_up() -> None:
    now = [1000.0]
    scoper = Scoper(MemoryConversations(), follow_up_s=600, clock=lambda: now[0])
    first = scoper.for_recent("k", "base", "Does Llama 3.3 70B fit on 4x A100?")
    scoper.answered(first)
    assert first.session_id.startswith("base-")
    now[0] += 60
    assert scoper.for_recent("k", "base", "and in FP8?").session_id == first.session_id
    unrelated = scoper.for_recent("k", "base", "can the customer get the server by Friday?")
    assert unrelated.session_id != first.session_id
    reset = scoper.for_recent("k", "base", "new: and in FP8?")
    assert reset.reset and reset.session_id != first.session_id and reset.question == "and in FP8?"
    now[0] += 3600  # an hour later even "and in FP8?" starts fresh
    assert scoper.for_recent("k", "base", "and in FP8?").session_id != first.session_id


def test_thread_scope_keeps_the_thread_until_new() -> None:
    scoper = Scoper(MemoryConversations(), follow_up_s=600)
    a = scoper.for_thread("t", "thread", "which node?", "1.1")
    assert a.session_id == "thread" and a.since_ts is None
    b = scoper.for_thread("t", "thread", "neu: Mixtral 8x7B?", "1.5")
    assert b.session_id != "thread" and b.since_ts == "1.5"
    scoper.answered(b)
    c = scoper.for_thread("t", "thread", "und in FP8?", "1.6")
    assert (c.session_id, c.since_ts) == (b.session_id, "1.5")


def test_context_budget_keeps_the_opening_message() -> None:
    recent = [f"message {i} " + "x" * 90 for i in range(28)]
    kept = pick_context(recent, "opening: Qwen2.5 72B, FP8 preferred", 1000)
    assert kept[0] == "opening: Qwen2.5 72B, FP8 preferred"
    assert kept[-1] == recent[-1] and len(kept) < len(recent)
    assert sum(len(m) for m in kept[1:]) <= 1000


def _price_check(follow_ups: list[str]) -> Answer:
    return Answer(
        question="What does 2x L40S cost per month?",
        language="en",
        answer="**2 × NVIDIA L40S costs $2,466/month** [1].",
        mode="offline",
        prices=[
            PriceQuote(
                configuration="2x-l40s",
                label="2 × NVIDIA L40S",
                usd_per_month=Decimal(2466),
                url="https://gpuserver.io/en/gpu/l40s",
            )
        ],
        tool_calls=[ToolCall(name="price", arguments={"configuration": "2x-l40s"}, result={})],
        follow_ups=follow_ups,
        session_id="s",
        message_id="m",
    )


def test_follow_up_buttons_stay_on_the_answers_subject() -> None:
    answer = _price_check(
        [
            "Do I need NVLink for Llama 3.3 70B in BF16 on four cards?",
            "And in FP8?",
            "What does 4 x L40S cost?",
            "How fast is it on 2 × NVIDIA L40S?",
        ]
    )
    assert relevant_follow_ups(answer) == answer.follow_ups[1:]  # all but the Llama one


def test_notification_text_has_no_citation_markers() -> None:
    text = fallback_text(_price_check([]))
    assert "[1]" not in text and "$2,466" in text
