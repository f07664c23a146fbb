"""Sizing command on buying: advice (which of the guide's five purchase rules applies).
Registered through catalog_cmds, which keeps the panel's order.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from cli.app import app
from cli.common import (
    ConcurrencyOpt,
    ContextOpt,
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
)

# ---------------------------------------------------------------- advice


@app.command("advice", rich_help_panel="Sizing")
def advice_cmd(
    model: Annotated[str, typer.Argument(help="model name or '34B'")],
    precision: PrecisionOpt = None,
    context: ContextOpt = 8192,
    concurrency: ConcurrencyOpt = 1,
    training: Annotated[
        bool, typer.Option("--training", metavar="", help="training, not serving")
    ] = False,
    method: Annotated[
        str,
        typer.Option(
            "--method", help="with --training: full, lora or qlora (default: full fine-tuning)"
        ),
    ] = "full",
    independent: Annotated[
        bool, typer.Option("--independent", metavar="", help="several independent models or jobs")
    ] = False,
    pipeline: Annotated[
        bool, typer.Option("--pipeline", metavar="", help="pipeline parallelism")
    ] = False,
    traffic: Annotated[
        str | None,
        typer.Option(
            "--traffic",
            help="serving concurrency: low or high (default: high from 10 at once, -n)",
        ),
    ] = None,
    tp: Annotated[int | None, typer.Option("--tp", min=1, help="planned tensor parallel")] = None,
    config: Annotated[
        str | None,
        typer.Option("--config", help="judge against this configuration's card (default: any)"),
    ] = None,
    language: Annotated[str, typer.Option("--language", help="de or en (guide URL)")] = "en",
    runtime: RuntimeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Which of the guide's five purchase rules applies to MODEL (with the guide section)."""
    cat = _catalog(as_json)
    m = _model(cat, model, as_json)
    prec = _precision(precision, as_json)
    if traffic is None:  # the load tool's threshold: 10 or more at once is real traffic
        from tools.load import traffic_of

        traffic = "high" if traffic_of(concurrency) == "traffic" else "low"
    if traffic not in ("low", "high"):
        _fail("--traffic must be low or high", as_json)
    if method not in ("full", "lora", "qlora"):
        _fail("--method must be full, lora or qlora", as_json)
    if method != "full" and not training:
        _fail("--method is for fine-tuning: add --training", as_json)
    from tools.advice import AdviceInput, purchase_advice

    workload = "training" if training else ("image_video" if m.kind != "llm" else "llm_serving")
    if config:
        config = _config(cat, config, as_json).id  # "4x H100 SXM5", or a readable error
    # the registry's decision, the one `sizing ask` and the LLM get (against the configuration's
    # card when one is given: serving by the fit check, training by the fine-tuning memory)
    case = _registry_case(
        cat, m.id, prec, context, concurrency, workload, config, _runtime(runtime), method
    )
    fits_one, cards_needed = bool(case["fits_one_card"]), case["cards_needed"]
    if m.kind != "llm":
        cards_needed = None  # image and video jobs are not split
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
    short = _short_node(cat, config, fits_one, cards_needed)
    no_pcie = _no_pcie_node(res, case)
    if as_json:
        data = res.model_dump(mode="json")
        data["model"] = m.id
        if method != "full":
            data["method"] = method
        if "pcie_holds" in case:
            data["pcie_holds"] = case["pcie_holds"]
            data["holding_configurations"] = case["holding_configurations"]
        if config:
            data["configuration"] = config
            data["configuration_holds"] = short is None
            data["cards_needed"] = cards_needed
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
    for note in (short, no_pcie):
        if note is not None:
            con.print(note)


def _no_pcie_node(res: Any, case: dict[str, Any]) -> str | None:
    """Rule 3 says PCIe works, but no PCIe node of the catalog holds one copy (DeepSeek R1 in
    FP8): the note naming the nodes that do, so nobody looks for a PCIe node that cannot run
    it. None otherwise."""
    if res.rule is None or res.rule.number != 3 or case.get("pcie_holds", True):
        return None
    holding = case.get("holding_configurations") or []
    if not holding:
        return None
    return (
        "note: no PCIe node in the catalog holds one copy; the nodes that do have NVLink: "
        + ", ".join(holding)
    )


def _short_node(
    cat: Any, config: str | None, fits_one: bool, cards_needed: int | None
) -> str | None:
    """The note that the judged configuration does not hold the job ("1x-l4 has 1 card; one
    copy needs 8 of them"): the rule above is for a node that does. None when it holds it."""
    if not config or fits_one:
        return None
    if cards_needed is None:  # image and video jobs are not split
        return f"note: one copy does not fit a card of {config}"
    have = cat.configurations[config].count
    if cards_needed <= have:
        return None
    need = "more than a node holds" if cards_needed > 8 else f"{cards_needed} of them"
    return f"note: {config} has {have} card{'s' if have > 1 else ''}; one copy needs {need}"


def _registry_case(
    cat: Any,
    model: str,
    precision: str | None,
    context: int,
    concurrency: int,
    workload: str,
    configuration: str | None = None,
    runtime: str | None = None,
    method: str = "full",
) -> dict[str, Any]:
    """The registry's purchase_advice result: fits_one_card and cards_needed as it decides them
    (a one-card node must hold the model: "fits on one card" is something you can rent), and
    for serving whether a PCIe node holds one copy (pcie_holds, holding_configurations)."""
    from assistant.deps import Deps
    from assistant.registry import call_tool
    from assistant.settings import Settings

    deps = Deps(settings=Settings(), catalog=cat, index=None)
    args = {
        "model": model,
        "precision": precision,
        "context_tokens": context,
        "concurrency": concurrency,
        "workload": workload,
        "configuration": configuration,
        "runtime": runtime,
        "method": method if workload == "training" else None,
    }
    res = call_tool(deps, "purchase_advice", {k: v for k, v in args.items() if v is not None})
    return dict(res.result)
