"""References for sight and hearing (6.2-6.3): the rule read sample by sample
(``scenario_builder.los``), and ``engine.sight.Sight``'s troops-in-the-way, hearing table and
line grouping as they were before being batched. See ``tests/reference/__init__.py`` for the
rule they follow."""

from __future__ import annotations

import numpy as np

from engine.geometry import corners_many, distance, distance_pairs, point_distance
from engine.sight import _HEAR_TREE_FROM, Sight, _box_pairs_within
from scenario_builder import los
from scenario_builder.los import EDGE_M, Grid, _unit_steps


def rule_6_2(
    grid: Grid,
    level: np.ndarray,
    blocks: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    eye_a: int = 0,
    max_samples: int = 4096,
) -> list[bool]:
    """Pins ``scenario_builder.los.visible_many`` / ``Battlefield.line_of_sight_many`` (6.2 line of
    sight by height level): one line and one sample at a time (docs/rules-interpretations.md, 6.2):
    ground higher than both ends blocks; woods at or above the higher end block more than 25 m
    from both ends. The samples are visible_many's: a power-of-two count at most half a cell
    apart.
    """
    out = []
    for (ax, ay), (bx, by) in zip(a.tolist(), b.tolist(), strict=True):
        r, c = grid.rowcol(np.array([ax, bx]), np.array([ay, by]))
        top = max(int(level[r[0], c[0]]) + eye_a, int(level[r[1], c[1]]))
        dist = float(np.hypot(bx - ax, by - ay))
        n = min(max(int(np.ceil(dist / (grid.res / 2.0))) + 1, 2), max_samples)
        n = 1 << int(np.ceil(np.log2(n)))
        seen = True
        for t in _unit_steps(n).tolist():
            rr, cc = grid.rowcol(np.array(ax + (bx - ax) * t), np.array(ay + (by - ay) * t))
            lv = int(level[rr, cc])
            along = dist * t
            away = along > EDGE_M and dist - along > EDGE_M
            if lv > top or (blocks[rr, cc] and lv >= top and away):
                seen = False
                break
        out.append(seen)
    return out


def groups_line_by_line(sizes: list[int]) -> list[tuple[int, int]]:
    """Pins ``scenario_builder.los._grow`` (6.2 lines of sight sampled in batches of similar
    length): ``visible_many``'s groups (start, stop) as it made them before, one line at a time."""
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


def troops_clear(s: Sight, i: int, j: int, hits: list[int]) -> bool:
    """Pins ``engine.sight.Sight._troops_clear`` (6.2 troops in the way: lower levels are seen over,
    friends within ``see_through`` of the observer are seen through, an enemy skirmisher screen
    does not block): as it was before the troops were judged in batches, each blocker's
    ``Formation`` read.
    """
    p = (s._xy[i][0], s._xy[i][1])
    if not hits:
        return True
    o = s.forms[i]
    levels = s._lv
    top = max(levels[i], levels[j])
    col, names = s._column_one, s._type_names
    o_type = see_through = None
    for k in hits:
        blocker = s.forms[k]
        if levels[k] < top:
            continue  # 6.2: anything on a lower level can be seen over
        if o_type is None:
            o_type = names[int(col("type", i))]
        if s._sees_over(o_type, names[int(col("type", k))]):
            continue
        if blocker.side == o.side:  # 6.2: friends near the observer are seen through
            if see_through is None:
                see_through = col("see_through", i)
            if point_distance(s.obbs[k], *p) <= see_through:
                continue
            return False
        if col("skirm", k):  # 6.2: an enemy skirmisher screen
            screen = s.rules.skirmish_screen_m
            if point_distance(s.obbs[k], *p) <= screen and s._gaps_to(k, [j])[0] <= screen:
                continue
        return False
    return True


def hearing_table(s: Sight) -> tuple[list[list[int]], list[list[float]]]:
    """Pins ``engine.sight.Sight._hearing_table`` (6.2 hearing within ``hearing_m``): the table's
    candidates and gaps row by row as before the batched hearing, every candidate pair measured by
    ``distance_pairs``, each rectangle's own pair too.
    """
    index = s.spatial
    if index.n > _HEAR_TREE_FROM:
        ii, jj = _box_pairs_within(index.box, s.rules.hearing_m)
    else:
        ii, jj = np.nonzero(index.lower_bound_matrix() <= s.rules.hearing_m)
    gg = distance_pairs(s.arr[ii], s.arr[jj], corners_many(s.arr)[ii])
    rows = [jj[ii == r].tolist() for r in range(len(s.ids))]
    gaps = [gg[ii == r].tolist() for r in range(len(s.ids))]
    return rows, gaps


def heard(sight: Sight, observer: str) -> str | None:
    """Pins ``engine.sight.Sight.heard`` / ``heard_many`` (6.2 hearing: the closest moving or
    fighting formation within earshot of ``observer``): the gaps to every formation
    (``geometry.distance``), nearest first, ties by row."""
    i = sight.index[observer]
    gaps = distance(sight.obbs[i], sight.arr).tolist()
    near = sorted((g, k) for k, g in enumerate(gaps) if k != i and g <= sight.rules.hearing_m)
    contacts = sight.state.contacts
    for _g, k in near:
        g = sight.forms[k]
        if g.moved_m > 0 or g.fought or contacts.get(g.id):
            return g.id
    return None


def grow_line_by_line(sizes: list[int], run_end: dict[int, int], start: int) -> tuple[int, int]:
    """Stands in for ``scenario_builder.los._grow`` (6.2 lines of sight sampled in batches):
    the group that starts at ``start`` and its real sample count, from
    ``groups_line_by_line``; ``run_end`` is not read."""
    groups = groups_line_by_line(sizes)
    stop = next(s for g, s in groups if g == start)
    return stop, sum(sizes[start:stop])
