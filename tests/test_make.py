"""`make test` on a machine where another process holds the dpkg lock (issue 26): every apt-get
the Makefile runs waits for the lock (a timeout) instead of failing at once."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.skipif(shutil.which("make") is None, reason="no make")
def test_every_apt_get_waits_for_the_dpkg_lock() -> None:
    dry = subprocess.run(
        ["make", "-n", "browser-deps", "pg-deps", "APT_LOCK_WAIT_S=42"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    calls = re.findall(r"apt-get\b[^&|;)]*", dry.stdout)
    assert len(calls) == 4, dry.stdout  # update + install, for chromium and for postgresql
    assert all("-o DPkg::Lock::Timeout=42" in call for call in calls), calls
    default = re.search(r"^APT_LOCK_WAIT_S \?= (\d+)", (ROOT / "Makefile").read_text(), re.M)
    assert default and int(default.group(1)) >= 300
