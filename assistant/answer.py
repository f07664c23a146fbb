"""The one answer type every surface shows: CLI, HTTP, SSE, widget, Slack, evals."""

from typing import Any, Literal

from pydantic import BaseModel, Field, PrivateAttr, field_serializer, model_validator

from assistant.chart import Chart
from assistant.language import Language
from assistant.offer import Offer
from assistant.reading.model import Reading
from tools.money import USD

Mode = Literal["offline", "llm"]


class Citation(BaseModel):
    """A guide passage the answer cites as [n]."""

    n: int = Field(description="the marker number used in the answer text, [n]")
    guide: str = Field(description="guide slug, e.g. nvlink-vs-pcie")
    title: str = Field(description="guide title")
    section: str = Field(description="section title")
    url: str = Field(description="canonical URL with #anchor")
    quote: str = Field(
        default="",
        description="the passage text (or its relevant part); /api/chat sends it only with "
        "?include=quotes",
    )


class PriceQuote(BaseModel):
    """A configuration whose price the answer states, exactly as in the catalog."""

    configuration: str = Field(description="configuration id, e.g. 4x-a100-sxm4")
    label: str
    usd_per_month: USD
    url: str
    placeholder: bool = Field(
        default=False, description="true when the catalog price is a placeholder"
    )


class ToolCall(BaseModel):
    name: str
    arguments: dict[str, Any] = Field(
        description="the call's arguments; /api/chat sends only those that differ from the "
        "tool's defaults unless ?include=tool_calls"
    )
    result: Any = Field(
        default=None,
        description="the tool's result; /api/chat sends it only with ?include=tool_calls",
    )


ViolationKind = Literal["number", "price", "citation", "verdict", "format"]


class GroundingViolation(BaseModel):
    kind: ViolationKind
    text: str = Field(description="the offending fragment of the answer")
    detail: str


AttemptOutcome = Literal[
    "accepted", "ungrounded", "wrong_language", "markup", "truncated", "unavailable", "empty",
    "read",  # the LLM reader's reading, answered by the planner (assistant/reading/paths.py)
    "invalid",  # the LLM reader's output failed validation
]  # fmt: skip


class LLMAttempt(BaseModel):
    """One answer the LLM wrote (or failed to write), and why it was or was not shown."""

    n: int = Field(description="1 for the first answer, 2 for the regenerated one")
    outcome: AttemptOutcome
    violations: list[GroundingViolation] = []
    detail: str | None = Field(default=None, description="e.g. the wrong language, the error")
    tool_calls: list[str] = Field(default=[], description="names of the tools called so far")


#: a reading's paste that is the whole question, as serialised (Answer._compact_reading)
SAME_AS_QUESTION = "=question"
_PASTES = ("topo_text", "nccl_text")


class Choice(BaseModel):
    """A reading the user may pick instead (a chip or button): its label and the reading fields
    it sets, sent back as `reading` to re-answer."""

    label: str = Field(description="what the button says, e.g. 'Llama 3.3 70B · FP8'")
    reading: dict[str, Any] = Field(description="the reading fields it sets")


class Answer(BaseModel):
    question: str
    language: Language
    answer: str = Field(description="Markdown with citation markers like [1]")
    summary: str = Field(
        default="",
        description="the short answer shown first (at most 60 words): the verdict in the "
        "question's polarity, the figure that decides it, the price of what is recommended and "
        "the guide's rule in a few words; `answer` is the details (assistant/summary.py)",
    )
    mode: Mode
    citations: list[Citation] = []
    prices: list[PriceQuote] = []
    tool_calls: list[ToolCall] = []
    follow_ups: list[str] = []
    session_id: str
    message_id: str
    notice: str | None = Field(default=None, description="e.g. 'LLM unavailable, offline answer'")
    violations: list[GroundingViolation] = Field(
        default=[],
        description="grounding violations found (an answer shown has none); when an LLM answer "
        "was not shown, the violations of its last attempt",
    )
    attempts: list[LLMAttempt] = Field(
        default=[], description="LLM mode: every answer the model wrote and what became of it"
    )
    reading: Reading | None = Field(
        default=None,
        description="what the assistant understood the question to ask; the answer is computed "
        "from it, and a partial reading sent back re-answers (docs/reading.md)",
    )
    choices: list[Choice] = Field(
        default=[],
        description="other readings to pick from (a starting point's alternatives); each "
        "re-answers with its fields",
    )
    understood: str = Field(
        default="",
        description="the reading in one short line ('Sized for: Qwen2.5 72B · FP8 · 12 at once "
        "of 80 users · 8k context · ≤ $5,000/month')",
    )
    chart: Chart | None = Field(
        default=None,
        description="fit, cheapest and comparison answers: the configurations that hold the job "
        "as price / tokens/s points, the recommended one highlighted (assistant/chart.py)",
    )
    offer: Offer | None = Field(
        default=None,
        description="for staff: recommended, cheaper and safer configurations, assumptions and "
        "a ready-to-forward text (assistant/offer.py; Slack, `sizing ask --offer`)",
    )

    @field_serializer("reading")
    def _compact_reading(self, reading: Reading | None) -> dict[str, Any] | None:
        """The reading without its defaults, and without the question's text repeated: `text`
        is left out and a pasted `topo_text` / `nccl_text` that is the whole question is
        written as "=question" (both restored on load): a few hundred bytes on every surface,
        however long the paste."""
        if reading is None:
            return None
        exclude = {"text"} if reading.text == self.question else set()
        data = reading.model_dump(mode="json", exclude_defaults=True, exclude=exclude)
        for name in _PASTES:
            if data.get(name) == self.question:
                data[name] = SAME_AS_QUESTION
        return data

    @model_validator(mode="after")
    def _reading_text(self) -> "Answer":
        if self.reading is not None:
            if not self.reading.text:
                self.reading.text = self.question
            for name in _PASTES:
                if getattr(self.reading, name) == SAME_AS_QUESTION:
                    setattr(self.reading, name, self.question)
        return self

    # the configuration(s) the offline answer chose as its result (the cheapest that holds the
    # model, a comparison's winner): kept in the session for "on it" in the next question; not
    # part of the answer's JSON
    _chosen: list[str] = PrivateAttr(default_factory=list)
    # what assistant.first_sentence repaired in the offline answer's lead before it was shown
    # ("" when nothing): counted by the eval report; not part of the answer's JSON
    _repaired: str = PrivateAttr(default="")


# what a stored turn leaves out of an Answer (assistant.sessions); /api/chat's default JSON leaves
# out more (api/answer_json.py)
WITHOUT_TOOL_RESULTS: dict[str, Any] = {"tool_calls": {"__all__": {"result"}}}


class TokenEvent(BaseModel):
    type: Literal["token"] = "token"
    text: str


class LiveTokenEvent(TokenEvent):
    """LLM mode: text of the answer being written, shown as each sentence passes the grounding
    check (issue 25); surfaces send it at once, not with the finished answer's burst. The same
    JSON as a TokenEvent."""


class CitationEvent(BaseModel):
    type: Literal["citation"] = "citation"
    citation: Citation


class PricesEvent(BaseModel):
    type: Literal["prices"] = "prices"
    prices: list[PriceQuote]


class DoneEvent(BaseModel):
    type: Literal["done"] = "done"
    answer: Answer


class ProgressEvent(BaseModel):
    """LLM mode: a tool call started or finished (shown while the answer is being made)."""

    type: Literal["progress"] = "progress"
    tool: str
    stage: Literal["started", "finished"]
    message: str = Field(description="e.g. 'checking 41 configurations…'")


class ErrorEvent(BaseModel):
    type: Literal["error"] = "error"
    message: str


class ResetEvent(BaseModel):
    """LLM mode: the text shown so far is withdrawn (an answer failed a check and is being
    revised, or the offline answer replaces it); the tokens that follow replace it."""

    type: Literal["reset"] = "reset"
    message: str = Field(default="", description="e.g. 'revising the answer…'")


StreamEvent = (
    TokenEvent | CitationEvent | PricesEvent | DoneEvent | ErrorEvent | ProgressEvent | ResetEvent
)
