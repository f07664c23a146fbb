"""Socket Mode: the bot opens a WebSocket to Slack instead of receiving HTTP requests, for
workspaces (or machines) without a public URL. Needs an app-level token (`xapp-…`, scope
`connections:write`) in SLACK_APP_TOKEN.

In the API service `mount_slack` starts it in the background when SLACK_APP_TOKEN is set. Without
the HTTP service: `python -m api.slack.socket_mode` (builds the assistant and blocks).
"""

from __future__ import annotations

import logging
import threading

from slack_bolt import App
from slack_bolt.adapter.socket_mode import SocketModeHandler
from slack_sdk import WebClient

log = logging.getLogger("sizing.slack")


class SocketModeRunner:
    """Connects in a background thread (start-up never waits for Slack) and reconnects on its
    own (the SDK's auto-reconnect); `close()` on shutdown."""

    def __init__(self, app: App, app_token: str, web_client: WebClient) -> None:
        self.handler = SocketModeHandler(app, app_token=app_token, web_client=web_client)
        self.connected = threading.Event()
        self.error: Exception | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._connect, name="slack-socket-mode", daemon=True)
        self._thread.start()

    def _connect(self) -> None:
        try:
            self.handler.connect()
        except Exception as error:  # bad token, no network: the HTTP service keeps running
            self.error = error
            log.error("slack: Socket Mode could not connect: %s", error)
            return
        self.connected.set()
        log.info("slack: Socket Mode connected")

    def close(self) -> None:
        try:
            self.handler.close()
        except Exception as error:
            log.debug("slack: closing Socket Mode: %s", error)


def main() -> None:  # pragma: no cover - a thin process entry point
    """Run only the Slack bot over Socket Mode (no HTTP server)."""
    import sys

    from api.slack import build_slack_bot
    from assistant.deps import build_deps
    from assistant.service import Assistant
    from assistant.settings import Settings

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    settings = Settings()
    if settings.slack_app_token is None or settings.slack_bot_token is None:
        print("Socket Mode needs SLACK_BOT_TOKEN (xoxb-…) and SLACK_APP_TOKEN (xapp-…).")
        sys.exit(2)
    deps = build_deps(settings)
    bot = build_slack_bot(deps, Assistant(deps), settings)
    if bot is None:
        sys.exit(2)
    handler = SocketModeHandler(
        bot.app, app_token=settings.slack_app_token.get_secret_value(), web_client=bot.app.client
    )
    log.info("slack: Socket Mode bot running; Ctrl-C stops it")
    try:
        handler.start()
    except KeyboardInterrupt:
        handler.close()


if __name__ == "__main__":  # pragma: no cover
    main()
