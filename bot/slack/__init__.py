"""Slack front-end (slack-bolt AsyncApp): slash command, mentions, DMs, buttons.

Imports nothing at package import time so the composition root can skip Slack entirely when
no Slack token is configured.
"""
