"""Constraint filters over the configurator's rows: budget, total memory, excluded cards or
configurations, link kind, the card's capabilities (FP8 tensor cores, generation, memory per
card), one card. When the filters leave no fitting row, the result names the
constraint that emptied it and the best (cheapest) fitting row ignoring that one constraint, so an
answer can say "nothing under $2,000 holds it; the cheapest that does is ...".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from tools.fit import ConfigurationFit
from tools.money import USD
from tools.specs import Architecture, LinkKind

#: Constraint names, in the order they are reported (the registry's argument names).
CONSTRAINT_ORDER = (
    "max_price_usd_month",
    "min_total_memory_gb",
    "exclude_cards",
    "exclude_configurations",
    "require_link",
    "require_fp8",
    "architectures",
    "exclude_architectures",
    "min_memory_per_card_gb",
    "one_card",
)


class Row(Protocol):
    """What the filters read of a row (a ConfigurationFit, or a bare configuration)."""

    @property
    def configuration(self) -> str: ...
    @property
    def gpu(self) -> str: ...
    @property
    def usd_per_month(self) -> Any: ...
    @property
    def total_memory_gb(self) -> float: ...
    @property
    def link_kind(self) -> str: ...
    @property
    def verdict(self) -> str: ...
    @property
    def fp8_native(self) -> bool: ...
    @property
    def architecture(self) -> str | None: ...
    @property
    def memory_gb_per_card(self) -> float: ...


@dataclass(frozen=True)
class ConfigurationRow:
    """A configuration as the filters see it, before any model is fitted to it."""

    configuration: str
    gpu: str
    usd_per_month: Any
    total_memory_gb: float
    link_kind: str
    verdict: str = ""
    fp8_native: bool = False
    architecture: str | None = None
    memory_gb_per_card: float = 0.0


class Constraints(BaseModel):
    """Filters on the rows; None / empty: no filter."""

    model_config = ConfigDict(extra="forbid")

    max_price_usd_month: USD | None = Field(default=None, ge=0, description="budget per month")
    min_total_memory_gb: float | None = Field(default=None, ge=0, description="node memory, GB")
    exclude_cards: list[str] = Field(default=[], description="card ids to leave out")
    exclude_configurations: list[str] = Field(default=[], description="configuration ids")
    require_link: LinkKind | None = Field(default=None, description="nvlink or pcie only")
    require_fp8: bool = Field(default=False, description="only cards with FP8 tensor cores")
    architectures: list[Architecture] = Field(
        default=[], description="only cards of these generations (empty: any)"
    )
    exclude_architectures: list[Architecture] = Field(
        default=[], description="card generations to leave out"
    )
    min_memory_per_card_gb: float | None = Field(
        default=None, ge=0, description="memory of each card, GB"
    )
    one_card: bool = Field(default=False, description="only rows where it fits on one card")

    def active(self) -> dict[str, Callable[[Row], bool]]:
        """The constraints that filter, by name, as row predicates (in report order)."""
        checks: dict[str, Callable[[Row], bool]] = {}
        if self.max_price_usd_month is not None:
            cap = Decimal(self.max_price_usd_month)
            checks["max_price_usd_month"] = lambda r: Decimal(r.usd_per_month) <= cap
        if self.min_total_memory_gb is not None:
            need = self.min_total_memory_gb
            checks["min_total_memory_gb"] = lambda r: r.total_memory_gb >= need
        if self.exclude_cards:
            cards = set(self.exclude_cards)
            checks["exclude_cards"] = lambda r: r.gpu not in cards
        if self.exclude_configurations:
            ids = set(self.exclude_configurations)
            checks["exclude_configurations"] = lambda r: r.configuration not in ids
        if self.require_link is not None:
            kind = self.require_link
            checks["require_link"] = lambda r: r.link_kind == kind
        checks.update(self._capabilities())
        if self.one_card:
            checks["one_card"] = lambda r: r.verdict == "fits_one_card"
        return checks

    def _capabilities(self) -> dict[str, Callable[[Row], bool]]:
        """The card-capability filters: FP8 tensor cores, generation, memory per card."""
        checks: dict[str, Callable[[Row], bool]] = {}
        if self.require_fp8:
            checks["require_fp8"] = lambda r: r.fp8_native
        if self.architectures:
            allowed = set(self.architectures)
            checks["architectures"] = lambda r: r.architecture in allowed
        if self.exclude_architectures:
            left_out = set(self.exclude_architectures)
            checks["exclude_architectures"] = lambda r: r.architecture not in left_out
        if self.min_memory_per_card_gb is not None:
            per_card = self.min_memory_per_card_gb
            checks["min_memory_per_card_gb"] = lambda r: r.memory_gb_per_card >= per_card
        return checks

    def failed(self, row: Row) -> list[str]:
        """The constraints a row does not meet (in report order; `one_card` not judged)."""
        return [n for n, ok in self.active().items() if n != "one_card" and not ok(row)]

    def value(self, name: str) -> str:
        """A constraint's value as text, for results."""
        v = getattr(self, name)
        if isinstance(v, list):
            return ", ".join(v)
        if isinstance(v, (float, Decimal)):
            return f"{v:f}".rstrip("0").rstrip(".") if "." in f"{v:f}" else f"{v:f}"
        return str(v)


class Relaxation(BaseModel):
    """The best fitting row when one constraint (or, if none alone helps, all) is dropped."""

    constraint: str = Field(description="the constraint dropped ('all': every filter)")
    value: str = Field(description="its value")
    row: ConfigurationFit = Field(description="the cheapest fitting row without it")


class Filtered(BaseModel):
    rows: list[ConfigurationFit] = Field(description="rows that pass every filter")
    fitting: int = Field(description="of those, rows where the model fits")
    fitting_unfiltered: int = Field(description="rows where it fits, ignoring the filters")
    applied: dict[str, str] = Field(description="the active filters and their values")
    emptied_by: list[str] = Field(
        default=[],
        description="constraints that each alone leave no fitting row (all of them when only "
        "dropping several helps); empty when something fits or nothing fits at all",
    )
    relaxations: list[Relaxation] = []


def configuration_rows(
    configurations: Iterable[Any], gpus: Mapping[str, Any], links: Mapping[str, Any]
) -> list[ConfigurationRow]:
    """Every configuration as the filters see it (card capabilities from the catalog)."""
    rows = []
    for cfg in configurations:
        gpu = gpus[cfg.gpu]
        rows.append(
            ConfigurationRow(
                configuration=cfg.id,
                gpu=cfg.gpu,
                usd_per_month=cfg.usd_per_month,
                total_memory_gb=gpu.memory_gb * cfg.count,
                link_kind=links[cfg.interconnect].kind,
                fp8_native=gpu.fp8_native,
                architecture=gpu.architecture,
                memory_gb_per_card=gpu.memory_gb,
            )
        )
    return rows


def configurations_within(
    configurations: Iterable[Any], gpus: Mapping[str, Any], links: Mapping[str, Any], c: Constraints
) -> list[str]:
    """The ids of the catalog configurations every filter keeps (the same predicates as the
    configurator's rows; `one_card` needs a model and is not applied here)."""
    return [
        r.configuration for r in configuration_rows(configurations, gpus, links) if not c.failed(r)
    ]


class Excluded(BaseModel):
    """The configuration one constraint alone leaves out: of those that meet every other
    constraint and cost less than the cheapest within all of them, the dearest (the runner-up
    it excluded)."""

    constraint: str = Field(description="the one constraint it does not meet")
    same_as: list[str] = Field(
        default=[],
        description="other constraints that leave out exactly the same cards "
        "('FP8 tensor cores' and 'no Ampere')",
    )
    configuration: str
    usd_per_month: USD


class Within(BaseModel):
    """The configurations within the constraints, cheapest first, and per constraint the
    cheaper configuration only it excludes (cheapest first)."""

    kept: list[str]
    excluded_by_one: list[Excluded]


def _groups(rows: list[ConfigurationRow], failed: dict[str, list[str]]) -> list[list[str]]:
    """Constraints that leave out exactly the same configurations, grouped (report order)."""
    names = list(dict.fromkeys(n for misses in failed.values() for n in misses))
    signature = {
        n: frozenset(r.configuration for r in rows if n in failed[r.configuration]) for n in names
    }
    groups: dict[frozenset[str], list[str]] = {}
    for n in names:
        groups.setdefault(signature[n], []).append(n)
    return list(groups.values())


def nodes_within(
    configurations: Iterable[Any], gpus: Mapping[str, Any], links: Mapping[str, Any], c: Constraints
) -> Within:
    """The configurations within the constraints (cheapest first) and, for each constraint, the
    runner-up it excluded: of the configurations that miss only it (or only constraints that
    leave out exactly the same cards) and cost less than the cheapest kept, the dearest; when
    nothing is kept, the cheapest that misses only it."""
    rows = sorted(
        configuration_rows(configurations, gpus, links),
        key=lambda r: (Decimal(r.usd_per_month), r.configuration),
    )
    failed = {r.configuration: c.failed(r) for r in rows}
    kept = [r for r in rows if not failed[r.configuration]]
    cap = Decimal(kept[0].usd_per_month) if kept else None
    by_one: dict[str, Excluded] = {}
    # the runner-up: the dearest one below the pick (closest to it); with no pick, the cheapest
    order = list(reversed(rows)) if cap is not None else rows
    for group in _groups(rows, failed):
        for r in order:
            misses = failed[r.configuration]
            if (
                misses
                and set(misses) <= set(group)
                and (cap is None or Decimal(r.usd_per_month) < cap)
            ):
                by_one[group[0]] = Excluded(
                    constraint=group[0],
                    same_as=group[1:],
                    configuration=r.configuration,
                    usd_per_month=r.usd_per_month,
                )
                break
    return Within(
        kept=[r.configuration for r in kept],
        excluded_by_one=sorted(by_one.values(), key=lambda e: Decimal(e.usd_per_month)),
    )


def _fits(r: ConfigurationFit) -> bool:
    return r.verdict != "does_not_fit"


def cheapest(rows: list[ConfigurationFit]) -> ConfigurationFit | None:
    """The cheapest row (ties: fewer cards, then id)."""
    if not rows:
        return None
    return min(rows, key=lambda r: (Decimal(r.usd_per_month), r.count, r.configuration))


def apply_constraints(rows: list[ConfigurationFit], constraints: Constraints) -> Filtered:
    """Filter rows; when no fitting row is left, say which constraint emptied it and the best
    fitting row ignoring that constraint."""
    checks = constraints.active()
    kept = [r for r in rows if all(ok(r) for ok in checks.values())]
    fitting_all = [r for r in rows if _fits(r)]
    fitting = [r for r in kept if _fits(r)]
    out = Filtered(
        rows=kept,
        fitting=len(fitting),
        fitting_unfiltered=len(fitting_all),
        applied={name: constraints.value(name) for name in checks},
    )
    if fitting or not checks or not fitting_all:
        return out
    for name in checks:
        others = [ok for other, ok in checks.items() if other != name]
        best = cheapest([r for r in fitting_all if all(ok(r) for ok in others)])
        if best is not None:
            out.emptied_by.append(name)
            out.relaxations.append(
                Relaxation(constraint=name, value=constraints.value(name), row=best)
            )
    if not out.emptied_by:
        best = cheapest(fitting_all)
        assert best is not None
        out.emptied_by = list(checks)
        out.relaxations.append(Relaxation(constraint="all", value="", row=best))
    return out
