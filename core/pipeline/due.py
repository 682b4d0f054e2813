"""When the regrouping job runs from the message path (issue 15), decided in the transaction
that stores the message, so that neither a restart nor a kill nor an import changes where a
chat's messages end up.

Two reasons, each measured on the tuning part of tests/fixtures/worlds2 with USE (purity /
cluster / worlds per topic, the stream read in order, with the job of core.regroup):

* young worlds: a message started a world and world_params.young_worlds worlds hold fewer
  than MIN_PART messages (live routing left fragments or strays): 0.887 / 0.964 / 2.33
  without, 0.970 / 0.977 / 1.58 with. Asked only after a message that started a world, so at
  most one run per new world;
* growth: the chat received world_params.growth_share (0.5) of the messages the job last saw,
  at least GROWTH_MIN, since it last ran. Live routing glues a topic switch into the previous
  world when the two topics are close (six messages on Python code, then six on a pet python,
  back to back: one world), no world is born, so the first rule never fires and the glued
  world waited for the scheduler; now it is split within GROWTH_MIN messages
  (tests/worlds/test_regroup.py). USE, tuning part: the same 0.970 / 0.977 / 1.58; first
  stream 0.986 / 1.000 / 1.25 -> 0.995 / 1.000 / 1.12. MiniLM, English: tuning part unchanged
  (0.927 / 0.881 / 1.50), first stream 0.877 / 0.904 / 1.62 -> 0.822 / 0.959 / 1.75 (less
  mixing, more fragments). A share of 0.25 gave the same with USE and worse MiniLM figures.
  Geometric, so its cost per message stays bounded: at the job's 2,000-message window one run
  per 1,000 messages.

What the counts rest on is kept with the chat, in one meta record (REGROUPED): the live
messages the job last saw, the sequence number of the chat's newest message then, and whether
a run is due. The record changes only when the job runs and when a run falls due (in the
transaction of the message that made it due), so a message costs no write of its own. Growth
counts the messages routed as messages; a stated fact (/remember, a fact line of an import)
and a message restored from an export are stored with their own message but never count,
read again after a restart as live (`routed_since`): until 2026-12-07 a restart counted every
message stored since the record, so three /remember facts between the first four messages
made the job run at the fourth message after a restart and not without one
(tests/worlds/test_regroup_due.py). A record written before then holds the chat's message
count where the sequence number is now: the same number in a chat that never forgot a
message. A run that a kill cut short is still due at the next start: the message's durable
record is finished only after the run (Ingest.remember), so the message is taken up again,
found stored, and the run is done then, before any later message is routed. An import
(core/pipeline/bulk.py) stops its batch at a message that makes the run due, runs it, and
goes on: the chat ends as if its lines had been sent one by one
(tests/worlds/test_regroup_due.py).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

from core.ports import GraphStore
from core.regroup import MIN_PART
from core.worlds import WorldParams

GROWTH_MIN = 2 * MIN_PART  # the smallest world the job can split in two
CHATS = 10_000  # chats whose counts are kept in memory (least recently used dropped)
REGROUPED = "regrouped"  # the chat's meta record: "<seen> <newest seq then> <due 0|1>"


@dataclass
class _Counts:
    seen: int  # live messages the job last saw
    since: int  # messages stored since it ran
    due: bool  # a run is due (recorded in the chat)


class RegroupDue:
    """Per chat: whether the regrouping job is due. Called from the chats' worker threads
    (each chat's calls are serialised by the store pool); the table itself is locked."""

    def __init__(self, params: WorldParams) -> None:
        self.params = params
        self._counts: OrderedDict[str, _Counts] = OrderedDict()
        self._lock = threading.Lock()

    def _get(self, store: GraphStore) -> tuple[_Counts, bool]:
        """(the chat's counts, whether they were just read from the chat's record)."""
        with self._lock:
            counts = self._counts.get(store.chat)
            if counts is not None:
                self._counts.move_to_end(store.chat)
                return counts, False
        seen, then, due = (int(x) for x in (store.meta(REGROUPED) or "0 0 0").split())
        counts = _Counts(seen, store.routed_since(then), bool(due))
        with self._lock:
            self._counts[store.chat] = counts
            while len(self._counts) > CHATS:
                self._counts.popitem(last=False)
        return counts, True

    def after_message(self, store: GraphStore, *, born: bool) -> bool:
        """A new message was just stored (in its transaction): whether the job is due now."""
        counts, read = self._get(store)
        counts.since += not read  # a fresh read counted it already
        if counts.due:
            return True
        p = self.params
        due = p.growth_share > 0 and counts.since >= max(GROWTH_MIN, p.growth_share * counts.seen)
        if not due and born and p.young_worlds > 0:
            young = sum(
                1 for w in store.worlds.values() if not w.merged_into and 0 < w.messages < MIN_PART
            )
            due = young >= p.young_worlds
        if due:
            counts.due = True
            self._record(store, counts)
        return due

    def known(self, chat: str) -> bool | None:
        """Whether a run is due, as far as the counts held here tell (None: not held; ask
        `pending` in the chat's worker). A message's own store call leaves its chat's counts
        here, so the message path needs no second call into the store to ask."""
        with self._lock:
            counts = self._counts.get(chat)
        return None if counts is None else counts.due

    def pending(self, store: GraphStore) -> bool:
        """Whether a run is due (a message already stored, or taken up again after a kill)."""
        return self._get(store)[0].due

    def ran(self, store: GraphStore, *, seen: int) -> None:
        """The job ran (in its transaction), having re-examined `seen` live messages."""
        counts, _ = self._get(store)
        counts.seen, counts.since, counts.due = seen, 0, False
        self._record(store, counts)

    def forget(self, chat: str) -> None:
        """The chat's counts are no longer known here (its data was removed or rolled back)."""
        with self._lock:
            self._counts.pop(chat, None)

    @staticmethod
    def _record(store: GraphStore, counts: _Counts) -> None:
        """Written when the job ran (nothing counted since) or a run fell due (the count no
        longer matters until it runs): the newest message is where counting starts again."""
        assert counts.due or counts.since == 0
        store.set_meta(REGROUPED, f"{counts.seen} {store.last_seq()} {int(counts.due)}")
