"""Shared plumbing of the "Sizing" panel's commands (catalog_cmds, memory_cmds, speed_cmds,
interconnect_cmds, advice_cmds): option types, enums, errors, catalog look-ups, JSON and table
output. Every command has --json; errors print one clear line and exit 2.

Heavy imports (pydantic models, rich, the catalog) happen inside the commands: cold start matters.
"""

from __future__ import annotations

import json
import re
import sys
from decimal import Decimal
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

if TYPE_CHECKING:
    from knowledge.catalog import Catalog


class KvPrec(StrEnum):
    bf16 = "bf16"
    fp16 = "fp16"
    fp8 = "fp8"
    int8 = "int8"
    fp32 = "fp32"


class RuntimeName(StrEnum):
    vllm = "vllm"
    llama_cpp = "llama.cpp"
    ollama = "ollama"


class Adapter(StrEnum):
    lora = "lora"
    qlora = "qlora"


#: flags (here and in every command) take no value: an empty metavar keeps the help from showing
#: `<bool>` after them
JsonOpt = Annotated[bool, typer.Option("--json", metavar="", help="print JSON instead of a table")]
PrecisionOpt = Annotated[
    str | None,
    typer.Option(
        "--precision",
        "-p",
        help="fp32, bf16, fp16, fp8, int8, mxfp4, awq, gptq, gguf-q4_k_m, gguf-q5_k_m, gguf-q8_0 "
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
RuntimeOpt = Annotated[
    RuntimeName | None,
    typer.Option(
        "--runtime",
        help="serving engine whose memory rule applies (default: llama.cpp for GGUF, else vllm)",
    ),
]


def _runtime(runtime: RuntimeName | None) -> str | None:
    return runtime.value if runtime is not None else None


# ---------------------------------------------------------------- plumbing


def _fail(
    message: str,
    as_json: bool,
    closest: list[str] | None = None,
    candidates: list[str] | None = None,
) -> NoReturn:
    if as_json:
        payload: dict[str, Any] = {"error": message}
        if closest is not None:
            payload["closest"] = closest
        if candidates is not None:
            payload["candidates"] = candidates
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
        size = re.search(r"(?<![\w.])(\d+(?:[.,]\d+)?)\s*[bB]\b", text)
        if size is None or exc.closest:  # "Llama 3.3 7B": likely a typo, the closest offered
            _fail(f"{exc} See `sizing models`.", as_json, exc.closest)
        # "Pythia 12B": a name the catalog lacks and nothing like it, sized as `sizing ask`
        # sizes it (a generic dense model of the size in its name), and said so on stderr
        model = cat.parameter_model(float(size.group(1).replace(",", ".")))
        typer.echo(
            f"note: {text!r} is not in the catalog; sized as a generic dense "
            f"{size.group(1)}B model",
            err=True,
        )
        return model


def _config(cat: Catalog, text: str, as_json: bool) -> Any:
    """The one configuration TEXT names (every command resolves names here). A name that fits
    several nodes ('4x-h100': PCIe and SXM5) is a question, exit 2 with the candidates."""
    found = _configs(cat, text, as_json)
    if len(found) > 1:
        ids = [c.id for c in found]
        _fail(
            f"{text!r} fits {len(ids)} configurations: {', '.join(ids)}. Name one.",
            as_json,
            candidates=ids,
        )
    return found[0]


def _configs(cat: Catalog, text: str, as_json: bool) -> list[Any]:
    """Every configuration TEXT may mean (one, or the variants of an ambiguous name)."""
    from knowledge.catalog import UnknownName

    try:
        return cat.configuration_candidates(text)
    except UnknownName as exc:
        _fail(f"{exc} See `sizing nodes`.", as_json, exc.closest)


def _precision(text: str | None, as_json: bool) -> str | None:
    if text is None:
        return None
    from tools.memory import normalize_precision

    try:
        canonical = normalize_precision(text)
    except ValueError as exc:
        _fail(str(exc), as_json)
    if not as_json and re.sub(r"[\s_-]", "", text.lower()) not in re.sub(r"[_-]", "", canonical):
        # "-p int4" is sized as AWQ: say so, on stderr, so piped output stays the table
        typer.echo(f"note: {text!r} is sized as {canonical}", err=True)
    return canonical


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


def _id_column(table: Any, ids: list[str], header: str = "id") -> None:
    """An id column that is never cut: ids are typed back, so the other columns wrap instead."""
    table.add_column(header, no_wrap=True, min_width=max((len(i) for i in ids), default=2))


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


PLACEHOLDER_NOTE = "* placeholder price (only 4x-a100-pcie and 4x-a100-sxm4 are published)"
