"""The Typer application that the command modules register on."""

from typing import Annotated

import typer

app = typer.Typer(
    name="sizing",
    help=(
        "gpuserver.io sizing assistant: fit, price, throughput, search the guides, ask, serve,"
        " eval."
    ),
    no_args_is_help=True,
    rich_markup_mode="rich",
    pretty_exceptions_enable=False,
)


@app.callback()
def main(
    verbose: Annotated[
        int,
        typer.Option(
            "--verbose",
            "-v",
            count=True,
            metavar="",
            help="log details on stderr (-v: info and full messages, -vv: debug, tracebacks)",
        ),
    ] = 0,
) -> None:
    """Global options (logging)."""
    from cli.logs import setup_logging

    setup_logging(verbose)
