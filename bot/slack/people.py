"""Who a Slack user id is (users.info, scope users:read), for people reading hand-off cards.

Names are cached per user id for an hour: a busy channel costs one lookup per person, not one
per message, and a renamed person is picked up later. A failed lookup gives None and callers
show the id, so a slow or refusing Slack never loses a hand-off; it is tried again after a
minute, not on every message (an app installed before it asked for users:read fails them all).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

log = logging.getLogger("bot.slack")

NAMES_TTL_S = 3600.0
RETRY_AFTER_S = 60.0
MAX_PEOPLE = 10_000  # the oldest entry goes first beyond this
LOOKUP_TIMEOUT_S = 3.0  # the lookup sits on the way to a reply: a slow one gives up


@dataclass(frozen=True)
class Person:
    name: str  # the real name, else the display name
    handle: str | None = None  # the display name, when it differs from `name`


def person_of(user: dict[str, Any]) -> Person | None:
    """A users.info `user` object as a Person; None when it carries no name at all."""
    profile = user.get("profile") or {}
    real = (profile.get("real_name") or user.get("real_name") or "").strip()
    display = (profile.get("display_name") or "").strip()
    name = real or display
    if not name:
        return None
    return Person(name=name, handle=display if display and display != name else None)


class PeopleCache:
    def __init__(
        self,
        *,
        ttl: float = NAMES_TTL_S,
        retry_after: float = RETRY_AFTER_S,
        timeout: float = LOOKUP_TIMEOUT_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ttl = ttl
        self.retry_after = retry_after
        self.timeout = timeout
        self.clock = clock
        self._known: dict[str, tuple[float, Person | None]] = {}  # id -> (until, person)

    async def lookup(self, client: AsyncWebClient, user: str) -> Person | None:
        """The person behind `user`, or None when Slack cannot say."""
        cached = self._known.get(user)
        if cached is not None and self.clock() < cached[0]:
            return cached[1]
        try:
            async with asyncio.timeout(self.timeout):
                resp = await client.users_info(user=user)
        except Exception as exc:  # the id will do
            reason = exc.response.get("error") if isinstance(exc, SlackApiError) else None
            log.warning("slack: users.info failed: %s", reason or type(exc).__name__)
            self._remember(user, None, self.retry_after)
            return None
        person = person_of(resp.get("user") or {})
        self._remember(user, person, self.ttl)
        return person

    def _remember(self, user: str, person: Person | None, ttl: float) -> None:
        self._known.pop(user, None)  # re-inserted last: the dict's order is the age
        if len(self._known) >= MAX_PEOPLE:
            del self._known[next(iter(self._known))]
        self._known[user] = (self.clock() + ttl, person)

    async def name(self, client: AsyncWebClient, user: str, *, fallback: str | None = None) -> str:
        """The person's name for people to read: the looked-up name, else `fallback`, else the id."""
        person = await self.lookup(client, user)
        return person.name if person is not None else fallback or user


async def may_erase(client: AsyncWebClient, channel: str, user: str) -> bool:
    """Whether `user` may make the bot forget things where they asked: anyone in a direct
    message (a channel id starting with D), else only a workspace admin or owner (users.info,
    asked every time: rights change; a failed lookup refuses). In a channel a name takes every
    message that names it, so any member, a client in a shared channel among them, could
    otherwise empty a company's answers ("forget price")."""
    if channel.startswith("D"):
        return True
    try:
        async with asyncio.timeout(LOOKUP_TIMEOUT_S):
            resp = await client.users_info(user=user)
    except Exception as exc:
        reason = exc.response.get("error") if isinstance(exc, SlackApiError) else None
        log.warning("slack: users.info failed, erasing refused: %s", reason or type(exc).__name__)
        return False
    who = resp.get("user") or {}
    return bool(who.get("is_admin") or who.get("is_owner") or who.get("is_primary_owner"))
