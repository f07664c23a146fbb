"""The Deps object: settings, catalog, index and LLM client, carried to whatever needs them.

    deps = build_deps(settings)   # once per process, at the edge (CLI command, API lifespan, tests)

`build_deps` loads the catalog (a broken catalog raises `knowledge.catalog.CatalogError`, never a
half-loaded state), parses the guide corpus (for exact section citations), opens the session store
and builds the LLM client when one is configured. The retrieval index is opened lazily on the first
search: importing Chroma costs seconds, and most offline answers cite the guide sections their rule
comes from without a search.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from assistant.settings import Settings
from knowledge.blocking import may_block

if TYPE_CHECKING:
    from assistant.passages import GuideSections
    from assistant.sessions import SessionStore
    from knowledge.catalog import Catalog


class Retriever(Protocol):
    """What the assistant needs of the guide index."""

    def search(self, query: str, *args: Any, **kwargs: Any) -> list[Any]: ...


log = logging.getLogger("assistant.deps")


@dataclass(frozen=True)
class Deps:
    """Built once at the edge and never changed (frozen); `extras` holds process caches."""

    settings: Settings
    catalog: Catalog
    index: Retriever | None  # .search(query, k, language, guide) -> [Passage]; lazy
    llm: Any = None  # langchain ChatOpenAI when an LLM is configured
    guides: GuideSections | None = None  # exact guide sections by (guide, anchor, lang)
    sessions: SessionStore | None = None
    extras: dict[str, Any] = field(default_factory=dict)  # caches (e.g. the NLU's alias index)

    def warm(self) -> bool:
        """Open the retrieval index now (a server calls this at start-up so the first guide
        question doesn't pay for importing Chroma and loading the embedder). False, with the
        reason logged, when the index cannot be opened; answers then fall back to keywords."""
        opener = getattr(self.index, "get", None)
        if opener is None:
            return self.index is not None
        try:
            opener()
        except Exception as exc:
            log.warning("guide index not available: %s", exc)
            return False
        return True


class LazyRetriever:
    """Opens the real retriever on first use (Chroma's import is slow); thread-safe.

    `search` has the retriever's signature. If the index cannot be opened (not built yet, server
    down) the error is raised from `search`, with the retriever's own message.
    """

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._retriever: Any = None
        self._lock = threading.Lock()

    @property
    def opened(self) -> bool:
        return self._retriever is not None

    def get(self) -> Any:
        if self._retriever is None:
            may_block("opening the guide index")
            with self._lock:
                if self._retriever is None:
                    self._retriever = _open_retriever(self._settings)
        return self._retriever

    def search(
        self,
        query: str,
        k: int = 5,
        language: str | None = None,
        guide: str | None = None,
        mode: str = "hybrid",
    ) -> list[Any]:
        return list(self.get().search(query, k=k, language=language, guide=guide, mode=mode))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.get(), name)


def _open_retriever(settings: Settings) -> Any:
    from knowledge.retrieval import retriever_from_settings

    return retriever_from_settings(settings)


def build_deps(settings: Settings | None = None, *, llm: Any = None) -> Deps:
    """Everything the assistant needs, built from settings. Raises CatalogError for a bad catalog,
    LLMConfigError for unusable LLM settings."""
    from assistant.passages import GuideSections
    from assistant.sessions import SessionStore
    from knowledge.catalog import load_catalog

    settings = settings or Settings()
    catalog = load_catalog(settings.catalog)
    if llm is None and settings.llm_enabled:
        from assistant.llm import build_llm

        llm = build_llm(settings)
    return Deps(
        settings=settings,
        catalog=catalog,
        index=LazyRetriever(settings),
        llm=llm,
        guides=GuideSections.load(settings.guides_dir),
        sessions=SessionStore.from_settings(settings),
    )
