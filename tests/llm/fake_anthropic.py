"""A small fake of the Anthropic Messages API for tests (aiohttp, 127.0.0.1, a free port).

Tests script the replies (`queue(...)`, or `default` when the queue is empty) and read back the
recorded requests. The real AsyncAnthropic client talks to it over HTTP, so the SDK's request
building, auth and error mapping are exercised, not mocked.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web


@dataclass
class Reply:
    """One scripted answer: a status, a body (JSON-able or raw text), headers, a delay."""

    status: int = 200
    body: Any = None
    raw: str | None = None  # sent as-is: garbage, truncated JSON
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


def _message(content: list[dict[str, Any]], stop_reason: str) -> dict[str, Any]:
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": "fake-model",
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 10},
    }


def text(value: str, *, stop_reason: str = "end_turn") -> Reply:
    return Reply(body=_message([{"type": "text", "text": value}], stop_reason))


def tool_use(name: str, tool_input: Any, *, stop_reason: str = "tool_use") -> Reply:
    block = {"type": "tool_use", "id": "toolu_fake", "name": name, "input": tool_input}
    return Reply(body=_message([block], stop_reason))


def garbage(value: str = "<html>502 Bad Gateway, or worse</html>") -> Reply:
    return Reply(raw=value, headers={"Content-Type": "text/html"})


def truncated_json() -> Reply:
    whole = json.dumps(tool_use("record_facts", {"triples": []}).body)
    return Reply(raw=whole[: len(whole) // 2], headers={"Content-Type": "application/json"})


def error(status: int, kind: str, *, headers: dict[str, str] | None = None) -> Reply:
    body = {"type": "error", "error": {"type": kind, "message": f"fake {kind}"}}
    return Reply(status=status, body=body, headers=headers or {})


def rate_limited(retry_after_s: float = 0.05) -> Reply:
    return error(429, "rate_limit_error", headers={"retry-after": str(retry_after_s)})


def overloaded() -> Reply:
    return error(529, "overloaded_error")


def server_error() -> Reply:
    return error(500, "api_error")


def slow(reply: Reply, delay_s: float) -> Reply:
    return Reply(reply.status, reply.body, reply.raw, dict(reply.headers), delay_s)


class FakeAnthropic:
    """Start with `await fake.start()`; `fake.url` is the SDK's base_url (no /v1)."""

    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self.replies: deque[Reply] = deque()
        self.default: Reply = text("ok")
        # when set, answers every request the queue does not (a scripted stand-in model)
        self.responder: Callable[[dict[str, Any]], Reply] | None = None
        self._runner: web.AppRunner | None = None
        self.url = ""

    def queue(self, *replies: Reply) -> None:
        self.replies.extend(replies)

    async def start(self) -> None:
        app = web.Application()
        app.router.add_post("/v1/messages", self._messages)
        # a short shutdown timeout: the default stalls cleanup for up to 60 s
        self._runner = web.AppRunner(app, shutdown_timeout=1)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = self._runner.addresses[0][1]
        self.url = f"http://127.0.0.1:{port}"

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def _messages(self, request: web.Request) -> web.StreamResponse:
        # this SDK version sends `Authorization: Bearer`; older ones `x-api-key`: accept either
        if not (request.headers.get("x-api-key") or request.headers.get("Authorization")):
            return web.json_response(
                {"type": "error", "error": {"type": "authentication_error", "message": "no key"}},
                status=401,
            )
        self.requests.append(Recorded(request.path, dict(request.headers), await request.json()))
        body = self.requests[-1].body
        if self.replies:
            reply = self.replies.popleft()
        else:
            reply = self.responder(body) if self.responder is not None else self.default
        if reply.delay_s:
            await asyncio.sleep(reply.delay_s)
        if reply.raw is not None:
            return web.Response(status=reply.status, text=reply.raw, headers=reply.headers)
        return web.json_response(reply.body, status=reply.status, headers=reply.headers)
