"""6.2 sight made cheaper (issue 15, round 6) gives what the plain code path gives.

Each shortcut is pinned against the code it replaced (kept here as the reference), on real
ground and real battles' positions: the grouping of ``los.visible_many``'s lines a run of
equal sample counts at a time, ...
"""

from __future__ import annotations

import numpy as np
import pytest

from scenario_builder import los
from scenario_builder.build import build_site


def _groups_line_by_line(sizes: list[int]) -> list[tuple[int, int]]:
    """``visible_many``'s groups (start, stop) as it made them before, one line at a time."""
    out, start, n_pairs = [], 0, len(sizes)
    while start < n_pairs:
        stop, real = start + 1, sizes[start]
        while stop < n_pairs:
            n = sizes[stop]
            wide = (stop + 1 - start) * n
            if wide > los._CHUNK or (n != sizes[start] and wide > 2 * (real + n) + los._PAD):
                break
            stop, real = stop + 1, real + n
        out.append((start, stop))
        start = stop
    return out


def _groups_by_runs(sizes: list[int]) -> list[tuple[int, int]]:
    run_end: dict[int, int] = {}
    for k, n in enumerate(sizes):
        run_end[n] = k + 1
    out, start = [], 0
    while start < len(sizes):
        stop, real = los._grow(sizes, run_end, start)
        assert real == sum(sizes[start:stop])
        out.append((start, stop))
        start = stop
    return out


def test_6_2_lines_grouped_a_run_at_a_time_as_line_by_line() -> None:
    # the sample counts of real batches: powers of two from 2 to 4096 (max_samples), sorted
    rng = np.random.default_rng(15)
    for _ in range(400):
        n = int(rng.integers(1, 900))
        top = int(rng.integers(1, 13))
        sizes = sorted((1 << rng.integers(1, top + 1, n)).tolist())
        assert _groups_by_runs(sizes) == _groups_line_by_line(sizes)


def test_6_2_visible_many_on_real_ground_as_line_by_line(monkeypatch: pytest.MonkeyPatch) -> None:
    # Teutoburg's woods: long and short lines mixed in one batch, answers of the old grouping
    from engine.rulesets import get_ruleset

    bf = get_ruleset("2mm-earth").ground(build_site("teutoburg_kalkriese").battlefield)
    rng = np.random.default_rng(62)
    minx, miny, maxx, maxy = bf.bounds
    a = np.column_stack([rng.uniform(minx, maxx, 700), rng.uniform(miny, maxy, 700)])
    b = a + rng.normal(0.0, 1.0, a.shape) * rng.choice([20.0, 300.0, 3000.0], (700, 1))
    b = np.clip(b, [minx + 1, miny + 1], [maxx - 1, maxy - 1])
    got = bf.line_of_sight_many(a, b)

    def old_grow(sizes: list[int], run_end: dict[int, int], start: int) -> tuple[int, int]:
        groups = _groups_line_by_line(sizes)
        stop = next(s for g, s in groups if g == start)
        return stop, sum(sizes[start:stop])

    monkeypatch.setattr(los, "_grow", old_grow)
    assert got.tolist() == bf.line_of_sight_many(a, b).tolist()
    assert 0 < got.sum() < got.size
