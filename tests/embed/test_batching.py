"""How the engine groups windows into batches: each is padded to its longest row, so a batch may only hold
lengths close to its shortest (bench/embed_throughput.py measured 8 chunks/s cut by count alone, 51 cut by
length too, on 32-chunk calls)."""

from __future__ import annotations

import random

import pytest

from sentinel.embed.onnx import PAD_RATIO, length_batches


@pytest.mark.parametrize("batch", [1, 4, 32])
def test_every_index_once_no_batch_over_its_size_and_lengths_close_within_each(batch: int) -> None:
    lengths = [random.Random(seed).randint(3, 512) for seed in range(200)]
    batches = length_batches(lengths, batch)
    assert sorted(i for rows in batches for i in rows) == list(range(len(lengths)))
    for rows in batches:
        assert 1 <= len(rows) <= batch
        assert max(lengths[i] for i in rows) <= PAD_RATIO * min(lengths[i] for i in rows), rows


def test_a_call_of_mixed_lengths_is_not_one_padded_batch() -> None:
    # 32 windows as a request brings them: a few long, most short. One batch would pad 30 short rows to 500.
    lengths = [500, 480] + [40] * 30
    batches = length_batches(lengths, 32)
    assert [sorted(lengths[i] for i in rows) for rows in batches] == [[40] * 30, [480, 500]]
    padded = sum(len(rows) * max(lengths[i] for i in rows) for rows in batches)
    assert padded <= PAD_RATIO * sum(lengths)


def test_equal_lengths_fill_whole_batches() -> None:
    assert [len(rows) for rows in length_batches([128] * 70, 32)] == [32, 32, 6]
