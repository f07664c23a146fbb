"""The question-set format: `evals/datasets/*.yaml`, validated by these pydantic models.

    version: 1
    name: prices
    description: ...
    cases:
      - id: price-4x-a100-sxm4-en
        question: What will 4 x A100 SXM4 cost?
        language: en
        tags: [price, tool:price_quote, guide:nvlink-vs-pcie]
        expect:
          prices: [4x-a100-sxm4]                 # the catalog's price, whatever it is
          citations: [nvlink-vs-pcie#same-job-both-ways]
          tools: [price_quote]
          contains: ["{price:4x-a100-sxm4}/month"]   # expanded to "$4,395/month" at check time

Expectations are *catalog-relative*: they say what must be true of the catalog and guides under
test, not what they said when the case was written. `prices` lists configuration ids whose
catalog price the answer must quote (`{id: catalog}` is the same; a literal number only where the
literal is the point), `cheapest_named` asks the tools at check time which node is the cheapest
that holds a model, and phrases/patterns may use `{price:ID}` (the catalog price as written,
"$4,395") and `{price_diff:A,B}` (the monthly difference of two catalog prices, "$238").

A follow-up is a `conversation`: a list of turns asked in one session; every turn may carry its
own `expect`. Expectations are written from what the assistant SHOULD answer (the guides, the
catalog, the tools), never copied from an answer.

The layers are measured apart (issue 23): a case or a turn may carry `reading:`, the gold fields
of the `Reading` the question should be read as (only the fields given are scored, see
`evals/reading_checks.py`); a *planner case* gives `given_reading:` (a partial `Reading`) instead
of `question` and is answered through `Assistant.answer_reading`, with no parse:

      - id: read-qwen72-fp8-budget
        question: Qwen2.5 72B in FP8 for 80 users, 12 at once, under $5,000 a month?
        language: en
        reading: {model: qwen2.5-72b, precision: fp8, users: 80, concurrent_sequences: 12,
                  budget_usd_per_month: 5000, asks: [fit]}
      - id: plan-llama70-4xa100
        given_reading: {model: llama-3.3-70b, configurations: [4x-a100-sxm4], asks: [fit]}
        language: en
        expect: {verdict: fits_one_card}

The JSON schema of this format is committed as `evals/dataset.schema.json`
(`sizing eval --schema` prints it; a test keeps the two equal).
"""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from assistant.reading.model import Reading

SCHEMA_PATH = Path(__file__).resolve().parent / "dataset.schema.json"

Language = Literal["de", "en"]

FIT_VERDICTS = ("fits_one_card", "split", "does_not_fit")
ADVICE_VERDICTS = ("one_card", "pcie", "pcie_size_for_memory", "sxm", "not_offered")
Verdict = Literal[
    "fits_one_card",
    "split",
    "does_not_fit",
    "one_card",
    "pcie",
    "pcie_size_for_memory",
    "sxm",
    "not_offered",
    "unknown_model",
    "off_topic",
]

PriceSpec = Decimal | Literal["catalog"]

_CITATION_RX = re.compile(r"^[a-z0-9][a-z0-9-]*(#[a-z0-9][a-z0-9-]*)?$")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


#: the units a case's figure may name, as written, to the unit the checks match (evals/checks.py
#: `UNIT_PATTERNS`); a price in `PRICE_UNITS`
UNIT_ALIASES = {
    "gb": "GB",
    "gib": "GiB",
    "tb": "TB",
    "gb/s": "GB/s",
    "token/s": "tokens/s",
    "tok/s": "tokens/s",
    "tokens/s": "tokens/s",
    "tokens": "tokens",
    "token": "tokens",
    "s": "s",
    "sec": "s",
    "seconds": "s",
    "ms": "ms",
    "%": "%",
    "x": "×",
    "×": "×",
    "bytes": "bytes",
    "layers": "layers",
    "sequences": "sequences",
    "sequence": "sequences",
    "sequenzen": "sequences",
}
PRICE_UNITS = ("$", "usd", "$/month", "usd/month")


class NumberExpectation(_Strict):
    """A figure the answer must state: a number followed by `unit`, within `tolerance`."""

    value: float = Field(description="the expected figure, in `unit`")
    unit: str = Field(
        description="unit as written after the number: GB, GiB, GB/s, tokens/s, s, ms, %, ×, "
        "sequences, $/month (German spellings such as Token/s are matched too)"
    )
    tolerance: float = Field(default=0.0, ge=0, description="absolute tolerance, in `unit`")
    label: str | None = Field(default=None, description="what the figure is (for reports)")

    @field_validator("unit")
    @classmethod
    def known_unit(cls, v: str) -> str:
        key = v.strip().lower()
        if key not in UNIT_ALIASES and key not in PRICE_UNITS:
            known = sorted({*UNIT_ALIASES.values(), "$/month"})
            raise ValueError(f"unknown unit {v!r} (known: {', '.join(known)})")
        return v


class VerdictExpectation(_Strict):
    """The answer's verdict, checked against the tool result that decides it and the text.

    Fit verdicts (fits_one_card, split, does_not_fit) are read from the fit_check /
    cheapest_fit rows of `configuration` (or, without one, from the answer's headline);
    advice verdicts (one_card, pcie, pcie_size_for_memory, sxm, not_offered) from the
    purchase_advice result; unknown_model and off_topic from the text."""

    value: Verdict
    configuration: str | None = Field(
        default=None, description="configuration id whose fit row must carry the verdict"
    )


TEMPLATE_RX = re.compile(
    r"\{(?P<kind>price|price_diff):(?P<args>[a-z0-9][a-z0-9-]*(?:,[a-z0-9][a-z0-9-]*)?)\}"
)


class CheapestExpectation(_Strict):
    """The cheapest configuration that holds the model, computed with `cheapest_fit` at check time
    (so a price change that makes another node the cheapest changes the expectation)."""

    model: str = Field(description="model id or name, e.g. llama-3.3-70b")
    precision: str | None = Field(default=None, description="bf16, fp8, awq, ... (tool default)")
    context_tokens: int | None = Field(default=None, ge=0, description="tokens per sequence")
    concurrency: int | None = Field(default=None, ge=1, description="sequences served at once")
    interconnect: Literal["any", "nvlink", "pcie"] = Field(
        default="any", description="only NVLink (SXM) or only PCIe nodes"
    )
    one_card: bool = Field(default=False, description="only nodes where it fits on one card")


class Expectations(_Strict):
    verdict: VerdictExpectation | Verdict | None = Field(
        default=None, description="expected verdict (a string, or an object with configuration)"
    )
    rule: int | None = Field(
        default=None, ge=1, le=5, description="the guide's purchase rule 1-5 the answer applies"
    )
    contains: list[str] = Field(
        default=[], description="phrases the answer must contain (any case)"
    )
    patterns: list[str] = Field(default=[], description="regexes the answer must match")
    forbidden: list[str] = Field(default=[], description="phrases the answer must not contain")
    forbidden_patterns: list[str] = Field(default=[], description="regexes it must not match")
    numbers: list[NumberExpectation] = Field(default=[], description="figures the answer states")
    prices: dict[str, PriceSpec] | list[str] = Field(
        default={},
        description="configuration ids whose catalog price the answer must quote (a list, or "
        "id -> 'catalog'); id -> a number only where that literal is the point",
    )
    cheapest_named: CheapestExpectation | None = Field(
        default=None,
        description="the answer names the cheapest node that holds the model, as the tools "
        "compute it at check time (and quotes its catalog price)",
    )
    only_prices: bool = Field(
        default=False, description="no price quotes other than the ones in `prices`"
    )
    citations: list[str] = Field(
        default=[], description="guide slug, or slug#anchor, the answer must cite"
    )
    no_citations: bool = Field(default=False, description="the answer must cite nothing")
    tools: list[str] = Field(default=[], description="tools that must have been called")
    forbidden_tools: list[str] = Field(default=[], description="tools that must not be called")
    no_tools: bool = Field(default=False, description="no tool may be called at all")

    @field_validator("patterns", "forbidden_patterns")
    @classmethod
    def _compiles(cls, v: list[str]) -> list[str]:
        for p in v:
            try:
                re.compile(p)
            except re.error as exc:
                raise ValueError(f"bad regex {p!r}: {exc}") from None
        return v

    @field_validator("citations")
    @classmethod
    def _citation_shape(cls, v: list[str]) -> list[str]:
        for c in v:
            if not _CITATION_RX.match(c):
                raise ValueError(f"citation {c!r} is not 'guide-slug' or 'guide-slug#anchor'")
        return v

    @field_validator("prices")
    @classmethod
    def _price_values(cls, v: dict[str, PriceSpec] | list[str]) -> dict[str, PriceSpec] | list[str]:
        if isinstance(v, list):
            if len(set(v)) != len(v):
                raise ValueError("a configuration is listed twice in prices")
            return v
        for k, p in v.items():
            if p != "catalog" and p < 0:
                raise ValueError(f"price of {k} is negative")
        return v

    @field_validator("contains", "patterns", "forbidden", "forbidden_patterns")
    @classmethod
    def _templates(cls, v: list[str]) -> list[str]:
        for text in v:
            for m in TEMPLATE_RX.finditer(text):
                if m.group("kind") == "price_diff" and len(m.group("args").split(",")) != 2:
                    raise ValueError(f"{m.group(0)}: price_diff takes two configuration ids")
        return v

    def price_specs(self) -> dict[str, PriceSpec]:
        """`prices` as id -> 'catalog' or a literal Decimal."""
        if isinstance(self.prices, list):
            return dict.fromkeys(self.prices, "catalog")
        return dict(self.prices)

    @model_validator(mode="after")
    def _consistent(self) -> Expectations:
        if self.no_citations and self.citations:
            raise ValueError("no_citations together with citations")
        if self.no_tools and self.tools:
            raise ValueError("no_tools together with tools")
        return self

    def verdict_spec(self) -> VerdictExpectation | None:
        if self.verdict is None:
            return None
        if isinstance(self.verdict, str):
            return VerdictExpectation(value=self.verdict)
        return self.verdict

    def is_empty(self) -> bool:
        return self == Expectations()


GOLD_READING_DESCRIPTION = (
    "gold reading: Reading field -> the value the question should be read as (only the fields "
    "given are scored; null means 'must be empty'; asks as kinds in order, e.g. [fit, price])"
)
GIVEN_READING_DESCRIPTION = (
    "a planner case: a partial Reading answered through Assistant.answer_reading, no parse "
    "(asks may be written as kinds, e.g. [fit, price])"
)


def normalise_asks(value: Any) -> Any:
    """`asks` as written in a dataset (`[fit, price]` or `[{kind: fit, precision: fp8}]`) as the
    objects `Reading` holds; anything else unchanged (validation reports it)."""
    if not isinstance(value, list):
        return value
    return [{"kind": a} if isinstance(a, str) else a for a in value]


def _reading_data(data: dict[str, Any]) -> dict[str, Any]:
    return {k: normalise_asks(v) if k == "asks" else v for k, v in data.items()}


def check_gold_reading(gold: dict[str, Any] | None) -> dict[str, Any] | None:
    """Gold fields are `Reading` fields, with values a `Reading` accepts (None: must be empty)."""
    if gold is None:
        return None
    unknown = sorted(set(gold) - set(Reading.model_fields))
    if unknown:
        raise ValueError(f"unknown reading field(s) {', '.join(map(repr, unknown))}")
    given = {k: v for k, v in gold.items() if v is not None}
    try:
        Reading.model_validate(_reading_data(given))
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(x) for x in err["loc"])
        raise ValueError(f"reading.{where}: {err['msg']}") from None
    return gold


def given_reading_model(data: dict[str, Any]) -> Reading:
    """The `Reading` a planner case gives (asks may be written as kinds)."""
    return Reading.model_validate(_reading_data(data))


def check_given_reading(data: dict[str, Any] | None) -> dict[str, Any] | None:
    if data is None:
        return None
    try:
        given_reading_model(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(x) for x in err["loc"])
        raise ValueError(f"given_reading.{where}: {err['msg']}") from None
    return data


class Turn(_Strict):
    question: str | None = Field(default=None, min_length=1)
    given_reading: dict[str, Any] | None = Field(
        default=None,
        description=GIVEN_READING_DESCRIPTION + "; in a conversation: the session's reading "
        "edited (the widget's chips), answered in the same session",
    )
    language: Language | None = Field(
        default=None, description="expected answer language of this turn (default: the case's)"
    )
    reading: dict[str, Any] | None = Field(default=None, description=GOLD_READING_DESCRIPTION)
    expect: Expectations = Field(default_factory=Expectations)

    @field_validator("reading")
    @classmethod
    def _gold_fields(cls, v: dict[str, Any] | None) -> dict[str, Any] | None:
        return check_gold_reading(v)

    @field_validator("given_reading")
    @classmethod
    def _given_reading(cls, v: dict[str, Any] | None) -> dict[str, Any] | None:
        return check_given_reading(v)

    @model_validator(mode="after")
    def _one_input(self) -> Turn:
        if (self.question is None) == (self.given_reading is None):
            raise ValueError("a turn gives either `question` or `given_reading`")
        if self.given_reading is not None and self.reading is not None:
            raise ValueError("`reading` (gold) is scored on a question, not on a given_reading")
        return self

    @property
    def text(self) -> str:
        """The question, or the given reading's text, for reports."""
        if self.question is not None:
            return self.question
        return str((self.given_reading or {}).get("text") or "(given reading)")


class Case(_Strict):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9._-]*$", description="unique across all datasets")
    question: str | None = Field(default=None, min_length=1)
    conversation: list[Turn] | None = Field(
        default=None, min_length=2, description="follow-ups: turns asked in one session"
    )
    given_reading: dict[str, Any] | None = Field(
        default=None, description=GIVEN_READING_DESCRIPTION
    )
    language: Language = Field(description="the language the answer must be in")
    tags: list[str] = Field(default=[])
    reading: dict[str, Any] | None = Field(
        default=None, description=GOLD_READING_DESCRIPTION + " (of the last turn)"
    )
    expect: Expectations = Field(
        default_factory=Expectations, description="expectations on the (last) answer"
    )
    xfail: str | None = Field(
        default=None,
        description="a known assistant bug (reason and its EVAL_BUGS entry of docs/bugs.md, "
        "e.g. 'EVAL_BUGS evals-3'): reported as an expected failure, not as a pass",
    )
    notes: str | None = Field(default=None, description="where the expectation comes from")

    @field_validator("reading")
    @classmethod
    def _gold_fields(cls, v: dict[str, Any] | None) -> dict[str, Any] | None:
        return check_gold_reading(v)

    @field_validator("given_reading")
    @classmethod
    def _given_reading(cls, v: dict[str, Any] | None) -> dict[str, Any] | None:
        return check_given_reading(v)

    @model_validator(mode="after")
    def _one_form(self) -> Case:
        forms = (self.question, self.conversation, self.given_reading)
        if sum(f is not None for f in forms) != 1:
            raise ValueError("give one of `question`, `conversation` or `given_reading`")
        if self.given_reading is not None and self.reading is not None:
            raise ValueError("`reading` (gold) is scored on a question, not on a given_reading")
        if self.conversation is not None:
            last = self.conversation[-1]
            if not self.expect.is_empty() and not last.expect.is_empty():
                raise ValueError(
                    "expectations on the last turn: use the turn's expect or the case's, not both"
                )
            if self.reading is not None and last.reading is not None:
                raise ValueError(
                    "gold reading of the last turn: use the turn's reading or the case's, not both"
                )
            if self.reading is not None and last.given_reading is not None:
                raise ValueError("`reading` (gold) is scored on a question, not on a given_reading")
        return self

    @property
    def planner(self) -> bool:
        """A planner case: answered from a given reading, no question parsed."""
        return self.given_reading is not None

    def turns(self) -> list[Turn]:
        """The turns to ask, with the case's expectations (and gold reading) on the last one."""
        if self.question is not None or self.given_reading is not None:
            return [
                Turn(
                    question=self.question,
                    given_reading=self.given_reading,
                    language=self.language,
                    reading=self.reading,
                    expect=self.expect,
                )
            ]
        assert self.conversation is not None
        turns = [t.model_copy() for t in self.conversation]
        update: dict[str, Any] = {}
        if not self.expect.is_empty():
            update["expect"] = self.expect
        if self.reading is not None:
            update["reading"] = self.reading
        if update:
            turns[-1] = turns[-1].model_copy(update=update)
        return turns


class Dataset(_Strict):
    version: Literal[1] = 1
    name: str
    description: str = ""
    cases: list[Case] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_ids(self) -> Dataset:
        seen: set[str] = set()
        for c in self.cases:
            if c.id in seen:
                raise ValueError(f"duplicate case id {c.id!r}")
            seen.add(c.id)
        return self


class DatasetError(ValueError):
    """A dataset file that cannot be read or does not follow the format (message names the file)."""


def load_dataset(path: Path) -> Dataset:
    import yaml

    try:
        raw = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DatasetError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DatasetError(f"{path}: cannot read: {exc}") from None
    except yaml.YAMLError as exc:
        raise DatasetError(f"{path}: not valid YAML: {exc}") from None
    if not isinstance(raw, dict):
        raise DatasetError(f"{path}: expected a mapping with `cases`")
    try:
        return Dataset.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = _loc(raw, first["loc"])
        raise DatasetError(
            f"{path}: {loc}: {first['msg']} ({exc.error_count()} error(s))"
        ) from None


def _loc(raw: Any, loc: tuple[Any, ...]) -> str:
    """('cases', 3, 'expect', 'rule') -> "case 'price-x'.expect.rule" """
    parts = [str(k) for k in loc]
    if len(loc) >= 2 and loc[0] == "cases" and isinstance(loc[1], int):
        cases = raw.get("cases")
        case = cases[loc[1]] if isinstance(cases, list) and loc[1] < len(cases) else None
        cid = case.get("id") if isinstance(case, dict) else None
        parts = [f"case {cid!r}" if cid else f"case #{loc[1] + 1}", *parts[2:]]
    return ".".join(parts) or "file"


def load_datasets(paths: list[Path]) -> list[Dataset]:
    """Load several files; case ids must be unique across all of them."""
    out = [load_dataset(p) for p in paths]
    seen: dict[str, str] = {}
    for p, ds in zip(paths, out, strict=True):
        for c in ds.cases:
            if c.id in seen:
                raise DatasetError(f"{p}: case id {c.id!r} also in {seen[c.id]}")
            seen[c.id] = str(p)
    return out


def json_schema() -> dict[str, Any]:
    schema = Dataset.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://gpuserver.io/schemas/sizing-eval-dataset.json"
    return schema


def schema_text() -> str:
    import json

    return json.dumps(json_schema(), indent=2, ensure_ascii=False, sort_keys=True) + "\n"
