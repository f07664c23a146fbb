"""What the LLM sees of each tool: its OpenAI function schema, snapshotted so a change shows in
review. After a deliberate change: `pytest tests/test_tool_schemas.py --snapshot-update`."""

from __future__ import annotations

import json
from typing import Any

import pytest

from assistant.deps import Deps
from assistant.lc_tools import SEARCH_TOOL, ToolSession, build_tools, tool_schemas
from assistant.registry import REGISTRY
from assistant.settings import Settings


def _schemas() -> dict[str, dict[str, Any]]:
    deps = Deps(settings=Settings(), catalog=None, index=None)
    tools = build_tools(deps, ToolSession(language="en"))
    return {s["function"]["name"]: s for s in tool_schemas(tools)}


SCHEMAS = _schemas()


def test_every_registry_tool_and_the_search_tool_are_offered() -> None:
    assert set(SCHEMAS) == {*REGISTRY, SEARCH_TOOL}


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_tool_schema_snapshot(name: str, snapshot: Any) -> None:
    assert json.dumps(SCHEMAS[name], indent=2, sort_keys=True, ensure_ascii=False) == snapshot


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_tool_schema_is_a_usable_function(name: str) -> None:
    schema = SCHEMAS[name]
    assert schema["type"] == "function"
    function = schema["function"]
    assert len(function["description"]) >= 40, "the description is what the model reads"
    parameters = function["parameters"]
    assert parameters["type"] == "object"
    assert parameters["properties"], "a tool without parameters gives the model nothing to fill"
    for required in parameters.get("required", []):
        assert required in parameters["properties"]
    # the schema must be plain JSON (no Python objects) to go over the wire
    json.loads(json.dumps(schema))


def test_search_tool_schema_matches_its_arguments() -> None:
    parameters = SCHEMAS[SEARCH_TOOL]["function"]["parameters"]
    assert parameters["required"] == ["query"]
    assert set(parameters["properties"]) == {"query", "guide"}
