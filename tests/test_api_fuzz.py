"""Property-based API test (schemathesis): generated requests for every operation of the OpenAPI
spec against the real app; no request may end in a 5xx (issue 14, finding 6)."""

from __future__ import annotations

from typing import Any

import pytest

pytest.register_assert_rewrite("tests.server")

import schemathesis  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402

pytest_plugins = ["tests.server"]

pytestmark = pytest.mark.server

EXAMPLES_PER_OPERATION = 12


def test_no_generated_request_is_a_server_error(api_settings: Any, live_api_factory: Any) -> None:
    server = live_api_factory(api_settings(max_question_chars=300))
    schema = schemathesis.openapi.from_url(server.url + "/openapi.json")
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 9
    failures: list[str] = []
    for operation in operations:

        @given(case=operation.as_strategy())
        @settings(
            max_examples=EXAMPLES_PER_OPERATION,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        def run(case: Any) -> None:
            response = case.call(timeout=60)
            if response.status_code >= 500:
                failures.append(f"{case.method} {case.path}: {response.status_code} {case.body!r}")

        run()
    assert not failures, failures[:5]
