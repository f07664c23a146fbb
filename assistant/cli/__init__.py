"""The `sizing` command line. Each command group lives in its own module."""

from assistant.cli.app import app
from assistant.cli import catalog_cmds, knowledge_cmds, ask_cmds, serve_cmds, eval_cmds  # noqa: F401


def main() -> None:
    app()
