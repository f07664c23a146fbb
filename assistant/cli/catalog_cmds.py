"""Sizing commands over the catalog: fit, nodes, models, price, memory, capacity, throughput,
allreduce, topo, advice. Every command has --json; errors print one clear line and exit 2.

Heavy imports (pydantic models, rich, the catalog) happen inside the commands: cold start matters.
"""

from __future__ import annotations

import json
import sys
from decimal import Decimal
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from assistant.cli.app import app

if TYPE_CHECKING:
    from rich.console import JustifyMethod

    from knowledge.catalog import Catalog


class SortBy(StrEnum):
    catalog = "catalog"
    price = "price"
    memory = "memory"
    headroom = "headroom"


class KvPrec(StrEnum):
    bf16 = "bf16"
    fp16 = "fp16"
    fp8 = "fp8"
    int8 = "int8"
    fp32 = "fp32"


class Adapter(StrEnum):
    lora = "lora"
    qlora = "qlora"


JsonOpt = Annotated[bool, typer.Option("--json", help="print JSON instead of a table")]
PrecisionOpt = Annotated[
    str | None,
    typer.Option(
        "--precision",
        "-p",
        help="fp32, bf16, fp16, fp8, int8, awq, gptq, gguf-q4_k_m, gguf-q5_k_m, gguf-q8_0 "
        "(default: the model's native precision)",
    ),
]
ContextOpt = Annotated[
    int, typer.Option("--context", "-c", min=0, help="tokens per sequence (KV cache)")
]
ConcurrencyOpt = Annotated[
    int, typer.Option("--concurrency", "-n", min=1, help="sequences served at the same time")
]
KvOpt = Annotated[KvPrec, typer.Option("--kv-precision", help="KV-cache precision")]


# ---------------------------------------------------------------- plumbing


def _fail(message: str, as_json: bool, closest: list[str] | None = None) -> NoReturn:
    if as_json:
        payload: dict[str, Any] = {"error": message}
        if closest is not None:
            payload["closest"] = closest
        typer.echo(json.dumps(payload, ensure_ascii=False))
    else:
        from rich.console import Console

        Console(stderr=True, highlight=False).print(f"[bold red]error:[/] {message}", markup=True)
    raise typer.Exit(2)


def _catalog(as_json: bool) -> Catalog:
    from assistant.settings import Settings
    from knowledge.catalog import CatalogError, load_catalog

    try:
        return load_catalog(Settings().catalog)
    except CatalogError as exc:
        _fail(str(exc), as_json)
    except Exception as exc:  # settings errors (bad SIZING_* value) end the same way
        _fail(f"cannot load settings or catalog: {exc}".splitlines()[0], as_json)


def _model(cat: Catalog, text: str, as_json: bool) -> Any:
    from knowledge.catalog import UnknownName

    try:
        return cat.find_model(text)
    except UnknownName as exc:
        _fail(f"{exc} See `sizing models`.", as_json, exc.closest)


def _config(cat: Catalog, text: str, as_json: bool) -> Any:
    from knowledge.catalog import UnknownName

    try:
        return cat.find_configuration(text)
    except UnknownName as exc:
        _fail(f"{exc} See `sizing nodes`.", as_json, exc.closest)


def _precision(text: str | None, as_json: bool) -> str | None:
    if text is None:
        return None
    from tools.memory import normalize_precision

    try:
        return normalize_precision(text)
    except ValueError as exc:
        _fail(str(exc), as_json)


def _emit(data: Any) -> None:
    typer.echo(json.dumps(data, ensure_ascii=False, indent=2, default=_json_default))


def _json_default(value: Any) -> Any:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def _console() -> Any:
    from rich.console import Console

    return Console(highlight=False)


def _usd(value: Any, placeholder: bool = False) -> str:
    d = Decimal(str(value))
    text = f"${d:,.0f}" if d == d.to_integral_value() else f"${d:,.2f}"
    return text + ("*" if placeholder else "")


def _gb(value: float) -> str:
    return f"{value:,.1f}"


def _link_short(cat: Catalog, config_id: str) -> str:
    """'NVLink 3', 'PCIe Gen4' (the rate the cards run at)."""
    return cat.effective_link(config_id).name.replace(" ×16", "")


def _read_text(source: str, as_json: bool) -> str:
    if source == "-":
        return sys.stdin.read()
    try:
        return Path(source).read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        _fail(f"cannot read {source}: {exc.strerror or exc}", as_json)


PLACEHOLDER_NOTE = "* placeholder price (only 4x-a100-pcie and 4x-a100-sxm4 are published)"
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
    title = f"{m.name} in {res.precision}"
    if llm:
        title += f", {context:,} tokens x {concurrency}"
    table = Table(title=title, title_justify="left")
    table.add_column("Configuration", no_wrap=True)
    table.add_column("Verdict", no_wrap=True)
    table.add_column("GB need/use" if llm else "GB need", justify="right", no_wrap=True)
    table.add_column("Spare GB", justify="right", no_wrap=True)
    table.add_column("Link", no_wrap=True)
    table.add_column("USD/mo", justify="right", no_wrap=True)
    for r in res.rows:
        style = VERDICT_STYLE[r.verdict]
        short = {"fits_one_card": "1 card", "split": f"split x{r.cards_needed}"}.get(
            r.verdict, "no fit"
        )
        table.add_row(
            r.configuration,
            f"[{style}]{short}[/]",
            f"{_gb(r.required_gb_per_card)}/{_gb(r.usable_gb_per_card)}",
            _gb(r.headroom_gb),
            _link_short(cat, r.configuration),
            _usd(r.usd_per_month, r.price_source == "placeholder"),
        )
    con = _console()
    con.print(table)
    counts = res.counts()
    if llm:
        con.print(
            f"weights {_gb(res.weights_gb)} GB; KV {res.kv_bytes_per_token:,.0f} B/token; "
            f"usable share {req.gpu_memory_utilization:g} of each card"
        )
        con.print(
            "GB need/use: per card, at the split shown (no fit: at the whole node); "
            "Spare GB: over the cards used"
        )
    else:
        con.print(f"published VRAM need {_gb(res.weights_gb)} GB ({res.precision}); not split")
    con.print(
        f"{counts['fits_one_card']} fit on one card, {counts['split']} must be split, "
        f"{counts['does_not_fit']} do not fit"
    )
    for note in res.notes:
        con.print(f"note: {note}")
    con.print(PLACEHOLDER_NOTE)


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
    columns: tuple[tuple[str, JustifyMethod], ...] = (
        ("id", "left"),
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
    from rich.table import Table

    table = Table(title=f"{len(cat.models)} models", title_justify="left")
    for col in ("id", "Name", "Kind", "Params (B)", "Native", "Aliases"):
        table.add_column(col)
    for m in cat.models.values():
        params = f"{m.params_b:g}" + (f" / {m.active_params_b:g} active" if m.is_moe else "")
        table.add_row(m.id, m.name, m.kind, params, m.native_precision, ", ".join(m.aliases[:3]))
    _console().print(table)


# ---------------------------------------------------------------- price


@app.command("price", rich_help_panel="Sizing")
def price_cmd(
    ids: Annotated[list[str], typer.Argument(help="one or more configuration ids or names")],
    as_json: JsonOpt = False,
) -> None:
    """Exact monthly price of a configuration; with several, a comparison."""
    cat = _catalog(as_json)
    from tools.prices import compare, quote

    quotes = [quote(c, cat.gpus[c.gpu]) for c in (_config(cat, i, as_json) for i in ids)]
    comparison = compare(quotes) if len(quotes) > 1 else None
    if as_json:
        data: dict[str, Any] = {"quotes": [q.model_dump(mode="json") for q in quotes]}
        if comparison is not None:
            data["comparison"] = comparison.model_dump(mode="json", exclude={"quotes"})
        _emit(data)
        return
    from rich.table import Table

    table = Table(title_justify="left")
    for col in ("Configuration", "Memory", "Link", "USD/month", "USD/card", "Source"):
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
        con.print(f"{q.label}: {q.url}")
    if comparison is not None:
        for d in comparison.differences[1:]:
            con.print(
                f"{d.configuration} costs {_usd(d.more_than_cheapest_usd)} "
                f"({d.more_than_cheapest_percent:.1f}%) more per month than {comparison.cheapest}"
            )
    if any(q.placeholder for q in quotes):
        con.print(PLACEHOLDER_NOTE)


# ---------------------------------------------------------------- memory / capacity


@app.command("memory", rich_help_panel="Sizing")
def memory_cmd(
    model: Annotated[str, typer.Argument(help="model name, HF id, ollama tag or '34B'")],
    precision: PrecisionOpt = None,
    context: ContextOpt = 8192,
    concurrency: ConcurrencyOpt = 1,
    kv_precision: KvOpt = KvPrec.bf16,
    tensor_parallel: Annotated[int, typer.Option("--tp", min=1, help="cards to split over")] = 1,
    training: Annotated[bool, typer.Option("--training", help="full fine-tuning memory")] = False,
    adapter: Annotated[
        Adapter | None,
        typer.Option("--adapter", help="LoRA / QLoRA fine-tuning memory (frozen base + adapters)"),
    ] = None,
    rank: Annotated[int, typer.Option("--rank", min=1, max=4096, help="LoRA rank")] = 16,
    attention_only: Annotated[
        bool, typer.Option("--attention-only", help="adapters on q, k, v, o only (not the MLP)")
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Memory MODEL needs: weights by precision, KV cache, overhead (or training state).

    --training: full fine-tuning (mixed precision + Adam); --adapter lora|qlora: LoRA or QLoRA."""
    cat = _catalog(as_json)
    m = _model(cat, model, as_json)
    prec = _precision(precision, as_json)
    from tools.memory import (
        AdapterTrainingInput,
        PublishedVramInput,
        ServingInput,
        TrainingInput,
        adapter_training_memory,
        published_vram,
        serving_memory,
        training_memory,
    )

    result: Any
    try:
        if m.kind != "llm":
            result = published_vram(PublishedVramInput(model=m, precision=prec))
        elif adapter is not None:
            result = adapter_training_memory(
                AdapterTrainingInput(
                    model=m,
                    method=adapter.value,
                    rank=rank,
                    targets="attention" if attention_only else "all_linear",
                )
            )
        elif training:
            result = training_memory(TrainingInput(model=m))
        else:
            result = serving_memory(
                ServingInput(
                    model=m,
                    precision=prec,
                    context_tokens=context,
                    concurrency=concurrency,
                    kv_precision=kv_precision.value,
                    tensor_parallel=tensor_parallel,
                )
            )
    except ValueError as exc:
        _fail(str(exc).splitlines()[0], as_json)
    if as_json:
        data = result.model_dump(mode="json")
        _strip_model(data)
        _emit(data)
        return
    con = _console()
    con.print(f"[bold]{m.name}[/]")
    if m.kind != "llm":
        low = f" ({result.vram_gb_low:g}-{result.vram_gb:g})" if result.vram_gb_low else ""
        con.print(f"published VRAM need in {result.precision}: {result.vram_gb:g} GB{low}")
    elif adapter is not None:
        con.print(
            f"{result.method} fine-tuning, rank {result.rank}, {result.targets}: base weights "
            f"({result.base_precision}, {result.base_bits_per_param:.4g} bits) "
            f"{_gb(result.base_weights_gb)} GB + adapter state {_gb(result.adapter_state_gb)} GB "
            f"({result.adapter_params:,} params x {result.adapter_bytes_per_param:g} B) = "
            f"{_gb(result.total_gb)} GB before activations"
        )
    elif training:
        con.print(
            f"full fine-tuning, mixed precision + Adam: {result.bytes_per_param:g} B/param = "
            f"{_gb(result.total_gb)} GB before activations (weights {_gb(result.weights_gb)}, "
            f"gradients {_gb(result.gradients_gb)}, master {_gb(result.master_weights_gb)}, "
            f"Adam {_gb(result.optimizer_gb)})"
        )
    else:
        w, kv = result.weights, result.kv
        con.print(f"weights ({w.precision}, {w.bits_per_weight:.3g} bits): {_gb(w.weights_gb)} GB")
        con.print(
            f"KV cache: {kv.kv_bytes_per_token:,.0f} B/token x {kv.tokens:,} tokens = "
            f"{_gb(kv.kv_gb_total)} GB"
        )
        con.print(
            f"per card at tp={tensor_parallel}: weights {_gb(result.weights_gb_per_card)} + KV "
            f"{_gb(result.kv_gb_per_card)} + overhead {_gb(result.overhead_gb_per_card)} = "
            f"{_gb(result.required_gb_per_card)} GB"
        )
    con.print(f"formula: {result.formula}")
    for note in result.notes:
        con.print(f"note: {note}")


def _strip_model(data: dict[str, Any]) -> None:
    """Replace embedded full model specs by their id in a dumped result (shorter JSON)."""
    for value in data.values():
        if isinstance(value, dict):
            if "model" in value and isinstance(value["model"], dict):
                value["model"] = value["model"].get("id")
            _strip_model(value)
    if isinstance(data.get("model"), dict):
        data["model"] = data["model"].get("id")
    if isinstance(data.get("gpu"), dict):
        data["gpu"] = data["gpu"].get("id")


@app.command("capacity", rich_help_panel="Sizing")
def capacity_cmd(
    model: Annotated[str, typer.Argument(help="model name")],
    config: Annotated[str, typer.Argument(help="configuration id, e.g. 1x-h100-pcie")],
    precision: PrecisionOpt = None,
    context: ContextOpt = 8192,
    concurrency: ConcurrencyOpt = 1,
    kv_precision: KvOpt = KvPrec.bf16,
    tensor_parallel: Annotated[
        int | None, typer.Option("--tp", min=1, help="cards to split over (default: all)")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Inverse sizing: longest context and most concurrent sequences MODEL gets on CONFIG."""
    cat = _catalog(as_json)
    m = _model(cat, model, as_json)
    c = _config(cat, config, as_json)
    prec = _precision(precision, as_json)
    from tools.fit import CapacityInput, capacity

    try:
        r = capacity(
            CapacityInput(
                model=m,
                gpu=cat.gpus[c.gpu],
                count=c.count,
                precision=prec,
                tensor_parallel=tensor_parallel,
                kv_precision=kv_precision.value,
                concurrency=concurrency,
                context_tokens=max(context, 1),
            )
        )
    except ValueError as exc:
        _fail(str(exc).splitlines()[0], as_json)
    if as_json:
        data = r.model_dump(mode="json")
        _strip_model(data)
        data["configuration"] = c.id
        _emit(data)
        return
    con = _console()
    con.print(f"[bold]{m.name}[/] on {c.label} (tensor parallel {r.tensor_parallel})")
    con.print(
        f"usable {_gb(r.usable_gb_per_card)} GB/card - weights {_gb(r.weights_gb_per_card)} - "
        f"overhead {_gb(r.overhead_gb_per_card)} = KV room {_gb(r.kv_room_gb_per_card)} GB/card"
    )
    if r.fits:
        con.print(f"KV cache holds {r.kv_tokens:,} tokens")
        con.print(
            f"longest context for {concurrency} sequence(s): {r.max_context_tokens:,} tokens "
            f"(model limit: {r.max_context_capped:,})"
        )
        con.print(f"most sequences of {context:,} tokens: {r.max_concurrency:,}")
    for note in r.notes:
        con.print(f"note: {note}")


# ---------------------------------------------------------------- throughput


@app.command("throughput", rich_help_panel="Sizing")
def throughput_cmd(
    model: Annotated[str, typer.Argument(help="model name")],
    config: Annotated[str, typer.Argument(help="configuration id, e.g. 4x-a100-sxm4")],
    precision: PrecisionOpt = None,
    context: Annotated[
        int, typer.Option("--context", "-c", min=0, help="context read per token")
    ] = 0,
    cards: Annotated[
        int | None, typer.Option("--cards", min=1, help="cards used (default: as many as needed)")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Single-stream decode tokens/s of MODEL on CONFIG (bandwidth bound, conservative floor)."""
    cat = _catalog(as_json)
    m = _model(cat, model, as_json)
    c = _config(cat, config, as_json)
    prec = _precision(precision, as_json)
    if m.kind != "llm":
        _fail(f"{m.name} is an {m.kind} model; throughput applies to language models", as_json)
    from tools.fit import Requirement, fit_configuration
    from tools.throughput import DecodeInput, decode_throughput

    gpu = cat.gpus[c.gpu]
    fit = fit_configuration(Requirement(model=m, precision=prec, context_tokens=context), c, gpu)
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
        )
    )
    if as_json:
        data = r.model_dump(mode="json")
        _strip_model(data)
        data.update(
            configuration=c.id, fit_verdict=fit.verdict, cards=used, price_source=c.price_source
        )
        _emit(data)
        return
    con = _console()
    con.print(f"[bold]{m.name}[/] ({r.precision}) on {c.label}, {used} card(s) used")
    if fit.verdict == "does_not_fit":
        con.print("[red]warning:[/] the model does not fit this configuration")
    con.print(
        f"{used} x {r.bandwidth_gb_s_per_card:,.0f} GB/s x {r.constants['efficiency']:.3f} / "
        f"{r.bytes_read_per_token_gb:,.1f} GB per token = [bold]~{r.tokens_per_s:.0f} tokens/s[/]"
    )
    if r.usd_per_million_tokens is not None:
        con.print(
            f"{_usd(c.usd_per_month, c.placeholder)}/month -> "
            f"{_usd(r.usd_per_million_tokens)} per million output tokens (single stream)"
        )
    for note in r.notes:
        con.print(f"note: {note}")


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

    The guide: a 70B model in BF16 moves 140 GB per step, about 2.2 s over PCIe Gen5 and about
    0.16 s over NVLink 4. With --check FILE --config ID, compares the busbw of an all_reduce_perf
    run with the node's link.
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
    ratio = None
    if "nvlink-4" in cat.links and "pcie-gen5-x16" in cat.links:
        ratio = ratio_fn(
            LinkRatioInput(fast=cat.links["nvlink-4"], slow=cat.links["pcie-gen5-x16"])
        ).ratio
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
            }
        )
        return
    from rich.table import Table

    size = results[0].size_gb
    table = Table(
        title=f"{m.name}: {size:,.0f} GB of gradients per step, {cards} cards",
        title_justify="left",
    )
    for col in ("Link", "GB/s", "size / bandwidth (s)", f"ring 2(n-1)/n (s), n={cards}"):
        table.add_column(col, justify="left" if col == "Link" else "right")
    for r in results:
        table.add_row(
            r.inputs.link.name,
            f"{r.bandwidth_gb_s:,.0f}",
            f"{r.seconds:.3g}",
            f"{r.ring_seconds:.3g}",
        )
    con = _console()
    con.print(table)
    if ratio is not None:
        con.print(f"NVLink 4 : PCIe Gen5 = {ratio:.1f}x")
    for note in results[0].notes:
        con.print(f"note: {note}")


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
        return
    con = _console()
    style = {"ok": "green", "warning": "yellow", "defect": "red"}[r.status]
    con.print(
        f"peak busbw {r.peak_busbw_gb_s:,.1f} GB/s at {r.peak_size_bytes:,} B "
        f"(rated {r.rated_gb_s:,.0f} GB/s per direction on {r.inputs.link.name}; "
        f"guide figure {r.guide_gb_s:,.0f} GB/s)"
    )
    con.print(f"[{style}]{r.status}[/]: {r.message}")


# ---------------------------------------------------------------- topo


@app.command("topo", rich_help_panel="Sizing")
def topo_cmd(
    source: Annotated[str, typer.Argument(help="file with `nvidia-smi topo -m` output, or -")],
    config: Annotated[
        str | None, typer.Option("--config", help="the rented configuration (expected topology)")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Check pasted `nvidia-smi topo -m` output: a verdict per card pair against the node."""
    cat = _catalog(as_json)
    c = _config(cat, config, as_json) if config else None
    text = _read_text(source, as_json)
    from tools.diagnostics import TopoInput, TopoParseError, check_topology, parse_topo_matrix

    try:
        if c is not None:
            g = cat.gpus[c.gpu]
            kind = g.form_factor
            expected = f"NV{g.nvlink_links}" if kind == "sxm" and g.nvlink_links else None
            count: int | None = c.count
        else:  # infer from the matrix: any NVLink pair means an SXM node
            _, cells = parse_topo_matrix(text)
            nv = [v for (a, b), v in cells.items() if a != b and v.startswith("NV")]
            kind = "sxm" if nv else "pcie"
            expected = max(nv, key=lambda v: int(v[2:])) if nv else None
            count = None
        r = check_topology(
            TopoInput(text=text, node_kind=kind, expected_label=expected, expected_cards=count)
        )
    except TopoParseError as exc:
        _fail(str(exc), as_json)
    if as_json:
        data = r.model_dump(mode="json")
        data["inputs"] = {
            "configuration": c.id if c else None,
            "node_kind": kind,
            "expected_label": expected,
            "expected_cards": count,
        }
        _emit(data)
        return
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


# ---------------------------------------------------------------- advice


@app.command("advice", rich_help_panel="Sizing")
def advice_cmd(
    model: Annotated[str, typer.Argument(help="model name or '34B'")],
    precision: PrecisionOpt = None,
    context: ContextOpt = 8192,
    concurrency: ConcurrencyOpt = 1,
    training: Annotated[bool, typer.Option("--training", help="training, not serving")] = False,
    independent: Annotated[
        bool, typer.Option("--independent", help="several independent models or jobs")
    ] = False,
    pipeline: Annotated[bool, typer.Option("--pipeline", help="pipeline parallelism")] = False,
    traffic: Annotated[
        str, typer.Option("--traffic", help="serving concurrency: low or high")
    ] = "low",
    tp: Annotated[int | None, typer.Option("--tp", min=1, help="planned tensor parallel")] = None,
    config: Annotated[
        str | None,
        typer.Option("--config", help="judge against this configuration's card (default: any)"),
    ] = None,
    language: Annotated[str, typer.Option("--language", help="de or en (guide URL)")] = "en",
    as_json: JsonOpt = False,
) -> None:
    """Which of the guide's five purchase rules applies to MODEL (with the guide section)."""
    cat = _catalog(as_json)
    m = _model(cat, model, as_json)
    prec = _precision(precision, as_json)
    if traffic not in ("low", "high"):
        _fail("--traffic must be low or high", as_json)
    from tools.advice import AdviceInput, purchase_advice
    from tools.fit import Requirement, fit_configurations

    configs = [_config(cat, config, as_json)] if config else list(cat.configurations.values())
    try:
        fit = fit_configurations(
            Requirement(model=m, precision=prec, context_tokens=context, concurrency=concurrency),
            configs,
            cat.gpus,
        )
    except ValueError as exc:
        _fail(str(exc).splitlines()[0], as_json)
    fits_one = any(r.verdict == "fits_one_card" for r in fit.rows)
    needed = [r.cards_needed for r in fit.rows if r.cards_needed]
    cards_needed: int | None = min(needed) if needed else 9  # fits in no node: > 8 cards
    if m.kind != "llm":
        cards_needed = None  # image and video jobs are not split
    workload = "training" if training else ("image_video" if m.kind != "llm" else "llm_serving")
    res = purchase_advice(
        AdviceInput(
            fits_one_card=fits_one,
            cards_needed=cards_needed,
            independent_jobs=independent,
            workload=workload,
            parallelism="pipeline" if pipeline else "auto",
            traffic=traffic,
            planned_tensor_parallel=tp,
        )
    )
    if as_json:
        data = res.model_dump(mode="json")
        data["model"] = m.id
        for item in [res.rule, *res.also]:
            if item is not None:
                data.setdefault("urls", {})[item.key] = item.url(language)
        _emit(data)
        return
    con = _console()
    text = "text_de" if language == "de" else "text_en"
    if res.rule is not None:
        con.print(f"[bold]Rule {res.rule.number}[/]: {getattr(res.rule, text)}")
        con.print(f"source: {res.rule.url(language)}")
    for item in res.also:
        con.print(f"- {getattr(item, text)} ({item.url(language)})")
    con.print("why: " + "; ".join(res.reasons))
