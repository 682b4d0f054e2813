"""Composition root: settings in, a wired Core out. The only place that reads settings."""

from __future__ import annotations

import logging
from datetime import timedelta

from bot.embedders import embedder_for
from bot.settings import Settings
from core.clock import SystemClock
from core.config import CoreConfig, RetrievalConfig
from core.errors import CoreError
from core.handoff import HandoffConfig, HandoffService, HandoffStore
from core.ports import Clock, Embedder, Llm
from core.recall import RecallConfig
from core.service import Core
from core.store.inbound_log import SqliteInboundLog
from core.store.pool import StorePool
from ontology import Ontology, load_ontology

log = logging.getLogger(__name__)


def build_embedder(settings: Settings) -> Embedder:
    return embedder_for(settings.embedding, settings.storage.data_dir)  # bot/embedders.py


def build_llm(settings: Settings, ontology: Ontology) -> Llm | None:
    a = settings.anthropic
    if a.api_key is None or not a.api_key.get_secret_value():
        log.info("no ANTHROPIC_API_KEY: offline extraction and extractive answers")
        return None
    try:
        from core.llm.anthropic_llm import AnthropicLlm
    except ImportError:  # pragma: no cover - the adapter ships with the package
        log.warning("LLM adapter unavailable: offline path")
        return None
    return AnthropicLlm(
        api_key=a.api_key.get_secret_value(),
        ontology=ontology,
        answer_model=a.answer_model,
        extract_model=a.extract_model,
        max_tokens=a.max_tokens,
        timeout_s=a.timeout_s,
        max_retries=a.max_retries,
        base_url=a.base_url,
        calls_per_minute=a.calls_per_minute,
    )


def world_overrides(settings: Settings) -> tuple[tuple[str, float], ...]:
    """WORLDS_* overrides of the constants Core calibrates on the model (unset: none)."""
    w = settings.worlds
    given = {
        "base": w.base_threshold,
        "step": w.maturity_step,
        "merge_similarity": w.merge_similarity,
        "continuity": w.continuity,
        "window_s": w.continuity_window_s,
        "entity_pull": w.entity_pull,
        "margin": w.question_margin,
    }
    return tuple((k, float(v)) for k, v in given.items() if v is not None)


def core_config(settings: Settings, model_name: str = "") -> CoreConfig:
    r = settings.retrieval
    return CoreConfig(
        **r.model_dump(include=set(RetrievalConfig.model_fields)),
        recall=RecallConfig(**r.model_dump(include=set(RecallConfig.model_fields))),
        world_mode=settings.worlds.mode,
        world_overrides=world_overrides(settings),
        calibration_dir=settings.storage.data_dir / "models",
    )


def build_handoff(settings: Settings, clock: Clock | None = None) -> HandoffService | None:
    """Hand-off to managers (issue 8): on only when some manager is configured, so no client
    is promised a follow-up nobody will see. Records live in <data_dir>/handoff.sqlite3."""
    h = settings.handoff
    if not h.telegram_manager_ids and not h.slack_channel:
        return None
    config = HandoffConfig(
        window=timedelta(minutes=h.window_minutes),
        resend_after=timedelta(minutes=h.resend_minutes),
        max_resends=h.max_resends,
    )
    store = HandoffStore(settings.storage.data_dir / "handoff.sqlite3")
    return HandoffService(store, clock=clock or SystemClock(), config=config)


def build_core(
    settings: Settings, *, embedder: Embedder | None = None, with_llm: bool = True
) -> Core:
    ontology = load_ontology(settings.storage.ontology_path)  # fails fast, naming the line
    embedder = embedder or build_embedder(settings)
    pool = StorePool(
        settings.storage.data_dir,
        dim=embedder.dim,
        model_name=embedder.model_name,
        shards=settings.storage.shards,
        max_open=settings.storage.max_open_chats,
        max_cached=settings.storage.max_cached_chats,
        max_open_burst=settings.storage.max_open_burst,
        buffer_pool_mb=settings.storage.buffer_pool_mb,
        idle_checkpoint_s=settings.storage.idle_checkpoint_seconds,
    )
    llm = build_llm(settings, ontology) if with_llm else None
    return Core(
        pool=pool,
        embedder=embedder,
        ontology=ontology,
        config=core_config(settings, embedder.model_name),
        llm=llm,
        handoff=build_handoff(settings),
        inbound=SqliteInboundLog(settings.storage.data_dir / "inbound.sqlite3"),
    )


__all__ = ["CoreError", "build_core", "build_embedder", "core_config"]
