"""What a Slack request must pass before Bolt (or anything of ours) sees it.

Bolt verifies signatures inside its own middleware chain, but a malformed header (a
non-numeric `X-Slack-Request-Timestamp`) makes that check raise instead of refusing, and the
app's error handler then runs with a body nobody verified (its `response_url` and channel are
the attacker's choice). Bolt also parses the body before verifying it, so a bad body fails with
500. So the HTTP endpoint checks here first, on the raw bytes, and only a verified, well-formed
request reaches Bolt:

    unsigned / stale / malformed headers -> 401, nothing parsed, nothing called
    signed but not UTF-8 or not JSON     -> 400
    a delivery already seen (retry)      -> 200 at once, handled only the first time

Dedup (Slack re-delivers an event with `X-Slack-Retry-Num` when the ack was slow, and a signed
request can be replayed inside the five-minute window): events by `event_id`, slash commands
and interactions by `trigger_id`, which Slack makes unique per invocation.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import parse_qsl

MAX_CLOCK_SKEW_S = 5 * 60  # Slack's replay window
_TIMESTAMP_DIGITS = 12  # seconds since the epoch; anything longer is not a timestamp


def signature_ok(
    secret: str,
    headers: Mapping[str, str],
    body: bytes,
    *,
    now: Callable[[], float] = time.time,
) -> bool:
    """Whether `body` carries a valid v0 signature made within the replay window.

    Never raises: any missing or malformed header is simply a failed check.
    """
    stamp = headers.get("X-Slack-Request-Timestamp", "")
    signature = headers.get("X-Slack-Signature", "")
    if not secret or not stamp.isascii() or not stamp.isdigit() or len(stamp) > _TIMESTAMP_DIGITS:
        return False
    if abs(now() - int(stamp)) > MAX_CLOCK_SKEW_S:
        return False
    if not signature.isascii() or not signature.startswith("v0="):
        return False
    base = b"v0:" + stamp.encode() + b":" + body
    expected = "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, signature)


def parse_payload(text: str, content_type: str | None) -> dict[str, Any] | None:
    """The request as Bolt will read it, or None when it is not a well-formed Slack body.

    Mirrors slack_bolt.request.internals.parse_body: JSON bodies (events), form bodies
    (commands) and form bodies whose `payload` field is JSON (interactions).
    """
    try:
        if content_type == "application/json" or text.startswith("{"):
            parsed = json.loads(text)
        else:
            form = dict(parse_qsl(text, keep_blank_values=True))
            parsed = json.loads(form["payload"]) if "payload" in form else form
    except (ValueError, RecursionError):
        return None
    return parsed if isinstance(parsed, dict) else None


def delivery_key(payload: Mapping[str, Any]) -> str | None:
    """What makes one Slack delivery the same as another (None: nothing to dedup by)."""
    event_id = payload.get("event_id")
    if isinstance(event_id, str) and event_id:
        return f"event:{event_id}"
    trigger = payload.get("trigger_id")
    if isinstance(trigger, str) and trigger:
        return f"trigger:{trigger}"
    return None


class SeenDeliveries:
    """A bounded memory of recent delivery keys (Slack retries within minutes).

    In memory on purpose: a retry after a restart is handled again, which is what a lost
    first delivery needs; the durable inbound log keeps a message from being stored twice.
    """

    def __init__(self, *, ttl_s: float = 3600.0, max_keys: int = 50_000) -> None:
        self._ttl = ttl_s
        self._max = max_keys
        self._seen: OrderedDict[str, float] = OrderedDict()

    def first_time(self, key: str, *, now: float | None = None) -> bool:
        """Record `key`; True if it had not been seen within the TTL."""
        at = time.monotonic() if now is None else now
        while self._seen:
            oldest, when = next(iter(self._seen.items()))
            if at - when <= self._ttl and len(self._seen) < self._max:
                break
            del self._seen[oldest]
        if key in self._seen:
            return False
        self._seen[key] = at
        return True
