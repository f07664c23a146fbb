"""The assistant service: one entry point used by every surface (CLI, HTTP, SSE, Slack, evals).

Interface (stable; surfaces depend on it):

    assistant = Assistant(deps)
    answer: Answer = assistant.ask(question, session_id=None, language=None)
    for event in assistant.stream(question, session_id=None, language=None):
        ...  # TokenEvent*, CitationEvent*, PricesEvent, then DoneEvent (or ErrorEvent)
"""

from collections.abc import Iterator

from assistant.answer import Answer, Language, StreamEvent
from assistant.deps import Deps


class Assistant:
    def __init__(self, deps: Deps) -> None:
        self.deps = deps

    def ask(
        self, question: str, session_id: str | None = None, language: Language | None = None
    ) -> Answer:
        raise NotImplementedError("issue 4")

    def stream(
        self, question: str, session_id: str | None = None, language: Language | None = None
    ) -> Iterator[StreamEvent]:
        raise NotImplementedError("issue 4")
