"""The agent-facing tools as LangChain StructuredTools, for LLM mode.

One registry (`assistant.registry.REGISTRY`) lists the sizing tools the offline composer calls; this
module wraps each one as a `StructuredTool` whose argument schema is the tool's pydantic args model
and whose description is its docstring, so the LLM calls exactly the same functions. A
`search_guides` tool adds retrieval: it returns passages numbered [1], [2], ... (numbers stay
stable for the whole answer, across tool rounds and the regenerate pass) for the model to cite.

Every call is recorded in a `ToolSession` (`tool_calls`, `passages`), from which the answer's
`tool_calls` and `citations` are built.
"""

from __future__ import annotations

import inspect
import json
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from langchain_core.tools import StructuredTool
from pydantic import BaseModel, Field

from assistant.answer import Citation, ToolCall
from assistant.deps import Deps
from assistant.guide_search import KEYWORDS_ONLY
from assistant.guide_search import search as search_guides

SEARCH_TOOL = "search_guides"
MAX_TOOL_RESULT_CHARS = 24000  # fit_check over every configuration: ~19.4k


class SearchGuidesArgs(BaseModel):
    """Arguments of `search_guides`."""

    query: str = Field(
        description="what to look up, in the user's language, e.g. 'NVLink tensor parallel'"
    )
    guide: str | None = Field(
        default=None,
        description="limit to one guide slug: nvlink-vs-pcie, gpu-for-flux-sdxl, "
        "awq-vs-gptq-vs-fp8, mixture-of-experts",
    )


SEARCH_DESCRIPTION = (
    "Search gpuserver.io's guides. Returns numbered passages [n] with guide, section and URL. "
    "Cite a passage in the answer with its number in square brackets, e.g. [1]. Use it for rules, "
    "recommendations and any figure you quote from a guide."
)


@dataclass
class NumberedPassage:
    n: int
    passage: Any  # knowledge.retrieval.Passage


@dataclass
class ToolSession:
    """What the tools did for one answer: the calls made and the passages handed out."""

    language: str | None = None
    tool_names: set[str] = field(default_factory=set)
    tool_calls: list[ToolCall] = field(default_factory=list)
    passages: dict[int, NumberedPassage] = field(default_factory=dict)
    _by_key: dict[str, int] = field(default_factory=dict)

    def number(self, passage: Any) -> int:
        """The stable number of a passage (a passage seen twice keeps its first number)."""
        key = str(getattr(passage, "id", None) or getattr(passage, "url", None) or id(passage))
        if key not in self._by_key:
            n = len(self.passages) + 1
            self._by_key[key] = n
            self.passages[n] = NumberedPassage(n, passage)
        return self._by_key[key]

    def citation(self, n: int, as_n: int | None = None) -> Citation | None:
        found = self.passages.get(n)
        if found is None:
            return None
        p = found.passage
        return Citation(
            n=as_n if as_n is not None else n,
            guide=str(getattr(p, "guide", "")),
            title=str(getattr(p, "title", "")),
            section=str(getattr(p, "section", "")),
            url=str(getattr(p, "url", "")),
            quote=str(getattr(p, "text", "")),
        )


def _jsonable(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return value


def shown_figures(value: Any, key: str = "") -> Any:
    """Figures at the precision people read (issue 24): one decimal from 1 up (141.11 GB ->
    141.1), two significant digits below 1 (0.479 -> 0.48). Money (`usd*` keys) keeps its cents
    and integers stay whole; the tools keep full precision and the grounding check accepts the
    rounded figure."""
    if isinstance(value, dict):
        return {k: shown_figures(v, str(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [shown_figures(v, key) for v in value]
    if isinstance(value, float) and not key.startswith("usd") and value == value:
        if abs(value) >= 1 or value == 0:
            return round(value, 1)
        return float(f"{value:.2g}")
    return value


def result_text(result: Any) -> str:
    """A tool result as the model sees it: compact JSON, bounded, figures at the precision
    people read (`shown_figures`). Every tool's result has one shape, the tool's own record
    (lists of rows are lists of records, never {columns, rows})."""
    text = json.dumps(shown_figures(_jsonable(result)), ensure_ascii=False, default=str)
    if len(text) > MAX_TOOL_RESULT_CHARS:
        text = text[:MAX_TOOL_RESULT_CHARS] + " …(truncated: ask for fewer configurations)"
    return text


def format_passages(numbered: Iterable[tuple[int, Any]]) -> str:
    blocks = []
    for n, p in numbered:
        heading = " › ".join(
            part for part in (getattr(p, "title", ""), getattr(p, "section", "")) if part
        )
        blocks.append(f"[{n}] {heading}\nURL: {getattr(p, 'url', '')}\n{getattr(p, 'text', '')}")
    return "\n\n".join(blocks) if blocks else "No passages found."


# --- registry adapter -------------------------------------------------------------------------


@dataclass
class RegistryTool:
    name: str
    description: str
    args_model: type[BaseModel]
    fn: Callable[..., Any]


def _args_model_of(fn: Callable[..., Any]) -> type[BaseModel]:
    hints = typing.get_type_hints(fn)
    params = list(inspect.signature(fn).parameters)
    for name in params[1:]:
        hint = hints.get(name)
        if isinstance(hint, type) and issubclass(hint, BaseModel):
            return hint
    raise TypeError(f"registry tool {fn.__name__} has no pydantic args parameter")


def registry_tools(registry: Any) -> list[RegistryTool]:
    """Normalise REGISTRY (a mapping name -> function, a list of functions, or a list of specs
    with name/fn/args_model/description attributes) into RegistryTool entries."""
    items: list[tuple[str | None, Any]]
    if isinstance(registry, Mapping):
        items = list(registry.items())
    else:
        items = [(None, entry) for entry in registry]
    out: list[RegistryTool] = []
    for key, entry in items:
        fn = getattr(entry, "fn", None) or getattr(entry, "func", None) or entry
        name = getattr(entry, "name", None) or key or fn.__name__
        args_model = (
            getattr(entry, "args_model", None) or getattr(entry, "args", None) or _args_model_of(fn)
        )
        description = (
            getattr(entry, "description", None) or inspect.getdoc(fn) or name.replace("_", " ")
        )
        out.append(RegistryTool(str(name), str(description).strip(), args_model, fn))
    return out


# --- LangChain tools ------------------------------------------------------------------------


def _error_text(exc: Exception) -> str:
    if hasattr(exc, "errors") and callable(exc.errors):  # pydantic ValidationError
        try:
            parts = [
                f"{'.'.join(str(x) for x in e.get('loc', ())) or 'arguments'}: {e.get('msg')}"
                for e in exc.errors()
            ]
            return "invalid arguments: " + "; ".join(parts)
        except Exception:  # pragma: no cover - defensive
            pass
    return str(exc) or type(exc).__name__


def _search(deps: Deps, session: ToolSession, args: dict[str, Any]) -> str:
    parsed = SearchGuidesArgs.model_validate(args)
    if deps.index is None:
        raise RuntimeError("guide search is not available")
    passages, keywords_only = search_guides(
        deps.index, parsed.query, k=5, language=session.language, guide=parsed.guide
    )
    numbered = [(session.number(p), p) for p in passages]
    session.tool_calls.append(
        ToolCall(
            name=SEARCH_TOOL,
            arguments={**args, "ranking": KEYWORDS_ONLY} if keywords_only else args,
            result=[
                {
                    "n": n,
                    "guide": getattr(p, "guide", ""),
                    "section": getattr(p, "section", ""),
                    "url": getattr(p, "url", ""),
                    "text": getattr(p, "text", ""),
                }
                for n, p in numbered
            ],
        )
    )
    return format_passages(numbered)


def dispatch(deps: Deps, session: ToolSession, name: str, args: dict[str, Any]) -> str:
    """Run one tool call the model asked for; record it; return the text the model sees.

    Never raises: an unknown tool or bad arguments become an error message for the model (and a
    recorded call with an `error` result), so the model can correct itself.
    """
    try:
        if name == SEARCH_TOOL:
            return _search(deps, session, args)
        from assistant.registry import call_tool

        if name not in session.tool_names:
            raise LookupError(
                f"unknown tool {name!r}; available: {', '.join(sorted(session.tool_names))}"
            )
        record: ToolCall = call_tool(deps, name, args)
        session.tool_calls.append(record)
        return result_text(record.result)
    except Exception as exc:
        message = _error_text(exc)
        session.tool_calls.append(ToolCall(name=name, arguments=args, result={"error": message}))
        return f"error: {message}"


def build_tools(deps: Deps, session: ToolSession) -> list[StructuredTool]:
    """The LangChain tools the model may call, bound to these deps and this session."""
    from assistant.registry import REGISTRY

    specs = registry_tools(REGISTRY)
    session.tool_names = {spec.name for spec in specs}
    tools: list[StructuredTool] = []
    for spec in [*specs, RegistryTool(SEARCH_TOOL, SEARCH_DESCRIPTION, SearchGuidesArgs, _search)]:

        def run(_name: str = spec.name, **kwargs: Any) -> str:
            return dispatch(deps, session, _name, _jsonable(kwargs))

        tools.append(
            StructuredTool.from_function(
                func=run,
                name=spec.name,
                description=spec.description,
                args_schema=spec.args_model,
                infer_schema=False,
            )
        )
    return tools


def tool_schemas(tools: Iterable[StructuredTool]) -> list[dict[str, Any]]:
    """What the LLM sees: each tool in OpenAI's function-calling format."""
    from langchain_core.utils.function_calling import convert_to_openai_tool

    return [convert_to_openai_tool(t) for t in tools]


# --- the tool block: every tool, compact, byte-identical on every request ---------------------
#
# The full schemas (above; snapshotted in tests/__snapshots__/test_tool_schemas.ambr) carry long
# docstrings and argument descriptions. What the model is sent instead (issue 25): every registry
# tool and `search_guides`, always, in registry order, each with a one-line description (whole
# sentences of its docstring, or a hand-written line, never cut mid-word), its arguments with
# their type (enums only when short), and the meanings shared by several tools stated once in the
# system prompt (`assistant.prompts.SHARED_ARGUMENTS`). The system prompt and this block are the
# same bytes on every request in a language, so a provider's prefix cache (OpenAI, vLLM's
# automatic prefix caching, llama.cpp's cache_prompt) serves them; what a question needs is named
# after that prefix, in the user message (`tool_hint`). bench/bench_prompt_tokens.py counts the
# tokens and the cacheable share.

COMPACT_DESCRIPTIONS: dict[str, str] = {
    "fit_check": "Does a model fit each configuration (or the ones named)? Verdict, GB per card, "
    "headroom, price.",
    "memory_need": "Memory a model needs (weights, KV cache, overhead; per card when split). "
    "training/adapter: fine-tuning memory.",
    "price_quote": "Exact monthly USD prices of configurations, and their differences.",
    "cheapest_fit": "Cheapest configurations a model fits on (up to 5), optionally NVLink-only, "
    "PCIe-only or one card.",
    "nodes_within": "Configurations within a monthly budget or with a minimum of total memory, "
    "cheapest first.",
    "throughput_estimate": "Single-stream tokens/s of a model on a configuration and USD per "
    "million tokens (conservative).",
    "interconnect_facts": "Card-to-card link of configurations: NVLink/PCIe generation, GB/s, "
    "topology.",
    "tensor_parallel_cost": "Time per token spent on tensor-parallel all-reduces on a node.",
    "gradient_allreduce_time": "Gradient all-reduce time per training step over links (PCIe vs "
    "NVLink).",
    "card_facts": "Card specs: memory, usable share, bandwidth, FP8, NVLink, nodes and prices.",
    "purchase_advice": "The guide's purchase rule (1-5): one card, PCIe or NVLink/SXM, with the "
    "section to cite.",
    "check_topology_output": "Read pasted `nvidia-smi topo -m` output and judge the links.",
    "capacity_check": "Longest context and most concurrent sequences a model gets on one "
    "configuration.",
    "check_allreduce_output": "Read pasted all_reduce_perf output: bus bandwidth vs the link's "
    "rating.",
    "training_fit": "Which configurations hold a training job (full, LoRA or QLoRA fine-tuning) "
    "of a model, with price.",
    "models_for_configuration": "Which catalog models one configuration holds, largest first, "
    "and which are too big.",
    "find_model": "Resolve a model name, size ('70B'), alias or Hugging Face id to catalog "
    "models, with close matches.",
    SEARCH_TOOL: "Search the site's guides; returns numbered passages [n] to cite.",
}

SHARED_ARGS = {"model", "precision", "configuration", "configurations", "context_tokens",
               "concurrency"}  # fmt: skip
# names that say what they mean: sent without a description (a truncated one only cost tokens)
SELF_DESCRIBING_ARGS = {"max_price_usd_month", "min_total_memory_gb", "exclude_cards",
                        "exclude_configurations", "one_card", "independent_jobs"}  # fmt: skip
# arguments left out of the compact schema (still accepted): cheapest_fit's `interconnect` says
# what `require_link`, shared with fit_check, says
COMPACT_OMIT = {"cheapest_fit": {"interconnect"}}
MAX_ARG_DESCRIPTION = 40
MAX_DESCRIPTION = 160  # a docstring's first sentences up to this many characters
MAX_ENUM = 5
MAX_HINTED = 6  # tools named in a question's hint

_TOOL_KEYWORDS: list[tuple[str, tuple[str, ...]]] = [
    (r"\b(?:nvidia-smi\s+topo|topo\s+-m)\b|\bGPU\d\s+(?:X|NV\d+|PHB|PXB|PIX|SYS|NODE)\b",
     ("check_topology_output",)),
    (r"all_reduce_perf|busbw|nccl-tests", ("check_allreduce_output",)),
    (r"fast|schnell|speed|tempo|tokens?/s|token/s|throughput|durchsatz|latenc|million tokens",
     ("throughput_estimate",)),
    (r"train|fine-?tun|lora|qlora|finetun|nachtrain|feinabstimm", ("training_fit",)),
    (r"users?\b|nutzer|concurren|gleichzeitig|context|kontext|sequen|requests|anfragen",
     ("capacity_check",)),
    (r"nvlink|sxm|worth|lohnt|buy|kauf|rule|regel", ("purchase_advice", "interconnect_facts")),
    (r"tensor|parallel|traffic|verkehr", ("tensor_parallel_cost",)),
    (r"all-?reduce|gradient|nccl", ("gradient_allreduce_time",)),
    (r"bandwidth|bandbreite|spec|datenblatt|which cards?|welche karte|how much vram does|"
     r"wie viel vram hat", ("card_facts",)),
    (r"budget|within|innerhalb|up to \$|bis zu|höchstens|max(?:imal)?\.? \$?\d", ("nodes_within",)),
    (r"what can i run|was kann ich|which models|welche modelle|what runs|was läuft",
     ("models_for_configuration",)),
    (r"memory|speicher|vram|\bkv\b|fp8|awq|gptq|q4|q8|int8|int4|quant", ("memory_need",)),
    (r"cheapest|günstigst|billigst", ("cheapest_fit",)),
    (r"cost|kost|price|preis|\$", ("price_quote",)),
]  # fmt: skip

# the tools a reading's intents and task call for (the reading is the contract: issue 24)
_INTENT_TOOLS: dict[str, tuple[str, ...]] = {
    "topology_paste": ("check_topology_output",),
    "allreduce_paste": ("check_allreduce_output",),
    "capacity": ("capacity_check",),
    "link_facts": ("interconnect_facts", "card_facts"),
    "tp_sync": ("tensor_parallel_cost",),
    "cheapest": ("cheapest_fit",),
    "price": ("price_quote",),
    "allreduce": ("gradient_allreduce_time",),
    "topology_howto": (SEARCH_TOOL,),
    "nvlink": ("purchase_advice", "interconnect_facts"),
    "speed": ("throughput_estimate",),
    "fit": ("fit_check",),
    "general": (SEARCH_TOOL,),
}
_TASK_TOOLS: dict[str, tuple[str, ...]] = {
    "fine_tune": ("training_fit",),
    "train": ("training_fit", "gradient_allreduce_time"),
    "diagnose": ("check_topology_output", "check_allreduce_output"),
    "explain": (SEARCH_TOOL,),
    "compare": ("price_quote",),
    "price": ("price_quote",),
}
_TOPIC_TOOLS: dict[str, tuple[str, ...]] = {
    "what_runs": ("models_for_configuration",),
    "card_spec": ("card_facts",),
    "fp8_support": ("card_facts",),
    "which_cards": ("card_facts",),
    "most_vram": ("nodes_within",),
    "vram_per_dollar": ("nodes_within",),
    "per_token": ("throughput_estimate",),
}


def _last_user_text(history: Iterable[Any]) -> str:
    last_user = ""
    for turn in history:
        role = turn.get("role") if isinstance(turn, dict) else getattr(turn, "role", None)
        if role == "user":
            content = turn.get("content") if isinstance(turn, dict) else None
            last_user = str(content or "")
    return last_user


def _reading_tools(reading: Any) -> list[str]:
    """The tools a reading's pastes, intents, task and topics call for, in that order."""
    out: list[str] = []
    if getattr(reading, "topo_text", None):
        out.append("check_topology_output")
    if getattr(reading, "nccl_text", None):
        out.append("check_allreduce_output")
    intents = list(getattr(reading, "intents", None) or [])
    if not intents:
        from assistant.reading.convert import intents_of

        intents = list(intents_of(reading))
    for intent in intents:
        out += _INTENT_TOOLS.get(str(intent), ())
    out += _TASK_TOOLS.get(str(getattr(reading, "task", "")), ())
    for topic in getattr(reading, "topics", None) or []:
        out += _TOPIC_TOOLS.get(str(topic), ())
    return out


def select_tools(question: str, history: Iterable[Any] = (), reading: Any = None) -> list[str]:
    """The tools a question most likely needs, to name in its user message (every tool is
    offered regardless): the reading's first (when there is one), then those the question's
    keywords (or the previous user turn's) point to; at most MAX_HINTED, in that order."""
    import re

    wanted: list[str] = []
    if reading is not None:
        try:
            wanted += _reading_tools(reading)
        except Exception:  # a hint never breaks an answer
            wanted = []
    text = f"{question}\n{_last_user_text(history)}"
    for pattern, names in _TOOL_KEYWORDS:
        if re.search(pattern, text, re.IGNORECASE):
            wanted += names
    known = set(_compact_schemas())
    out: list[str] = []
    for name in wanted:
        if name in known and name not in out:
            out.append(name)
    return out[:MAX_HINTED]


def _first_sentences(text: str, limit: int = MAX_DESCRIPTION) -> str:
    """A docstring's first paragraph, whole sentences up to `limit` characters; a first sentence
    longer than that cut at a word, marked with '…'."""
    import re

    paragraph = " ".join(text.split("\n\n")[0].split())
    parts = re.split(r"(?<=[.!?])\s+(?=[A-Z(\"'`])", paragraph)
    out = ""
    for part in parts:
        joined = f"{out} {part}".strip()
        if len(joined) > limit:
            break
        out = joined
    if not out:
        out = paragraph[: limit - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"
    return out


@lru_cache(maxsize=1)
def _compact_schemas() -> dict[str, dict[str, Any]]:
    from assistant.registry import REGISTRY

    search = RegistryTool(SEARCH_TOOL, SEARCH_DESCRIPTION, SearchGuidesArgs, _search)
    return {spec.name: compact_schema(spec) for spec in [*registry_tools(REGISTRY), search]}


def _compact_type(schema: dict[str, Any]) -> dict[str, Any]:
    options: list[dict[str, Any]] = [
        s for s in schema.get("anyOf", [schema]) if s.get("type") != "null"
    ]
    chosen: dict[str, Any] = options[0] if options else {"type": "string"}
    out: dict[str, Any] = {"type": chosen.get("type", "string")}
    if chosen.get("type") == "array":
        item: dict[str, Any] = chosen.get("items", {}) or {}
        out["items"] = {"type": item.get("type", "string")}
        if item.get("enum") and len(item["enum"]) <= MAX_ENUM:
            out["items"]["enum"] = item["enum"]
    if chosen.get("enum") and len(chosen["enum"]) <= MAX_ENUM:
        out["enum"] = chosen["enum"]
    return out


def _compact_property(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    out = _compact_type(schema)
    description = str(schema.get("description") or "")
    skip = SHARED_ARGS | SELF_DESCRIBING_ARGS
    if name not in skip and description and "enum" not in out:
        short = description.split(";")[0].split(" (e.g.")[0].split(", e.g.")[0]
        if len(short) > MAX_ARG_DESCRIPTION:
            short = short[: MAX_ARG_DESCRIPTION - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"
        out["description"] = short
    return out


def compact_schema(spec: RegistryTool) -> dict[str, Any]:
    """One tool in OpenAI's function format, compact (see the comment above)."""
    full = spec.args_model.model_json_schema()
    omit = COMPACT_OMIT.get(spec.name, set())
    properties = {
        name: _compact_property(name, prop)
        for name, prop in full.get("properties", {}).items()
        if name not in omit
    }
    parameters: dict[str, Any] = {"type": "object", "properties": properties}
    if full.get("required"):
        parameters["required"] = list(full["required"])
    description = COMPACT_DESCRIPTIONS.get(spec.name) or _first_sentences(spec.description)
    return {
        "type": "function",
        "function": {"name": spec.name, "description": description, "parameters": parameters},
    }


def bound_tools(deps: Deps, session: ToolSession) -> list[dict[str, Any]]:
    """The compact schemas of every tool, in registry order then `search_guides`: the same list
    (the same bytes once serialised) for every question, for `llm.bind_tools`."""
    from assistant.registry import REGISTRY

    session.tool_names = set(REGISTRY)
    return list(_compact_schemas().values())
