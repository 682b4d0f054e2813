"""What keeps a large chat's import under its memory bound (issue 14, target 4): the vector
matrices grow by a quarter, not by doubling, and the store's Arrow tables are allocated by the
system allocator, which returns what a batch freed (pyarrow's mimalloc kept it)."""

from __future__ import annotations

import numpy as np

from core.index.vectors import VectorMatrix
from core.store.arrow import arrow
from core.store.staging import node_table


def test_a_matrix_grows_by_a_quarter_and_keeps_every_row() -> None:
    rng = np.random.default_rng(5)
    rows = rng.standard_normal((3000, 8)).astype(np.float32)
    m = VectorMatrix(8)
    for i, row in enumerate(rows):
        m.add(f"m{i}", row)
        assert len(m._data) <= 1.25 * (i + 1) + 16  # never twice what it holds
    assert np.array_equal(m.matrix, rows)
    assert all(np.array_equal(m.vector(f"m{i}"), rows[i]) for i in (0, 1234, 2999))
    m.remove({"m0", "m5"})
    m.add("m3000", rows[0])
    assert len(m) == 2999 and np.array_equal(m.vector("m3000"), rows[0])


def test_a_matrix_removes_rows_in_place_and_keeps_the_others_in_order() -> None:
    """Removal moves up the rows after the first one removed, in the buffer it has (the
    regrouping job removes a few entities at each move of a large chat), and gives the buffer
    back once most rows are gone."""
    rng = np.random.default_rng(7)
    rows = rng.standard_normal((2000, 8)).astype(np.float32)
    m = VectorMatrix(8)
    for i, row in enumerate(rows):
        m.add(f"m{i}", row)
    buffer = m._data
    gone = {"m3", "m1500", "m1999", "m77", "absent"}
    m.remove(gone)
    left = [i for i in range(2000) if f"m{i}" not in gone]
    assert m._data is buffer and len(m) == 1996
    assert m.ids == [f"m{i}" for i in left] and np.array_equal(m.matrix, rows[left])
    assert all(m.row(f"m{i}") == j for j, i in enumerate(left)) and "m3" not in m
    m.add("new", rows[3])  # into the room the removal left, where the next add goes
    assert m._data is buffer and m.row("new") == 1996 and np.array_equal(m.vector("new"), rows[3])
    m.remove({f"m{i}" for i in range(1900)})
    assert len(m._data) <= 1.25 * len(m) + 16  # given back
    assert m.ids == [f"m{i}" for i in left if i >= 1900] + ["new"]
    assert np.array_equal(m.matrix, np.vstack([rows[[i for i in left if i >= 1900]], rows[3:4]]))
    m.remove(set(m.ids))
    assert len(m) == 0 and m.matrix.shape == (0, 8)


def test_a_batch_table_comes_from_the_system_allocator() -> None:
    pa = arrow()
    pool = pa.system_memory_pool()
    before = pool.bytes_allocated()
    vec = np.ones(512, np.float32)
    table = node_table(
        [{"uid": i, "id": f"m{i}", "text": "x" * 200, "emb": vec} for i in range(500)]
    )
    assert table.num_rows == 500
    assert pa.default_memory_pool().backend_name == "system"
    assert pool.bytes_allocated() - before > 500 * 200  # the table's buffers are the pool's
