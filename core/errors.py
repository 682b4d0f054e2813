"""The core's errors. Front-ends map them to friendly replies in one place."""

from __future__ import annotations


class CoreError(Exception):
    """Base of every error the core raises on purpose."""


class InvalidInput(CoreError):
    """The user's input cannot be used (empty, too long, malformed)."""


class NotFound(CoreError):
    """A named thing (entity, pending fact, trace) does not exist in this chat."""


class LlmUnavailable(CoreError):
    """The LLM failed after retries (timeout, overload, garbage); callers fall back offline."""


class StoreError(CoreError):
    """The graph store failed; nothing partial was committed."""
