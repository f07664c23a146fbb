"""Errors the surfaces map to a client error (HTTP 422, exit code 2, a Slack ephemeral message)."""


class InvalidRequest(ValueError):
    """A request the assistant cannot take; `str(exc)` is a precise message for the user."""


class QuestionError(InvalidRequest):
    """The question is empty or too long."""


class UnknownSession(InvalidRequest):
    """A session id that names no stored conversation (or one with nothing to adjust)."""
