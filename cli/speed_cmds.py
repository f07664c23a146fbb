"""Sizing command on speed: throughput (single-stream decode tokens/s and price per million
tokens). Registered through catalog_cmds, which keeps the panel's order.
"""

from __future__ import annotations

from typing import Annotated

import typer

from cli.app import app
from cli.common import (
    ConcurrencyOpt,
    JsonOpt,
    PrecisionOpt,
    RuntimeOpt,
    _catalog,
    _config,
    _console,
    _emit,
    _fail,
    _model,
    _precision,
    _runtime,
    _strip_model,
    _usd,
)

# ---------------------------------------------------------------- throughput


@app.command("throughput", rich_help_panel="Sizing")
def throughput_cmd(
    model: Annotated[str, typer.Argument(help="model name")],
    config: Annotated[str, typer.Argument(help="configuration id, e.g. 4x-a100-sxm4")],
    precision: PrecisionOpt = None,
    context: Annotated[
        int,
        typer.Option(
            "--context",
            "-c",
            min=0,
            help="context read with every token (default 0: the weights only, as the guide's "
            "speed figures; the fit check behind it still holds 8,192 tokens)",
        ),
    ] = 0,
    cards: Annotated[
        int | None, typer.Option("--cards", min=1, help="cards used (default: as many as needed)")
    ] = None,
    concurrency: ConcurrencyOpt = 1,
    runtime: RuntimeOpt = None,
    output_tokens: Annotated[
        int | None,
        typer.Option(
            "--output-tokens",
            min=1,
            help="tokens a batch writes in total (200 texts x 500 tokens = 100000): how long one "
            "stream takes and what that time of the node costs",
        ),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Single-stream decode tokens/s of MODEL on CONFIG (bandwidth bound, conservative floor).
    Exit 1 when the job does not fit (fit's verdict at the context, or 8,192 tokens if 0)."""
    cat = _catalog(as_json)
    m = _model(cat, model, as_json)
    c = _config(cat, config, as_json)
    prec = _precision(precision, as_json)
    if m.kind != "llm":
        _fail(f"{m.name} is an {m.kind} model; throughput applies to language models", as_json)
    from tools.fit import Requirement, fit_configuration
    from tools.throughput import DecodeInput, decode_throughput

    gpu = cat.gpus[c.gpu]
    req = Requirement(
        model=m,
        precision=prec,
        context_tokens=context or Requirement.model_fields["context_tokens"].default,
        concurrency=concurrency,
        runtime=_runtime(runtime),
    )
    fit = fit_configuration(req, c, gpu)
    used = cards or fit.cards_needed or c.count
    if used > c.count:
        _fail(f"{c.id} has only {c.count} cards", as_json)
    r = decode_throughput(
        DecodeInput(
            model=m,
            gpu=gpu,
            cards=used,
            precision=prec,
            context_tokens=context,
            usd_per_month=c.usd_per_month,
            concurrency=concurrency,
            fit_context_tokens=req.context_tokens,
            node_cards=c.count,
            runtime=req.runtime,
            output_tokens=output_tokens,
        )
    )
    if as_json:
        data = r.model_dump(mode="json")
        _strip_model(data)
        data.update(
            configuration=c.id, fit_verdict=fit.verdict, cards=used, price_source=c.price_source
        )
        _emit(data)
        if not r.fits:
            raise typer.Exit(1)
        return
    con = _console()
    from rich.markup import escape

    con.print(f"[bold]{escape(m.name)}[/] ({r.precision}) on {c.label}, {used} card(s) used")
    if not r.fits:
        con.print(
            f"[red]does not fit:[/] {r.required_gb_per_card:.1f} GB per card needed at "
            f"{req.context_tokens:,} tokens x {concurrency}, {r.usable_gb_per_card:.1f} GB "
            f"usable on {used} card(s) (sizing fit); no speed or cost for a job that cannot run"
        )
        raise typer.Exit(1)
    con.print(
        f"{used} x {r.bandwidth_gb_s_per_card:,.0f} GB/s x {r.constants['efficiency']:.3f} / "
        f"{r.bytes_read_per_token_gb:,.1f} GB per token = [bold]~{r.tokens_per_s:.0f} tokens/s[/]"
    )
    if r.usd_per_million_tokens is not None:
        con.print(
            f"{_usd(c.usd_per_month, c.placeholder)}/month -> "
            f"{_usd(r.usd_per_million_tokens)} per million output tokens (single stream)"
        )
    if r.output_seconds is not None:
        cost = f", {_usd(r.usd_for_output)} of node time" if r.usd_for_output is not None else ""
        con.print(
            f"{output_tokens:,} tokens: {r.output_seconds:,.0f} s = {r.output_seconds / 3600:,.2f} "
            f"h (one stream){cost}"
        )
    for note in r.notes:
        con.print(f"note: {note}")
