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
import math
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

    def contains(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Whether points lie on the grid (the Battlefield's ``contains``)."""
        rows, cols = self.shape
        maxx, miny = self.x0 + cols * self.res, self.y0 - rows * self.res
        return (x >= self.x0) & (x < maxx) & (y > miny) & (y <= self.y0)

    def cells(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Indices into a :func:`padded` layer of the cells of points: for a point on the grid
        (:meth:`contains`) the cell :meth:`rowcol` gives, with no clipping (a point on the far
        edge may round onto the padding, which repeats the edge); for a point off it, some
        index (read with ``np.take(..., mode="clip")``: safe, and not the point's cell)."""
        col = ((np.asarray(x, dtype=float) - self.x0) / self.res).astype(np.intp)
        row = ((self.y0 - np.asarray(y, dtype=float)) / self.res).astype(np.intp)
        row *= self.shape[1] + 1
        row += col
        return row


def padded(layer: np.ndarray) -> np.ndarray:
    """A (rows, cols) layer with its last row and column repeated once, raveled: cell (r, c) at
    ``r * (cols + 1) + c``. A point on the grid's far edge can round onto row ``rows`` or column
    ``cols``: there it reads the edge, as :meth:`Grid.rowcol`'s clipping does."""
    return np.pad(np.asarray(layer), ((0, 1), (0, 1)), mode="edge").ravel()


@dataclass(frozen=True, slots=True)
class SightCells:
    """A grid's sight layers, :func:`padded`, for one gather per sample (kept by the caller,
    e.g. the Battlefield, as long as its layers): ``level`` (6.2 height step), ``blocks``
    (sight-blocking terrain) and ``wood_top`` = level + blocks.

    For integer levels, a sample more than ``edge_m`` from both ends blocks exactly when its
    ``wood_top`` is above the higher end's level ("higher than both ends", or blocking terrain
    "at or above" the higher end: level + 1 > top), so the middle of a line needs one gather and
    one comparison; only the few samples near the ends read ``level`` and ``blocks`` apart.
    """

    level: np.ndarray
    blocks: np.ndarray
    wood_top: np.ndarray
    any_blocks: bool

    @classmethod
    def of(cls, level: np.ndarray, blocks_sight: np.ndarray) -> SightCells:
        lv = padded(level)
        bs = padded(np.asarray(blocks_sight, dtype=bool))
        any_blocks = bool(bs.any())
        if any_blocks:
            # one step wider than the level's type when level + 1 could overflow it
            kind = np.result_type(lv.dtype, np.int16)
            if lv.size and int(lv.max()) >= np.iinfo(kind).max:
                kind = np.dtype(np.int64)
            top = lv.astype(kind) + bs
        else:
            top = lv
        return cls(lv, bs, top, any_blocks)


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
    cells: SightCells | None = None,
    on_grid: bool = False,
) -> np.ndarray:
    """Whether each pair ``a[i] -> b[i]`` has line of sight (6.2). ``a``, ``b``: (N, 2) arrays.

    ``eye_a``/``eye_b`` add levels to the ends (e.g. a tower). Samples are at most half a cell
    apart; each pair is sampled at a power-of-two count of points (so a pair's answer does not
    depend on the other pairs in the batch), and pairs are processed in chunks to bound memory.
    ``cells``: :meth:`SightCells.of` ``(level, blocks_sight)``, when the caller keeps it (the
    engine asks thousands of times a battle; built here otherwise). ``on_grid``: the caller
    has checked that every end is on the grid (:meth:`Grid.contains`).
    """
    a = np.atleast_2d(np.asarray(a, dtype=float))
    b = np.atleast_2d(np.asarray(b, dtype=float))
    if a.shape != b.shape or a.shape[-1] != 2:
        raise ValueError(f"expected two (N, 2) arrays of points, got {a.shape} and {b.shape}")
    n_pairs = a.shape[0]
    out = np.ones(n_pairs, dtype=bool)
    if n_pairs == 0:
        return out
    if cells is None:
        cells = SightCells.of(level, blocks_sight)
    xe, ye = np.concatenate([a[:, 0], b[:, 0]]), np.concatenate([a[:, 1], b[:, 1]])
    if on_grid:  # Grid.cells of points on the grid: rowcol's cells, in fewer numpy calls
        ends = cells.level.take(grid.cells(xe, ye))
    else:
        r, c = grid.rowcol(xe, ye)
        ends = level[r, c]
    # every sample between two points on the grid is on it (or rounds onto the padding): no
    # clipping then, one index per sample
    clip = not on_grid and not bool(grid.contains(xe, ye).all())
    top = np.maximum(ends[:n_pairs] + eye_a, ends[n_pairs:] + eye_b)
    exact = top.dtype.kind not in "iu"  # a fractional eye: no wood_top shortcut
    dx = b[:, 0] - a[:, 0]
    dy = b[:, 1] - a[:, 1]
    dist = np.hypot(dx, dy)
    spacing = grid.res / 2.0
    n_samples = np.minimum(np.maximum(np.ceil(dist / spacing).astype(np.intp) + 1, 2), max_samples)
    # A pair's sample count, rounded up to a power of two (so its samples do not depend on the
    # other pairs in the batch); pairs in order of count, in groups of about _CHUNK samples that
    # stay in the CPU cache. A group of mixed counts (few pairs: one numpy pass each instead of
    # one per count) pads the shorter lines with copies of their last sample, which adds nothing.
    buckets = np.left_shift(1, np.ceil(np.log2(n_samples)).astype(np.intp))
    order = np.argsort(buckets, kind="stable")
    sizes = buckets[order].tolist()
    # the lines of one count follow each other (sorted): a group is grown a run of equal
    # counts at a time, not a line at a time (the same groups as line by line: see _grow)
    # (a dict keeps the last of equal keys: each count's last line, in one C loop)
    run_end = dict(zip(sizes, range(1, n_pairs + 1), strict=True))
    start = 0
    while start < n_pairs:
        stop, _real = _grow(sizes, run_end, start)
        sel = order[start:stop]
        lo, hi = sizes[start], sizes[stop - 1]
        if lo == hi:
            t = _unit_steps(hi)
        else:  # each line's own steps, then 1.0: its last sample again (a run at a time)
            t = np.ones((stop - start, hi))
            k = start
            while k < stop:
                n = sizes[k]
                end = min(run_end[n], stop)
                t[k - start : end - start, :n] = _unit_steps(n)
                k = end
        # the rows of ``a`` by take (numpy's fancy indexing of rows costs several times more)
        flat = _sample_cells(grid, a.take(sel, axis=0), dx[sel], dy[sel], t, clip)
        out[sel] = ~_blocked(cells, flat, top[sel], dist[sel], t, edge_m, exact)
        start = stop
    return out


def _grow(sizes: list[int], run_end: dict[int, int], start: int) -> tuple[int, int]:
    """The group of lines ``start:stop`` (``sizes`` their sample counts, ascending, each count's
    run ending at ``run_end[count]``) and its samples before padding: lines are added while the
    group, padded to the added line's count, stays within _CHUNK samples and, once its counts
    differ, within twice its own samples and _PAD. The test is the one line by line; along a
    run of one count the padded width grows by that count a line and twice the samples by twice
    it, so the second test holds for the rest of a run once it holds for its first line, and
    the first holds up to a count of lines worked out at once."""
    n_pairs, first = len(sizes), sizes[start]
    stop, real = start + 1, first
    while stop < n_pairs:
        n = sizes[stop]
        # the line by line test for the next line: (stop + 1 - start) * n samples padded
        wide = (stop + 1 - start) * n
        if wide > _CHUNK or (n != first and wide > 2 * (real + n) + _PAD):
            break
        # the rest of the run that stays within _CHUNK ((lines) * n <= _CHUNK)
        take = min(run_end[n] - stop, _CHUNK // n - (stop - start))
        stop, real = stop + take, real + take * n
        if stop < run_end[n]:  # the next line of this run would pass _CHUNK
            break
    return stop, real


def visible_few(
    grid: Grid,
    cells: SightCells,
    a: list[list[float]],
    b: list[list[float]],
    *,
    edge_m: float = EDGE_M,
    max_samples: int = 4096,
) -> list[bool]:
    """:func:`visible_many` of a few lines whose ends are all on the grid (:meth:`Grid.contains`),
    eyes at 0, one line at a time: each line's ends, length and sample count in plain floats
    (the same arithmetic as the arrays': IEEE doubles, floor, ``np.hypot`` itself), then its
    samples in one pass (:func:`_sample_cells`, :func:`_blocked`). A line's answer does not
    depend on the others in a batch, so these are :func:`visible_many`'s answers, without the
    fixed cost of grouping a batch (the engine asks about one or two lines thousands of times)."""
    x0, y0, res = grid.x0, grid.y0, grid.res
    rows, cols = grid.shape
    level, spacing = cells.level, res / 2.0
    out = []
    for (ax, ay), (bx, by) in zip(a, b, strict=True):
        # Grid.rowcol's cells of the ends (on the grid: no clipping but onto the padding,
        # which repeats the edge as the clipping does)
        ra = min(max(math.floor((y0 - ay) / res), 0), rows - 1)
        ca = min(max(math.floor((ax - x0) / res), 0), cols - 1)
        rb = min(max(math.floor((y0 - by) / res), 0), rows - 1)
        cb = min(max(math.floor((bx - x0) / res), 0), cols - 1)
        top = max(int(level[ra * (cols + 1) + ca]), int(level[rb * (cols + 1) + cb]))
        dx, dy = bx - ax, by - ay
        dist = np.hypot(dx, dy)  # the ufunc, as on arrays (math.hypot may round otherwise)
        n = min(max(math.ceil(dist / spacing) + 1, 2), max_samples)
        t = _unit_steps(1 << (n - 1).bit_length())  # n rounded up to a power of two
        flat = _line_cells(grid, ax, ay, dx, dy, t)
        if not cells.any_blocks:  # _blocked's test of one line: ground above both ends
            blocked = bool(level.take(flat).max() > top)
        else:
            got = _blocked(
                cells, flat[None, :], np.array([top]), np.array([dist]), t, edge_m, False
            )
            blocked = bool(got[0])
        out.append(not blocked)
    return out


def _line_cells(
    grid: Grid, ax: float, ay: float, dx: float, dy: float, t: np.ndarray
) -> np.ndarray:
    """:func:`_sample_cells` of one line (``t``: its steps, (n,)) from plain floats, without the
    arrays of one: the same operations on each sample (``t * dx + ax`` is ``ax + dx * t``,
    IEEE sums and products being commutative), so the same cells."""
    xs = t * dx
    xs += ax
    xs -= grid.x0
    xs /= grid.res
    col = xs.astype(np.intp)
    ys = t * dy
    ys += ay
    np.subtract(grid.y0, ys, out=ys)
    ys /= grid.res
    row = ys.astype(np.intp)
    row *= grid.shape[1] + 1
    row += col
    return row


#: samples worked on at once (a few arrays of this many numbers stay in the CPU's cache)
_CHUNK = 16384
#: padding a group may carry beyond twice its samples (cheaper than a numpy pass per count)
_PAD = 8192


def _sample_cells(
    grid: Grid, a: np.ndarray, dx: np.ndarray, dy: np.ndarray, t: np.ndarray, clip: bool
) -> np.ndarray:
    """Indices (k, n) into :func:`padded` layers of the cells of the samples ``a + (dx, dy) *
    t`` of k lines: :meth:`Grid.rowcol`'s cells (the same arithmetic, done in place; truncation
    gives floor's cells as every negative value clips to 0 either way), clipped onto the grid
    when some end is off it."""
    xs = a[:, 0, None] + dx[:, None] * t  # t: (n,) steps, or (k, n) one row a line
    xs -= grid.x0
    xs /= grid.res
    col = xs.astype(np.intp)
    ys = a[:, 1, None] + dy[:, None] * t
    np.subtract(grid.y0, ys, out=ys)
    ys /= grid.res
    row = ys.astype(np.intp)
    rows, cols = grid.shape
    if clip:
        np.clip(row, 0, rows - 1, out=row)
        np.clip(col, 0, cols - 1, out=col)
    row *= cols + 1
    row += col
    return row


def _blocked(
    cells: SightCells,
    flat: np.ndarray,
    top: np.ndarray,
    dist: np.ndarray,
    t: np.ndarray,
    edge_m: float,
    exact: bool,
) -> np.ndarray:
    """Whether some sample (cells ``flat``, (k, n)) blocks each of k lines (6.2)."""
    n = flat.shape[1]
    if not cells.any_blocks:  # only ground higher than both ends blocks
        return cells.level.take(flat).max(axis=1) > top
    m = None if exact or t.ndim > 1 else _near_end_columns(dist, t, edge_m)
    if m is None or 2 * m >= n:  # every column may be near an end: read each sample whole
        return _blocked_exact(cells, flat, top, dist, t, edge_m)
    mid = cells.wood_top.take(flat[:, m : n - m]).max(axis=1) > top
    cols = np.r_[0:m, n - m : n]
    near = _blocked_exact(cells, flat[:, cols], top, dist, t[cols], edge_m)
    return mid | near


def _blocked_exact(
    cells: SightCells,
    flat: np.ndarray,
    top: np.ndarray,
    dist: np.ndarray,
    t: np.ndarray,
    edge_m: float,
) -> np.ndarray:
    """6.2 sample by sample: ground above the higher end, or blocking terrain at or above it
    more than ``edge_m`` from both ends."""
    lv = cells.level.take(flat)
    tp = top[:, None]
    blocked = lv > tp
    along = dist[:, None] * t  # t: (n,) or (k, n), as the samples were taken
    away = (along > edge_m) & ((dist[:, None] - along) > edge_m)
    blocked |= cells.blocks.take(flat) & (lv >= tp) & away
    return np.asarray(blocked.any(axis=1))


def _near_end_columns(dist: np.ndarray, t: np.ndarray, edge_m: float) -> int | None:
    """A count ``m`` of columns such that every sample from column ``m`` to ``n - 1 - m`` is
    more than ``edge_m`` from both ends of its line (None when no such count is found). Checked
    with the arithmetic of :func:`_blocked_exact` on columns ``m`` and ``n - 1 - m``: the
    distance along a line grows with the column, so those two bound the ones between."""
    n = t.size
    least = float(dist.min())
    if least <= 0.0:
        return None
    m = min(n, int(edge_m * (n - 1) / least) + 2)
    while 2 * m < n:
        lo = dist * t[m]
        hi = dist * t[n - 1 - m]
        if bool(np.all(lo > edge_m)) and bool(np.all((dist - hi) > edge_m)):
            return m
        m += 1 + m // 2
    return None


@functools.lru_cache(maxsize=32)
def _unit_steps(n: int) -> np.ndarray:
    t = np.linspace(0.0, 1.0, n)
    t.flags.writeable = False
    return t
