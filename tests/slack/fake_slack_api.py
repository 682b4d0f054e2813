"""A small fake of Slack's side for tests: Web API, response_url endpoint, Socket Mode socket.

Runs on 127.0.0.1 with a free port and records everything the bot sends, so tests assert on
real HTTP / websocket traffic produced by slack-bolt and slack-sdk.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from aiohttp import WSMsgType, web

T = TypeVar("T")

BOT_USER_ID = "UBOT"
TEAM_ID = "T1"


def at_least(n: int, items: list[T]) -> list[T]:
    """`items` once there are `n` of them, else an empty (falsy) list: for FakeSlack.wait_for."""
    return items if len(items) >= n else []


@dataclass
class ApiCall:
    method: str
    params: dict[str, Any]
    authorization: str


@dataclass
class FakeSlack:
    calls: list[ApiCall] = field(default_factory=list)
    users: dict[str, dict[str, Any]] = field(default_factory=dict)  # users.info: id -> user
    responses: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # (key, body)
    envelopes: list[dict[str, Any]] = field(default_factory=list)  # pushed after "hello"
    socket_received: list[dict[str, Any]] = field(default_factory=list)
    url: str = ""
    _fail: dict[str, list[int]] = field(default_factory=dict)
    _runner: web.AppRunner | None = None
    _sockets: list[web.WebSocketResponse] = field(default_factory=list)
    _ts: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _changed: asyncio.Event = field(default_factory=asyncio.Event)

    # -- lifecycle

    async def start(self) -> FakeSlack:
        app = web.Application()
        app.router.add_post("/api/{method}", self._api)
        app.router.add_get("/api/{method}", self._api)  # slack_sdk reads some methods by GET
        app.router.add_post("/response/{key}", self._response_url)
        app.router.add_get("/ws", self._websocket)
        # a short shutdown timeout: the default 60 s stalls cleanup on open keep-alives
        self._runner = web.AppRunner(app, shutdown_timeout=1)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = self._runner.addresses[0][1]
        self.url = f"http://127.0.0.1:{port}"
        return self

    async def close(self) -> None:
        for ws in self._sockets:
            await ws.close()
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def api_url(self) -> str:
        return f"{self.url}/api/"  # slack_sdk needs the trailing slash

    def response_url(self, key: str) -> str:
        return f"{self.url}/response/{key}"

    # -- test controls

    def add_user(
        self, user_id: str, real_name: str, display_name: str = "", *, admin: bool = False
    ) -> None:
        """Someone users.info knows (anyone else is user_not_found); `admin`: a workspace
        admin (users.info's is_admin)."""
        profile = {"real_name": real_name, "display_name": display_name}
        self.users[user_id] = {
            "id": user_id,
            "name": user_id.lower(),
            "profile": profile,
            "is_admin": admin,
        }

    def fail_next(self, method: str, status: int = 429) -> None:
        """Answer the next call of `method` with `status` (429 with Retry-After: 0)."""
        self._fail.setdefault(method, []).append(status)

    def api(self, method: str) -> list[dict[str, Any]]:
        return [c.params for c in self.calls if c.method == method]

    def responses_to(self, key: str) -> list[dict[str, Any]]:
        return [body for k, body in self.responses if k == key]

    async def wait_for(self, predicate: Callable[[], T], within: float = 10.0) -> T:
        """Wait until `predicate()` is truthy (the bot answers after acking) and return it."""
        async with asyncio.timeout(within):
            while not (result := predicate()):
                self._changed.clear()
                await self._changed.wait()
        return result

    def _record(self) -> None:
        self._changed.set()

    # -- handlers

    async def _api(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        if request.method == "GET":
            params: dict[str, Any] = dict(request.query)
        elif request.content_type == "application/json":
            params = await request.json()
        else:
            params = dict(await request.post())
        self.calls.append(ApiCall(method, params, request.headers.get("Authorization", "")))
        self._record()
        failures = self._fail.get(method)
        if failures:
            status = failures.pop(0)
            return web.json_response(
                {"ok": False, "error": "ratelimited"}, status=status, headers={"Retry-After": "0"}
            )
        return web.json_response(self._result(method, params))

    def _result(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        ts = f"1700000000.{next(self._ts):06d}"
        if method == "auth.test":
            return {
                "ok": True,
                "url": "https://test.slack.com/",
                "team": "Test",
                "team_id": TEAM_ID,
                "user": "graphmem",
                "user_id": BOT_USER_ID,
                "bot_id": "BBOT",
            }
        if method == "chat.postMessage":
            message = {"text": params.get("text"), "ts": ts, "user": BOT_USER_ID}
            return {"ok": True, "channel": params.get("channel"), "ts": ts, "message": message}
        if method == "chat.update":
            return {"ok": True, "channel": params.get("channel"), "ts": params.get("ts")}
        if method == "chat.postEphemeral":
            return {"ok": True, "message_ts": ts}
        if method == "users.info":
            user = self.users.get(str(params.get("user")))
            return {"ok": True, "user": user} if user else {"ok": False, "error": "user_not_found"}
        if method == "apps.connections.open":
            return {"ok": True, "url": f"ws://{self.url.removeprefix('http://')}/ws"}
        return {"ok": False, "error": "unknown_method"}

    async def _response_url(self, request: web.Request) -> web.Response:
        self.responses.append((request.match_info["key"], await request.json()))
        self._record()
        return web.Response(text="ok")  # what Slack answers on a response_url

    async def _websocket(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        self._sockets.append(ws)
        await ws.send_json(
            {"type": "hello", "num_connections": 1, "connection_info": {"app_id": "A1"}}
        )
        for envelope in self.envelopes:
            await ws.send_json(envelope)
        async for msg in ws:
            if msg.type == WSMsgType.TEXT:
                self.socket_received.append(json.loads(msg.data))
                self._record()
        return ws
