"""Sizing commands over the catalog: fit, nodes, models, price. Importing this module registers
the whole "Sizing" panel: memory and capacity (memory_cmds), throughput (speed_cmds), allreduce
and topo (interconnect_cmds), advice (advice_cmds) follow at the end, in `sizing --help` order.
The shared plumbing is in common.py.

Heavy imports (pydantic models, rich, the catalog) happen inside the commands: cold start matters.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

import typer

from cli.app import app
from cli.common import (
    PLACEHOLDER_NOTE,
    ConcurrencyOpt,
    ContextOpt,
    JsonOpt,
    KvOpt,
    KvPrec,
    PrecisionOpt,
    RuntimeOpt,
    _catalog,
    _configs,
    _console,
    _emit,
    _fail,
    _gb,
    _id_column,
    _link_short,
    _model,
    _precision,
    _runtime,
    _usd,
)

if TYPE_CHECKING:
    from rich.console import JustifyMethod

    from knowledge.catalog import Catalog


class SortBy(StrEnum):
    catalog = "catalog"
    price = "price"
    memory = "memory"
    headroom = "headroom"


VERDICT_STYLE = {"fits_one_card": "green", "split": "yellow", "does_not_fit": "red"}


# ---------------------------------------------------------------- fit


@app.command("fit", rich_help_panel="Sizing")
def fit_cmd(
    model: Annotated[str, typer.Argument(help="model name, HF id, ollama tag or '34B'")],
    precision: PrecisionOpt = None,
    context: ContextOpt = 8192,
    concurrency: ConcurrencyOpt = 1,
    kv_precision: KvOpt = KvPrec.bf16,
    sort: Annotated[SortBy, typer.Option("--sort", help="row order")] = SortBy.catalog,
    runtime: RuntimeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """The configurator: does MODEL fit each of the catalog's configurations, and at what price."""
    cat = _catalog(as_json)
    m = _model(cat, model, as_json)
    prec = _precision(precision, as_json)
    from tools.fit import Requirement, fit_configurations

    try:
        req = Requirement(
            model=m,
            precision=prec,
            context_tokens=context,
            concurrency=concurrency,
            kv_precision=kv_precision.value,
            runtime=_runtime(runtime),
        )
        res = fit_configurations(req, list(cat.configurations.values()), cat.gpus, sort=sort.value)
    except ValueError as exc:
        _fail(str(exc).splitlines()[0], as_json)
    if as_json:
        data = res.model_dump(mode="json")
        data["inputs"]["model"] = {"id": m.id, "name": m.name, "kind": m.kind}
        data["counts"] = res.counts()
        _emit(data)
        return
    from rich.table import Table

    llm = m.kind == "llm"
    from rich.markup import escape

    title = f"{escape(m.name)} in {res.precision}"  # "FLUX.1 [dev]" is no markup
    if llm:
        title += f", {context:,} tokens x {concurrency}"
    table = Table(title=title, title_justify="left")
    _id_column(table, [r.configuration for r in res.rows], "Configuration")
    table.add_column("Verdict", overflow="fold")
    table.add_column("GB need/use" if llm else "GB need", justify="right", no_wrap=True)
    table.add_column("Spare GB", justify="right", no_wrap=True)
    table.add_column("Link", no_wrap=True)
    table.add_column("USD/mo", justify="right", no_wrap=True)
    for r in res.rows:
        style = VERDICT_STYLE[r.verdict]
        short = {"fits_one_card": "1 card", "split": f"split x{r.cards_needed}"}.get(
            r.verdict, "no fit"
        ) + (" tight" if r.room == "tight" else "")
        table.add_row(
            r.configuration,
            f"[{style}]{short}[/]",
            f"{_gb(r.required_gb_per_card)}/{_gb(r.usable_gb_per_card)}",
            _gb(r.headroom_total_gb),
            _link_short(cat, r.configuration),
            _usd(r.usd_per_month, r.price_source == "placeholder"),
        )
    con = _console()
    con.print(table)
    counts = res.counts()
    if llm:
        con.print(
            f"weights {_gb(res.weights_gb)} GB; KV {res.kv_bytes_per_token:,.0f} B/token; "
            f"{res.runtime}: {_usable_rule(res.constants)}"
        )
        con.print(
            "GB need/use: per card, at the split shown (no fit: at the whole node); "
            "Spare GB: over the cards used"
        )
    else:
        con.print(f"published VRAM need {_gb(res.weights_gb)} GB ({res.precision}); not split")
        if concurrency > 1:  # the need is one copy's: several at once are several cards
            con.print(
                f"-n {concurrency}: each card runs one copy and renders its own images, so "
                f"{concurrency} at once need {concurrency} cards (gpu-for-flux-sdxl#many-cards); "
                "the need per card does not change"
            )
    con.print(
        f"{counts['fits_one_card']} fit on one card, {counts['split']} must be split, "
        f"{counts['does_not_fit']} do not fit"
    )
    for note in res.notes:
        con.print(f"note: {note}")
    # a row's own notes (FP8 weight-only on Ampere, …), once each with the rows they apply to
    row_notes: dict[str, list[str]] = {}
    for r in res.rows:
        for note in getattr(r, "notes", None) or []:
            row_notes.setdefault(note, []).append(r.configuration)
    for note, ids in row_notes.items():
        con.print(f"note ({', '.join(ids)}): {note}")
    if any(r.room == "tight" for r in res.rows):
        con.print("tight: fits with no room to spare (a second request, a longer prompt)")
    con.print(PLACEHOLDER_NOTE)


def _usable_rule(constants: dict[str, float]) -> str:
    """The memory rule a fit used, in words (tools.memory.MemoryModel)."""
    reserve = constants.get("reserve_gb_per_card")
    over = constants.get("overhead_gb_per_card", 0.0)
    if reserve is not None:
        return f"usable = card - {reserve:.2f} GB reserve; overhead {over:.1f} GB per card"
    util = constants.get("gpu_memory_utilization", 1.0)
    return f"usable share {util:g} of each card; overhead {over:.1f} GB per card"


# ---------------------------------------------------------------- nodes / models


def node_rows(cat: Catalog) -> list[dict[str, Any]]:
    """One plain dict per configuration (the `sizing nodes --json` shape)."""
    rows = []
    for c in cat.configurations.values():
        g = cat.gpus[c.gpu]
        eff = cat.effective_link(c)
        rows.append(
            {
                "id": c.id,
                "label": c.label,
                "gpu": g.id,
                "gpu_name": g.name,
                "count": c.count,
                "memory_gb_per_card": g.memory_gb,
                "total_memory_gb": g.memory_gb * c.count,
                "memory_bandwidth_gb_s": g.memory_bandwidth_gb_s,
                "interconnect": c.interconnect,
                "effective_interconnect": eff.id,
                "interconnect_gb_s": eff.bandwidth_gb_s,
                "usd_per_month": c.usd_per_month,
                "price_source": c.price_source,
                "url": c.url,
                "url_en": c.url_en,
            }
        )
    return rows


@app.command("nodes", rich_help_panel="Sizing")
def nodes_cmd(as_json: JsonOpt = False) -> None:
    """The rentable catalog: every configuration with its cards, memory, link and price."""
    cat = _catalog(as_json)
    rows = node_rows(cat)
    if as_json:
        _emit(rows)
        return
    from rich.table import Table

    table = Table(title=f"{len(rows)} configurations", title_justify="left")
    _id_column(table, [r["id"] for r in rows])
    columns: tuple[tuple[str, JustifyMethod], ...] = (
        ("Cards", "left"),
        ("GB total", "right"),
        ("Link", "left"),
        ("USD/month", "right"),
    )
    for col, just in columns:
        table.add_column(col, justify=just)
    for r in rows:
        link = cat.links[r["interconnect"]].name.replace(" ×16", "")
        if r["effective_interconnect"] != r["interconnect"]:
            link += f" (card runs {_link_short(cat, r['id']).replace('PCIe ', '')})"
        table.add_row(
            r["id"],
            f"{r['count']} x {r['gpu_name']}",
            f"{r['total_memory_gb']:g}",
            link,
            _usd(r["usd_per_month"], r["price_source"] == "placeholder"),
        )
    con = _console()
    con.print(table)
    con.print(PLACEHOLDER_NOTE)


@app.command("models", rich_help_panel="Sizing")
def models_cmd(as_json: JsonOpt = False) -> None:
    """The models the sizing tools know (any other model: give its size, e.g. '34B')."""
    cat = _catalog(as_json)
    if as_json:
        _emit([m.model_dump(mode="json") for m in cat.models.values()])
        return
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=f"{len(cat.models)} models", title_justify="left")
    _id_column(table, list(cat.models))
    for col in ("Name", "Kind", "Params (B)", "Native"):
        table.add_column(col)
    con = _console()
    aliases = con.width >= 120  # long HF ids: dropped on a narrow terminal (`--json` has them)
    if aliases:
        table.add_column("Aliases", overflow="fold")
    for m in cat.models.values():
        params = f"{m.params_b:g}" + (f" / {m.active_params_b:g} active" if m.is_moe else "")
        row = [m.id, escape(m.name), m.kind, params, m.native_precision]
        table.add_row(*row, *([", ".join(m.aliases[:3])] if aliases else []))
    con.print(table)


# ---------------------------------------------------------------- price


@app.command("price", rich_help_panel="Sizing")
def price_cmd(
    ids: Annotated[
        list[str],
        typer.Argument(help="configuration ids or names ('4x-a100' lists both variants)"),
    ],
    as_json: JsonOpt = False,
) -> None:
    """Exact monthly price of a configuration; with several, a comparison. A name that fits
    several nodes ('4x-a100', 'H100') prices every one of them."""
    cat = _catalog(as_json)
    from tools.prices import compare, quote

    configs = {c.id: c for i in ids for c in _configs(cat, i, as_json)}  # in order, no repeats
    quotes = [quote(c, cat.gpus[c.gpu]) for c in configs.values()]
    comparison = compare(quotes) if len(quotes) > 1 else None
    if as_json:
        data: dict[str, Any] = {"quotes": [q.model_dump(mode="json") for q in quotes]}
        if comparison is not None:
            data["comparison"] = comparison.model_dump(mode="json", exclude={"quotes"})
        _emit(data)
        return
    from rich.table import Table

    table = Table(title_justify="left")
    _id_column(table, [q.configuration for q in quotes], "Configuration")
    for col in ("Memory", "Link", "USD/month", "USD/card", "Source"):
        table.add_column(col, justify="right" if col.startswith("USD") else "left")
    for q in quotes:
        table.add_row(
            q.configuration,
            f"{q.total_memory_gb:g} GB",
            _link_short(cat, q.configuration),
            _usd(q.usd_per_month),
            _usd(q.usd_per_card_month),
            q.price_source,
        )
    con = _console()
    con.print(table)
    for q in quotes:
        con.print(f"{q.label}: {q.url_en}")  # the output is English
    if comparison is not None:
        for d in comparison.differences[1:]:
            con.print(
                f"{d.configuration} costs {_usd(d.more_than_cheapest_usd)} "
                f"({d.more_than_cheapest_percent:.1f}%) more per month than {comparison.cheapest}"
            )
    if any(q.placeholder for q in quotes):
        con.print(PLACEHOLDER_NOTE)


# ---------------------------------------------------------------- the rest of the panel

# Registered after `price` so that `sizing --help` lists the panel in its order; the names are
# re-exported for code that imported them from here.
# isort: off
from cli.memory_cmds import capacity_cmd, memory_cmd  # noqa: E402, F401
from cli.speed_cmds import throughput_cmd  # noqa: E402, F401
from cli.interconnect_cmds import allreduce_cmd, topo_cmd  # noqa: E402, F401
from cli.advice_cmds import advice_cmd  # noqa: E402, F401

# isort: on
