"""A balanced region quadtree of the messenger's cost classes.

The grid is cut into square blocks of one class each (0 normal, 1 triple, 2 off the map), as large
as possible up to ``max_size`` cells, then *balanced*: no block touches (by side or corner) a
block less than half its size. Balance bounds the vertices on a block's boundary to its four
corners plus at most one midpoint per side, so joining every pair of boundary vertices through a
block (a straight chord through one class costs exactly length x factor) adds at most 28 edges per
block, and the chords give about 16 directions, where an 8-connected grid has 8.

>>> import numpy as np
>>> cls = np.zeros((8, 8), dtype=np.int8)
>>> cls[0, 0] = 1
>>> qt = Quadtree.build(cls, max_size=8)
>>> int(qt.size.max()), len(qt.size)          # the triple cell forces a few small blocks
(4, 10)
>>> int((qt.size ** 2).sum())                 # the blocks tile the grid
64
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import ndimage

NORMAL, TRIPLE_CLASS, OFF = 0, 1, 2

# The eight boundary slots of a block, clockwise from the top-left corner, as (row, col) offsets
# in half-sizes, and which sides (T, R, B, L bits) each lies on.
SLOTS: tuple[tuple[int, int], ...] = (
    (0, 0),
    (0, 1),
    (0, 2),
    (1, 2),
    (2, 2),
    (2, 1),
    (2, 0),
    (1, 0),
)
_T, _R, _B, _L = 1, 2, 4, 8
SLOT_SIDES: tuple[int, ...] = (_T | _L, _T, _T | _R, _R, _R | _B, _B, _B | _L, _L)
# Midpoints exist only where the neighbour across that side is smaller.
MIDPOINT_SLOTS: tuple[int, ...] = (1, 3, 5, 7)


@dataclass(frozen=True, eq=False)
class Quadtree:
    """Leaf blocks: top-left ``row``/``col``, ``size`` in cells, ``cls``, and ``mids`` (n, 4) bool:
    whether each side (T, R, B, L) has a vertex at its midpoint. ``leaf_of`` maps cell -> block."""

    row: np.ndarray
    col: np.ndarray
    size: np.ndarray
    cls: np.ndarray
    mids: np.ndarray
    leaf_of: np.ndarray
    shape: tuple[int, int]

    @classmethod
    def build(cls, classes: np.ndarray, max_size: int = 16) -> Quadtree:
        """Blocks of ``classes`` (0/1/2) at most ``max_size`` (a power of 2) cells wide."""
        if max_size < 1 or max_size & (max_size - 1):
            raise ValueError(f"expected max_size a power of 2, got {max_size}")
        top = max_size.bit_length() - 1
        rows, cols = classes.shape
        pr, pc = -(-rows // max_size) * max_size, -(-cols // max_size) * max_size
        grid = np.full((pr, pc), OFF, dtype=np.int8)
        grid[:rows, :cols] = classes
        level = _natural_levels(grid, top)
        _balance(level, top)
        return cls._leaves(grid, level, top, (rows, cols))

    @classmethod
    def _leaves(
        cls, grid: np.ndarray, level: np.ndarray, top: int, shape: tuple[int, int]
    ) -> Quadtree:
        pr, pc = grid.shape
        rows, cols, sizes, classes, mids = [], [], [], [], []
        # Level of the leaf across each side, per cell (padded with "larger" beyond the grid).
        big = np.int8(top + 1)
        padded = np.pad(level, 1, constant_values=big)
        for k in range(top + 1):
            s = 1 << k
            corner = level[::s, ::s] == k
            # Cells whose level is k but are not block-aligned corners of a level-k block belong
            # to some larger-aligned block; the aligned corner test picks each leaf exactly once.
            r, c = np.nonzero(corner)
            r, c = r * s, c * s
            rows.append(r)
            cols.append(c)
            sizes.append(np.full(r.shape, s, dtype=np.int32))
            classes.append(grid[r, c])
            m = np.zeros((r.size, 4), dtype=bool)
            if k > 0:
                h = s // 2
                # padded index = real index + 1
                m[:, 0] = (padded[r, c + h] < k) | (padded[r, c + h + 1] < k)  # top
                m[:, 1] = (padded[r + h, c + s + 1] < k) | (padded[r + h + 1, c + s + 1] < k)
                m[:, 2] = (padded[r + s + 1, c + h] < k) | (padded[r + s + 1, c + h + 1] < k)
                m[:, 3] = (padded[r + h, c] < k) | (padded[r + h + 1, c] < k)  # left
            mids.append(m)
        row = np.concatenate(rows).astype(np.int32)
        col = np.concatenate(cols).astype(np.int32)
        size = np.concatenate(sizes)
        leaf_of = np.full((pr, pc), -1, dtype=np.int32)
        start = 0
        for k, r in enumerate(rows):
            s = 1 << k
            ids = np.full((pr // s, pc // s), -1, dtype=np.int32)
            ids[r // s, cols[k] // s] = np.arange(start, start + r.size, dtype=np.int32)
            up = np.repeat(np.repeat(ids, s, axis=0), s, axis=1)
            here = level == k
            leaf_of[here] = up[here]
            start += r.size
        return cls(
            row=row,
            col=col,
            size=size,
            cls=np.concatenate(classes).astype(np.int8),
            mids=np.concatenate(mids),
            leaf_of=leaf_of,
            shape=shape,
        )


def _natural_levels(grid: np.ndarray, top: int) -> np.ndarray:
    """Per cell, the level (log2 size) of the largest homogeneous aligned block holding it."""
    level = np.zeros(grid.shape, dtype=np.int8)
    hom = grid.astype(np.int8)
    for k in range(1, top + 1):
        h, w = hom.shape
        q = hom.reshape(h // 2, 2, w // 2, 2)
        first = q[:, 0, :, 0]
        same = (q == first[:, None, :, None]).all(axis=(1, 3)) & (first >= 0)
        hom = np.where(same, first, -1).astype(np.int8)
        s = 1 << k
        up = np.repeat(np.repeat(hom >= 0, s, axis=0), s, axis=1)
        level[up] = k
    return level


def _balance(level: np.ndarray, top: int) -> None:
    """Split blocks until none touches a block less than half its size (in place)."""
    while True:
        near = ndimage.minimum_filter(level, size=3, mode="nearest")
        changed = False
        for k in range(top, 1, -1):
            s = 1 << k
            h, w = level.shape
            blocks = level.reshape(h // s, s, w // s, s)
            leaf = blocks[:, 0, :, 0] == k
            worst = near.reshape(h // s, s, w // s, s).min(axis=(1, 3))
            split = leaf & (worst < k - 1)
            if split.any():
                mask = np.repeat(np.repeat(split, s, axis=0), s, axis=1)
                level[mask] = k - 1
                changed = True
        if not changed:
            return
