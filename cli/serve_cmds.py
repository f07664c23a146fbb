"""Commands: `sizing serve` (the API, the chat widget and its demo page under uvicorn)."""

from __future__ import annotations

import errno
import json
import socket
from typing import Annotated

import typer

from cli.app import app

APP_IMPORT = "api.app:create_app"


def _port_problem(host: str, port: int) -> str | None:
    """A clear message when the address cannot be bound (in use, no permission, bad host)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        return f"cannot resolve host {host!r}: {exc.strerror}"
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return f"port {port} on {host} is already in use (try --port {port + 1})"
            if exc.errno == errno.EACCES:
                return f"no permission to listen on port {port} (use a port above 1023)"
            return f"cannot listen on {host}:{port}: {exc.strerror}"
    return None


@app.command()
def serve(
    host: Annotated[
        str | None, typer.Option(help="interface to listen on (default: SIZING_HOST or 127.0.0.1)")
    ] = None,
    port: Annotated[
        int | None,
        typer.Option(min=1, max=65535, help="port (default: SIZING_PORT or 8000)"),
    ] = None,
    workers: Annotated[int, typer.Option(min=1, help="uvicorn worker processes")] = 1,
    log_level: Annotated[str, typer.Option(help="uvicorn log level")] = "info",
    as_json: Annotated[
        bool,
        typer.Option("--json", metavar="", help="print the addresses as one JSON line, then serve"),
    ] = False,
) -> None:
    """Serve the HTTP API, the OpenAI-compatible endpoint and the chat widget's demo page."""
    from assistant.settings import Settings

    settings = Settings()
    host = host or settings.host
    port = port or settings.port
    problem = _port_problem(host, port)
    if problem:
        if as_json:
            typer.echo(json.dumps({"error": problem}))
        else:
            typer.secho(f"error: {problem}", fg=typer.colors.RED, err=True)
        raise typer.Exit(2)

    shown = f"[{host}]" if ":" in host else host
    base = f"http://{shown}:{port}"
    urls = {
        "demo": f"{base}/",
        "chat": f"{base}/api/chat",
        "openai": f"{base}/v1",
        "docs": f"{base}/docs",
        "metrics": f"{base}/metrics",
    }
    if as_json:
        typer.echo(json.dumps({"host": host, "port": port, "urls": urls}))
    else:
        typer.secho(f"sizing assistant on {base}/", fg=typer.colors.GREEN, bold=True)
        typer.echo(f"  widget demo  {urls['demo']}")
        typer.echo(f"  API docs     {urls['docs']}")
        typer.echo(f"  OpenAI base  {urls['openai']}  (model: sizing-assistant)")
        llm = settings.llm_enabled
        mode = f"LLM {settings.llm_model}" if llm else "offline (no OPENAI_API_KEY)"
        typer.echo(f"  mode         {mode}")

    import os

    import uvicorn

    from api.serving import raise_file_limit
    from cli.logs import server_log_config, setup_logging

    # the app factory (in each worker) reads the bind address: /metrics is public only on loopback
    os.environ["SIZING_HOST"] = host
    raise_file_limit()  # workers inherit it; the connection cap is set below it (api.serving)

    setup_logging(server=True)
    uvicorn.run(
        APP_IMPORT,
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level=log_level.lower(),
        log_config=server_log_config(),  # applied in each worker process, too
        # X-Forwarded-For is read by the app, from the right (SIZING_TRUSTED_PROXY_HOPS)
        proxy_headers=False,
        timeout_graceful_shutdown=5,
        # a header timeout and a connection cap below the open-file limit, read from SIZING_*
        # in each worker (api.serving)
        http="api.serving:GuardedHttp",
        timeout_keep_alive=settings.idle_timeout_s,  # type: ignore[arg-type]
    )
