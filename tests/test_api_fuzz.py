"""Property-based API test (schemathesis): generated requests for every operation of the OpenAPI
spec against the real app; no request may end in a 5xx, and every response must be one the spec
documents: its status code, content type, headers and body schema (issue 14, finding 6)."""

from __future__ import annotations

from typing import Any

import pytest

pytest.register_assert_rewrite("tests.server")

import schemathesis  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from schemathesis.checks import (  # noqa: E402
    content_type_conformance,
    negative_data_rejection,
    not_a_server_error,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from schemathesis.core.failures import FailureGroup  # noqa: E402

pytest_plugins = ["tests.server"]

pytestmark = pytest.mark.server

EXAMPLES_PER_OPERATION = 12

# What every response is checked for. `positive_data_acceptance` is left out on purpose: limits
# that come from settings (the question length) or from the data (an unknown card id, a
# message_id that was never issued) are documented 404/422s, not schema constraints.
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    negative_data_rejection,
]


def _failure(case: Any, response: Any, group: FailureGroup) -> str:
    titles = "; ".join(sorted({getattr(e, "title", type(e).__name__) for e in group.exceptions}))
    # what was sent and what broke, so a failure found by chance can be reproduced
    details = "; ".join(str(e)[:400] for e in group.exceptions)
    sent = f"{case.body!r:.300}"
    head = f"{case.method} {case.path}: {response.status_code} {titles}"
    return f"{head}\n  body: {sent}\n  {details}"


def test_generated_requests_conform_to_the_spec(api_settings: Any, live_api_factory: Any) -> None:
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
            try:
                case.validate_response(response, checks=CHECKS)
            except FailureGroup as exc:
                failures.append(_failure(case, response, exc))

        run()
    assert not failures, "\n".join(sorted(set(failures)))
