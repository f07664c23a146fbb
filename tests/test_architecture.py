"""The import rules of the README's Architecture section, checked on the source (lazy imports
inside functions included): `tools` <- `knowledge` <- `assistant` <- `api`, `evals`; `store`
(storage) imports nothing of the project and is used by `assistant` and `api`."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("tools", "store", "knowledge", "assistant", "api", "evals", "cli")

# what each package (or sub-package) may import from the project, besides itself
ALLOWED: dict[str, set[str]] = {
    "tools": set(),
    # storage works on plain rows and JSON: it knows nothing of answers, sessions' slots or
    # settings (assistant/sessions.py converts; the settings reach it through a Protocol)
    "store": set(),
    "knowledge": {"tools"},
    "assistant": {"tools", "knowledge", "store"},
    # the CLI is a surface: `sizing eval` / `sizing audit` run the evals package, `sizing serve`
    # the API; nothing imports it
    "cli": {"tools", "store", "knowledge", "assistant", "evals", "api"},
    "evals": {"tools", "knowledge", "assistant"},
    "api": {"tools", "store", "knowledge", "assistant"},
}


def _project_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        found.update(n.split(".")[0] for n in names if n.split(".")[0] in PACKAGES)
    return found


def _rule_for(path: Path) -> tuple[str, set[str]]:
    rel = path.relative_to(ROOT).as_posix()
    key = rel.split("/")[0]
    return key, ALLOWED[key] | {rel.split("/")[0]}


FILES = sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))


def test_every_package_has_sources() -> None:
    assert {p.relative_to(ROOT).parts[0] for p in FILES} == set(PACKAGES)


@pytest.mark.parametrize("package", PACKAGES)
def test_imports_go_one_way(package: str) -> None:
    wrong = []
    for path in FILES:
        if path.relative_to(ROOT).parts[0] != package:
            continue
        key, allowed = _rule_for(path)
        bad = _project_imports(path) - allowed
        if bad:
            wrong.append(f"{path.relative_to(ROOT)} ({key}) imports {sorted(bad)}")
    assert not wrong, "\n".join(wrong)


def test_no_two_packages_import_each_other() -> None:
    cycles = [(a, b) for a in ALLOWED for b in ALLOWED[a] if a != b and a in ALLOWED.get(b, set())]
    assert not cycles


def test_the_rule_catches_a_wrong_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from api.app import create_app\n    import assistant.deps\n")
    assert _project_imports(bad) == {"api", "assistant"}
