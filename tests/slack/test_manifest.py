"""The app manifest asks Slack for every event and scope the app relies on."""

from __future__ import annotations

from pathlib import Path

import pytest

import bot.slack

MANIFEST = Path(bot.slack.__file__).with_name("manifest.yml")


def test_the_manifest_subscribes_to_what_the_app_listens_for() -> None:
    yaml = pytest.importorskip("yaml")
    manifest = yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))
    events = set(manifest["settings"]["event_subscriptions"]["bot_events"])
    scopes = set(manifest["oauth_config"]["scopes"]["bot"])
    assert {"app_mention", "message.im", "message.channels", "message.groups"} <= events
    # overheard channel messages, hand-off members and names
    assert {"channels:history", "groups:history", "channels:read", "users:read"} <= scopes
    commands = {c["command"] for c in manifest["features"]["slash_commands"]}
    assert commands == {"/kb", "/leads"}
