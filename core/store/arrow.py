"""pyarrow for the store's Arrow tables (LOAD FROM and COPY of a bulk batch, moves between
shards, upgrades), imported when first needed (importing it costs ~52 MB of RSS, measured) and
with the system allocator as its default memory pool.

pyarrow allocates with mimalloc by default, which keeps the memory its threads freed for their
next allocations: `python -m bot ingest` of 10,000 messages into a chat of 10,000 facts (the
chat's worker threads building each batch's tables) peaked at 457-460 MB in the importing
process against 437-438 MB with the system allocator (two runs each, alternated, 2026-12-07),
the processes together 618-621 against 597-599 MB (the bound is 600 MB, issue 14)."""

from __future__ import annotations

import threading
from typing import Any

_lock = threading.Lock()


def arrow() -> Any:
    """The pyarrow module, its default memory pool the system allocator."""
    import pyarrow as pa

    with _lock:
        if pa.default_memory_pool().backend_name != "system":
            pa.set_memory_pool(pa.system_memory_pool())
    return pa
