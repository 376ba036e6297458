"""The pair-by-pair gap kernel (``geometry.distance_pairs`` / ``distance_rows``)
is the matrix kernel's arithmetic with less work (eight contiguous corner rows, ``hypot``
only at each pair's least candidates, the overlap test only where circumcircles meet), and
must give the same floats bit for bit as the arithmetic it replaced (kept verbatim as
``tests/reference/distances.py``'s ``distance_pairs``) and as ``distance_many``.

The rectangles are the formations of the engine benchmark's battle on Minden (real ground,
``benchmarks/bench_engine.py``) after bounds of fighting: turned, in contact (overlapping
by rounding), crowded.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engine import geometry
from engine.geometry import (
    _least_hypot,
    corners_many,
    distance_many,
    distance_pairs,
    distance_rows,
    obb_array,
    separation_pairs,
)
from tests.reference import distances as distances_ref

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))


@pytest.fixture(scope="module")
def tables(built_minden: Any) -> list[np.ndarray]:
    """The formations' rectangles at the start and after 4 and 10 bounds of fighting."""
    from bench_engine import last_stand, scenario

    from engine.battle import Battle
    from engine.dice import Dice
    from engine.orders import InstantDelivery

    bf = built_minden.battlefield
    b = Battle(bf, last_stand(scenario(bf, 30)), Dice(3), delivery=InstantDelivery())
    out = [obb_array([f.obb() for f in b.state.active()])]
    for bound in range(10):
        b.step()
        if bound in (3, 9):
            out.append(obb_array([f.obb() for f in b.state.active()]))
    # and each formation with itself turned a quarter: a cross, no corner inside the other,
    # whose zero gap only the overlap test gives
    turned = out[-1].copy()
    turned[:, 4] = (turned[:, 4] + 90.0) % 360.0
    turned[:, 0] += 1.5  # centres apart: the circumcircle filter must let them through
    out.append(np.concatenate([out[-1], turned]))
    return out


def test_every_pair_equals_the_replaced_arithmetic(tables: list[np.ndarray]) -> None:
    # 9.1 / 10.3: every gap the rules read (ranges, nearest enemies, 600 m) is this number
    overlapping = crossing = 0
    for arr in tables:
        n = arr.shape[0]
        ii, jj = (m.ravel() for m in np.meshgrid(np.arange(n), np.arange(n), indexing="ij"))
        ca = corners_many(arr)
        want = distances_ref.distance_pairs(arr[ii], arr[jj], ca[ii])
        assert np.array_equal(distance_pairs(arr[ii], arr[jj], ca[ii]), want)
        assert np.array_equal(distance_pairs(arr[ii], arr[jj]), want)
        assert np.array_equal(distance_rows(arr, ii, jj, ca), want)
        assert np.array_equal(distance_many(arr, arr).ravel(), want)
        overlapping += int(((want == 0.0) & (ii != jj)).sum())
        crossing += int(((want == 0.0) & (jj == ii + n // 2)).sum()) if arr is tables[-1] else 0
    # formations in contact and crossing (the separation test's zeros) are among the pairs
    assert overlapping > 0 and crossing > 0


def test_overlap_test_skipped_only_where_it_cannot_fire(tables: list[np.ndarray]) -> None:
    # pairs whose circumcircles are a metre or more apart are apart on an axis, by > rounding
    for arr in tables:
        n = arr.shape[0]
        ii, jj = (m.ravel() for m in np.meshgrid(np.arange(n), np.arange(n), indexing="ij"))
        a, b = arr[ii], arr[jj]
        reach = np.hypot(a[:, 2], a[:, 3]) + np.hypot(b[:, 2], b[:, 3]) + 1.0
        far = np.hypot(b[:, 0] - a[:, 0], b[:, 1] - a[:, 1]) > reach
        assert far.any() and (separation_pairs(a[far], b[far]) > 0.5).all()


def test_least_hypot_equals_every_hypot(tables: list[np.ndarray], monkeypatch: Any) -> None:
    # the real corner offsets of every pair, and columns built to tie, to hold zeros and to
    # underflow when squared
    seen: list[tuple[np.ndarray, np.ndarray]] = []
    real = geometry._least_hypot

    def spy(u: np.ndarray, v: np.ndarray) -> np.ndarray:
        seen.append((u.copy(), v.copy()))
        return real(u, v)

    monkeypatch.setattr(geometry, "_least_hypot", spy)
    arr = tables[-1]
    n = arr.shape[0]
    ii, jj = (m.ravel() for m in np.meshgrid(np.arange(n), np.arange(n), indexing="ij"))
    distance_pairs(arr[ii], arr[jj])
    u, v = seen[0]
    assert np.array_equal(_least_hypot(u, v), np.hypot(u, v).min(axis=0))
    x = np.array([3.0, 4.0, 5.0, 1e-170, 0.0, 2.0**-540])
    odd_u = np.array([[3.0, 0.0, 5.0, 1e-170, 0.0, 2.0**-540], [4.0, 5.0, 0.0, 0.0, 0.0, 0.0]])
    odd_v = np.array([x, [3.0, 0.0, 3.0 + 4e-16, 2e-170, 0.0, 2.0**-541]])
    assert np.array_equal(_least_hypot(odd_u, odd_v), np.hypot(odd_u, odd_v).min(axis=0))


@pytest.mark.parametrize("brute", [True, False], ids=["centre-matrix", "kd-tree"])
def test_nearest_enemies_reuse_the_bounding_gaps(
    tables: list[np.ndarray], brute: bool, monkeypatch: Any
) -> None:
    # 9.1 / 10.2: the gaps of each row's k nearest centres, measured to bound the search,
    # are not measured again; every candidate's gap is still the full matrix's, bit for bit
    from engine import spatial

    monkeypatch.setattr(spatial, "BRUTE_PAIRS", 10**6 if brute else 0)
    measured: list[int] = []

    def spy(arr: np.ndarray, ii: np.ndarray, jj: np.ndarray, ca: np.ndarray) -> np.ndarray:
        measured.append(ii.size)
        return distance_rows(arr, ii, jj, ca)

    monkeypatch.setattr(geometry, "distance_rows", spy)
    for arr in tables[:3]:
        sides = np.where(np.arange(arr.shape[0]) % 3 == 0, "red", "blue")
        full = distance_many(arr, arr)
        measured.clear()
        near = spatial.nearest_enemies(arr, sides, 12, corners_many(arr))
        candidates = sum(len(rows) for rows, _g in near)
        for i, (rows, gaps) in enumerate(near):
            assert np.array_equal(gaps, full[i, rows])
        # two bounding calls (one a side, k a row) and one for the candidates left over
        bounding = 12 * arr.shape[0]
        assert len(measured) == 3 and sum(measured[:2]) == bounding
        assert measured[2] == candidates - bounding
