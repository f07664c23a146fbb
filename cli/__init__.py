"""The `sizing` command line. Each command group lives in its own module."""

from cli import ask_cmds, catalog_cmds, db_cmds, eval_cmds, knowledge_cmds, serve_cmds  # noqa: F401
from cli.app import app


def main() -> None:
    app()
