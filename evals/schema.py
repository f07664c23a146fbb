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

The JSON schema of this format is committed as `evals/dataset.schema.json`
(`sizing eval --schema` prints it; a test keeps the two equal).
"""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

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


class NumberExpectation(_Strict):
    """A figure the answer must state: a number followed by `unit`, within `tolerance`."""

    value: float = Field(description="the expected figure, in `unit`")
    unit: str = Field(
        description="unit as written after the number: GB, GiB, GB/s, tokens/s, s, ms, %, ×, "
        "$/month (German spellings such as Token/s are matched too)"
    )
    tolerance: float = Field(default=0.0, ge=0, description="absolute tolerance, in `unit`")
    label: str | None = Field(default=None, description="what the figure is (for reports)")


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


class Turn(_Strict):
    question: str = Field(min_length=1)
    language: Language | None = Field(
        default=None, description="expected answer language of this turn (default: the case's)"
    )
    expect: Expectations = Field(default_factory=Expectations)


class Case(_Strict):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9._-]*$", description="unique across all datasets")
    question: str | None = Field(default=None, min_length=1)
    conversation: list[Turn] | None = Field(
        default=None, min_length=2, description="follow-ups: turns asked in one session"
    )
    language: Language = Field(description="the language the answer must be in")
    tags: list[str] = Field(default=[])
    expect: Expectations = Field(
        default_factory=Expectations, description="expectations on the (last) answer"
    )
    xfail: str | None = Field(
        default=None,
        description="a known assistant bug (reason and its EVAL_BUGS entry of docs/bugs.md, "
        "e.g. 'EVAL_BUGS evals-3'): reported as an expected failure, not as a pass",
    )
    notes: str | None = Field(default=None, description="where the expectation comes from")

    @model_validator(mode="after")
    def _one_form(self) -> Case:
        if (self.question is None) == (self.conversation is None):
            raise ValueError("give either `question` or `conversation`")
        if self.conversation is not None and not self.expect.is_empty():
            last = self.conversation[-1]
            if not last.expect.is_empty():
                raise ValueError(
                    "expectations on the last turn: use the turn's expect or the case's, not both"
                )
        return self

    def turns(self) -> list[Turn]:
        """The turns to ask, with the case's expectations on the last one."""
        if self.question is not None:
            return [Turn(question=self.question, language=self.language, expect=self.expect)]
        assert self.conversation is not None
        turns = [t.model_copy() for t in self.conversation]
        if not self.expect.is_empty():
            turns[-1] = turns[-1].model_copy(update={"expect": self.expect})
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
