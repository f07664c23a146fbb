"""The LLM client for LLM mode: LangChain `ChatOpenAI` over any OpenAI-compatible server.

Built once from Settings at the edge (`assistant.deps.build_deps`) and carried in `Deps.llm`.
Works with OpenAI, vLLM, llama.cpp server, Ollama and anything else that speaks
`/v1/chat/completions` with tool calling.

Choices:
- `max_tokens` is always sent. langchain-openai renames its own `max_tokens` field to
  `max_completion_tokens`, which vLLM, llama.cpp and Ollama ignore (or reject); so the limit goes
  through `extra_body`, which the openai client merges into the JSON body unchanged.
  `SIZING_LLM_TOKEN_PARAM=max_completion_tokens` (OpenAI reasoning models) or `both` switch it.
- Timeouts and retries are bounded (`SIZING_LLM_TIMEOUT_S`, `SIZING_LLM_MAX_RETRIES`); the openai
  client retries connection errors, timeouts, 408/409/429 and 5xx with backoff.
- Chat Completions only (never the Responses API): that is what compatible servers implement.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from assistant.settings import Settings

if TYPE_CHECKING:
    from langchain_openai import ChatOpenAI


class LLMConfigError(ValueError):
    """The LLM settings are unusable (message names the setting)."""


def token_limit_fields(settings: Settings) -> dict[str, Any]:
    """The `extra_body` that carries the output-token limit, per `llm_token_param`."""
    n = settings.llm_max_tokens
    if settings.llm_token_param == "max_tokens":
        return {"max_tokens": n}
    if settings.llm_token_param == "max_completion_tokens":
        return {"max_completion_tokens": n}
    return {"max_tokens": n, "max_completion_tokens": n}


def build_llm(settings: Settings) -> ChatOpenAI | None:
    """The ChatOpenAI client for these settings, or None when no API key is configured.

    Local servers (llama.cpp, Ollama, vLLM) accept any key: set OPENAI_API_KEY to anything.
    """
    if settings.openai_api_key is None:
        return None
    if settings.llm_max_tokens < 1:
        raise LLMConfigError("SIZING_LLM_MAX_TOKENS must be at least 1")
    if settings.llm_timeout_s <= 0:
        raise LLMConfigError("SIZING_LLM_TIMEOUT_S must be positive")
    if settings.llm_max_retries < 0:
        raise LLMConfigError("SIZING_LLM_MAX_RETRIES must be 0 or more")
    if settings.openai_base_url is not None and not settings.openai_base_url.startswith(
        ("http://", "https://")
    ):
        url = settings.openai_base_url
        raise LLMConfigError(f"OPENAI_BASE_URL must start with http:// or https:// (got {url!r})")

    from langchain_openai import ChatOpenAI

    kwargs: dict[str, Any] = {
        "model": settings.llm_model,
        "api_key": settings.openai_api_key,
        "timeout": settings.llm_timeout_s,
        "max_retries": settings.llm_max_retries,
        "extra_body": token_limit_fields(settings),
        "streaming": settings.llm_streaming,
        "use_responses_api": False,
        # many compatible servers reject stream_options.include_usage
        "stream_usage": False,
    }
    if settings.openai_base_url:
        kwargs["base_url"] = settings.openai_base_url
    if settings.llm_temperature is not None:
        kwargs["temperature"] = settings.llm_temperature
    return ChatOpenAI(**kwargs)


def describe_llm(settings: Settings) -> dict[str, Any]:
    """What LLM mode talks to (for `--json` status output and logs); never includes the key."""
    return {
        "enabled": settings.openai_api_key is not None,
        "model": settings.llm_model,
        "base_url": settings.openai_base_url or "https://api.openai.com/v1",
        "max_tokens": settings.llm_max_tokens,
        "token_param": settings.llm_token_param,
        "timeout_s": settings.llm_timeout_s,
        "max_retries": settings.llm_max_retries,
        "streaming": settings.llm_streaming,
    }
