"""The Typer application that the command modules register on."""

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
