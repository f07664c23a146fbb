"""The Deps object: settings, catalog, index and LLM client, carried to whatever needs them."""

from dataclasses import dataclass
from typing import Any

from assistant.settings import Settings


@dataclass
class Deps:
    settings: Settings
    catalog: Any  # knowledge.catalog.Catalog (issue 2)
    index: Any  # knowledge retriever (issue 3)
    llm: Any = None  # langchain ChatOpenAI when an LLM is configured (issue 4)
