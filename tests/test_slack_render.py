"""Unit tests of the Slack rendering: Markdown -> mrkdwn, Answer -> Block Kit within Slack's
limits, Slack text -> plain text, and the event de-duplicator."""

import json
import re
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from api.slack.blocks import (
    ACTION_FEEDBACK_DOWN,
    ACTION_FEEDBACK_UP,
    ACTION_SHARE,
    MAX_BLOCKS,
    answer_blocks,
    answer_messages,
    format_usd,
    link_markers,
)
from api.slack.dedupe import Deduplicator
from api.slack.mrkdwn import SECTION_TEXT_LIMIT, from_slack, split_mrkdwn, to_mrkdwn
from assistant.answer import Answer, Citation, PriceQuote

GUIDE = "https://gpuserver.io/en/guides/nvlink-vs-pcie/"


def make_answer(text: str, n_citations: int = 2, n_prices: int = 2, **extra: object) -> Answer:
    citations = [
        Citation(
            n=i,
            guide="nvlink-vs-pcie",
            title="NVLink or PCIe",
            section=f"Section {i}",
            url=f"{GUIDE}#s{i}",
            quote="…",
        )
        for i in range(1, n_citations + 1)
    ]
    prices = [
        PriceQuote(
            configuration="4x-a100-sxm4",
            label="4 × NVIDIA A100 SXM4",
            usd_per_month=Decimal(4395),
            url="https://gpuserver.io/de/gpu/a100-sxm4",
        ),
        PriceQuote(
            configuration="4x-a100-pcie",
            label="4 × NVIDIA A100 PCIe",
            usd_per_month=Decimal(4157),
            url="https://gpuserver.io/de/gpu/a100-80gb",
        ),
        PriceQuote(
            configuration="1x-l4",
            label="1 × NVIDIA L4",
            usd_per_month=Decimal("412.50"),
            url="https://gpuserver.io/de/gpu/l4",
            placeholder=True,
        ),
    ][:n_prices]
    fields: dict[str, object] = {
        "question": "Do I need NVLink?",
        "language": "en",
        "answer": text,
        "mode": "offline",
        "citations": citations,
        "prices": prices,
        "session_id": "sess-1",
        "message_id": "msg-1",
    }
    fields.update(extra)
    return Answer.model_validate(fields)


# --------------------------------------------------------------------------- mrkdwn
@pytest.mark.parametrize(
    ("markdown", "mrkdwn"),
    [
        ("**bold** and __also__", "*bold* and *also*"),
        ("*italic* text", "_italic_ text"),
        ("~~gone~~", "~gone~"),
        ("[the guide](https://x.io/a_b)", "<https://x.io/a_b|the guide>"),
        ("[**bold** link](https://x.io)", "<https://x.io|bold link>"),
        ("<https://x.io>", "<https://x.io>"),
        ("# Heading", "*Heading*"),
        ("### **Bold** heading", "*Bold heading*"),
        ("- one\n- two", "• one\n• two"),
        ("* star item", "• star item"),
        ("- top\n  - nested", "• top\n    ◦ nested"),
        ("1. first\n2. second", "1. first\n2. second"),
        ("> quoted", "> quoted"),
        ("a & b < c > d", "a &amp; b &lt; c &gt; d"),
        ("`x < y`", "`x &lt; y`"),
        ("2*3*4 and snake_case_name", "2*3*4 and snake_case_name"),
        ("```bash\nnvidia-smi topo -m\n```", "```\nnvidia-smi topo -m\n```"),
        ("---", "───"),
    ],
)
def test_markdown_to_mrkdwn(markdown: str, mrkdwn: str) -> None:
    assert to_mrkdwn(markdown) == mrkdwn


def test_html_in_markdown_is_escaped_not_passed_through() -> None:
    out = to_mrkdwn("<script>alert(1)</script> <!channel> <@U123>")
    assert "<" not in out and ">" not in out
    assert "&lt;!channel&gt;" in out and "&lt;@U123&gt;" in out


def test_link_label_cannot_break_out_of_the_link() -> None:
    out = to_mrkdwn("[a|b>c](https://x.io/p?q=1|2)")
    assert out == "<https://x.io/p?q=1%7C2|a/b&gt;c>"


def test_pipe_table_becomes_aligned_code_block() -> None:
    md = "| Card | Price |\n|---|---|\n| [4 × A100](https://x) | $4,395 |\n| L4 | $1 |"
    out = to_mrkdwn(md)
    lines = out.split("\n")
    assert lines[0] == "```" and lines[-1] == "```"
    assert lines[1].split() == ["Card", "Price"]
    assert lines[2].startswith("4 × A100") and lines[2].endswith("$4,395")
    assert lines[1].index("Price") == lines[2].index("$4,395")  # aligned columns


def test_unclosed_fence_still_closes() -> None:
    assert to_mrkdwn("```\nGPU0 X NV12") == "```\nGPU0 X NV12\n```"


def test_from_slack_removes_bot_mention_and_unescapes() -> None:
    text = (
        "<@UBOT> does it fit? cc <@U2|anna> in <#C1|support> <!here> "
        "see <https://x.io|x.io> and <https://y.io/z|docs> &lt;GPU0&gt; &amp;"
    )
    assert from_slack(text, "UBOT") == (
        "does it fit? cc @anna in #support @here see x.io and docs <GPU0> &"
    )


def test_from_slack_keeps_a_pasted_topology_block() -> None:
    topo = "```\n\tGPU0\tGPU1\nGPU0\t X \tNV12\nGPU1\tNV12\t X \n```"
    assert from_slack(f"<@UBOT> is this NVLink?\n{topo}", "UBOT").endswith(topo)


def test_split_respects_limit_and_keeps_all_text() -> None:
    paragraphs = [f"Paragraph {i} " + "word " * 150 for i in range(30)]
    text = "\n\n".join(paragraphs)
    pieces = split_mrkdwn(text, 3000)
    assert len(pieces) > 1
    assert all(len(p) <= 3000 for p in pieces)
    assert " ".join(" ".join(pieces).split()) == " ".join(text.split())


def test_split_closes_and_reopens_a_code_block() -> None:
    text = "intro\n\n```\n" + "\n".join(f"GPU{i}\tX\tNV12" for i in range(600)) + "\n```"
    pieces = split_mrkdwn(text, 3000)
    assert len(pieces) >= 3
    for piece in pieces:
        assert len(piece) <= 3000
        assert piece.count("```") % 2 == 0


def test_split_breaks_a_single_huge_line() -> None:
    pieces = split_mrkdwn("x" * 7000, 3000)
    assert [len(p) <= 3000 for p in pieces] == [True] * 3
    assert "".join(pieces) == "x" * 7000


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab *_#-|[]()<>&`\n~1.")), max_size=400))
def test_mrkdwn_never_leaks_raw_angle_brackets(markdown: str) -> None:
    out = to_mrkdwn(markdown)
    # every '<' starts a link we made, every other one is escaped; '>' only as a quote marker
    stripped = re.sub(r"<[^<>|]+(\|[^<>]*)?>", "", out)
    stripped = re.sub(r"(?m)^> ", "", stripped)
    assert "<" not in stripped and ">" not in stripped


# --------------------------------------------------------------------------- blocks
def _texts(blocks: list[dict]) -> str:
    return json.dumps(blocks, ensure_ascii=False)


def test_answer_blocks_have_verdict_prices_citations_and_buttons() -> None:
    answer = make_answer(
        "**Yes:** split it over NVLink [1].\n\nTensor parallelism syncs every layer [2].",
        n_prices=3,
    )
    blocks = answer_blocks(answer, share=True)
    assert blocks[0]["text"]["text"] == f"*Yes:* split it over NVLink <{GUIDE}#s1|[1]>."
    fields = [f["text"] for b in blocks if "fields" in b for f in b["fields"]]
    assert fields[:2] == [
        "<https://gpuserver.io/de/gpu/a100-sxm4|4 × NVIDIA A100 SXM4>",
        "*$4,395*/month",
    ]
    assert fields[3] == "*$4,157*/month"
    assert fields[5] == "*$412.50*/month _(placeholder price)_"
    texts = [b["text"]["text"] for b in blocks if "text" in b]
    sources = next(t for t in texts if t.startswith("*Sources*"))
    assert f"[1] <{GUIDE}#s1|NVLink or PCIe › Section 1>" in sources
    assert f"[2] <{GUIDE}#s2|NVLink or PCIe › Section 2>" in sources
    actions = next(b for b in blocks if b.get("block_id") == "sizing_actions")
    ids = [e["action_id"] for e in actions["elements"]]
    assert ids == [ACTION_FEEDBACK_UP, ACTION_FEEDBACK_DOWN, ACTION_SHARE]
    assert json.loads(actions["elements"][0]["value"]) == {"s": "sess-1", "m": "msg-1"}


def test_markers_link_only_to_known_citations_and_not_in_code() -> None:
    citations = make_answer("x", n_citations=1).citations
    out = link_markers("see [1] and [7]; `arr[1]`", citations)
    assert out == f"see <{GUIDE}#s1|[1]> and [7]; `arr[1]`"


def test_german_labels() -> None:
    answer = make_answer("**Ja.**", language="de")
    text = _texts(answer_blocks(answer, share=True))
    assert "Preise" in text and "Quellen" in text and "Im Kanal teilen" in text
    assert "/Monat" in text


def test_no_prices_no_citations_no_empty_sections() -> None:
    blocks = answer_blocks(make_answer("Only text.", n_citations=0, n_prices=0))
    assert all(b.get("text", {}).get("text", "x").strip() for b in blocks)
    assert "Prices" not in _texts(blocks) and "Sources" not in _texts(blocks)


def test_notice_and_follow_ups_rendered() -> None:
    answer = make_answer("x", notice="LLM unavailable, offline answer", follow_ups=["And FP8?"])
    blocks = answer_blocks(answer)
    assert "⚠️ LLM unavailable, offline answer" in _texts(blocks)
    follow = next(b for b in blocks if b.get("block_id") == "sizing_follow_ups")
    assert json.loads(follow["elements"][0]["value"]) == {"q": "And FP8?", "s": "sess-1"}


def test_long_answer_split_into_messages_within_limits() -> None:
    body = "\n\n".join(f"Point {i} [1]: " + "detail " * 400 for i in range(70))
    answer = make_answer("**Verdict first.**\n\n" + body, n_prices=3)
    messages = answer_messages(answer, share=True)
    assert len(messages) >= 2
    for message in messages:
        assert len(message["blocks"]) <= MAX_BLOCKS
        assert message["text"]
        for block in message["blocks"]:
            if "text" in block:
                assert len(block["text"]["text"]) <= SECTION_TEXT_LIMIT
    # everything is there, once, in order; buttons only at the very end
    all_text = _texts([b for m in messages for b in m["blocks"]])
    assert all_text.count("Point 69 ") == 1
    assert all_text.index("Point 3 ") < all_text.index("Point 4 ")
    assert "sizing_feedback_up" not in _texts(messages[0]["blocks"])
    assert "sizing_feedback_up" in _texts(messages[-1]["blocks"])


def test_format_usd() -> None:
    assert format_usd(Decimal(4395)) == "$4,395"
    assert format_usd(Decimal("4157.5")) == "$4,157.50"


# --------------------------------------------------------------------------- dedupe
def test_dedupe_first_time_then_seen_until_ttl() -> None:
    now = [0.0]
    d = Deduplicator(ttl_s=10, clock=lambda: now[0])
    assert d.first_time("Ev1") is True
    assert d.first_time("Ev1") is False
    assert d.first_time("Ev2") is True
    now[0] = 11
    assert d.first_time("Ev1") is True  # forgotten after the TTL


def test_dedupe_is_bounded() -> None:
    d = Deduplicator(max_entries=3)
    for key in "abcd":
        d.first_time(key)
    assert len(d) == 3 and "a" not in d and "d" in d


# --------------------------------------------------------------------------- "Adjust"
def _catalog():  # type: ignore[no-untyped-def]
    from pathlib import Path

    from knowledge.catalog import load_catalog

    return load_catalog(Path(__file__).resolve().parents[1] / "knowledge" / "catalog")


def _read(**fields: object):  # type: ignore[no-untyped-def]
    from assistant.reading.model import Reading

    return Reading(task="serve", **fields)  # type: ignore[arg-type]


def test_understood_line_and_adjust_button_only_with_a_reading() -> None:
    from api.slack.blocks import ACTION_ADJUST, UNDERSTOOD_BLOCK_ID

    reading = _read(model="llama-3.3-70b", precision="fp8", users=60, concurrent_sequences=15)
    line = "Sized for: Llama 3.3 70B · FP8 · 15 at once of 60 users · ≤ $6,000/month <x>"
    with_reading = make_answer("Yes.", reading=reading, understood=line)
    blocks = answer_blocks(with_reading)
    context = [b for b in blocks if b.get("block_id") == UNDERSTOOD_BLOCK_ID]
    assert len(context) == 1 and "15 at once of 60 users" in context[0]["elements"][0]["text"]
    assert "&lt;x&gt;" in context[0]["elements"][0]["text"]  # escaped like every answer text
    ids = [e["action_id"] for b in blocks if b["type"] == "actions" for e in b["elements"]]
    assert ACTION_ADJUST in ids
    adjust = next(
        e for b in blocks if b["type"] == "actions" for e in b["elements"]
        if e["action_id"] == ACTION_ADJUST
    )  # fmt: skip
    assert json.loads(adjust["value"]) == {
        "s": with_reading.session_id,
        "m": with_reading.message_id,
    }
    # not without a reading, nor when the bot cannot re-answer
    for blocks in (answer_blocks(make_answer("Yes.")), answer_blocks(with_reading, adjust=False)):
        ids = [e["action_id"] for b in blocks if b["type"] == "actions" for e in b["elements"]]
        assert ACTION_ADJUST not in ids
    assert not any(
        b.get("block_id") == UNDERSTOOD_BLOCK_ID for b in answer_blocks(make_answer("x"))
    )


def test_adjust_modal_is_prefilled_and_within_slacks_limits() -> None:
    from api.slack.adjust import ADJUST_CALLBACK_ID, adjust_modal

    catalog = _catalog()
    reading = _read(
        model="qwen2.5-72b",
        precision="fp8",
        users=80,
        concurrent_sequences=12,
        context_tokens=8192,
        configurations=["4x-a100-sxm4", "2x-h100-pcie"],
        budget_usd_per_month=5000.0,
        budget_currency="EUR",
        language="de",
    )
    answer = make_answer(
        "Ja.", reading=reading, understood="Berechnet für: Qwen2.5 72B", language="de"
    )
    view = adjust_modal(answer, catalog, {"s": "sess", "m": "msg", "c": "C1", "t": "1.2"})
    assert view["callback_id"] == ADJUST_CALLBACK_ID
    assert json.loads(view["private_metadata"]) == {"s": "sess", "m": "msg", "c": "C1", "t": "1.2"}
    assert view["title"]["text"] == "Antwort anpassen"
    for key in ("title", "submit", "close"):
        assert len(view[key]["text"]) <= 24
    inputs = {b["block_id"]: b["element"] for b in view["blocks"] if b["type"] == "input"}
    assert inputs["adjust_model"]["initial_option"]["value"] == "qwen2.5-72b"
    assert inputs["adjust_precision"]["initial_option"]["value"] == "fp8"
    assert inputs["adjust_users"]["initial_value"] == "80"
    assert inputs["adjust_concurrent_sequences"]["initial_value"] == "12"
    assert inputs["adjust_context_tokens"]["initial_value"] == "8192"
    assert inputs["adjust_budget_usd_per_month"]["initial_value"] == "5000"
    assert inputs["adjust_budget_usd_per_month"]["is_decimal_allowed"] is True
    assert inputs["adjust_budget_usd_per_month"]["max_value"] == "1000000000"
    assert inputs["adjust_users"]["max_value"] == "10000000"
    sxm = next(
        o for o in inputs["adjust_configurations"]["options"] if o["value"] == "4x-a100-sxm4"
    )
    assert "$4,395/Monat" in sxm["text"]["text"]  # the catalog's price beside each configuration
    assert [o["value"] for o in inputs["adjust_configurations"]["initial_options"]] == [
        "4x-a100-sxm4",
        "2x-h100-pcie",
    ]
    budget = next(b for b in view["blocks"] if b.get("block_id") == "adjust_budget_usd_per_month")
    assert "EUR" in budget["label"]["text"]
    for element in inputs.values():
        options = element.get("options") or []
        assert len(options) <= 100
        assert all(len(o["text"]["text"]) <= 75 for o in options)
        # an initial option Slack would refuse: not among the options
        for initial in [element.get("initial_option")] + (element.get("initial_options") or []):
            assert initial is None or initial in options
    # a precision the select does not offer is simply not preselected
    odd = make_answer("x", reading=_read(model="llama-3.1-8b", precision="nf4"), understood="x")
    odd_inputs = {
        b["block_id"]: b["element"]
        for b in adjust_modal(odd, catalog, {})["blocks"]
        if b["type"] == "input"
    }
    assert "initial_option" not in odd_inputs["adjust_precision"]


def test_adjust_submission_becomes_only_the_changed_fields() -> None:
    from api.slack.adjust import edits_between, field_errors, submitted

    reading = _read(
        model="llama-3.3-70b",
        precision="bf16",
        users=60,
        concurrent_sequences=15,
        configurations=["4x-a100-sxm4", "2x-h100-pcie"],
        budget_usd_per_month=6000.0,
    )

    def state(**values: object) -> dict:  # type: ignore[type-arg]
        base = {
            "model": {"type": "static_select", "selected_option": {"value": "llama-3.3-70b"}},
            "precision": {"type": "static_select", "selected_option": {"value": "bf16"}},
            "users": {"type": "number_input", "value": "60"},
            "concurrent_sequences": {"type": "number_input", "value": "15"},
            "context_tokens": {"type": "number_input", "value": None},
            "configurations": {
                "type": "multi_static_select",
                "selected_options": [{"value": "2x-h100-pcie"}, {"value": "4x-a100-sxm4"}],
            },
            "budget_usd_per_month": {"type": "number_input", "value": "6000"},
        }
        base.update(values)  # type: ignore[arg-type]
        return {f"adjust_{k}": {k: v} for k, v in base.items()}

    values, errors = submitted(state())
    assert errors == {} and edits_between(reading, values) == {}  # nothing changed
    values, _ = submitted(
        state(
            precision={"type": "static_select", "selected_option": {"value": "fp8"}},
            users={"type": "number_input", "value": "120"},
            budget_usd_per_month={"type": "number_input", "value": None},
        )
    )
    assert edits_between(reading, values) == {
        "precision": "fp8",
        "users": 120,
        "budget_usd_per_month": None,  # emptied: cleared
    }
    values, errors = submitted(state(users={"type": "number_input", "value": "1.5"}))
    assert list(errors) == ["adjust_users"] and "users" not in values
    values, errors = submitted(state(users={"type": "number_input", "value": "x"}), "de")
    assert errors == {"adjust_users": "muss eine ganze Zahl sein"}
    values, errors = submitted(state(users={"type": "number_input", "value": "20000000"}))
    assert errors == {"adjust_users": "at most 10,000,000"}  # /api/chat's bounds too
    # a select left empty is no edit; a field missing from the state is no edit
    values, _ = submitted({"adjust_model": {"model": {"selected_option": None}}})
    assert edits_between(reading, values) == {}
    # an InvalidRequest lands on the block of the field it names
    assert field_errors("reading.users: 0 is not a number", {"users": 0}) == {
        "adjust_users": "0 is not a number"
    }
    assert list(field_errors("reading.cards: bad", {"configurations": ["x"]})) == [
        "adjust_configurations"
    ]
    assert list(field_errors("something else", {"precision": "x"})) == ["adjust_precision"]
