"""The `sizing` command line. Each command group lives in its own module."""

from assistant.cli import ask_cmds, catalog_cmds, eval_cmds, knowledge_cmds, serve_cmds  # noqa: F401
from assistant.cli.app import app


def main() -> None:
    app()
