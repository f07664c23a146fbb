"""The LLM reader: one structured-output call that fills a `Reading` (issue 23, point 2).

    result = read_with_llm(deps, question, rules_reading, previous=last_reading)
    result.reading   # a Reading (reader="llm"), or None: the caller keeps the rule reading
    result.kinds     # what the question asks, in the reader's words (fit, nvlink, explain …)
    result.attempts  # the reader calls made, for `Answer.attempts`

The model sees the question, the catalog's model, configuration and card ids, and (for a
follow-up) the session's previous reading, and returns `LLMReading`: the subset of `Reading` a
model should fill. It never calls a sizing tool and never writes prose: the planner answers from
the reading. The output is validated in code (`to_reading`: ids against the catalog, precision
names, the asks); an invalid output is sent back once with the validation error, and a second
failure, a transport error, an open breaker or the deadline leave the rule reading in place.

LangChain `with_structured_output` with a JSON-schema dict (not the pydantic class: with a class,
langchain-openai's json_schema path validates inside the openai client and an invalid output
raises before its text can be sent back). `SIZING_LLM_READER_METHOD`:
- `json_schema` (default): `response_format: {"type": "json_schema", …}`. vLLM (structured
  outputs), llama.cpp's `llama-server` (a grammar from the schema) and Ollama ≥ 0.5 constrain the
  decoding to it; OpenAI follows it (not strict: the schema has optional fields).
- `function_calling`: one forced tool call. OpenAI and vLLM honour the named `tool_choice`;
  llama-server falls back to `auto` silently and Ollama ignores `tool_choice`, so a model there
  may answer in prose instead.
The client is the one `assistant/llm.py` builds: `max_tokens` goes in `extra_body` (never only
`max_completion_tokens`), its timeouts and retries, the breaker and the answer deadline apply.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from assistant.answer import LLMAttempt
from assistant.llm_breaker import breaker_for, guarded_call
from assistant.nlu.query import CARD_FAMILIES, Ask, Claim, Intent, Runtime, Workload
from assistant.prompts import user_message
from assistant.reading.convert import IMPLIED_AT, implied_asks
from assistant.reading.model import Currency, Reading, Task
from tools.load import concurrent_sequences, traffic_of
from tools.specs import PRECISIONS

log = logging.getLogger("assistant.reading.llm")

#: what the question asks, as the reader names it: the four `Ask` kinds, three more the planner
#: answers (cheapest, compare, nvlink) and three it leaves to the free answer
AskKindLLM = Literal[
    "fit", "price", "speed", "context", "memory", "cheapest", "compare", "nvlink", "explain",
    "diagnose", "other",
]  # fmt: skip
PLANNER_KINDS: frozenset[str] = frozenset(
    {"fit", "price", "speed", "context", "memory", "cheapest", "compare", "nvlink"}
)
#: reader kind -> the planner's intent
_KIND_INTENT: dict[str, Intent] = {
    "fit": "fit",
    "price": "price",
    "speed": "speed",
    "context": "capacity",
    "memory": "fit",
    "cheapest": "cheapest",
    "compare": "cheapest",
    "nvlink": "nvlink",
}
_ASK_KINDS = ("fit", "price", "speed", "context", "memory")
#: the workload a task implies
_TASK_WORKLOAD: dict[str, Workload] = {
    "fine_tune": "fine_tuning",
    "train": "training",
    "images_video": "diffusion",
}


class LLMAsk(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: AskKindLLM
    claim: Claim | None = Field(
        default=None,
        description="for a yes/no question: the claim asked about (fits, nvlink_needed, "
        "pcie_enough, faster, worth_it, too_small, costlier, cheaper, oversized)",
    )
    negated: bool = Field(
        default=False,
        description="the claim asked the other way round ('is FP8 lossless?'); 'is PCIe "
        "enough?' is claim pcie_enough, not negated",
    )
    precision: str | None = Field(default=None, description="when asked at one of several")


class Budget(BaseModel):
    model_config = ConfigDict(extra="forbid")

    amount: float = Field(gt=0, description="per month, as said")
    currency: Currency = "USD"


class LLMReading(BaseModel):
    """What the question asks. Fill only what the user said (or the previous reading carries)."""

    model_config = ConfigDict(extra="forbid", title="reading")

    task: Task = "other"
    asks: list[LLMAsk] = Field(default_factory=list, description="in the order asked")
    model: str | None = Field(default=None, description="a catalog model id from the list")
    model_name: str | None = Field(default=None, description="a model not in the catalog")
    params_b: float | None = Field(default=None, gt=0, description="'a 34B model'")
    precision: str | None = Field(default=None, description="weights: " + ", ".join(PRECISIONS))
    runtime: Runtime | None = None
    users: int | None = Field(default=None, ge=1, description="people who use it")
    concurrent_sequences: int | None = Field(
        default=None, ge=1, description="requests at the same time (only if said)"
    )
    context_tokens: int | None = Field(default=None, ge=1)
    min_tokens_per_s: float | None = Field(
        default=None, gt=0, description="the speed a yes/no asks for ('more than 20 tokens/s?')"
    )
    output_tokens: int | None = Field(
        default=None,
        ge=1,
        le=10**12,
        description="tokens a batch writes in total when asked how long it takes ('200 texts "
        "of 500 tokens each': 100000)",
    )
    configurations: list[str] = Field(default_factory=list, description="configuration ids")
    cards: list[str] = Field(default_factory=list, description="card ids or a100 / h100")
    count: int | None = Field(default=None, ge=1, le=64, description="cards in one node")
    memory_gb: float | None = Field(
        default=None, gt=0, description="memory per card said instead of a card ('4 x 32 GB')"
    )
    workloads: list[Workload] = Field(default_factory=list)
    adapter: Literal["lora", "qlora"] | None = None
    budget: Budget | None = None
    exclude_cards: list[str] = Field(default_factory=list)
    require_link: Literal["nvlink", "pcie"] | None = None
    exclude_link: Literal["nvlink", "pcie"] | None = None
    min_total_memory_gb: float | None = Field(default=None, gt=0)
    one_card: bool = Field(default=False, description="the pick must hold it on one card")
    by_much: bool = Field(default=False, description="'much faster?': a large difference asked")
    refers_to: list[str] = Field(
        default_factory=list, description="configuration ids 'that' / 'the cheaper one' means"
    )
    unread: list[str] = Field(
        default_factory=list, description="parts of the question none of the fields holds"
    )


def _compact(node: Any, top: bool = True) -> Any:
    """The schema without per-property titles and null defaults (about a third of its tokens;
    a missing optional field is null either way)."""
    if isinstance(node, dict):
        drop = {"default"} | (set() if top else {"title"})
        return {k: _compact(v, False) for k, v in node.items() if k not in drop}
    if isinstance(node, list):
        return [_compact(v, False) for v in node]
    return node


#: the JSON schema sent to the model (a dict: see the module doc)
SCHEMA: dict[str, Any] = _compact(LLMReading.model_json_schema())

PROMPT = """\
You read questions for gpuserver.io's GPU sizing assistant. You do not answer them: you return \
one JSON object saying what the question asks, which a planner then answers with exact tools.

Fill only what the user said (a follow-up also keeps what the previous reading holds and the \
question does not change). Never compute or guess a figure. Leave a field out when not said.
- task: serve (inference), fine_tune, train, images_video, diagnose (a pasted log, error or \
measurement), explain (how / why), price, compare, out_of_scope, other.
- asks, in the order asked: fit (does it fit / which cards), price, speed (tokens/s), context \
(how long a context / how many sequences), cheapest (the cheapest or a recommended \
configuration), compare (two or more options side by side), nvlink (is NVLink needed / SXM or \
PCIe), explain (how or why something works), diagnose (what is wrong in a paste), other. A \
yes/no question states its claim (fits, nvlink_needed, pcie_enough, too_small, oversized, faster, \
worth_it, costlier / cheaper: 'is A pricier than B?' on A's price ask) and negated=true when \
asked the other way round ('it does not fit, right?', 'is one L40S not enough?'; not a \
negative that hopes for the claim, 'doesn't it fit?').
- model: a model id from the list below; a model not in it goes to model_name; 'a 34B model' \
is params_b=34.
- users = people who use it; concurrent_sequences = requests at the same time, only when said \
("10-15 at once": 15). Never copy users into concurrent_sequences.
- context_tokens: '8k' = 8192, '32k' = 32768, '128k' = 131072.
- min_tokens_per_s: the speed a yes/no asks for ("does it do more than 20 tokens/s?": 20, \
with a speed ask and claim faster).
- output_tokens: a batch whose duration is asked ("how long for 200 texts of ~500 tokens \
each?": 100000, with a speed ask); never a context.
- configurations: ids from the list ("4x A100 SXM4" = 4x-a100-sxm4). Cards without a count go \
to cards (card ids, or a100 / h100 when the variant is not said), with count when said \
("one H100": cards [h100], count 1).
- budget: the amount per month and its currency as said (€ = EUR).
- one_card: true for "the cheapest with only one card"; by_much: true for "much faster?", \
"deutlich günstiger?".
- refers_to: for "that", "it", "the cheaper one", "da drauf": the configuration ids of the \
previous answer it points at.
- unread: any part of the question none of these fields holds (a second question about \
something else, a pasted log), in the user's words.

Model ids: {models}
Configuration ids: {configurations}
Card ids: {cards}
"""

RETRY = """\
Your reading is not valid: {error}
Your reading was: {output}
Return the corrected JSON object."""


@dataclass
class ReaderResult:
    reading: Reading | None = None
    kinds: list[str] = field(default_factory=list)
    attempts: list[LLMAttempt] = field(default_factory=list)


def reader_prompt(catalog: Any) -> str:
    return PROMPT.format(
        models=", ".join(catalog.models),
        configurations=", ".join(catalog.configurations),
        cards=", ".join(catalog.gpus),
    )


def _previous_message(previous: Reading | None, chosen: list[str], priced: list[str]) -> str | None:
    if previous is None:
        return None
    data = previous.model_dump(
        mode="json",
        exclude_defaults=True,
        include=set(LLMReading.model_fields) | {"budget_usd_per_month", "budget_currency"},
    )
    lines = [
        "This question may follow up the previous one.",
        f"Previous question: {previous.text[:500]}",
        f"Its reading: {json.dumps(data)}",
    ]
    if chosen:
        lines.append("The previous answer chose: " + ", ".join(chosen))
    if priced:
        lines.append("It named these prices: " + ", ".join(priced))
    return "\n".join(lines)


def _messages(
    question: str, catalog: Any, previous: Reading | None, chosen: list[str], priced: list[str]
) -> list[Any]:
    from langchain_core.messages import HumanMessage, SystemMessage

    messages: list[Any] = [SystemMessage(reader_prompt(catalog))]
    before = _previous_message(previous, chosen, priced)
    if before:
        messages.append(HumanMessage(before))
    messages.append(HumanMessage(user_message(question)))
    return messages


def read_with_llm(
    deps: Any,
    question: str,
    rules: Reading,
    *,
    previous: Reading | None = None,
    chosen: list[str] | None = None,
    priced: list[str] | None = None,
) -> ReaderResult:
    """The LLM's reading of `question` (see the module doc). Never raises for LLM failures:
    `reading` is None then, and `attempts` say why."""
    result = ReaderResult()
    llm = deps.llm
    if llm is None:
        return result
    settings = deps.settings
    deadline = time.monotonic() + settings.llm_deadline_s
    structured = llm.with_structured_output(
        SCHEMA, method=settings.llm_reader_method, include_raw=True
    )
    messages = _messages(question, deps.catalog, previous, list(chosen or []), list(priced or []))
    for n in (1, 2):
        try:
            sent = list(messages)
            out = guarded_call(breaker_for(deps), lambda: structured.invoke(sent), deadline)  # noqa: B023
        except Exception as exc:  # transport, breaker (LLMDown), deadline: the rules read
            detail = f"reader: {type(exc).__name__}: {exc}"
            log.warning("LLM reader unavailable, rule reading kept: %s", detail)
            result.attempts.append(LLMAttempt(n=n, outcome="unavailable", detail=detail[:300]))
            return result
        raw_text = _raw_text(out.get("raw"))
        try:
            parsed = _strict_json(raw_text)
            reading, kinds = to_reading(LLMReading.model_validate(parsed), rules, deps.catalog)
        except (ValidationError, ValueError) as exc:
            error = _short_error(exc)
            log.info("LLM reader output invalid (attempt %d): %s", n, error)
            result.attempts.append(LLMAttempt(n=n, outcome="invalid", detail=f"reader: {error}"))
            from langchain_core.messages import HumanMessage

            messages = [*messages, HumanMessage(RETRY.format(error=error, output=raw_text[:2000]))]
            continue
        result.reading, result.kinds = reading, kinds
        return result
    return result


def _raw_text(raw: Any) -> str:
    if raw is None:
        return ""
    calls = getattr(raw, "tool_calls", None)
    if calls:
        return json.dumps(calls[0].get("args") or {}, ensure_ascii=False)
    bad = getattr(raw, "invalid_tool_calls", None)
    if bad:
        return str(bad[0].get("args") or "")
    content = getattr(raw, "content", "")
    return content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)


def _strict_json(text: str) -> dict[str, Any]:
    """The output as one JSON object, parsed strictly (LangChain's parser accepts a truncated
    "{bad" as {}); a fenced block is unwrapped."""
    text = text.strip()
    if text.startswith("```"):
        text = text.strip("`").removeprefix("json").strip()
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise ValueError(f"not valid JSON ({exc})") from None
    if not isinstance(value, dict):
        raise ValueError("not a JSON object")
    return value


def _short_error(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        parts = []
        for e in exc.errors()[:4]:
            where = ".".join(str(p) for p in e["loc"])
            parts.append(f"{where}: {e['msg']}")
        return "; ".join(parts)
    return str(exc)[:400]


# --------------------------------------------------------------------------- into a Reading


def to_reading(out: LLMReading, rules: Reading, catalog: Any) -> tuple[Reading, list[str]]:
    """The `Reading` of a validated reader output (ids checked against `catalog`; a ValueError
    names what is wrong). From the rule reading it keeps only what the words say that the
    reader schema does not hold: the language, the text, pastes, measurements and topics."""
    kinds: list[str] = [a.kind for a in out.asks]
    data: dict[str, Any] = {
        "language": rules.language,
        "text": rules.text,
        "asked_text": rules.asked_text,
        "topics": list(rules.topics),
        "measured": rules.measured,
        "topo_text": rules.topo_text,
        "nccl_text": rules.nccl_text,
        "injection": rules.injection,
        "task": out.task,
        "reader": "llm",
        "runtime": out.runtime,
        "users": out.users,
        "concurrent_sequences": out.concurrent_sequences,
        "context_tokens": out.context_tokens,
        "min_tokens_per_s": out.min_tokens_per_s,
        "output_tokens": out.output_tokens,
        "adapter": out.adapter,
        "require_link": out.require_link,
        "exclude_link": out.exclude_link,
        "min_total_memory_gb": out.min_total_memory_gb,
        "memory_gb": out.memory_gb,
        "one_card": out.one_card,
        "claim_by_much": out.by_much,
        "unread": list(out.unread),
    }
    data.update(_asks(out))
    data.update(_model(out, catalog))
    data.update(_hardware(out, catalog))
    data.update(_constraints(out, catalog))
    data["workloads"] = list(dict.fromkeys([*out.workloads, *_task_workloads(out)]))
    data.update(_at_once(out, data["workloads"]))
    return Reading.model_validate(data), kinds


def _at_once(out: LLMReading, workloads: list[Workload]) -> dict[str, Any]:
    """People are not sequences at once: with users and no requests at once said, the reading
    sizes for the share generating at once (`tools.load.concurrent_sequences`, assumed), as the
    rule reader and a user's edit do; many users are traffic."""
    if not out.users or out.concurrent_sequences is not None:
        return {}
    update: dict[str, Any] = {
        "concurrent_sequences": concurrent_sequences(out.users),
        "assumed": ["concurrent_sequences"],
    }
    load = traffic_of(update["concurrent_sequences"])
    if load and not {"traffic", "low_concurrency"} & set(workloads):
        update["workloads"] = [*workloads, load]
    return update


def _asks(out: LLMReading) -> dict[str, Any]:
    asks = [a for a in out.asks if a.kind in _ASK_KINDS]
    sized = out.model is not None or out.model_name is not None or out.params_b is not None
    intents = list(
        dict.fromkeys(_intent(a.kind, sized) for a in out.asks if a.kind in _KIND_INTENT)
    )
    # a single ask the primary intent makes by itself is implied (its flow answers it); one it
    # does not make stays stated and is answered after the lead ("NVLink needed? And the price
    # of the 4x L40S?": the NVLink flow, then the price of the node named), as the rules do
    implied = implied_asks(intents[0] if intents else None, intents[1:])

    def at(i: int, kind: str) -> int:
        return IMPLIED_AT if len(asks) < 2 and kind in implied else i

    claimed = next((a for a in out.asks if a.claim), None)
    claim, negated = _plain_claim(claimed)
    compare = any(a.kind == "compare" for a in out.asks) or out.task == "compare"
    return {
        "asks": [
            Ask(kind=a.kind, at=at(i, a.kind), precision=_precision(a.precision))
            for i, a in enumerate(asks)
        ],
        "intents": intents,
        "claim": claim,
        "claim_negated": negated,
        "yes_no": claimed is not None,
        "explain": any(a.kind == "explain" for a in out.asks) or out.task == "explain",
        "compare": compare,
    }


#: claims whose negation is another claim: the flows answer these in the asker's polarity from
#: the claim alone (they do not read `claim_negated`), so a negated one is read as its converse
_CONVERSE: dict[str, Claim] = {
    "nvlink_needed": "pcie_enough",
    "pcie_enough": "nvlink_needed",
    "fits": "too_small",
    "too_small": "fits",
}


def _plain_claim(ask: LLMAsk | None) -> tuple[Claim | None, bool]:
    """(claim, negated) with a negated claim that has a converse read as that converse ("is
    PCIe enough?" filled as nvlink_needed + negated is pcie_enough, as the rules read it)."""
    if ask is None:
        return None, False
    if ask.negated and ask.claim in _CONVERSE:
        return _CONVERSE[ask.claim], False
    return ask.claim, ask.negated


def _intent(kind: str, sized: bool) -> Intent:
    """The planner's intent of a reader kind: comparing configurations with no model to size on
    them compares their prices (the price flow states the difference), not the cheapest fit."""
    if kind == "compare" and not sized:
        return "price"
    return _KIND_INTENT[kind]


def _precision(value: str | None) -> str | None:
    if not value:
        return None
    p = value.strip().lower().replace(" ", "_")
    if p not in PRECISIONS and f"gguf-{p}" in PRECISIONS:
        p = f"gguf-{p}"
    if p not in PRECISIONS:
        raise ValueError(f"precision {value!r} is not one of {', '.join(PRECISIONS)}")
    return p


def _model(out: LLMReading, catalog: Any) -> dict[str, Any]:
    precision = _precision(out.precision)
    data: dict[str, Any] = {
        "precision": precision,
        "precisions": [precision] if precision else [],
        "params_b": out.params_b,
        "model_name": out.model_name,
    }
    if out.model is None:
        return data
    if out.model not in catalog.models:
        raise ValueError(f"model {out.model!r} is not a catalog model id; use model_name")
    data.update(model=out.model, models=[out.model], model_name=None, params_b=None)
    return data


def _card_ids(names: list[str], catalog: Any, what: str) -> tuple[list[str], list[str]]:
    """(card ids, families) of `names`; an unknown one is a ValueError naming `what`."""
    cards: list[str] = []
    families: list[str] = []
    for name in names:
        key = name.strip().lower()
        if key in catalog.gpus:
            cards.append(key)
        elif key in CARD_FAMILIES:
            families.append(key)
        else:
            raise ValueError(f"{what} {name!r} is not a card id ({', '.join(catalog.gpus)})")
    return cards, families


def _hardware(out: LLMReading, catalog: Any) -> dict[str, Any]:
    configurations = list(out.configurations)
    for cid in [*configurations, *out.refers_to]:
        if cid not in catalog.configurations:
            raise ValueError(f"configuration {cid!r} is not a catalog configuration id")
    cards, families = _card_ids(out.cards, catalog, "card")
    count = out.count
    if not configurations and not cards and not families and out.refers_to:
        configurations = list(out.refers_to)  # "how fast is it on that?": the node meant
    if configurations:
        chosen = [catalog.configurations[c] for c in configurations]
        cards = list(dict.fromkeys([*cards, *(c.gpu for c in chosen)]))
        count = count or chosen[0].count
    elif count is not None:
        configurations = [
            f"{count}x-{c}" for c in cards if f"{count}x-{c}" in catalog.configurations
        ]
    return {
        "configurations": configurations,
        "cards": cards,
        "card_families": families,
        "count": count,
        "refers_to": list(out.refers_to),
    }


def _constraints(out: LLMReading, catalog: Any) -> dict[str, Any]:
    cards, families = _card_ids(out.exclude_cards, catalog, "excluded card")
    excluded = list(dict.fromkeys([*cards, *(c for f in families for c in CARD_FAMILIES[f])]))
    budget = out.budget
    return {
        "exclude_cards": excluded,
        # a euro budget is compared 1:1 with the USD prices (docs/reading.md)
        "budget_usd_per_month": budget.amount if budget else None,
        "budget_currency": budget.currency if budget else None,
    }


def _task_workloads(out: LLMReading) -> list[Workload]:
    workload = _TASK_WORKLOAD.get(out.task)
    if out.adapter and "fine_tuning" not in out.workloads:
        workload = "fine_tuning"
    return [workload] if workload else []


def planner_covers(result: ReaderResult) -> bool:
    """Does the planner answer everything the LLM reading asks? Every ask one of its kinds,
    nothing unread, and something to size or price: a model or hardware, or a load with only
    price or cheapest asks ("120 people, an internal ChatGPT: what would it cost?"), which the
    planner sizes a starting point for, as it does for the rule reading."""
    r = result.reading
    if r is None or r.unread or r.task in ("diagnose", "explain", "out_of_scope", "other"):
        return False
    if not result.kinds or any(k not in PLANNER_KINDS for k in result.kinds):
        return False
    if r.has_subject or r.configurations or r.cards or r.card_families:
        return True
    return set(result.kinds) <= _PRICED_KINDS and _load_said(r)


#: asks a load without a model is sized for (a starting point, its price)
_PRICED_KINDS = frozenset({"price", "cheapest"})


def _load_said(r: Reading) -> bool:
    """More than one user, or requests at once (the reader fills them only when said)."""
    return (r.users or 0) > 1 or bool(r.concurrent_sequences)
