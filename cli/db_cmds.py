"""Commands: `sizing db prune` (retention) and `sizing db check` (can the stores be used?)."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from cli.app import app

db_app = typer.Typer(help="The databases: sessions, feedback, rate limits, Slack de-duplication.")
app.add_typer(db_app, name="db")


@db_app.command("prune")
def prune_cmd(
    days: Annotated[
        float | None,
        typer.Option(min=0, help="delete what is older (default: SIZING_RETENTION_DAYS, 90)"),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the report as JSON")] = False,
) -> None:
    """Delete sessions and feedback older than the retention age (and expired limiter state)."""
    from assistant.settings import Settings
    from store.retention import prune

    report = prune(Settings(), days=days)
    failed = [name for name, part in report.items() if isinstance(part, dict) and "error" in part]
    if as_json:
        typer.echo(json.dumps(report))
    else:
        typer.echo(f"retention: {report['retention_days']:g} days")
        for name in ("sessions", "feedback", "state"):
            part = report[name]
            shown = part.get("error") or ", ".join(f"{v} {k}" for k, v in part.items())
            typer.echo(f"  {name:9} {shown}")
    if failed:
        raise typer.Exit(1)


@db_app.command("check")
def check_cmd() -> None:
    """Open every store and probe that it can be read and written (exit 1 if one cannot)."""
    from assistant.settings import Settings
    from store.db import open_database

    settings = Settings()
    bad = False
    for store in ("sessions", "feedback", "state"):
        result = open_database(settings, store).check()
        bad = bad or not result["ok"]
        typer.echo(
            f"{store:9} {'ok' if result['ok'] else 'FAILED'}  {result['store']}"
            + (f"  {result['error']}" if not result["ok"] else "")
        )
    if bad:
        raise typer.Exit(1)
