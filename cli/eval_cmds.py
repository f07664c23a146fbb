"""Commands: `sizing eval` (question sets -> metrics and reports) and `sizing audit` (guide figures
checked against the catalog and the tools).

Heavy imports (evals, the assistant, Chroma) happen inside the commands.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from cli.app import app


def _fail(message: str, as_json: bool, code: int = 2) -> None:
    if as_json:
        typer.echo(json.dumps({"error": message}))
    else:
        from rich.console import Console
        from rich.markup import escape

        Console(stderr=True).print(
            f"[red]error:[/red] {escape(message)}", highlight=False, soft_wrap=True
        )
    raise typer.Exit(code)


@app.command("eval")
def eval_command(
    datasets: Annotated[
        list[Path] | None,
        typer.Argument(
            help="question-set YAML files (evals/datasets/*.yaml); or `diff A.json B.json`: "
            "the answers that changed between two saved runs",
            show_default=False,
        ),
    ] = None,
    mode: Annotated[str, typer.Option(help="offline (no LLM) or llm")] = "offline",
    concurrency: Annotated[int, typer.Option(min=1, max=64, help="cases answered at once")] = 1,
    report: Annotated[
        Path | None, typer.Option(help="folder for report.json, junit.xml and report.html")
    ] = None,
    compare: Annotated[
        Path | None, typer.Option(help="a baseline report.json: show what got better and worse")
    ] = None,
    judge: Annotated[
        bool | None,
        typer.Option(
            "--judge/--no-judge",
            metavar="",
            help="LLM-judged faithfulness and relevancy (default: when an LLM is set)",
        ),
    ] = None,
    data_dir: Annotated[
        Path | None,
        typer.Option(
            help="reuse this data folder (sessions; its guide index is built or updated) "
            "instead of a fresh one"
        ),
    ] = None,
    tag: Annotated[
        list[str] | None, typer.Option(help="only cases with this tag (repeatable)")
    ] = None,
    case: Annotated[list[str] | None, typer.Option(help="only this case id (repeatable)")] = None,
    min_pass_rate: Annotated[
        float | None, typer.Option(help="exit 1 when the pass rate is below this")
    ] = None,
    schema: Annotated[
        bool, typer.Option("--schema", metavar="", help="print the dataset JSON schema")
    ] = False,
    explain_metrics: Annotated[
        bool,
        typer.Option(
            "--explain", metavar="", help="what each metric measures and what a low value means"
        ),
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", metavar="", help="print the report as JSON")
    ] = False,
    gold_readings: Annotated[
        bool,
        typer.Option(
            "--gold-readings",
            metavar="",
            help="answer each question from its gold reading (the planner measured apart)",
        ),
    ] = False,
) -> None:
    """Run question sets through the assistant and score them (pass rate, verdicts, numbers,
    prices, citations, grounding, language, tools, latency, summaries, first sentences). Exit 1
    when a grounding violation, a summary over 60 words or a first sentence that disagrees with
    its tools appears, or the pass rate is below --min-pass-rate; 2 on bad input."""
    if schema:
        from evals.schema import schema_text

        typer.echo(schema_text(), nl=False)
        return
    if explain_metrics:
        _print_metric_help(as_json)
        return
    if datasets and str(datasets[0]) == "diff":
        _diff_command(list(datasets[1:]), report, as_json)
        return
    if not datasets:
        _fail("give at least one dataset, e.g. sizing eval evals/datasets/*.yaml", as_json)
    if mode not in ("offline", "llm"):
        _fail(f"--mode must be offline or llm (got {mode!r})", as_json)
    from evals.runner import EvalError, RunOptions, run_eval
    from evals.runner import compare as compare_reports
    from evals.schema import Dataset, DatasetError, load_datasets

    try:
        loaded = load_datasets(list(datasets or []))
    except DatasetError as exc:
        _fail(str(exc), as_json)
    baseline = None
    if compare is not None:
        try:
            baseline = json.loads(compare.read_text(encoding="utf-8"))
            if not isinstance(baseline, dict) or "cases" not in baseline:
                raise ValueError("not a report.json (no 'cases')")
        except (OSError, ValueError) as exc:
            _fail(f"--compare {compare}: {exc}", as_json)
    if tag or case:
        filtered = []
        for ds in loaded:
            keep = [
                c
                for c in ds.cases
                if (not tag or set(tag) & set(c.tags)) and (not case or c.id in case)
            ]
            if keep:
                filtered.append(Dataset(name=ds.name, description=ds.description, cases=keep))
        if not filtered:
            _fail("no case matches --tag/--case", as_json)
        loaded = filtered

    from assistant.settings import Settings

    settings = Settings()
    total = sum(len(d.cases) for d in loaded)
    options = RunOptions(
        mode=mode,  # type: ignore[arg-type]
        concurrency=concurrency,
        judge=judge,
        data_dir=data_dir,
        gold_readings=gold_readings,
    )
    try:
        if as_json:
            result = run_eval(loaded, settings, options)
        else:
            result = _run_with_progress(loaded, settings, options, total, run_eval)
    except EvalError as exc:
        _fail(str(exc), as_json)
    except Exception as exc:  # never a traceback: name the problem
        _fail(f"the evaluation could not run: {type(exc).__name__}: {exc}", as_json)
    if baseline is not None:
        result["compare"] = compare_reports(result, baseline)
    paths = None
    if report is not None:
        from evals.report import write_reports

        try:
            paths = write_reports(result, report)
        except OSError as exc:
            _fail(f"--report {report}: {exc}", as_json)
    if as_json:
        typer.echo(json.dumps(result, ensure_ascii=False, default=str))
    else:
        _print_summary(result, paths)
    from evals.metric_help import ZERO_METRICS

    nonzero = any(result["metrics"].get(k) for k in ZERO_METRICS)
    if nonzero or (min_pass_rate is not None and result["pass_rate"] < min_pass_rate):
        raise typer.Exit(1)


def _load_report(path: Path, as_json: bool) -> dict[str, Any]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        if not isinstance(data, dict) or "cases" not in data:
            raise ValueError("not a report.json (no 'cases')")
    except (OSError, ValueError) as exc:
        _fail(f"{path}: {exc}", as_json)
    return data


def _diff_command(paths: list[Path], report: Path | None, as_json: bool) -> None:
    """`sizing eval diff A.json B.json`: what visitors read differently in run B."""
    from evals.diff import diff_reports

    if len(paths) != 2:
        _fail("usage: sizing eval diff BASELINE.json CURRENT.json [--report DIR] [--json]", as_json)
    diff = diff_reports(_load_report(paths[0], as_json), _load_report(paths[1], as_json))
    if report is not None:
        from evals.report import diff_page

        try:
            report.mkdir(parents=True, exist_ok=True)
            (report / "diff.json").write_text(
                json.dumps(diff, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
            )
            (report / "diff.html").write_text(diff_page(diff), encoding="utf-8")
        except OSError as exc:
            _fail(f"--report {report}: {exc}", as_json)
    if as_json:
        typer.echo(json.dumps(diff, ensure_ascii=False))
        return
    from rich.console import Console

    _print_answer_diff(Console(), diff)
    if report is not None:
        typer.echo(f"reports: {report / 'diff.html'}, {report / 'diff.json'}")


def _print_answer_diff(console: Any, diff: dict[str, Any], limit: int = 40) -> None:
    """Per changed case: the changed facts, then old and new answer side by side (deleted words
    red and struck through, inserted words green)."""
    from rich.markup import escape
    from rich.table import Table

    from evals.diff import change_lines, word_diff

    for c in diff["cases"][:limit]:
        colour = "red" if "worse" in c["kinds"] else "cyan"
        console.print(
            f"[bold {colour}]{escape(c['id'])}[/bold {colour}] [dim]{', '.join(c['kinds'])} · "
            f"{c['status_before']} → {c['status_after']}[/dim]",
            highlight=False,
        )
        for f in c.get("failures", [])[:3]:
            console.print(f"  [red]{escape(f)}[/red]", highlight=False)
        for t in c["turns"]:
            for line in change_lines(t):
                console.print(f"  [yellow]{escape(line)}[/yellow]", highlight=False)
            old, new = [], []
            for op, text in word_diff(t["before"], t["after"]):
                if op == "equal":
                    old.append(escape(text))
                    new.append(escape(text))
                elif op == "delete":
                    old.append(f"[red strike]{escape(text)}[/red strike]")
                else:
                    new.append(f"[green bold]{escape(text)}[/green bold]")
            side = Table(show_header=True, expand=True, show_lines=False)
            side.add_column("before", ratio=1, overflow="fold")
            side.add_column("after", ratio=1, overflow="fold")
            side.add_row("".join(old), "".join(new))
            console.print(side)
    if len(diff["cases"]) > limit:
        console.print(f"… and {len(diff['cases']) - limit} more changed answers (--json)")
    console.print(f"[bold]{escape(diff['summary_line'])}[/bold]", highlight=False)


def _print_metric_help(as_json: bool) -> None:
    from evals.metric_help import METRIC_HELP

    if as_json:
        typer.echo(json.dumps({k: h._asdict() for k, h in METRIC_HELP.items()}, ensure_ascii=False))
        return
    for key, h in METRIC_HELP.items():
        typer.echo(f"{key.replace('_', ' ')}\n  measures: {h.means}\n  low value: {h.low}")


def _run_with_progress(loaded: Any, settings: Any, options: Any, total: int, run_eval: Any) -> Any:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("[bold]eval[/bold]"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[status]}"),
        TimeElapsedColumn(),
        transient=False,
    ) as progress:
        task = progress.add_task("eval", total=total, status="preparing the index…")
        failed = [0]

        def on_case(res: dict[str, Any]) -> None:
            if res["status"] in ("fail", "error"):
                failed[0] += 1
            progress.update(task, advance=1, status=f"{res['id'][:40]} · {failed[0]} failing")

        result = run_eval(loaded, settings, options, on_case=on_case)
        progress.update(task, status=f"done · {failed[0]} failing")
    return result


def _print_llm(console: Any, result: dict[str, Any]) -> None:
    """--mode llm: answers the model wrote that were shown vs offline fallbacks (and why), and the
    violations the grounding check caught in rejected attempts (never shown, so not counted in
    the grounding metric above); then each case that fell back."""
    from rich.markup import escape

    s = result["llm"]
    why = ", ".join(f"{k} {v}" for k, v in s["fallback_reasons"].items()) or "none"
    kinds = ", ".join(f"{k} {v}" for k, v in s["rejected_violations_by_kind"].items())
    console.print(
        f"LLM: {s['shown']} of {s['turns']} answers shown, "
        + (f"{s['planner']} by the planner from the LLM reading, " if s.get("planner") else "")
        + f"{s['fallbacks']} fell back "
        f"({why}); {s['rejected_violations']} violations in rejected attempts"
        + (f" ({kinds})" if kinds else "")
        + f"; {s['tool_calls_per_turn']} tool calls per answer; latency p50 "
        f"{s['latency_ms_p50']} ms, p95 {s['latency_ms_p95']} ms",
        highlight=False,
    )
    for x in result["cases"]:
        c = x.get("llm") or {}
        if c.get("fallbacks") or c.get("rejected_violations"):
            console.print(
                f"  [yellow]{escape(x['id'])}[/yellow]: {c['shown']} shown, {c['fallbacks']} "
                f"fell back, {c['rejected_violations']} violations rejected, "
                f"{c['tool_calls']} tool calls",
                highlight=False,
            )


def _print_layers(console: Any, result: dict[str, Any], limit: int = 30) -> None:
    """Reader accuracy per gold field, planner accuracy, end-to-end, each failing case's layer,
    and the reader's misses (shown when the sets hold gold readings or planner cases)."""
    from rich.markup import escape

    layers = result.get("layers") or {}
    if not layers or not (layers["reader"]["total"] or layers["planner"]["total"]):
        return
    reader, planner, e2e = layers["reader"], layers["planner"], layers["end_to_end"]

    def rate(x: dict[str, Any], ok: str = "right", of: str = "total") -> str:
        share = "–" if not x[of] else f"{x[ok] / x[of] * 100:.1f} %"
        return f"{share} ({x[ok]}/{x[of]})"

    console.print(
        f"[bold]layers[/bold]: reader {rate(reader)} of gold fields in {reader['cases']} cases"
        f" · planner {rate(planner)} · end-to-end {rate(e2e, 'passed')}",
        highlight=False,
    )
    fields = sorted(reader["fields"].items(), key=lambda kv: (kv[1]["accuracy"] or 0, kv[0]))
    weak = [(k, v) for k, v in fields if v["right"] < v["total"]]
    if weak:
        console.print(
            "  reader, weakest fields: " + " · ".join(f"{k} {rate(v)}" for k, v in weak),
            highlight=False,
        )
    whole = [k for k, v in fields if v["right"] == v["total"]]
    if whole:
        console.print(f"  reader, every gold value right: {', '.join(whole)}", highlight=False)
    blame = {k: v for k, v in layers.get("attribution", {}).items() if v}
    if blame:
        console.print(
            "  failing cases by layer: "
            + " · ".join(
                f"{k} {len(v)} ({', '.join(v[:6])}{' …' if len(v) > 6 else ''})"
                for k, v in blame.items()
            ),
            highlight=False,
        )
    fs = layers.get("first_sentence_wrong") or {}
    if fs.get("of"):
        console.print(
            f"  first sentences wrong: {fs['count']} of {fs['of']} yes/no turns", highlight=False
        )
    misses: list[str] = []
    for c in result["cases"]:
        r = c.get("reader") or {}
        blind = set(r.get("no_reading", []))
        misses += [f"{c['id']} turn {t}: the answer carries no reading" for t in sorted(blind)]
        misses += [
            f"{c['id']} turn {w['turn']}: {w['field']} {w['gold']!r} ≠ read {w['actual']!r}"
            for w in r.get("wrong", [])
            if w["turn"] not in blind
        ]
    for line in misses[:limit]:
        console.print(f"  [yellow]reader[/yellow] {escape(line)}", highlight=False)
    if len(misses) > limit:
        console.print(f"  … and {len(misses) - limit} more reader misses (report.json)")


def _print_summary(result: dict[str, Any], paths: dict[str, Path] | None) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    c = result["counts"]
    m = result["metrics"]

    def pct(v: Any) -> str:
        return "–" if v is None else f"{v * 100:.1f} %"

    t = Table(
        title=f"pass rate {pct(result['pass_rate'])} ({c['passed']}/{c['scored']})",
        show_header=True,
    )
    from evals.metric_help import COUNT_METRICS, explain

    t.add_column("metric", no_wrap=True)
    t.add_column("value", justify="right", no_wrap=True)
    t.add_column("a low value means", overflow="fold", style="dim")
    for key, value in m.items():
        if key.startswith("latency"):
            shown = "–" if value is None else f"{value:.1f} ms"
        elif key in COUNT_METRICS:
            shown = str(value)
        else:
            shown = pct(value)
        h = explain(key)
        t.add_row(key.replace("_", " "), shown, h.low if h else "")
    t.add_row("expected failures (xfail)", str(c["xfail"]), "")
    t.add_row("wall time", f"{result['timing']['wall_s']:.1f} s", "")
    console.print(t)
    console.print(
        "[dim]what each metric measures: sizing eval --explain (or docs/evals.md)[/dim]",
        highlight=False,
    )
    judge = result.get("judge") or {}
    if judge.get("enabled"):
        console.print(
            f"LLM judge: faithfulness {pct(judge.get('faithfulness'))}, relevancy "
            f"{pct(judge.get('answer_relevancy'))} ({judge.get('judged')} answers)"
        )
    else:
        console.print(f"[dim]LLM-judged metrics: {judge.get('note', 'skipped')}[/dim]")
    if result.get("llm"):
        _print_llm(console, result)
    _print_layers(console, result)
    failing = [x for x in result["cases"] if x["status"] in ("fail", "error")]
    for x in failing:
        layer = f" [dim]({x['layer']})[/dim]" if x.get("layer") else ""
        console.print(f"[red]✗ {x['id']}[/red]{layer}", markup=True, highlight=False)
        for f in x["failures"][:4]:
            console.print(f"    {f}", markup=False, highlight=False)
    for x in result["cases"]:
        if x["status"] == "xfail":
            console.print(
                f"[yellow]~ {x['id']} (expected failure: {x['xfail']})[/yellow]", highlight=False
            )
    cmp = result.get("compare")
    if cmp:
        console.print(
            f"vs baseline: fixed {len(cmp['fixed'])}, broken {len(cmp['broken'])}, "
            f"new {len(cmp['new'])}, removed {len(cmp['removed'])}"
        )
        for cid in cmp["broken"]:
            console.print(f"  [red]now failing: {cid}[/red]")
        for cid in cmp["fixed"]:
            console.print(f"  [green]now passing: {cid}[/green]")
        for key in cmp["better"]:
            v = cmp["metrics"][key]
            console.print(f"  [green]better[/green] {key}: {v['baseline']} → {v['current']}")
        for key in cmp["worse"]:
            v = cmp["metrics"][key]
            console.print(f"  [red]worse[/red] {key}: {v['baseline']} → {v['current']}")
        if cmp.get("answers"):
            _print_answer_diff(console, cmp["answers"], limit=15)
    if paths:
        console.print("reports: " + ", ".join(str(p) for p in paths.values()), highlight=False)


@app.command("audit")
def audit_command(
    guides: Annotated[
        list[Path] | None,
        typer.Argument(
            help="guide files, folders or slugs (default: every guide in SIZING_GUIDES_DIR)",
            show_default=False,
        ),
    ] = None,
    verbose: Annotated[
        bool,
        typer.Option(
            "--all", "-a", metavar="", help="list every checked figure, not only contradictions"
        ),
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", metavar="", help="print the audit as JSON")
    ] = False,
) -> None:
    """Check every figure in the guides that the catalog or the tools can produce (link
    generations, bandwidths, memory, prices, VRAM needs, weights, KV cache, ratios, all-reduce
    times, tokens/s). Exit 1 when a contradiction is found, 2 on bad input."""
    from assistant.settings import Settings
    from evals.audit import audit_files, guide_files
    from knowledge.catalog import CatalogError, load_catalog

    settings = Settings()
    try:
        catalog = load_catalog(settings.catalog)
    except CatalogError as exc:
        _fail(f"catalog: {exc}", as_json)
    try:
        paths = guide_files(list(guides or [settings.guides_dir]), Path(settings.guides_dir))
        report = audit_files(paths, catalog)
    except (OSError, UnicodeDecodeError) as exc:
        _fail(str(exc), as_json)
    if not paths:
        _fail("no guide files found", as_json)
    data = report.as_dict()
    if as_json:
        if verbose:
            data["findings"] = [f.as_dict() for f in report.findings]
        typer.echo(json.dumps(data, ensure_ascii=False))
    else:
        _print_audit(report, verbose)
    if report.contradictions:
        raise typer.Exit(1)


def _print_audit(report: Any, verbose: bool) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    rows = report.findings if verbose else report.contradictions
    if rows:
        t = Table(
            title="checked figures" if verbose else "contradictions",
            show_lines=False,
            header_style="bold",
        )
        for col in ("file:line", "what", "subject", "guide says", "data / tools say"):
            t.add_column(col, overflow="fold")
        if verbose:
            t.add_column("ok")
        for f in rows:
            cells = [
                f"{_short(f.file)}:{f.line}",
                f.kind,
                f.subject,
                f.guide,
                f.data + (f" — {f.detail}" if f.detail else ""),
            ]
            if verbose:
                cells.append("✓" if f.ok else "✗")
            t.add_row(*cells)
        console.print(t)
    n = len(report.contradictions)
    colour = "red" if n else "green"
    console.print(
        f"[{colour}]{len(report.files)} file(s), {report.checked} figures checked, "
        f"{n} contradiction(s)[/{colour}]",
        highlight=False,
    )


def _short(path: str) -> str:
    try:
        return str(Path(path).resolve().relative_to(Path.cwd()))
    except ValueError:
        return path
