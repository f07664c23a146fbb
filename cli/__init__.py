"""The `sizing` command line. Each command group lives in its own module."""

from cli import (  # noqa: F401
    ask_cmds,
    catalog_cmds,
    db_cmds,
    eval_cmds,
    feedback_cmds,
    knowledge_cmds,
    serve_cmds,
)
from cli.app import app


def main() -> None:
    app()
