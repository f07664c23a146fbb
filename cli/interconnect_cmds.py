"""Sizing commands on the interconnect: allreduce (gradient all-reduce per link, or check an
nccl-tests result) and topo (check `nvidia-smi topo -m`). Registered through catalog_cmds, which
keeps the panel's order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from cli.app import app
from cli.common import (
    JsonOpt,
    _catalog,
    _config,
    _console,
    _emit,
    _fail,
    _model,
    _read_text,
)

if TYPE_CHECKING:
    from knowledge.catalog import Catalog


# ---------------------------------------------------------------- allreduce


@app.command("allreduce", rich_help_panel="Sizing")
def allreduce_cmd(
    model: Annotated[str, typer.Argument(help="model name or parameter count (e.g. 70B)")] = "70B",
    cards: Annotated[int, typer.Option("--cards", min=2, max=8, help="cards in the ring")] = 4,
    bytes_per_param: Annotated[
        float, typer.Option("--bytes-per-param", min=0.5, help="gradient width (BF16 = 2)")
    ] = 2.0,
    check: Annotated[
        str | None,
        typer.Option("--check", help="all_reduce_perf output to check (file or - for stdin)"),
    ] = None,
    config: Annotated[
        str | None, typer.Option("--config", help="configuration the --check output is from")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Gradient all-reduce time per training step over every link, or check an nccl-tests result.

    A 70B model in BF16 moves 140 GB per step: about 2.2 s over PCIe Gen5 (64 GB/s) and 0.31 s
    over NVLink 4 (450 GB/s per direction; the guide's 0.16 s divides by 900 GB/s, both
    directions). With --check FILE --config ID, compares the busbw of an all_reduce_perf run with
    the node's per-direction rate; exit 1 on a defect.
    """
    cat = _catalog(as_json)
    if check is not None:
        _allreduce_check(cat, check, config, as_json)
        return
    m = _model(cat, model, as_json)
    from tools.interconnect import GradientAllReduceInput, LinkRatioInput, gradient_allreduce
    from tools.interconnect import link_ratio as ratio_fn

    results = [
        gradient_allreduce(
            GradientAllReduceInput(
                params_b=m.params_b, bytes_per_param=bytes_per_param, link=link, cards=cards
            )
        )
        for link in cat.links.values()
    ]
    ratio = guide_ratio = None
    if "nvlink-4" in cat.links and "pcie-gen5-x16" in cat.links:
        lr = ratio_fn(LinkRatioInput(fast=cat.links["nvlink-4"], slow=cat.links["pcie-gen5-x16"]))
        ratio, guide_ratio = lr.per_direction_ratio, lr.ratio
    if as_json:
        rows = []
        for r in results:
            d = r.model_dump(mode="json")
            d["link"] = r.inputs.link.id
            del d["inputs"]
            rows.append(d)
        _emit(
            {
                "model": m.id,
                "params_b": m.params_b,
                "bytes_per_param": bytes_per_param,
                "cards": cards,
                "links": rows,
                "ratio_nvlink4_to_pcie_gen5": ratio,
                "guide_ratio_nvlink4_to_pcie_gen5": guide_ratio,
            }
        )
        return
    from rich.markup import escape
    from rich.table import Table

    size = results[0].size_gb
    table = Table(
        title=f"{escape(m.name)}: {size:,.0f} GB of gradients per step, {cards} cards",
        title_justify="left",
    )
    cols = (
        "Link",
        "GB/s per direction",
        "size / bandwidth (s)",
        f"ring 2(n-1)/n (s), n={cards}",
        "guide (GB/s, s)",
    )
    for col in cols:
        table.add_column(col, justify="left" if col == "Link" else "right")
    for r in results:
        guide = (
            f"{r.guide_bandwidth_gb_s:,.0f}, {r.guide_seconds:.2g}"
            if r.guide_bandwidth_gb_s != r.bandwidth_gb_s
            else "same"
        )
        table.add_row(
            r.inputs.link.name,
            f"{r.bandwidth_gb_s:,.0f}",
            f"{r.seconds:.3g}",
            f"{r.ring_seconds:.3g}",
            guide,
        )
    con = _console()
    con.print(table)
    if ratio is not None and guide_ratio is not None:
        con.print(
            f"NVLink 4 : PCIe Gen5 = {ratio:.1f}x per direction "
            f"(the guide's {guide_ratio:.1f}x sets NVLink's both directions against PCIe's one)"
        )
    for note in results[0].notes[:2]:
        con.print(f"note: {note}")
    con.print(
        "note: all-reduce times use each link's rate in one direction, the rate `allreduce "
        "--check` compares busbw with; the guide's NVLink figures add both directions."
    )


def _allreduce_check(cat: Catalog, source: str, config: str | None, as_json: bool) -> None:
    if config is None:
        _fail("--check needs --config (the configuration the output comes from)", as_json)
    c = _config(cat, config, as_json)
    text = _read_text(source, as_json)
    from tools.diagnostics import AllReduceInput, AllReduceParseError, check_all_reduce

    try:
        r = check_all_reduce(AllReduceInput(text=text, link=cat.effective_link(c)))
    except AllReduceParseError as exc:
        _fail(str(exc), as_json)
    if as_json:
        data = r.model_dump(mode="json")
        data["inputs"] = {"configuration": c.id, "link": r.inputs.link.id}
        _emit(data)
    else:
        con = _console()
        style = {"ok": "green", "warning": "yellow", "defect": "red"}[r.status]
        con.print(
            f"peak busbw {r.peak_busbw_gb_s:,.1f} GB/s at {r.peak_size_bytes:,} B "
            f"(rated {r.rated_gb_s:,.0f} GB/s per direction on {r.inputs.link.name}; "
            f"guide figure {r.guide_gb_s:,.0f} GB/s)"
        )
        con.print(f"[{style}]{r.status}[/]: {r.message}")
    if r.status == "defect":
        raise typer.Exit(1)  # as `topo`: a defect is a non-zero exit


# ---------------------------------------------------------------- topo


@app.command("topo", rich_help_panel="Sizing")
def topo_cmd(
    source: Annotated[str, typer.Argument(help="file with `nvidia-smi topo -m` output, or -")],
    config: Annotated[
        str | None, typer.Option("--config", help="the rented configuration (expected topology)")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Check pasted `nvidia-smi topo -m` output: a verdict per card pair against the node.
    Exit 1 when the node has a defect, 2 on bad input."""
    cat = _catalog(as_json)
    c = _config(cat, config, as_json) if config else None
    text = _read_text(source, as_json)
    from tools.diagnostics import TopoInput, TopoParseError, check_topology, parse_topo_matrix

    try:
        if c is not None:
            kind = "sxm" if cat.links[c.interconnect].kind == "nvlink" else "pcie"
            expected = cat.expected_topo_label(c)  # the board's label: NV4 on a 4-GPU HGX A100
            accepted = cat.accepted_topo_labels(c)  # NV12: 4 cards of an 8-GPU NVSwitch board
            count: int | None = c.count
        else:  # infer from the matrix: any NVLink pair means an SXM node
            _, cells = parse_topo_matrix(text)
            nv = [v for (a, b), v in cells.items() if a != b and v.startswith("NV")]
            kind = "sxm" if nv else "pcie"
            expected = max(nv, key=lambda v: int(v[2:])) if nv else None
            accepted, count = [], None
        r = check_topology(
            TopoInput(
                text=text,
                node_kind=kind,
                expected_label=expected,
                accepted_labels=accepted,
                expected_cards=count,
            )
        )
    except TopoParseError as exc:
        _fail(str(exc), as_json)
    if as_json:
        data = r.model_dump(mode="json")
        data["inputs"] = {
            "configuration": c.id if c else None,
            "board": c.board if c else None,
            "node_kind": kind,
            "expected_label": expected,
            "accepted_labels": accepted,
            "healthy_labels": [x for x in (expected, *accepted) if x],
            "expected_cards": count,
        }
        _emit(data)
    else:
        _print_topo(r)
    if r.status == "defect":
        raise typer.Exit(1)


def _print_topo(r: Any) -> None:
    from rich.table import Table

    table = Table(title=r.summary, title_justify="left")
    for col in ("Pair", "Shows", "Meaning", "Verdict"):
        table.add_column(col)
    style = {"ok": "green", "warning": "yellow", "defect": "red"}
    for p in r.pairs:
        table.add_row(
            f"{p.a}-{p.b}", p.label, p.meaning, f"[{style[p.status]}]{p.status}[/]: {p.message}"
        )
    con = _console()
    con.print(table)
    for problem in r.problems:
        if not problem.startswith("GPU"):  # pair problems are in the table already
            con.print(f"[red]{problem}[/]")
    con.print(f"[{style[r.status]}]overall: {r.status}[/]")
