"""The Anthropic adapter of core.ports.Llm: the only module that imports the anthropic SDK.

Failure contract: every public method returns within `timeout_s` (plus any wait in the per-chat
budget queue) or raises core.errors.LlmUnavailable. Transient failures (timeouts, connection
errors, 408/409/429/5xx/529) are retried here with exponential backoff, honouring Retry-After,
while the deadline allows; the SDK's own retries are off so one loop owns the timing. Malformed
output (garbage, truncated JSON, a missing tool call, max_tokens cut-offs) is not retried: the
caller falls back offline now and its background job retries the message later.

Logging: failures at WARNING with the error class and status only. Message text, stored facts
and the API key are never logged (the SDK's own DEBUG logging may show requests: keep the
`anthropic` logger above DEBUG in production).
"""

from __future__ import annotations

import asyncio
import logging
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import anthropic
from anthropic.types import MessageParam, TextBlockParam, ToolChoiceToolParam, ToolParam
from pydantic import BaseModel, ConfigDict, ValidationError

from core.errors import LlmUnavailable
from core.llm import prompts
from core.llm.budget import CallBudget
from core.llm.schema import (
    INTENT_TOOL_DESCRIPTION,
    INTENT_TOOL_NAME,
    TOOL_DESCRIPTION,
    TOOL_NAME,
    IntentVerdict,
    MalformedOutput,
    intent_tool_schema,
    tool_input_schema,
    validate_intent,
    validate_triples,
)
from core.models import FactView, TripleIn
from ontology import Ontology

log = logging.getLogger(__name__)

BACKOFF_BASE_S = 0.5
BACKOFF_MAX_S = 8.0
TOPIC_MAX_TOKENS = 32  # a 1-4 word name; a small cap also bounds the cost of a runaway reply
INTENT_MAX_TOKENS = 256  # a verdict: a flag, a few wants, a number and two short strings
_RETRY_STATUSES = frozenset({408, 409, 429})  # plus every 5xx (529 = overloaded)
_CITATION = re.compile(r"([ \t]*)(\[\s*[fm]:[^\[\]]*\])")
_CITED_ID = re.compile(r"([fm]):\s*([^\s,;\[\]]+)")


@dataclass
class LlmReply:
    """What `answer` returns (core.ports.LlmAnswer): the text and the fact ids it cites."""

    text: str
    cited_fact_ids: list[str] = field(default_factory=list)
    cited_message_ids: list[str] = field(default_factory=list)


class _Block(BaseModel):
    model_config = ConfigDict(extra="ignore")

    type: str
    text: str | None = None
    name: str | None = None
    input: object = None


class _Reply(BaseModel):
    """The part of a Messages API response we use, validated: the SDK itself does not check."""

    model_config = ConfigDict(extra="ignore")

    content: list[_Block]
    stop_reason: str | None = None


def _ephemeral(text: str) -> list[TextBlockParam]:
    # tools and system come first in the cache prefix, so one breakpoint here caches both
    return [{"type": "text", "text": text, "cache_control": {"type": "ephemeral"}}]


def _api_root(base_url: str | None) -> str | None:
    # the SDK appends /v1/messages itself: a configured ".../v1" would yield /v1/v1/messages
    if not base_url:
        return None
    root = base_url.rstrip("/")
    return root[: -len("/v1")] if root.endswith("/v1") else root


def _retryable(exc: anthropic.APIStatusError) -> bool:
    # the API may say so explicitly (x-should-retry); otherwise the SDK's own policy
    hint = exc.response.headers.get("x-should-retry")
    if hint in ("true", "false"):
        return hint == "true"
    return exc.status_code in _RETRY_STATUSES or exc.status_code >= 500


def _retry_after(exc: anthropic.APIStatusError) -> float | None:
    headers = exc.response.headers
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        try:
            return max(float(headers[name]) * scale, 0.0)
        except (KeyError, ValueError):
            continue
    return None


def _describe(exc: BaseException) -> str:
    # class and status only: an error's str() may echo request content
    status = getattr(exc, "status_code", None)
    return f"{type(exc).__name__}" + (f" {status}" if status is not None else "")


def keep_known_citations(
    text: str, allowed: set[str], messages: set[str] | frozenset[str] = frozenset()
) -> tuple[str, list[str]]:
    """Drop citations of ids outside `allowed` (facts, [f:ID]) and `messages` (evidence
    messages, [m:ID]) from the text; return it with the kept fact ids."""
    return _keep_citations(text, allowed, messages)[:2]


def _keep_citations(
    text: str, facts: set[str], messages: set[str] | frozenset[str]
) -> tuple[str, list[str], list[str]]:
    kept: dict[str, list[str]] = {"f": [], "m": []}
    known = {"f": facts, "m": messages}

    def rewrite(match: re.Match[str]) -> str:
        ids = [(k, i) for k, i in _CITED_ID.findall(match.group(2)) if i in known[k]]
        for k, i in ids:
            if i not in kept[k]:
                kept[k].append(i)
        if not ids:
            return ""  # with its leading space: "X [f:bad]." -> "X."
        return match.group(1) + "".join(f"[{k}:{i}]" for k, i in dict.fromkeys(ids))

    return _CITATION.sub(rewrite, text).strip(), kept["f"], kept["m"]


def _clean_topic(text: str) -> str:
    line = next((ln for ln in text.splitlines() if ln.strip()), "")
    line = line.strip().strip("\"'`«»“”*#").rstrip(".!?:;,").strip()
    return " ".join(line.split()[:4])[:60].strip()


class AnthropicLlm:
    """core.ports.Llm on the Anthropic Messages API.

    `timeout_s` bounds a whole call, retries and backoff included; `max_retries` bounds the
    number of retries within it. `calls_per_minute` is the per-chat budget (see core.llm.budget:
    the chat is chosen with `budget_scope(chat)`); pass `budget` to share one between adapters.
    """

    def __init__(
        self,
        *,
        api_key: str,
        ontology: Ontology,
        answer_model: str,
        extract_model: str,
        max_tokens: int,
        timeout_s: float,
        max_retries: int,
        base_url: str | None = None,
        calls_per_minute: int = 30,
        budget: CallBudget | None = None,
    ) -> None:
        if not api_key:
            raise ValueError("AnthropicLlm needs an API key; without one use the offline path")
        self._ontology = ontology
        self._answer_model = answer_model
        self._extract_model = extract_model
        self._max_tokens = max_tokens
        self._timeout_s = timeout_s
        self._max_retries = max(max_retries, 0)
        self.budget = budget or CallBudget(calls_per_minute)
        self._client = anthropic.AsyncAnthropic(
            api_key=api_key, base_url=_api_root(base_url), max_retries=0, timeout=timeout_s
        )
        # built once: the same bytes on every call keep the prompt cache warm
        self._extract_system = _ephemeral(prompts.extract_system(ontology))
        self._answer_system = _ephemeral(prompts.ANSWER_SYSTEM)
        self._tool: ToolParam = {
            "name": TOOL_NAME,
            "description": TOOL_DESCRIPTION,
            "input_schema": tool_input_schema(ontology),
            "strict": True,
        }
        self._tool_choice: ToolChoiceToolParam = {
            "type": "tool",
            "name": TOOL_NAME,
            "disable_parallel_tool_use": True,
        }
        self._intent_system = _ephemeral(prompts.INTENT_SYSTEM)
        self._intent_tool: ToolParam = {
            "name": INTENT_TOOL_NAME,
            "description": INTENT_TOOL_DESCRIPTION,
            "input_schema": intent_tool_schema(),
            "strict": True,
        }
        self._intent_tool_choice: ToolChoiceToolParam = {
            "type": "tool",
            "name": INTENT_TOOL_NAME,
            "disable_parallel_tool_use": True,
        }

    @property
    def answer_model(self) -> str:
        return self._answer_model

    async def aclose(self) -> None:
        await self._client.close()

    async def extract(
        self, *, text: str, author: str, world_topic: str, known_entities: Sequence[str]
    ) -> list[TripleIn]:
        user = prompts.extract_user(
            text=text, author=author, world_topic=world_topic, known_entities=known_entities
        )
        reply = await self._call(
            "extract",
            model=self._extract_model,
            max_tokens=self._max_tokens,
            system=self._extract_system,
            tools=[self._tool],
            tool_choice=self._tool_choice,
            messages=[_user(user)],
        )
        call = _tool_call(reply, TOOL_NAME, "extract")
        try:
            return validate_triples(call.input, self._ontology)
        except MalformedOutput as exc:
            raise LlmUnavailable(f"extract: {exc}") from exc

    async def answer(
        self,
        *,
        question: str,
        language: str,
        facts: Sequence[FactView],
        paths: Sequence[Sequence[str]],
        evidence: Sequence[tuple[str, str]],
    ) -> LlmReply:
        user = prompts.answer_user(
            question=question, language=language, facts=facts, paths=paths, evidence=evidence
        )
        reply = await self._call(
            "answer",
            model=self._answer_model,
            max_tokens=self._max_tokens,
            system=self._answer_system,
            messages=[_user(user)],
        )
        text = _text_of(reply, "answer")
        if reply.stop_reason == "max_tokens":
            text += " …"  # still grounded, only cut short: better than no answer
        text, cited, cited_messages = _keep_citations(
            text, {f.id for f in facts}, {mid for mid, _ in evidence}
        )
        if not text:
            raise LlmUnavailable("answer: nothing left after removing unknown citations")
        return LlmReply(text=text, cited_fact_ids=cited, cited_message_ids=cited_messages)

    async def topic_name(self, *, texts: Sequence[str]) -> str:
        reply = await self._call(
            "topic",
            model=self._extract_model,
            max_tokens=min(self._max_tokens, TOPIC_MAX_TOKENS),
            system=prompts.TOPIC_SYSTEM,
            messages=[_user(prompts.topic_user(texts))],
        )
        topic = _clean_topic(_text_of(reply, "topic"))
        if not topic:
            raise LlmUnavailable("topic: empty topic name")
        return topic

    async def classify_intent(self, *, text: str, language: str) -> IntentVerdict:
        """Buying interest in one client message (optional on the port: see core.handoff)."""
        reply = await self._call(
            "intent",
            model=self._extract_model,
            max_tokens=min(self._max_tokens, INTENT_MAX_TOKENS),
            system=self._intent_system,
            tools=[self._intent_tool],
            tool_choice=self._intent_tool_choice,
            messages=[_user(prompts.intent_user(text=text, language=language))],
        )
        call = _tool_call(reply, INTENT_TOOL_NAME, "intent")
        try:
            return validate_intent(call.input)
        except MalformedOutput as exc:
            raise LlmUnavailable(f"intent: {exc}") from exc

    async def _call(self, purpose: str, **params: Any) -> _Reply:
        """One logical API call: the budget, then attempts until success or the deadline."""
        await self.budget.acquire()
        try:
            async with asyncio.timeout(self._timeout_s):
                return await self._attempts(purpose, params)
        except TimeoutError as exc:
            log.warning("LLM %s call gave up after %.1fs", purpose, self._timeout_s)
            raise LlmUnavailable(f"{purpose}: no reply within {self._timeout_s:g}s") from exc

    async def _attempts(self, purpose: str, params: dict[str, Any]) -> _Reply:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._timeout_s
        attempt = 0
        while True:
            retry_after: float | None = None
            try:
                raw = await self._client.messages.with_raw_response.create(
                    **params, timeout=max(deadline - loop.time(), 0.001)
                )
                return _parse(await raw.json(), purpose)
            except anthropic.APIConnectionError as exc:  # includes APITimeoutError
                failure: Exception = exc
            except anthropic.APIStatusError as exc:
                if not _retryable(exc):
                    log.warning("LLM %s call failed: %s (not retried)", purpose, _describe(exc))
                    raise LlmUnavailable(f"{purpose}: {_describe(exc)}") from exc
                retry_after, failure = _retry_after(exc), exc
            except (anthropic.AnthropicError, ValueError) as exc:  # ValueError: a non-JSON body
                log.warning("LLM %s call failed: %s", purpose, _describe(exc))
                raise LlmUnavailable(f"{purpose}: malformed reply ({_describe(exc)})") from exc
            attempt += 1
            backoff = min(BACKOFF_BASE_S * 2 ** (attempt - 1), BACKOFF_MAX_S)
            delay = retry_after if retry_after is not None else backoff * random.uniform(0.75, 1)
            if attempt > self._max_retries or loop.time() + delay >= deadline:
                log.warning(
                    "LLM %s call failed: %s after %d attempt(s)",
                    purpose,
                    _describe(failure),
                    attempt,
                )
                raise LlmUnavailable(f"{purpose}: {_describe(failure)}") from failure
            log.warning(
                "LLM %s call failed: %s; retry %d/%d in %.2fs",
                purpose,
                _describe(failure),
                attempt,
                self._max_retries,
                delay,
            )
            await asyncio.sleep(delay)


def _parse(body: object, purpose: str) -> _Reply:
    try:
        return _Reply.model_validate(body)
    except ValidationError as exc:
        log.warning("LLM %s call returned a reply of the wrong shape", purpose)
        raise LlmUnavailable(f"{purpose}: reply is not a message") from exc


def _user(text: str) -> MessageParam:
    return {"role": "user", "content": text}


def _tool_call(reply: _Reply, name: str, purpose: str) -> _Block:
    """The forced tool call; a cut-off (truncated input) or a missing call is unavailable."""
    if reply.stop_reason == "max_tokens":
        raise LlmUnavailable(f"{purpose}: output cut at max_tokens (truncated tool input)")
    call = next((b for b in reply.content if b.type == "tool_use" and b.name == name), None)
    if call is None:
        raise LlmUnavailable(f"{purpose}: no {name} call (stop: {reply.stop_reason})")
    return call


def _text_of(reply: _Reply, purpose: str) -> str:
    if reply.stop_reason == "refusal":
        raise LlmUnavailable(f"{purpose}: the model refused")
    text = "".join(b.text or "" for b in reply.content if b.type == "text").strip()
    if not text:
        raise LlmUnavailable(f"{purpose}: no text in the reply")
    return text
