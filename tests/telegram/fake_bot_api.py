"""A small fake Telegram Bot API server (aiohttp) for end-to-end tests of the front-end.

It listens on 127.0.0.1 on a free port, records every request, serves the methods the bot uses,
long-polls getUpdates from a queue the test fills, and can be told to answer 429 retry_after.
Like Telegram it takes form fields (multipart when a file is sent), checks the token in the
path, and filters updates by the allowed_updates of the last getUpdates/setWebhook.
"""

from __future__ import annotations

import asyncio
import html
import itertools
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import BodyPartReader, web

TOKEN = "123456:TEST-token_for_the_fake_bot_api_0000"
BOT_ID = 123456
BOT_USERNAME = "graphmem_test_bot"
JSON_FIELDS = {"reply_markup", "allowed_updates", "commands", "reply_parameters", "entities"}


@dataclass
class Call:
    method: str
    params: dict[str, Any]
    files: dict[str, tuple[str, bytes]] = field(default_factory=dict)  # name -> (filename, data)
    at: float = field(default_factory=time.monotonic)
    result: Any = None  # what the fake answered (the sent Message for send* methods)

    @property
    def visible_text(self) -> str:
        return visible(self.params.get("text", ""), self.params.get("parse_mode"))


class FakeBotAPI:
    def __init__(self, *, token: str = TOKEN) -> None:
        self.token = token
        self.calls: list[Call] = []
        self.members: dict[tuple[int, int], str] = {}  # (chat, user) -> status
        self.chats: dict[int, dict[str, Any]] = {}
        self._updates: list[dict[str, Any]] = []
        self._update_ids = itertools.count(1)
        self._message_ids = itertools.count(1000)
        self._changed = asyncio.Condition()
        self._flood: dict[str, list[int]] = {}  # method -> retry_after values still to serve
        self._allowed: list[str] | None = None
        self._runner: web.AppRunner | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._closing = False
        self.base_url = ""

    # -- lifecycle -------------------------------------------------------------------------

    async def start(self) -> str:
        app = web.Application()
        app.router.add_post("/bot{token}/{method}", self._handle)
        # No access log: it would print the token in every request path.
        self._runner = web.AppRunner(app, shutdown_timeout=1, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.base_url = f"http://127.0.0.1:{port}"
        return self.base_url

    async def stop(self) -> None:
        # End pending long polls now rather than waiting out the shutdown timeout.
        self._closing = True
        await self._notify()
        if self._runner is not None:
            await self._runner.cleanup()

    # -- what tests feed in ----------------------------------------------------------------

    def push(self, update: dict[str, Any]) -> int:
        """Queue an update (update_id assigned here) for the next getUpdates."""
        update_id = next(self._update_ids)
        self._updates.append({"update_id": update_id, **update})
        task = asyncio.get_running_loop().create_task(self._notify())
        self._tasks.add(task)  # keep a reference until done, or the task may be collected
        task.add_done_callback(self._tasks.discard)
        return update_id

    def redeliver(self, update: dict[str, Any]) -> None:
        """Queue an update again with its own update_id, as Telegram does with one whose
        offset was never confirmed."""
        self._updates.append(update)
        task = asyncio.get_running_loop().create_task(self._notify())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def message_update(
        self,
        chat_id: int,
        text: str,
        *,
        user_id: int = 1,
        chat_type: str = "private",
        first_name: str = "Ana",
        language_code: str = "en",
        entities: list[dict[str, Any]] | None = None,
        reply_to: dict[str, Any] | None = None,
        thread_id: int | None = None,
    ) -> dict[str, Any]:
        """A `message` update as Telegram would send it (bot commands get their entity)."""
        chat: dict[str, Any] = {"id": chat_id, "type": chat_type}
        if chat_type == "private":
            chat["first_name"] = first_name
        else:
            chat["title"] = f"group {chat_id}"
        self.chats[chat_id] = chat
        message: dict[str, Any] = {
            "message_id": next(self._message_ids),
            "date": int(time.time()),
            "chat": chat,
            "from": {
                "id": user_id,
                "is_bot": False,
                "first_name": first_name,
                "language_code": language_code,
            },
            "text": text,
        }
        if entities is None and text.startswith("/"):
            entities = [{"type": "bot_command", "offset": 0, "length": len(text.split()[0])}]
        if entities:
            message["entities"] = entities
        if reply_to is not None:
            message["reply_to_message"] = reply_to
        if thread_id is not None:
            message["message_thread_id"] = thread_id
            message["is_topic_message"] = True
        return {"message": message}

    def send_text(self, chat_id: int, text: str, **kwargs: Any) -> int:
        return self.push(self.message_update(chat_id, text, **kwargs))

    def press(self, call: Call, data: str, *, user_id: int = 1) -> int:
        """Press an inline button on the message the bot sent in `call`."""
        sent = call.result
        return self.push(
            {
                "callback_query": {
                    "id": str(next(self._update_ids)),
                    "from": {"id": user_id, "is_bot": False, "first_name": "Ana"},
                    "chat_instance": "ci",
                    "message": sent,
                    "data": data,
                }
            }
        )

    def flood(self, method: str, *retry_after: int) -> None:
        """Answer the next calls of `method` with 429 and these retry_after values."""
        self._flood.setdefault(method, []).extend(retry_after)

    # -- what tests read back --------------------------------------------------------------

    def of(self, method: str) -> list[Call]:
        return [c for c in self.calls if c.method == method]

    def texts(self, chat_id: int | None = None) -> list[str]:
        return [
            c.params["text"]
            for c in self.of("sendMessage")
            if chat_id is None or int(c.params["chat_id"]) == chat_id
        ]

    async def wait_for(
        self,
        method: str,
        predicate: Callable[[Call], bool] = lambda c: True,
        *,
        count: int = 1,
        timeout: float = 15.0,  # noqa: ASYNC109 - a test helper's deadline
    ) -> list[Call]:
        """Wait until `count` calls of `method` match `predicate`; return them."""
        async with asyncio.timeout(timeout):
            async with self._changed:
                while True:
                    found = [c for c in self.of(method) if predicate(c)]
                    if len(found) >= count:
                        return found
                    await self._changed.wait()

    # -- the server ------------------------------------------------------------------------

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    async def _handle(self, request: web.Request) -> web.Response:
        if request.match_info["token"] != self.token:
            return _error(401, "Unauthorized")
        method = request.match_info["method"]
        params, files = await _read_params(request)
        call = Call(method, params, files)
        self.calls.append(call)
        await self._notify()
        if retry := self._flood.get(method):
            wait = retry.pop(0)
            return web.json_response(
                {
                    "ok": False,
                    "error_code": 429,
                    "description": f"Too Many Requests: retry after {wait}",
                    "parameters": {"retry_after": wait},
                },
                status=429,
            )
        handler = getattr(self, f"_m_{method}", None)
        if handler is None:
            return _error(404, "Not Found: method not found")
        result = await handler(params)
        if isinstance(result, web.Response):
            return result
        call.result = result
        return web.json_response({"ok": True, "result": result})

    def _me(self) -> dict[str, Any]:
        return {
            "id": BOT_ID,
            "is_bot": True,
            "first_name": "GraphMem",
            "username": BOT_USERNAME,
            "can_join_groups": True,
            "can_read_all_group_messages": True,
            "supports_inline_queries": False,
        }

    def _sent(self, params: dict[str, Any], **content: Any) -> dict[str, Any]:
        chat_id = int(params["chat_id"])
        message = {
            "message_id": next(self._message_ids),
            "date": int(time.time()),
            "chat": self.chats.get(chat_id, {"id": chat_id, "type": "private", "first_name": "x"}),
            "from": self._me(),
            **content,
        }
        if "reply_markup" in params:
            message["reply_markup"] = params["reply_markup"]
        return message

    async def _m_getMe(self, params: dict[str, Any]) -> Any:
        return self._me()

    async def _m_getUpdates(self, params: dict[str, Any]) -> Any:
        offset = int(params.get("offset", 0))
        timeout = float(params.get("timeout", 0))
        if "allowed_updates" in params:
            self._allowed = params["allowed_updates"] or None
        # Telegram forgets everything below the offset: those updates are confirmed.
        self._updates = [u for u in self._updates if u["update_id"] >= offset]
        deadline = time.monotonic() + timeout
        async with self._changed:
            while not self._deliverable() and time.monotonic() < deadline and not self._closing:
                try:
                    async with asyncio.timeout(deadline - time.monotonic()):
                        await self._changed.wait()
                except TimeoutError:
                    break
        return self._deliverable()

    def _deliverable(self) -> list[dict[str, Any]]:
        if self._allowed:
            # Like Telegram: an update type the bot did not ask for is dropped, not delivered.
            self._updates = [u for u in self._updates if _kind(u) in self._allowed]
        return list(self._updates)

    async def _m_sendMessage(self, params: dict[str, Any]) -> Any:
        if error := _check_text(params):
            return error
        return self._sent(params, text=visible(params["text"], params.get("parse_mode")))

    async def _m_sendDocument(self, params: dict[str, Any]) -> Any:
        return self._sent(
            params,
            document={"file_id": "doc1", "file_unique_id": "u1", "file_name": "graph.json"},
            caption=params.get("caption"),
        )

    async def _m_editMessageText(self, params: dict[str, Any]) -> Any:
        if error := _check_text(params):
            return error
        return self._sent(params, text=visible(params["text"], params.get("parse_mode")))

    async def _m_editMessageReplyMarkup(self, params: dict[str, Any]) -> Any:
        return self._sent(params, text="(edited)")

    async def _m_getChatMember(self, params: dict[str, Any]) -> Any:
        chat_id, user_id = int(params["chat_id"]), int(params["user_id"])
        status = self.members.get((chat_id, user_id), "member")
        user = {"id": user_id, "is_bot": False, "first_name": "Ana"}
        if status == "creator":
            return {"status": "creator", "user": user, "is_anonymous": False}
        if status == "administrator":
            flags = [
                "can_be_edited",
                "is_anonymous",
                "can_manage_chat",
                "can_delete_messages",
                "can_manage_video_chats",
                "can_restrict_members",
                "can_promote_members",
                "can_change_info",
                "can_invite_users",
                "can_post_stories",
                "can_edit_stories",
                "can_delete_stories",
                "can_send_welcome_messages",
            ]
            return {"status": "administrator", "user": user, **dict.fromkeys(flags, False)}
        return {"status": "member", "user": user}

    async def _m_setWebhook(self, params: dict[str, Any]) -> Any:
        self._allowed = params.get("allowed_updates") or None
        return True

    async def _ok(self, params: dict[str, Any]) -> Any:
        return True

    _m_sendChatAction = _ok
    _m_answerCallbackQuery = _ok
    _m_setMyCommands = _ok
    _m_deleteWebhook = _ok


def visible(text: str, parse_mode: str | None) -> str:
    """The text a user sees: HTML tags removed and entities decoded when parse_mode is HTML."""
    if parse_mode != "HTML":
        return text
    if re.search(r"<(?!/?(b|i|u|s|code|pre|a)\b)", text) or re.search(
        r"&(?!(amp|lt|gt|quot);)", text
    ):
        raise ValueError("bad HTML")  # an unescaped < or & that Telegram would refuse
    return html.unescape(re.sub(r"</?[a-z]+[^>]*>", "", text))


def _check_text(params: dict[str, Any]) -> web.Response | None:
    """Telegram's checks: text present, valid markup, at most 4096 UTF-16 units when shown."""
    text = params.get("text", "")
    try:
        shown = visible(text, params.get("parse_mode"))
    except ValueError:
        return _error(400, "Bad Request: can't parse entities")
    if not shown.strip():
        return _error(400, "Bad Request: message text is empty")
    if len(shown.encode("utf-16-le")) // 2 > 4096:
        return _error(400, "Bad Request: message is too long")
    return None


def _kind(update: dict[str, Any]) -> str:
    return next(k for k in update if k != "update_id")


def _error(status: int, description: str) -> web.Response:
    return web.json_response(
        {"ok": False, "error_code": status, "description": description}, status=status
    )


async def _read_params(request: web.Request) -> tuple[dict[str, Any], dict[str, Any]]:
    """Form fields (urlencoded or multipart) -> values; JSON-typed fields decoded."""
    params: dict[str, Any] = {}
    files: dict[str, tuple[str, bytes]] = {}
    if request.content_type == "multipart/form-data":
        reader = await request.multipart()
        async for part in reader:
            if not isinstance(part, BodyPartReader) or part.name is None:
                continue
            if part.filename:
                files[part.name] = (part.filename, bytes(await part.read()))
            else:
                params[part.name] = await part.text()
    else:
        params.update(await request.post())
    for key in JSON_FIELDS & params.keys():
        params[key] = json.loads(params[key])
    # aiogram uploads a file under a random part name and sets the field to "attach://<name>".
    for key, value in list(params.items()):
        if isinstance(value, str) and value.startswith("attach://"):
            files[key] = files.pop(value.removeprefix("attach://"))
    return params, files
