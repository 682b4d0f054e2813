"""Primary keys of a shard's nodes (schema 4): INT64 hashes of chat-scoped ids.

No kuzu import: the upgrade of older shards (core/store/upgrade.py) and the shard
(core/store/shard.py) share these.
"""

from __future__ import annotations

import hashlib

# the chat tag of the seed rows (see ShardDb._seed): never a chat's, whose tags are 16 hex digits
SEED = "_seed"


def node_key(scoped: str) -> int:
    """The INT64 primary key of a chat-scoped id `<tag>:<id>` (or of the seed rows' SEED): 64
    bits of its hash, where schema 3 stored the string itself (4.1 MB of primary-key index
    for 1,000 messages against 3.06 MB: see core/store/shard.py). Two keys of a shard collide
    with a probability of ~n^2 / 2^65 for n rows (~3e-8 at a million), as unlikely as two
    chats' tags; every read filters on the chat as well, and every MERGE has the chat in its
    pattern, so a collision fails the write (a duplicated primary key) instead of rewriting
    the other chat's row (tests/core/test_shards.py). The hash is not keyed: ids an attacker
    could choose (an imported file's) are the operator's, message ids come from Telegram and
    Slack, and the others are random."""
    digest = hashlib.blake2b(scoped.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


SEED_KEY = node_key(SEED)
