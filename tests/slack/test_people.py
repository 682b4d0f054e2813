"""Names from users.info through the real AsyncWebClient and the fake Slack: cached, and a
failure gives None (callers show the id) and is retried after a while, not on every message."""

from __future__ import annotations

from slack_sdk.web.async_client import AsyncWebClient

from bot.slack.people import PeopleCache, Person
from tests.slack.fake_slack_api import FakeSlack


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


async def test_names_are_cached_and_failures_retried_later(fake_slack: FakeSlack) -> None:
    client = AsyncWebClient(token="xoxb-test-token", base_url=fake_slack.api_url)
    clock = Clock()
    people = PeopleCache(ttl=3600, retry_after=60, clock=clock)
    fake_slack.add_user("U1", "Ana Silva", "ana")
    fake_slack.add_user("U2", "Bruno Costa", "Bruno Costa")
    fake_slack.fail_next("users.info", 500)

    assert await people.lookup(client, "U1") is None  # Slack failed: the caller shows the id
    assert await people.name(client, "U1") == "U1"
    clock.t += 61
    assert await people.lookup(client, "U1") == Person("Ana Silva", "ana")
    assert await people.name(client, "U2") == "Bruno Costa"
    assert (await people.lookup(client, "U2")) == Person("Bruno Costa")  # same name: no handle
    assert await people.name(client, "U9", fallback="someone") == "someone"  # user_not_found
    assert [p["user"] for p in fake_slack.api("users.info")] == ["U1", "U1", "U2", "U9"]
    clock.t += 3601
    await people.lookup(client, "U1")
    assert len(fake_slack.api("users.info")) == 5  # an hour later: asked again
