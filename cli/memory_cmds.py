"""Sizing commands on memory: memory (serving, training, LoRA / QLoRA) and capacity (inverse
sizing on one configuration). Registered through catalog_cmds, which keeps the panel's order.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from cli.app import app
from cli.common import (
    Adapter,
    ConcurrencyOpt,
    ContextOpt,
    JsonOpt,
    KvOpt,
    KvPrec,
    PrecisionOpt,
    RuntimeOpt,
    _catalog,
    _config,
    _console,
    _emit,
    _fail,
    _gb,
    _model,
    _precision,
    _runtime,
    _strip_model,
)

# ---------------------------------------------------------------- memory / capacity


@app.command("memory", rich_help_panel="Sizing")
def memory_cmd(
    model: Annotated[str, typer.Argument(help="model name, HF id, ollama tag or '34B'")],
    precision: PrecisionOpt = None,
    context: ContextOpt = 8192,
    concurrency: ConcurrencyOpt = 1,
    kv_precision: KvOpt = KvPrec.bf16,
    tensor_parallel: Annotated[int, typer.Option("--tp", min=1, help="cards to split over")] = 1,
    training: Annotated[
        bool, typer.Option("--training", metavar="", help="full fine-tuning memory")
    ] = False,
    adapter: Annotated[
        Adapter | None,
        typer.Option("--adapter", help="LoRA / QLoRA fine-tuning memory (frozen base + adapters)"),
    ] = None,
    rank: Annotated[int, typer.Option("--rank", min=1, max=4096, help="LoRA rank")] = 16,
    attention_only: Annotated[
        bool,
        typer.Option(
            "--attention-only", metavar="", help="adapters on q, k, v, o only (not the MLP)"
        ),
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
    from rich.markup import escape

    con.print(f"[bold]{escape(m.name)}[/]")
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
    runtime: RuntimeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Inverse sizing: longest context and most concurrent sequences MODEL gets on CONFIG.
    Exit 1 when CONCURRENCY sequences of CONTEXT tokens do not fit (fit's verdict)."""
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
                runtime=_runtime(runtime),
            )
        )
    except ValueError as exc:
        _fail(str(exc).splitlines()[0], as_json)
    beyond = bool(m.max_context and context > m.max_context)  # past the model's own limit
    if as_json:
        data = r.model_dump(mode="json")
        _strip_model(data)
        data["configuration"] = c.id
        data["beyond_model_context"] = beyond
        _emit(data)
        if not r.load_fits or beyond:
            raise typer.Exit(1)
        return
    con = _console()
    from rich.markup import escape

    con.print(f"[bold]{escape(m.name)}[/] on {c.label} (tensor parallel {r.tensor_parallel})")
    con.print(
        f"usable {_gb(r.usable_gb_per_card)} GB/card - weights {_gb(r.weights_gb_per_card)} - "
        f"overhead {_gb(r.overhead_gb_per_card)} = KV room {_gb(r.kv_room_gb_per_card)} GB/card"
    )
    load = f"{concurrency} x {context:,} tokens"
    if r.load_fits and beyond:  # memory holds it, the model does not read that far
        con.print(
            f"[red]{load}: beyond the model's own limit of {m.max_context:,} tokens[/] (the "
            f"memory would hold it: {_gb(r.load_required_gb_per_card)} of "
            f"{_gb(r.usable_gb_per_card)} GB per card)"
        )
    elif r.load_fits:
        con.print(
            f"{load}: fits ({_gb(r.load_required_gb_per_card)} of "
            f"{_gb(r.usable_gb_per_card)} GB per card)"
        )
    else:
        con.print(
            f"[red]{load}: does not fit[/] ({_gb(r.load_required_gb_per_card)} GB per card "
            f"needed, {_gb(r.usable_gb_per_card)} usable)"
        )
    if r.fits:
        con.print(f"KV cache holds {r.kv_tokens:,} tokens")
        limit = m.max_context
        text = f"longest context for {concurrency} sequence(s): {r.max_context_capped:,} tokens"
        if limit and r.max_context_tokens > limit:
            text += f" (the model's own limit; the KV-cache room holds {r.max_context_tokens:,})"
        elif limit:
            text += f" (the KV-cache room; the model allows {limit:,})"
        con.print(text)
        if not beyond:
            con.print(f"most sequences of {context:,} tokens: {r.max_concurrency:,}")
    for note in r.notes:
        con.print(f"note: {note}")
    if not r.load_fits or beyond:
        raise typer.Exit(1)
