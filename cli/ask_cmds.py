"""`sizing ask "QUESTION" [--json] [--session ID] [--lang de|en] [--set FIELD=VALUE ...]`: one
grounded answer.

Prints the short answer first (`summary`), then what was understood (the reading's line, dim),
then the details: the answer as Markdown (rich) with its sources and prices, or with --json the
Answer object (the same JSON the HTTP API returns, with its `reading`). The session id is printed
so a conversation can continue: `sizing ask --session ID "and in FP8?"`. `--set FIELD=VALUE`
(repeatable) changes a reading field (docs/reading.md): with a question, over what it says; with
`--session ID` and no question, the session's last question is answered again from its reading
(`sizing ask --session ID --set precision=fp8`). `--paste FILE` (`-`: standard input) puts tool
output, a log or an e-mail after the question (`nvidia-smi topo -m | sizing ask "Is this
normal?" --paste -`). Errors print one clear line and exit 2.

Heavy imports happen inside the command: `sizing --help` and the cold start stay fast.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

import typer

from cli.app import app


def _fail(message: str, as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps({"error": message}, ensure_ascii=False))
    else:
        from rich.console import Console

        Console(stderr=True, highlight=False).print(f"[bold red]error:[/] {message}")
    raise typer.Exit(2)


# reading fields whose value is a list: VALUE is split at commas
_LIST_FIELDS = ("configurations", "cards", "exclude_cards", "workloads")


def _value(text: str) -> Any:
    """A --set value: an int, a float, else the text ('' and 'none' clear the field)."""
    import re

    raw = text.strip()
    if raw.lower() in ("", "none", "null"):
        return None
    number = raw.lstrip("$€").replace("_", "")
    if re.fullmatch(r"\d{1,3}(,\d{3})+(\.\d+)?", number):  # 6,000 is a number, not a list
        number = number.replace(",", "")
    for kind in (int, float):
        try:
            return kind(number)
        except ValueError:
            pass
    return raw


def parse_sets(pairs: list[str]) -> dict[str, Any]:
    """`["precision=fp8", "users=40", "configurations=4x-h200,8x-h100"]` as reading edits."""
    edits: dict[str, Any] = {}
    for pair in pairs:
        field, sep, value = pair.partition("=")
        field = field.strip()
        if not sep or not field:
            raise ValueError(f"--set {pair!r}: expected FIELD=VALUE, e.g. --set precision=fp8")
        if field in _LIST_FIELDS:
            edits[field] = [v.strip() for v in value.split(",") if v.strip()]
        else:
            edits[field] = _value(value)
    return edits


@app.command("ask")
def ask(
    question: Annotated[
        str | None,
        typer.Argument(
            help="the question, in German or English (none with --session and --set: "
            "re-answer the session's last question)"
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", metavar="", help="print the Answer as JSON")
    ] = False,
    session: Annotated[
        str | None, typer.Option("--session", "-s", help="continue this session (id)")
    ] = None,
    lang: Annotated[
        str | None, typer.Option("--lang", "-l", help="answer language: de or en (default: auto)")
    ] = None,
    sets: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            metavar="FIELD=VALUE",
            help="change a reading field (repeatable): model, precision, users, "
            "concurrent_sequences, context_tokens, configurations, budget_usd_per_month, … "
            "(docs/reading.md); an empty VALUE clears it, commas make a list",
        ),
    ] = None,
    paste: Annotated[
        str | None,
        typer.Option(
            "--paste",
            metavar="FILE",
            help="a file pasted after the question ('-': standard input), e.g. "
            "`nvidia-smi topo -m | sizing ask 'Is this normal?' --paste -`; tool output, logs "
            "or an e-mail up to SIZING_MAX_PASTED_CHARS (20,000) characters",
        ),
    ] = None,
    offer: Annotated[
        bool,
        typer.Option(
            "--offer",
            metavar="",
            help="for staff: an offer (recommended, cheaper, safer, assumptions) and a text "
            "to forward to the customer",
        ),
    ] = False,
    verbose: Annotated[
        int,
        typer.Option(
            "--verbose",
            "-v",
            count=True,
            metavar="",
            help="log details on stderr (-vv: with tracebacks)",
        ),
    ] = 0,
) -> None:
    """Ask the sizing assistant: fit, NVLink or PCIe, speed, prices; cited and exact."""
    if verbose:
        from cli.logs import setup_logging

        setup_logging(verbose)
    if lang is not None and lang not in ("de", "en"):
        _fail("--lang must be 'de' or 'en'", as_json)
    language: Literal["de", "en"] | None = "de" if lang == "de" else "en" if lang == "en" else None
    try:
        edits = parse_sets(sets or [])
    except ValueError as exc:
        _fail(str(exc), as_json)
        return
    if paste is not None:
        try:
            question = _with_paste(question, paste)
        except OSError as exc:
            _fail(f"--paste {paste}: {exc.strerror or exc}", as_json)
            return
    if question is None and not (edits and session):
        _fail("give a question, or --session ID with --set FIELD=VALUE to re-answer", as_json)
        return
    try:
        from assistant.deps import build_deps
        from assistant.errors import InvalidRequest
        from assistant.service import Assistant
        from assistant.settings import Settings
        from knowledge.catalog import CatalogError
    except Exception as exc:  # pragma: no cover - broken install
        _fail(f"cannot load the assistant: {exc}", as_json)
        return
    try:
        deps = build_deps(Settings())
    except CatalogError as exc:
        _fail(f"catalog: {exc}", as_json)
        return
    except Exception as exc:
        _fail(f"cannot start the assistant: {exc}", as_json)
        return
    try:
        assistant = Assistant(deps)
        if session is not None and question is not None:
            _known_session(assistant, session)
        if question is None:
            assert session is not None
            if language and "language" not in edits:
                edits["language"] = language
            answer = assistant.reanswer(session, edits)
        else:
            answer = assistant.ask(
                question, session_id=session, language=language, edits=edits or None
            )
    except InvalidRequest as exc:
        _fail(str(exc), as_json)
        return
    except Exception as exc:
        _fail(f"the assistant failed: {exc}", as_json)
        return
    if offer:
        from assistant.offer import with_offer

        answer = with_offer(deps, answer)
    if as_json:
        typer.echo(answer.model_dump_json(indent=2))
        return
    _print(answer)
    if offer:
        _print_offer(answer)


def _with_paste(question: str | None, paste: str) -> str:
    """The question with the pasted file's text after it (`-`: standard input)."""
    import sys
    from pathlib import Path

    text = sys.stdin.read() if paste == "-" else Path(paste).read_text(encoding="utf-8")
    return f"{question or ''}\n{text.rstrip()}".strip()


def _known_session(assistant: Any, session: str) -> None:
    """`--session ID` names a session that exists (a typo would silently start a new one):
    else an `UnknownSession` (an InvalidRequest, printed as one line)."""
    from assistant.errors import UnknownSession
    from assistant.sessions import check_session_id

    check_session_id(session)
    if assistant.sessions.get(session) is None:
        raise UnknownSession(
            f"there is no session {session!r} (it may have expired); leave out --session to "
            "start a new one"
        )


def _print_offer(answer: Any) -> None:
    """The offer (`--offer`): the three options with their trade-offs, the assumptions, and
    the text to forward, verbatim."""
    from rich.console import Console
    from rich.markup import escape

    from assistant.texts import monthly

    de = answer.language == "de"
    console = Console(highlight=False)
    console.print()
    offer = answer.offer
    if offer is None:
        console.print(
            "[dim]Kein Angebot: die Frage bemisst keine Konfiguration.[/]"
            if de
            else "[dim]No offer: the question sizes no configuration.[/]"
        )
        return
    names = (
        {"recommended": "Empfohlen", "cheaper": "Günstiger", "safer": "Mehr Reserve"}
        if de
        else {"recommended": "Recommended", "cheaper": "Cheaper", "safer": "More headroom"}
    )
    console.print("[bold]Angebot[/]" if de else "[bold]Offer[/]")
    for o in (offer.recommended, offer.cheaper, offer.safer):
        if o is None:
            continue
        line = f"  {names[o.role]}: {escape(o.label)}: {monthly(answer.language, o.usd_per_month)}"
        console.print(line + (f"\n      [dim]{escape(o.trade_off)}[/]" if o.trade_off else ""))
    console.print("[bold]Annahmen[/]" if de else "[bold]Assumptions[/]")
    for a in offer.assumptions:
        console.print(f"  • {escape(a)}")
    if offer.text:
        console.print()
        console.print("[bold]Zum Weiterleiten[/]" if de else "[bold]To forward[/]")
        console.print(escape(offer.text), soft_wrap=True)


_INLINE = [
    (r"\*\*(.+?)\*\*", r"[bold]\1[/bold]"),
    (r"(?<![\w*])_(.+?)_(?!\w)", r"[italic]\1[/italic]"),
    (r"(?<![\w*])\*(?!\s)(.+?)\*(?!\w)", r"[italic]\1[/italic]"),
    (r"`([^`]+)`", r"[cyan]\1[/cyan]"),
    (r"\[([^\]]+)\]\((https?://[^)\s]+)\)", r"[link=\2][underline]\1[/underline][/link]"),
]


def markdown_to_rich(text: str) -> str:
    """The answer's small Markdown subset (bold, italic, code, links, bullets, quotes, code
    blocks) as rich markup. rich.markdown would pull in markdown-it and Pygments (~0.4 s of cold
    start) for the same result on this subset."""
    import re

    from rich.markup import escape

    out: list[str] = []
    in_code = False
    for line in text.splitlines():
        if line.strip().startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            out.append("    [cyan]" + escape(line) + "[/cyan]")
            continue
        body = escape(line)
        # citation markers like [1] were escaped to \[1]; links need their brackets back
        body = re.sub(r"\\\[([^\]]+)\]\((https?://[^)\s]+)\)", r"[\1](\2)", body)
        for rx, repl in _INLINE:
            body = re.sub(rx, repl, body)
        if re.match(r"\s*[-*] ", line):
            body = re.sub(r"^(\s*)[-*] ", r"\1  • ", body)
        elif line.startswith(">"):
            body = "[dim]│[/dim] " + body.lstrip(">").lstrip()
        out.append(body)
    return "\n".join(out)


def _print(answer: Any) -> None:
    from rich.console import Console

    de = answer.language == "de"
    console = Console(highlight=False)
    if answer.summary:  # the short answer first (issue 26), the answer below is its details
        console.print(markdown_to_rich(answer.summary))
    if answer.understood:  # what was understood, before the answer computed from it
        from rich.markup import escape

        console.print(f"[dim]{escape(answer.understood)}[/]")
    if answer.notice:
        console.print(f"[yellow]{answer.notice}[/]")
    if answer.summary:
        console.print()
        console.print("[bold]Details[/]")
    console.print(markdown_to_rich(answer.answer))
    if answer.citations:
        console.print()
        console.print("[bold]Quellen[/]" if de else "[bold]Sources[/]")
        for c in answer.citations:
            console.print(
                f"  [{c.n}] {c.title} › {c.section}\n      [link={c.url}]{c.url}[/link]",
                markup=True,
                highlight=False,
            )
    if answer.prices:
        from assistant.texts import monthly

        console.print()
        console.print("[bold]Preise[/]" if de else "[bold]Prices[/]")
        for p in answer.prices:
            note = (" (Platzhalter)" if de else " (placeholder)") if p.placeholder else ""
            console.print(
                f"  {p.label}: {monthly(answer.language, p.usd_per_month)}{note}  {p.url}"
            )
    if answer.choices:
        console.print()
        console.print("[bold]Stattdessen wählen[/]" if de else "[bold]Or choose[/]")
        for c in answer.choices:
            sets = " ".join(f"--set {k}={v}" for k, v in c.reading.items())
            console.print(
                f"  • {c.label}  [dim]sizing ask --session {answer.session_id} {sets}[/]",
                highlight=False,
                soft_wrap=True,  # a command to copy stays on one line
            )
    if answer.follow_ups:
        console.print()
        console.print("[bold]Weiter fragen[/]" if de else "[bold]Ask next[/]")
        for f in answer.follow_ups:
            console.print(f"  • {f}")
    console.print()
    hint = "fortsetzen mit" if de else "continue with"
    adjust = "ändern mit" if de else "adjust with"
    console.print(
        f"[dim]session {answer.session_id} · {answer.mode} · {hint}: "
        f'sizing ask --session {answer.session_id} "…" · {adjust}: '
        f"sizing ask --session {answer.session_id} --set FIELD=VALUE[/]"
    )
