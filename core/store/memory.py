"""glibc allocator settings for a process that opens and closes many Kùzu databases.

No kuzu import here: the CLI tunes the allocator before anything else loads.
"""

from __future__ import annotations

import contextlib
import ctypes
import os


def tune_allocator() -> None:
    """Process-wide glibc malloc settings for a process that opens and closes many Kùzu
    databases from worker threads. Call once at start-up, before threads start.

    Measured with bench/run.py's memory workload (30 chats, at most 4 databases open): with
    glibc's defaults (an arena per thread, a sliding mmap threshold) RSS ended at 705 MB and
    stayed at 332 MB after every database closed (base 261 MB); with two arenas and a fixed
    1 MiB mmap threshold, 618 MB and back to the base, 260 MB, at the same ingest time.
    MALLOC_ARENA_MAX / MALLOC_MMAP_THRESHOLD_ in the environment take precedence.
    """
    with contextlib.suppress(OSError, AttributeError):  # not glibc: nothing to tune
        libc = ctypes.CDLL("libc.so.6")
        if "MALLOC_ARENA_MAX" not in os.environ:
            libc.mallopt(-8, 2)  # M_ARENA_MAX
        if "MALLOC_MMAP_THRESHOLD_" not in os.environ:
            libc.mallopt(-3, 1 << 20)  # M_MMAP_THRESHOLD (fixed: no sliding up to 32 MiB)


def release_memory() -> None:
    """Give freed heap back to the OS after closing a database (glibc keeps it otherwise)."""
    with contextlib.suppress(OSError, AttributeError):  # not glibc
        ctypes.CDLL("libc.so.6").malloc_trim(0)
