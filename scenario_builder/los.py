"""Line of sight by height level (Battle for 2mm Earth v0.9, section 6.2).

The rulebook has no heights, only levels: "Anything on a lower level can be seen over", and "ALL
woods and any solid formation counted as impractical block line of sight, unless the
spotter/shooter is within 25m of the edge". Our reading (``docs/rules-interpretations.md``, 6.2):

* a sample of ground blocks when its level is higher than both ends' levels;
* a sample of sight-blocking terrain blocks when its level is at least the higher end's level and
  it lies more than ``edge_m`` from both ends along the line.

The functions here work on plain arrays so they can be tested and vectorised; the
:class:`~scenario_builder.battlefield.Battlefield` wraps them as ``bf.line_of_sight``.

>>> import numpy as np
>>> level = np.array([[0, 0, 2, 0, 0]])          # a ridge two levels high in the middle
>>> blocks = np.zeros_like(level, dtype=bool)
>>> grid = Grid(x0=0.0, y0=10.0, res=10.0, shape=level.shape)
>>> visible_many(grid, level, blocks, np.array([[5.0, 5.0]]), np.array([[45.0, 5.0]]))
array([False])
>>> visible_many(grid, level, blocks, np.array([[5.0, 5.0]]), np.array([[45.0, 5.0]]),
...              eye_a=np.array([2]))              # an observer raised to the ridge's level
array([ True])
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

#: 6.2: troops within this distance of a wood's edge see out and are seen.
EDGE_M = 25.0


@dataclass(frozen=True, slots=True)
class Grid:
    """A north-up grid: the centre of cell (r, c) is ``(x0 + (c + .5) res, y0 - (r + .5) res)``."""

    x0: float
    y0: float
    res: float
    shape: tuple[int, int]

    def rowcol(self, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Row and column indices of points, clipped onto the grid."""
        col = np.floor((np.asarray(x, dtype=float) - self.x0) / self.res).astype(np.intp)
        row = np.floor((self.y0 - np.asarray(y, dtype=float)) / self.res).astype(np.intp)
        # ufuncs, not np.clip: clip's dtype-limit checks dominate the engine's small calls
        row = np.minimum(np.maximum(row, 0), self.shape[0] - 1)
        col = np.minimum(np.maximum(col, 0), self.shape[1] - 1)
        return row, col


def visible_many(
    grid: Grid,
    level: np.ndarray,
    blocks_sight: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    *,
    eye_a: np.ndarray | int = 0,
    eye_b: np.ndarray | int = 0,
    edge_m: float = EDGE_M,
    max_samples: int = 4096,
) -> np.ndarray:
    """Whether each pair ``a[i] -> b[i]`` has line of sight (6.2). ``a``, ``b``: (N, 2) arrays.

    ``eye_a``/``eye_b`` add levels to the ends (e.g. a tower). Samples are at most half a cell
    apart; each pair is sampled at a power-of-two count of points (so a pair's answer does not
    depend on the other pairs in the batch), and pairs are processed in chunks to bound memory.
    The engine calls this many times a bound with a handful of pairs, so the per-call overhead
    is kept low (no per-call ``np.unique`` for small batches).
    """
    a = np.atleast_2d(np.asarray(a, dtype=float))
    b = np.atleast_2d(np.asarray(b, dtype=float))
    if a.shape != b.shape or a.shape[-1] != 2:
        raise ValueError(f"expected two (N, 2) arrays of points, got {a.shape} and {b.shape}")
    n_pairs = a.shape[0]
    out = np.ones(n_pairs, dtype=bool)
    if n_pairs == 0:
        return out
    ra, ca = grid.rowcol(a[:, 0], a[:, 1])
    rb, cb = grid.rowcol(b[:, 0], b[:, 1])
    top = np.maximum(level[ra, ca] + eye_a, level[rb, cb] + eye_b)
    dx = b[:, 0] - a[:, 0]
    dy = b[:, 1] - a[:, 1]
    dist = np.hypot(dx, dy)
    spacing = grid.res / 2.0
    n_samples = np.minimum(np.maximum(np.ceil(dist / spacing).astype(np.intp) + 1, 2), max_samples)
    # A pair's sample count, rounded up to a power of two, groups pairs into few shapes.
    buckets = np.left_shift(1, np.ceil(np.log2(n_samples)).astype(np.intp))
    if n_pairs <= 16:
        sizes = sorted({int(v) for v in buckets})
    else:
        sizes = [int(v) for v in np.unique(buckets)]
    for n in sizes:
        idx = np.flatnonzero(buckets == n) if len(sizes) > 1 else np.arange(n_pairs)
        chunk = max(1, 2_000_000 // n)
        t = _unit_steps(n)
        for start in range(0, idx.size, chunk):
            sel = idx[start : start + chunk]
            xs = a[sel, 0, None] + dx[sel, None] * t
            ys = a[sel, 1, None] + dy[sel, None] * t
            r, c = grid.rowcol(xs, ys)
            lv = level[r, c]
            tp = top[sel, None]
            blocked = lv > tp
            along = dist[sel, None] * t
            away = (along > edge_m) & ((dist[sel, None] - along) > edge_m)
            blocked |= blocks_sight[r, c] & (lv >= tp) & away
            out[sel] = ~blocked.any(axis=1)
    return out


@functools.lru_cache(maxsize=32)
def _unit_steps(n: int) -> np.ndarray:
    t = np.linspace(0.0, 1.0, n)
    t.flags.writeable = False
    return t
