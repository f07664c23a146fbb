"""A customer situation as support staff paste it: their own question on top, a forwarded or
quoted customer email, code blocks and pasted tool output (`nvidia-smi topo -m`, `nvidia-smi`,
`all_reduce_perf`). Surface-independent: Slack reads messages with it; any surface may.

    s = read_situation(text)
    s.question       # the staff member's own words (what the 2,000-character limit applies to)
    s.customer       # the quoted / forwarded customer text (headers, greetings, signature dropped)
    s.requirements   # customer sentences by kind: model, users, context, budget, plans
    s.notes          # the other customer sentences
    s.pasted         # code blocks and tool output, verbatim
    s.language       # from the prose only (the question first, then the customer text)

    looks_like_follow_up("and in FP8?")  -> True     (continues the previous turn)
    split_reset("neu: Llama 3.1 8B auf L4?") -> (True, "Llama 3.1 8B auf L4?")

This is reading, not understanding: which model, how many users etc. is the NLU's job; here a
sentence is only sorted by what it talks about, so the requirements can be put first.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field

from assistant.answer import Language
from assistant.nlu import detect_language

RequirementKind = Literal["model", "users", "context", "budget", "plans"]
REQUIREMENT_ORDER: tuple[RequirementKind, ...] = ("model", "users", "context", "budget", "plans")
PastedKind = Literal["code", "tool_output"]


class Requirement(BaseModel):
    kind: RequirementKind
    text: str = Field(description="the customer's sentence, verbatim")


class Pasted(BaseModel):
    kind: PastedKind = Field(description="a fenced code block, or tool output pasted as text")
    text: str = Field(description="verbatim, without the fence")


class Situation(BaseModel):
    """One message read as: the staff question, the customer's text, pasted material."""

    question: str = Field(description="the staff member's own words")
    customer: str = Field(default="", description="quoted / forwarded customer text")
    requirements: list[Requirement] = Field(
        default_factory=list, description="customer sentences in REQUIREMENT_ORDER"
    )
    notes: list[str] = Field(default_factory=list, description="other customer sentences")
    pasted: list[Pasted] = Field(default_factory=list)
    language: Language = "en"
    language_detected: bool = False

    @property
    def pasted_chars(self) -> int:
        """What counts against the pasted-material limit (customer text and pasted blocks)."""
        return len(self.customer) + sum(len(p.text) for p in self.pasted)

    @property
    def empty(self) -> bool:
        return not (self.question or self.customer or self.pasted)


# --------------------------------------------------------------------------- line classes

_FENCE = re.compile(r"^\s*```")
_QUOTE = re.compile(r"^\s*(?:>|&gt;)\s?")
_FORWARD_MARKER = re.compile(
    r"^\s*(?:-{2,}\s*(?:forwarded message|weitergeleitete nachricht|original message|"
    r"urspr(?:ü|ue)ngliche nachricht)\s*-{2,}|begin forwarded message:?|"
    r"anfang der weitergeleiteten (?:nachricht|e-mail):?)\s*$",
    re.I,
)
_HEADER = re.compile(
    r"^\s*(?:from|to|cc|date|sent|subject|von|an|gesendet|datum|betreff|kopie)\s*:", re.I
)
_SUBJECT = re.compile(r"^\s*(?:subject|betreff)\s*:\s*(?:(?:re|aw|fwd?|wg)\s*:\s*)*", re.I)
_GREETING = re.compile(
    r"^\s*(?:hi|hello|hey|dear|good (?:morning|afternoon|evening)|hallo|moin|servus|"
    r"guten (?:tag|morgen|abend)|liebe[rs]?|sehr geehrte[rs]?)\b[^.!?\n]{0,40}[,!]?\s*$",
    re.I,
)
_SIGN_OFF = re.compile(
    r"^\s*(?:best|kind|warm)?\s*(?:regards|wishes)\b.*$|^\s*(?:thanks|thank you|cheers|"
    r"sincerely|best|mit freundlichen gr(?:ü|ue)(?:ß|ss)en|(?:viele|beste|liebe|freundliche)"
    r" gr(?:ü|ue)(?:ß|ss)e|vg|lg|mfg|danke(?: schön| im voraus)?)\s*[,.!]?\s*$",
    re.I,
)
# pasted tool output: a GPU/NIC matrix row or header, a legend line, nvidia-smi's table, nccl-tests
_TOOL_LINE = re.compile(
    r"\t|^\s*(?:GPU\d+|NIC\d+|mlx5_\d+)\b|^\s*(?:NIC )?Legend\s*:?\s*$|"
    r"^\s*(?:X|SYS|NODE|PHB|PXB|PIX|NV#|SOC)\s*=|^\s*[|+][-=+| ]|^\s*\|.*\|\s*$|^\s*#|"
    r"^\s*\d+\s+\d+\s+(?:float|half|bfloat16|int\d*)\b|^\s*(?:Out of bounds|Avg bus bandwidth)",
    re.I,
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-ZÄÖÜ0-9\"'(])|\n+")

# --------------------------------------------------------------------------- requirement kinds

_KINDS: tuple[tuple[RequirementKind, re.Pattern[str]], ...] = (
    (
        "plans",
        re.compile(
            r"\b(?:later|in the future|eventually|might|maybe|perhaps|possibly|next (?:year|"
            r"quarter|month)|plan(?:ning)? to|down the road|später|künftig|zukünftig|eventuell|"
            r"vielleicht|irgendwann|demnächst|geplant|planen|möglicherweise)\b",
            re.I,
        ),
    ),
    (
        "budget",
        re.compile(
            r"budget|\$\s?\d|€\s?\d|\d\s?(?:\$|€|k?\s?(?:usd|eur|euros?|dollars?)\b)|"
            r"\b(?:at most|no more than|max(?:imal|imum)?|höchstens|bis zu)\s+(?:\$|€)?\s?\d"
            r"[\d.,]*\s?k?\s*(?:\$|€|usd|eur)?\s*(?:per|a|/|im|pro)\s*(?:month|monat)",
            re.I,
        ),
    ),
    (
        "users",
        re.compile(
            r"\d[\d,.]*\s*(?:k\s+)?(?:concurrent\s+|simultaneous\s+|parallel\s+|active\s+|"
            r"gleichzeitige[n]?\s+|parallele[n]?\s+)?(?:users?|nutzer\w*|benutzer\w*|"
            r"requests?|anfragen|sessions?|clients?|agents?|people|leute|mitarbeiter\w*)\b",
            re.I,
        ),
    ),
    (
        "context",
        re.compile(r"\b(?:context|kontext)\w*|\b\d+\s?k\s*(?:tokens?|ctx)\b|\btokens?\b", re.I),
    ),
    (
        "model",
        re.compile(
            r"\b(?:llama|qwen|mistral|mixtral|deepseek|gemma|phi|falcon|gpt-?oss|command[- ]r|"
            r"yi|olmo|flux|stable diffusion|sdxl|whisper|bert|e5|bge|kimi|glm)\w*|"
            r"\b\d+(?:\.\d+)?\s?[bB]\b|\b(?:fp8|fp16|bf16|int8|int4|fp4|awq|gptq|gguf|q4_k_m)\b",
            re.I,
        ),
    ),
)


def requirement_kind(sentence: str) -> RequirementKind | None:
    """What a customer sentence is about: a plan ("might fine-tune later" is not today's
    workload) unless it states the budget; otherwise the first of model, users, context,
    budget it mentions. None: something else."""
    matched = {kind for kind, pattern in _KINDS if pattern.search(sentence)}
    if "plans" in matched and "budget" not in matched:
        return "plans"
    return next((kind for kind in REQUIREMENT_ORDER if kind in matched), None)


# --------------------------------------------------------------------------- reading


def read_situation(text: str) -> Situation:
    """Split a message into the staff question, the customer's text and pasted material."""
    own, customer, pasted = _split(text.replace("\r\n", "\n"))
    question = _clean_prose(own)
    customer_text = _clean_customer(customer)
    requirements, notes = sort_sentences(customer_text)
    language, detected = _prose_language(question, customer_text)
    return Situation(
        question=question,
        customer=customer_text,
        requirements=requirements,
        notes=notes,
        pasted=pasted,
        language=language,
        language_detected=detected,
    )


def _split(text: str) -> tuple[list[str], list[str], list[Pasted]]:
    """Lines of the staff's own prose, lines of customer text, and pasted blocks."""
    own: list[str] = []
    customer: list[str] = []
    pasted: list[Pasted] = []
    lines = text.split("\n")
    i, forwarded = 0, False
    while i < len(lines):
        line = lines[i]
        if _FENCE.match(line):
            i = _read_fence(lines, i, pasted)
            continue
        if _FORWARD_MARKER.match(line):
            forwarded = True
        elif _QUOTE.match(line):
            customer.append(_QUOTE.sub("", line, count=1))
        elif _is_tool_run(lines, i):
            i = _read_tool_output(lines, i, pasted)
            continue
        elif forwarded:
            customer.append(line)
        else:
            own.append(line)
        i += 1
    return own, customer, pasted


def _read_fence(lines: list[str], start: int, pasted: list[Pasted]) -> int:
    """A fenced block (```...``` on its own lines, or inline after the fence); returns the
    index after it. An unclosed fence runs to the end of the message."""
    opening = _FENCE.sub("", lines[start], count=1)
    body: list[str] = []
    if "```" in opening:  # ```one line```
        pasted.append(Pasted(kind="code", text=opening.split("```")[0]))
        return start + 1
    if opening.strip():
        body.append(opening)
    i = start + 1
    while i < len(lines):
        line = lines[i]
        if "```" in line:
            before = line.split("```")[0]
            if before.strip():
                body.append(before)
            i += 1
            break
        body.append(line)
        i += 1
    block = "\n".join(body).strip("\n")
    if block.strip():
        pasted.append(Pasted(kind="code", text=block))
    return i


def _is_tool_run(lines: list[str], i: int) -> bool:
    """Three or more tool-output lines in a row (blank lines between them allowed)."""
    run = 0
    for line in lines[i : i + 6]:
        if not line.strip():
            continue
        if not _TOOL_LINE.search(line) or _FENCE.match(line):
            break
        run += 1
        if run >= 3:
            return True
    return False


def _read_tool_output(lines: list[str], start: int, pasted: list[Pasted]) -> int:
    """Tool output runs while lines look like it; a blank line followed by more tool output
    (the topology legend after the matrix) belongs to it too."""
    body: list[str] = []
    i = start
    while i < len(lines):
        line = lines[i]
        if _FENCE.match(line):
            break
        if not line.strip():
            nxt = next((x for x in lines[i + 1 :] if x.strip()), "")
            if not _TOOL_LINE.search(nxt):
                break
        elif not _TOOL_LINE.search(line):
            break
        body.append(line)
        i += 1
    pasted.append(Pasted(kind="tool_output", text="\n".join(body).strip("\n")))
    return i


def _clean_prose(lines: list[str]) -> str:
    text = "\n".join(line.rstrip() for line in lines)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def _clean_customer(lines: list[str]) -> str:
    """The customer text without mail headers (the subject kept), greetings and signature."""
    kept: list[str] = []
    for line in lines:
        if _SUBJECT.match(line):
            subject = _SUBJECT.sub("", line, count=1).strip()
            if subject:
                kept.append(subject if subject[-1] in ".!?" else subject + ".")
            continue
        if _HEADER.match(line) or _GREETING.match(line):
            continue
        if _SIGN_OFF.match(line):
            break  # the signature follows
        kept.append(line.rstrip())
    return _clean_prose(kept)


def _unwrap(text: str) -> str:
    """Join lines an email client wrapped ("We might\nfine-tune it later"): a line continues
    when it does not end a sentence and the next one starts in lower case."""
    lines = text.split("\n")
    out: list[str] = []
    for line in lines:
        if out and out[-1].strip() and line[:1].islower() and out[-1].rstrip()[-1:] not in ".!?:":
            out[-1] = out[-1].rstrip() + " " + line.strip()
        else:
            out.append(line)
    return "\n".join(out)


def sort_sentences(customer: str) -> tuple[list[Requirement], list[str]]:
    """The sentences of a customer's text as requirements (in REQUIREMENT_ORDER) and notes."""
    found: dict[RequirementKind, list[str]] = {kind: [] for kind in REQUIREMENT_ORDER}
    notes: list[str] = []
    for raw in _SENTENCE.split(_unwrap(customer)):
        sentence = " ".join(raw.split())
        if not sentence:
            continue
        kind = requirement_kind(sentence)
        if kind is None:
            notes.append(sentence)
        else:
            found[kind].append(sentence)
    requirements = [
        Requirement(kind=kind, text=sentence)
        for kind in REQUIREMENT_ORDER
        for sentence in found[kind]
    ]
    return requirements, notes


def _prose_language(question: str, customer: str) -> tuple[Language, bool]:
    """The staff member's language if their words show it (they read the answer), else the
    customer's; code blocks and tool output never count."""
    for text in (question, customer):
        if text:
            language, detected = detect_language(text)
            if detected:
                return language, True
    return "en", False


# --------------------------------------------------------------------------- conversation cues

_RESET = re.compile(r"^\s*(?:new question|neue frage|new|neu)\b\s*[:,.!-]*\s*", re.I)
_CONTINUES = re.compile(
    r"^\s*(?:and|und|also|auch|plus|then|dann|what about|how about|what if|und wenn|und mit|"
    r"und bei|und auf|und in|wie wäre es|same|dasselbe|das gleiche|gleiche|instead|stattdessen|"
    r"in (?:fp|bf|int)\d+|mit (?:fp|bf|int)\d+|on (?:an? )?\w+ instead)\b",
    re.I,
)
_ANAPHOR = re.compile(
    r"\b(?:it|its|that|this|them|those|these|the same|there|es|ihn|ihm|dafür|darauf|damit|"
    r"dort|davon|dazu|denselben|dieselbe|derselbe)\b|\b(?:das|dies)\b(?!\s+[A-ZÄÖÜ])",
    re.I,
)
FOLLOW_UP_MAX_WORDS = 10


def looks_like_follow_up(question: str) -> bool:
    """Clearly continues the previous turn: starts with "and …"/"und …"/"what about …", or is
    short and points back ("how fast is it?", "was kostet das?"). A question that stands on its
    own ("can the customer get the server by Friday?") does not."""
    text = question.strip()
    if not text:
        return False
    if _CONTINUES.search(text):
        return True
    return len(text.split()) <= FOLLOW_UP_MAX_WORDS and bool(_ANAPHOR.search(text))


def split_reset(question: str) -> tuple[bool, str]:
    """("new"/"neu" at the start → start a fresh conversation, the question without that word)."""
    m = _RESET.match(question)
    if not m:
        return False, question
    return True, question[m.end() :].strip()


__all__ = [
    "REQUIREMENT_ORDER",
    "Pasted",
    "Requirement",
    "Situation",
    "looks_like_follow_up",
    "read_situation",
    "requirement_kind",
    "sort_sentences",
    "split_reset",
]


def length_problem(text: str, max_question_chars: int, max_pasted_chars: int) -> str | None:
    """Why a message is too long, or None: the prose (the question) may be up to
    `max_question_chars`, pasted material (an e-mail quoted, code blocks, `nvidia-smi topo -m`,
    `all_reduce_perf` output) up to `max_pasted_chars` besides it — on every surface."""
    if len(text) <= max_question_chars:
        return None
    situation = read_situation(text)
    if len(situation.question) > max_question_chars:
        return (
            f"the question is too long ({len(situation.question)} characters of prose; at most "
            f"{max_question_chars}, plus up to {max_pasted_chars} of pasted output or e-mail)"
        )
    if situation.pasted_chars > max_pasted_chars:
        return (
            f"the pasted material is too long ({situation.pasted_chars} characters; at most "
            f"{max_pasted_chars})"
        )
    return None


def prose_language(text: str) -> Language | None:
    """The language of a message's prose when it carries pasted material (a German question
    with an English paste is German), or None when there is none or it says nothing."""
    if "\n" not in text:
        return None
    situation = read_situation(text)
    if not (situation.pasted or situation.customer) or not situation.language_detected:
        return None
    return situation.language
