"""Sight and awareness between formations (6.2 line of sight, 6.3 weather, hearing).

A formation sees another when

1. the terrain allows it: ``Battlefield.line_of_sight`` between the two formations' centres by
   height level, with the 25 m wood-edge rule (docs/architecture.md, "Line of sight");
2. no troops in between block it. A formation crossed by the line blocks unless it stands on a
   lower level than the higher end ("anything on a lower level can be seen over"), or the
   observer sees over it (monsters over anything, chariots over cavalry and foot, cavalry over
   foot), or it is a friend within 100 m of the observer (200 m if the observer has a character
   with it), or it is an enemy skirmisher screen that the observer is within 100 m of and that is
   within 100 m of the troops it screens;
3. the target is within the 6.3 sight limit for non-local troops in fog, rain, bright sun or at
   night.

Troops also "hear" the one closest moving or fighting unit within 75 m and count it as seen for
morale (:meth:`Sight.aware`). Answers are cached until any formation moves (``state.version``).
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import numpy as np

from engine.geometry import (
    _axes,
    distance,
    point_distance,
    segment_hits,
    segment_hits_sparse,
)
from engine.spatial import RectIndex
from engine.state import CLOCK, BattleState, Formation, FormationTable
from scenario_builder.errors import OffMapError

if TYPE_CHECKING:
    from engine.terrain import Ground

__all__ = ["Sight", "SightRules"]

#: seen_by's rounds: the first looks at each enemy from its first _FIRST_LOOK observers (in the
#: order of Sight._shadowed's guess), each next round from _GROW times as many (measured on the
#: record of 2 x 240: pairs asked 53k with 1 and 2, 56k with 2 and 2, 63k with 2 and 3)
_FIRST_LOOK = 1
_GROW = 2
#: up to this many (line, formation) pairs the boxes are compared in numpy, not in the tree
#: (measured on 2 x 60: the numpy test is 2-3x faster up to 200 lines x 120 formations)
_FEW_CROSSINGS = 32768
#: from this many formations the hearing table's candidates come from a sweep (_box_pairs_within),
#: not the matrix of box bounds (measured for the tree it replaced: 480 formations 3.6 ms
#: against 11.5 ms for the matrix; 120: 0.35 against 0.28 ms)
_HEAR_TREE_FROM = 200
#: from this many candidate crossings the boxes a line passes by are culled before the slab test
_CULL_LINES_FROM = 48
#: up to this many pairs asked at once are worked out one at a time in plain floats
_FEW_PAIRS = 3
#: from this many pairs asked at once among this many formations, the troops next to each
#: target are looked at first (measured on the record of 2 x 60, 120, 240: 6.1 against 6.2 ms,
#: 22.0 against 18.7 ms, 72 against 94 ms; long lines through a crowd meet many boxes)
_NEAR_TARGET_FIRST_FROM = 128
_NEAR_TARGET_AMONG = 320
#: how much of a line's target end is looked at first, then out to the next reach, ... (metres;
#: measured on the record, min of 3 replays: 2 x 480 579 ms with 150 alone, 492 with 150 and
#: 1000, 522 with 150, 500 and 1500; 2 x 240 348, 351, 363)
_NEAR_TARGET_M: tuple[float, ...] = (150.0, 1000.0)
#: how far from a target its own troops are looked at for Sight._shadowed's guess (metres;
#: measured on the record of 2 x 240: 150 m 69k pairs asked, 400 m 56k, 1000 m 50k but slower)
_SHADOW_M = 400.0
#: the guess is made from this many observers on (measured on the record, CPU s of 30 bounds:
#: 2 x 60 0.185 without, 0.199 with; 2 x 120 0.51 against 0.42; 2 x 240 1.52 against 1.25)
_SHADOW_FROM = 100
#: each target's row of observer bearings (radians, -pi..pi) is put this far from the next in
#: Sight._shadowed's one sorted array (more than the 2 pi + 2 its ranges span)
_BEARING_ROWS = 16.0
#: added to the distance of an observer whose line seems blocked next to the target
#: (Sight._shadowed): after every observer whose line seems open, nearest first
_SHADOWED_LAST = 1e9
#: from this many lines a batch's troops in the way are looked for in chunks of as many lines
_CHUNK_LINES = 1024
#: Sight._passing_near culls this many candidate crossings at a time
_CULL_CHUNK = 32768
#: Sight._shadowed's guess is made for this many targets at a time
_SHADOW_CHUNK = 32
#: what sight reads of a formation (Sight._column_value) that comes from its make-up alone (its
#: living bases' profiles: engine.state ``Formation._crev``), so holds through its moves
_MAKE_UP_COLUMNS = frozenset({"type", "skirm"})
#: up to this many crossings they are judged by _troops_clear one line at a time (in floats),
#: from it in arrays
_FEW_JUDGED = 24


def _box_pairs_within(box: np.ndarray, gap: float) -> tuple[np.ndarray, np.ndarray]:
    """``np.nonzero(RectIndex.lower_bound_matrix() <= gap)`` of the boxes ``box`` ((N, 4):
    minx, miny, maxx, maxy), ordered by row then column, without the matrix: the boxes sorted
    by their west (or south) edge, each row's candidates those whose west edge lies within its
    own box grown by ``gap``, the widest box and a metre (far beyond rounding), measured pair by
    pair with the matrix's arithmetic (so the same numbers, the same pairs)."""
    n = box.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
    best: tuple[int, np.ndarray, np.ndarray, np.ndarray] | None = None
    for axis in (0, 1):  # along the axis that leaves fewer candidates
        order = np.argsort(box[:, axis], kind="stable")
        west = box[order, axis]
        grow = gap + float((box[:, axis + 2] - box[:, axis]).max()) + 1.0
        lo = np.searchsorted(west, box[:, axis] - grow, "left")
        cnt = np.searchsorted(west, box[:, axis + 2] + gap + 1.0, "right") - lo
        total = int(cnt.sum())
        if best is None or total < best[0]:
            best = (total, order, lo, cnt)
    assert best is not None
    _, order, lo, cnt = best
    ii = np.repeat(np.arange(n), cnt)
    jj = order[np.arange(ii.size) - np.repeat(np.cumsum(cnt) - cnt - lo, cnt)]
    bi, bj = box.take(ii, axis=0), box.take(jj, axis=0)  # rows: take is many times faster
    gx = np.maximum(np.maximum(bj[:, 0] - bi[:, 2], bi[:, 0] - bj[:, 2]), 0.0)
    gy = np.maximum(np.maximum(bj[:, 1] - bi[:, 3], bi[:, 1] - bj[:, 3]), 0.0)
    keep = np.hypot(gx, gy) <= gap
    ii, jj = ii[keep], jj[keep]
    at = np.lexsort((jj, ii))
    return ii[at], jj[at]


class _HearingTable:
    """Every formation's candidates within earshot and their gaps (:meth:`Sight._hearing_table`)
    as flat lists cut by row: each row's lists are sliced when asked (most rows never are)."""

    __slots__ = ("_cut", "_gs", "_js", "_near_gs", "_near_js", "_starts")

    def __init__(
        self,
        starts: list[int],
        js: list[int],
        gs: list[float],
        cut: list[int],
        near_js: list[int],
        near_gs: list[float],
    ) -> None:
        self._starts, self._js, self._gs = starts, js, gs
        self._cut, self._near_js, self._near_gs = cut, near_js, near_gs

    def __len__(self) -> int:
        return len(self._starts) - 1

    def row(self, r: int) -> tuple[list[int], list[float]]:
        """Row ``r``'s candidates (ascending, itself among them) and their gaps."""
        a, b = self._starts[r], self._starts[r + 1]
        return self._js[a:b], self._gs[a:b]

    def gaps(self, r: int) -> dict[int, float]:
        """Row ``r``'s candidates' gaps as a new dict (candidate -> gap)."""
        a, b = self._starts[r], self._starts[r + 1]
        return dict(zip(self._js[a:b], self._gs[a:b], strict=True))

    def near(self, r: int) -> tuple[list[int], list[float]]:
        """Row ``r``'s formations within earshot (not itself), nearest first (ties in row
        order), and their gaps."""
        a, b = self._cut[r], self._cut[r + 1]
        return self._near_js[a:b], self._near_gs[a:b]


def _nearest_first(
    i: int, near: list[int], gap_list: list[float], best_d: float
) -> tuple[list[int], list[float]]:
    """Of the candidates ``near`` (ascending) and their gaps, those within ``best_d`` but ``i``
    itself, nearest first, ties in row order (a stable sort of a few floats: Python's)."""
    rows, out = [], []
    for n in sorted(range(len(gap_list)), key=gap_list.__getitem__):
        k = near[n]
        if k == i:
            continue
        d = float(gap_list[n])
        if d > best_d:
            break
        rows.append(k)
        out.append(d)
    return rows, out


def _lower(limit: float | None, fog: float | None) -> float | None:
    """The nearer of a sight limit and a fog's (None: no limit)."""
    if fog is None:
        return limit
    return fog if limit is None else min(limit, fog)


@dataclass(frozen=True, slots=True)
class SightRules:
    """What a ruleset tells the sight mechanics (2mm Earth 6.2-6.3 in brackets).

    ``sees_over(observer_type, blocker_type)``: troops of the first kind see over the second
    (monsters over anything); ``sight_limit_m(weather, time, local)``: how far troops see (None:
    no limit but the ground); ``hearing_m``: the closest moving or fighting unit this near is
    heard (75 m); friends within ``friend_see_through_m`` of the observer are seen through (100 m,
    ``character_see_through_m`` 200 m with a character); an enemy skirmisher screen is seen
    through within ``skirmish_screen_m`` (100 m).
    """

    sees_over: Callable[[str, str], bool]
    sight_limit_m: Callable[[str, str, bool], float | None]
    hearing_m: float = 0.0
    friend_see_through_m: float = 0.0
    character_see_through_m: float = 0.0
    skirmish_screen_m: float = 0.0


class Sight:
    """Per-bound cache of who sees whom."""

    def __init__(
        self,
        battlefield: Ground,
        state: BattleState,
        *,
        rules: SightRules,
        weather: str = "clear",
        time: str = "day",
        locality: str | None = None,
    ) -> None:
        self.bf = battlefield
        self.rules = rules
        self.state = state
        self.weather = weather
        self.time = time
        self.locality = locality
        self._limit_fn = rules.sight_limit_m
        #: a scenario's fog (engine.special_rules, ``fog``): no enemy seen beyond it, troops who
        #: know the ground included; None: only the ruleset's 6.3 limit
        self.fog_m: float | None = None
        # 6.2 who sees over whom: a rule of two unit types, asked of every troop in the way
        self._sees_over = functools.lru_cache(maxsize=256)(rules.sees_over)
        self._version = -1
        self._cache: dict[tuple[str, str], bool] = {}
        #: side -> enemy -> the formation that saw it at the side's last seen_by (a hint for
        #: the order of the next look; shared with fresh_copy's copies)
        self._witness: dict[str, dict[str, str]] = {}
        #: unit types met so far, numbered (any position state: a type is a name)
        self._type_codes: dict[str, int] = {}
        self._type_names: list[str] = []
        #: 6.2 who sees over whom, by type code (:meth:`_over_matrix`)
        self._over: np.ndarray | None = None
        #: ((weather, time, fog), 6.3 limit of strangers, of troops who know the ground)
        self._by_local: tuple[tuple[str, str, float | None], float | None, float | None] = (
            ("", "", None),
            None,
            None,
        )
        self.los_calls = 0
        #: the state's table and its revision the arrays and answers are of
        self._table: FormationTable | None = None
        self._revision = -1
        #: the clock (engine.state.CLOCK.now) and the state's formations at the last look
        self._seen_now = -1
        self._formations: dict[str, Formation] | None = None
        #: the clock when each formation's revision was last read (:meth:`_same_view`)
        self._revs_at = -1

    # -- per-position arrays ---------------------------------------------------------------
    def _refresh(self) -> None:
        """Brings the arrays and cached answers to the state as it is now. They are kept while
        the state's table (engine.state: its revision clock) has not changed, nor
        ``state.version`` nor the light (which resets ``_version``); when the table changed only
        in what sight does not read (a morale state, a base lost inside a rectangle that stays
        the same), they are kept too. So a question asked at any moment gets the answer of the
        state at that moment, not of the state when the first question after a move was asked."""
        state = self.state
        now = CLOCK.now
        if (  # nothing at all changed since the last look: the table is as it was
            now == self._seen_now
            and self._version == state.version
            and state.formations is self._formations
            and state._table is self._table
        ):
            return
        table = state.table()
        self._seen_now, self._formations = now, state.formations
        if (
            self._version == state.version
            and self._table is table
            and self._revision == table.revision
        ):
            return
        if self._version == state.version and self._same_view(table):
            self._table, self._revision = table, table.revision
            return
        self._rebuild(table)

    def _same_view(self, table: FormationTable) -> bool:
        """Whether the table, though changed, shows sight what it showed when the answers held
        were worked out: the same formations (in the same rows) and rectangles, and for each
        formation changed since, the same values of what sight read of it (:meth:`_column`:
        unit type, skirmisher, see-through distance, knowing the ground). What was never read
        of a formation cannot have shaped an answer held."""
        if self._table is not table or table.forms is not self._tforms:
            return False
        if not np.array_equal(table.arr, self.arr):
            return False
        revs, cols, forms = self._revs, self._cols, self.forms
        # the formations whose revision moved since ``revs`` was last brought up to date are
        # among those the clock logged since (a revision is only ever set by a tick that logs
        # its formation, engine.state): those alone, unless the log was trimmed since, holds a
        # join or leave, or is longer than the table
        clock, since = CLOCK, self._revs_at
        log = clock.log
        rows: Sequence[int] = range(len(forms))
        if since >= clock.base and clock.base + len(log) - since <= len(forms):
            index, changed = self.index, set()
            for f in log[since - clock.base :]:
                if f is None:
                    break
                k = index.get(f.id)
                if k is not None and forms[k] is f:
                    changed.add(k)
            else:
                rows = sorted(changed)
        for k in rows:
            f = forms[k]
            if f._rev != revs[k]:
                for name, col in cols.items():
                    v = col[k]
                    if v == v and float(self._column_value(name, k)) != v:  # v == v: read
                        return False
                revs[k] = f._rev
        self._revs_at = clock.now
        return True

    def _rebuild(self, table: FormationTable) -> None:
        # what was read of formations that have not changed since carries over (_column)
        old_cols: dict[str, np.ndarray] = getattr(self, "_cols", {})
        old_forms: list[Formation] = getattr(self, "forms", [])
        old_revs: list[int] = getattr(self, "_revs", [])
        old_crevs: list[int] = getattr(self, "_crevs", [])
        self._version = self.state.version
        self._table, self._revision = table, table.revision
        self._cache.clear()
        # candidates within earshot of each observer, nearest first: (rows, gaps); who of them
        # moves or fights is read when asked (those notes change without a move)
        self._heard: dict[str, tuple[list[int], list[float]]] = {}
        # gaps worked out this position state: observer row -> {other row: gap}; only the pairs
        # asked (culled by the spatial index), never the square of the army
        self._gaps: dict[int, dict[int, float]] = {}
        self._spatial: RectIndex | None = None
        self._hear_calls = 0
        #: every row's candidates within earshot and their gaps (:meth:`_hearing_table`)
        self._hear_near: _HearingTable | None = None
        self._corners: dict[int, np.ndarray] = {}
        self._sides: np.ndarray | None = None
        self._sides_py: list[int] | None = None
        self._side_names: dict[str, int] = {}
        self._axes_py: tuple[list[float], list[float], list[float], list[float]] | None = None
        self._cols: dict[str, np.ndarray] = {}
        self._box_py: list[list[float]] | None = None
        self._rows_py: list[list[float]] | None = None
        # the same formations in the same rows (the table's list is replaced, never changed,
        # when one joins or leaves: engine.state): their ids and rows carry over
        same_rows = table.forms is getattr(self, "_tforms", None) and bool(old_forms)
        self._tforms = table.forms
        if same_rows:
            forms = old_forms
        else:
            forms = list(table.forms)
            self.ids = [f.id for f in forms]
            self.index = {fid: i for i, fid in enumerate(self.ids)}
        self.forms = forms
        self._revs = revs = [f._rev for f in forms]
        self._crevs = crevs = [f._crev for f in forms]
        self._revs_at = CLOCK.now
        if old_cols and forms:
            # a formation's unit type and whether it skirmishes come from its living bases'
            # profiles (its make-up, engine.state ``_crev``): kept through moves; the rest
            # (characters with it, knowing the ground) while nothing of it changed (``_rev``)
            if same_rows:  # each row its own source: read values kept where unchanged
                src = np.arange(len(forms))
                same = np.array(old_revs) == np.array(revs)
                made = np.array(old_crevs) == np.array(crevs)
            else:
                was = {id(f): k for k, f in enumerate(old_forms)}
                src = np.array([was.get(id(f), -1) for f in forms], dtype=np.intp)
                same, made = src >= 0, src >= 0
                same[same] = np.array(old_revs)[src[same]] == np.array(revs)[same]
                made[made] = np.array(old_crevs)[src[made]] == np.array(crevs)[made]
            for name, col in old_cols.items():
                keep = made if name in _MAKE_UP_COLUMNS else same
                if keep.any():
                    new = np.full(len(forms), np.nan)
                    new[keep] = col[src[keep]]
                    self._cols[name] = new
        self.obbs = [f.obb() for f in forms]
        self.arr = table.arr  # the table's rectangles (copied by the table before a change)
        self.axes = _axes(self.arr[:, 4])  # for segment_hits over every formation, once
        if forms:
            xs, ys = self.arr[:, 0], self.arr[:, 1]
            inside = np.atleast_1d(self.bf.contains(xs, ys))
            levels = np.zeros(len(forms), dtype=int)
            if inside.any():
                levels[inside] = np.atleast_1d(self.bf.level_at(xs[inside], ys[inside]))
            self.levels = levels
            self.on_map = inside
        else:
            self.levels = np.zeros(0, dtype=int)
            self.on_map = np.zeros(0, dtype=bool)
        # the same values as Python objects for the per-pair loops (numpy scalars are slow)
        self._on: list[bool] = self.on_map.tolist()
        self._lv: list[int] = self.levels.tolist()
        self._xy: list[list[float]] = self.arr[:, :2].tolist()
        #: the centres as one array of their own (rows gathered by take: numpy's fancy
        #: indexing of rows of a 2-D array costs several times more)
        self._xy2 = np.ascontiguousarray(self.arr[:, :2])

    def current(self) -> bool:
        """Whether the answers held are those of the state as it is now: nothing on the table
        has changed since they were worked out (the state's revision clock, engine.state), no
        move since (``state.version``) and no change of light (which resets ``_version``)."""
        table = self.state.table()
        return (
            self._version == self.state.version
            and self._table is table
            and self._revision == table.revision
        )

    def fresh_copy(self) -> Sight:
        """A copy with caches of its own, for a look at the state as it is now that leaves this
        Sight as it was (a warmed cache would carry answers into the next bound, e.g. across a
        change of light); the answers this Sight holds come along when :meth:`current` (they
        are the ones the copy would work out)."""
        look = copy.copy(self)
        look._cache = {}  # before _refresh clears it: not this Sight's
        look._version = -1
        look._refresh()
        if self.current():
            look._cache.update(self._cache)
        return look

    def seen_by(self, side: str) -> list[str]:
        """6.2: the enemy formations on the table that some formation of ``side`` sees, sorted.

        An enemy seen once needs no second look: each enemy is looked at from its nearest
        observers first (short lines, few troops in the way: most are seen at once), then from
        the next ones by centre distance in growing rounds, each round's pairs in one batch
        (:meth:`_answers`). Every pair's answer is its own, so the set is the one every pair
        would give; answers already held (of this very position state) are used first.
        """
        return self.seen_by_sides([side])[side]

    def seen_by_sides(self, sides: Sequence[str]) -> dict[str, list[str]]:
        """:meth:`seen_by` of each of ``sides``, their looks in step: each round's pairs of
        every side asked in one batch (a batch's fixed cost is most of a small round's). A
        pair's answer does not depend on the batch it is asked in, and each side's look reads
        only its own observers' answers, so these are the records one side at a time gives."""
        self._refresh()
        looks = {side: self._look(side) for side in dict.fromkeys(sides)}
        out: dict[str, list[str]] = {}
        asks: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for side, look in looks.items():
            try:
                asks[side] = next(look)
            except StopIteration as done:
                out[side] = done.value
        while asks:
            hit = self._answers(
                np.concatenate([a[0] for a in asks.values()]),
                np.concatenate([a[1] for a in asks.values()]),
            )
            at, nxt = 0, {}
            for side, (ia, _ja) in asks.items():
                try:
                    nxt[side] = looks[side].send(hit[at : at + ia.size])
                except StopIteration as done:
                    out[side] = done.value
                at += ia.size
            asks = nxt
        return {side: out[side] for side in sides}

    def _look(self, side: str) -> Generator[tuple[np.ndarray, np.ndarray], np.ndarray, list[str]]:
        """:meth:`seen_by` of ``side`` as a generator: it yields each round's pairs
        (observer rows, target rows) and is sent their answers (:meth:`seen_by_sides`)."""
        sides = self._side_codes()
        if side not in self._side_names:
            return []
        mine = sides == self._side_names[side]
        own, enemy = np.flatnonzero(mine), np.flatnonzero(~mine)
        if not own.size or not enemy.size:
            return []
        ids = self.ids
        seen = np.zeros(enemy.size, dtype=bool)
        if self._cache:  # a pair known to see settles its enemy
            row_of = {ids[j]: n for n, j in enumerate(enemy.tolist())}
            own_ids = {ids[i] for i in own.tolist()}
            for (o, t), v in self._cache.items():
                if v and o in own_ids:
                    n = row_of.get(t)
                    if n is not None:
                        seen[n] = True
        # pairs that cannot see (an end off the map; 6.3: the boxes round the two farther
        # apart than the observer's limit, so the gap is too) are not asked: they are last in
        # each enemy's order and cut off by its count of possible observers
        possible = self.on_map[own, None] & self.on_map[None, enemy]
        limit = self._limits(own)
        if limit is not None:
            box = self.spatial.box
            a, b = box[own, None, :], box[None, enemy, :]
            gx = np.maximum(np.maximum(b[..., 0] - a[..., 2], a[..., 0] - b[..., 2]), 0.0)
            gy = np.maximum(np.maximum(b[..., 1] - a[..., 3], a[..., 1] - b[..., 3]), 0.0)
            possible &= ~(np.hypot(gx, gy) > limit[:, None])
        # the formation that saw each enemy at the last look (a hint only: which pairs are
        # asked first, never what they answer) is asked first: troops move little in a bound,
        # and the nearest observers of an enemy behind its own lines see nothing
        witness = self._witness.setdefault(side, {})
        saw = np.full(enemy.size, -1, dtype=np.intp)
        if witness:
            index, own_row = self.index, {j: n for n, j in enumerate(own.tolist())}
            at, by = [], []
            for n, j in enumerate(enemy.tolist()):
                if seen[n]:
                    continue
                w = own_row.get(index.get(witness.get(ids[j], ""), -1))
                if w is not None and possible[w, n]:
                    at.append(n)
                    by.append(own[w])
            if at:
                hit = yield np.array(by, dtype=np.intp), enemy[at]
                seen[at] = hit
                saw[at] = np.where(hit, by, -1)
        count = possible.sum(axis=0)
        # (rank, enemy) of the enemies still to find: observers whose line the troops next to
        # the enemy seem to leave open first (:meth:`_shadowed`, a guess), nearest first
        ranked = np.zeros(possible.shape, dtype=np.intp)
        todo = np.flatnonzero(~seen & (count > 0))
        if todo.size:
            # the centres' distances of the enemies still to find only (the witness settled
            # most), infinite where the pair cannot see
            xs, ys = self._xy2[:, 0], self._xy2[:, 1]
            ox, oy, tg = xs.take(own)[:, None], ys.take(own)[:, None], enemy[todo]
            key = np.hypot(ox - xs.take(tg)[None, :], oy - ys.take(tg)[None, :])
            key[~possible[:, todo]] = np.inf
            if own.size >= _SHADOW_FROM:
                key[self._shadowed(own, enemy[todo], key) & np.isfinite(key)] += _SHADOWED_LAST
            ranked[:, todo] = own[np.argsort(key, axis=0, kind="stable")]
        lo, width = 0, _FIRST_LOOK
        while True:
            left = np.flatnonzero(~seen & (count > lo))
            if not left.size:
                break
            obs = ranked[lo : lo + width, left]  # (width, left)
            valid = np.arange(lo, lo + obs.shape[0])[:, None] < count[None, left]
            tgt = np.broadcast_to(enemy[left], obs.shape)
            ok = np.zeros(obs.shape, dtype=bool)
            ok[valid] = yield obs[valid], tgt[valid]
            seen[left] = ok.any(axis=0)
            first = ok.argmax(axis=0)
            saw[left] = np.where(seen[left], obs[first, np.arange(left.size)], -1)
            lo, width = lo + width, width * _GROW
        witness.clear()
        for j, w in zip(enemy.tolist(), saw.tolist(), strict=True):
            if w >= 0:
                witness[ids[j]] = ids[w]
        return sorted(ids[j] for j in enemy[seen].tolist())

    def _shadowed(self, own: np.ndarray, tgt: np.ndarray, dist: np.ndarray) -> np.ndarray:
        """A guess (own.size, tgt.size) of which lines from observers ``own`` to targets ``tgt``
        (rows, ascending; ``dist`` their centres' distances, where finite) the troops next to
        the target block (6.2: troops in the way block the view): those of the target's side
        whose boxes are within _SHADOW_M of its own, no lower than either end, that the line
        meets by its bearing from the target (within the angle the rectangle spans seen from the
        target's centre) and its length (longer than the gap to the rectangle's circle). Only an
        order for :meth:`seen_by`'s look (each pair is then asked for its own answer): the
        enemies behind their own lines are seen through the gaps. Entries of an infinite
        ``dist`` (pairs never asked) are left False."""
        if tgt.size > _SHADOW_CHUNK:
            # each target's column is its own: in chunks of targets, so the (target, observer)
            # bearings and their candidates are held for a chunk at a time, not all at once
            return np.concatenate(
                [
                    self._shadowed(own, tgt[k : k + _SHADOW_CHUNK], dist[:, k : k + _SHADOW_CHUNK])
                    for k in range(0, tgt.size, _SHADOW_CHUNK)
                ],
                axis=1,
            )
        out = np.zeros((own.size, tgt.size), dtype=bool)
        arr, sides = self.arr, self._side_codes()
        pos, ks = self.spatial.box_gap_pairs(tgt, _SHADOW_M)
        ti = tgt[pos]
        lv = self.levels
        keep = (ks != ti) & (sides[ks] == sides[ti]) & (lv[ks] >= lv[ti])
        pos, ti, ks = pos[keep], ti[keep], ks[keep]
        if not ti.size or not own.size:
            return out
        fx, fy, rx, ry = (v[ks] for v in self.axes)
        ak, at_ = arr.take(ks, axis=0), arr.take(ti, axis=0)
        hw, hd = ak[:, 2], ak[:, 3]
        ox, oy = ak[:, 0] - at_[:, 0], ak[:, 1] - at_[:, 1]
        reach = np.hypot(ox, oy)
        ux, uy = ox / np.where(reach > 0, reach, 1.0), oy / np.where(reach > 0, reach, 1.0)
        # the widest corner seen from the target: the cosine of the half angle it spans
        wide = np.ones(ks.size)
        for sa, sb in ((-1, 1), (1, 1), (1, -1), (-1, -1)):
            px = ox + sa * hw * rx + sb * hd * fx
            py = oy + sa * hw * ry + sb * hd * fy
            wide = np.minimum(wide, (px * ux + py * uy) / np.maximum(np.hypot(px, py), 1e-9))
        inside = (np.abs(ox * rx + oy * ry) <= hw) & (np.abs(ox * fx + oy * fy) <= hd)
        wide[inside] = -1.0
        near = np.maximum(reach - np.hypot(hw, hd), 0.0)
        # the observers each blocker can shadow lie in its angle seen from the target: each
        # target's observers sorted by bearing, each blocker's angle (grown by a microradian,
        # far beyond the rounding of the test below) a range of them (two where it wraps
        # round). Only those (observer, blocker) pairs get the test, not every observer
        xy = arr[:, :2]
        oxs, oys = xy[own, 0], xy[own, 1]
        txs, tys = xy[tgt, 0], xy[tgt, 1]
        bear = np.arctan2(oys[None, :] - tys[:, None], oxs[None, :] - txs[:, None])
        order = np.argsort(bear, axis=1)
        row_at = _BEARING_ROWS * np.arange(tgt.size, dtype=float)
        flat = (np.take_along_axis(bear, order, axis=1) + row_at[:, None]).ravel()
        half = np.arccos(np.clip(wide, -1.0, 1.0)) + 1e-6
        phi = np.arctan2(uy, ux)
        lo, hi = phi - half, phi + half
        every = half >= np.pi
        lo[every], hi[every] = -np.pi - 1.0, np.pi + 1.0
        under, over = ~every & (lo < -np.pi), ~every & (hi > np.pi)
        wrap = np.flatnonzero(under | over)
        blk = np.concatenate([np.arange(pos.size), wrap])
        lo = np.concatenate([lo, np.where(under[wrap], lo[wrap] + 2 * np.pi, -np.pi - 1.0)])
        hi = np.concatenate([hi, np.where(under[wrap], np.pi + 1.0, hi[wrap] - 2 * np.pi)])
        at = row_at[pos[blk]]
        a = np.searchsorted(flat, lo + at, "left")
        n = np.searchsorted(flat, hi + at, "right") - a
        p = np.repeat(blk, n)  # a blocker of each candidate
        cand = np.arange(p.size) - np.repeat(np.cumsum(n) - n - a, n)  # its place in flat
        col, row = order.ravel().take(cand), pos.take(p)
        # the test itself, element by element as over every observer (1-D gathers by take,
        # several times cheaper than fancy indexing; the same numbers)
        at = col * dist.shape[1] + row
        d = dist.take(at)  # dist[col, row]
        dx, dy = oxs.take(col) - txs.take(row), oys.take(col) - tys.take(row)
        hit = dx * ux.take(p) + dy * uy.take(p) >= wide.take(p) * d
        hit &= d > near.take(p)
        hit &= lv.take(own).take(col) <= lv.take(ks).take(p)
        hit &= np.isfinite(d)
        out.ravel()[at[hit]] = True  # out[col[hit], row[hit]]: a view of its C-ordered cells
        return out

    def local(self, f: Formation) -> bool:
        """6.3: troops of the battlefield's locality (or ``locality_bonus``) know the ground."""
        if f.has_flag("locality_bonus"):
            return True
        side = self.state.sides[f.side]
        return self.locality is not None and side.locality == self.locality

    def limit_m(self, f: Formation) -> float | None:
        return _lower(self._limit_fn(self.weather, self.time, self.local(f)), self.fog_m)

    # -- queries ---------------------------------------------------------------------------
    @property
    def spatial(self) -> RectIndex:
        """The spatial index of this position state's formation rectangles (engine.spatial)."""
        self._refresh()
        if self._spatial is None:
            self._spatial = RectIndex(self.arr)
        return self._spatial

    def distance(self, a: str, b: str) -> float:
        """Gap between two formations' rectangles (0 when touching)."""
        self._refresh()
        return self._gaps_to(self.index[a], [self.index[b]])[0]

    def _gaps_to(self, i: int, js: list[int]) -> list[float]:
        """Gaps from formation ``i`` to formations ``js`` (cached per position state): the
        elements of ``distance(obbs[i], arr)`` asked for, the same numbers, element by element."""
        row = self._gaps.get(i)
        if row is None:
            row = self._gap_row(i)
        todo = [j for j in dict.fromkeys(js) if j not in row]
        if todo:
            vals = cast(list[float], distance(self.obbs[i], self.arr[todo]).tolist())
            row.update(zip(todo, vals, strict=True))
        return [row[j] for j in js]

    def _gap_row(self, i: int) -> dict[int, float]:
        """Formation ``i``'s gaps worked out this position state (other row -> gap), made on
        first need: with the hearing table's gaps of the row when the table was made before
        (a row not asked when the table was made; the rows asked then got them at once)."""
        row = self._gaps.get(i)
        if row is None:
            table = self._hear_near
            row = self._gaps[i] = {} if table is None else table.gaps(i)
        return row

    def _fill_gaps(self, pairs: list[tuple[int, int]]) -> None:
        """The gaps of many (observer row, other row) pairs not yet known, in one
        ``distance_pairs`` call (the same numbers as ``distance`` row by row)."""
        from engine.geometry import corners, distance_pairs

        gaps, row_of = self._gaps, self._gap_row
        todo = [
            (i, j)
            for i, j in dict.fromkeys(pairs)
            if j not in (gaps[i] if i in gaps else row_of(i))
        ]
        if not todo:
            return
        have = self._corners  # corners() of the rows asked so far (the same numbers)
        for i in dict.fromkeys(p[0] for p in todo):
            if i not in have:
                have[i] = corners(self.obbs[i])
        ii = np.fromiter((p[0] for p in todo), dtype=np.intp, count=len(todo))
        jj = np.fromiter((p[1] for p in todo), dtype=np.intp, count=len(todo))
        ca = np.array([have[p[0]] for p in todo]).reshape(-1, 4, 2)
        arr = self.arr
        vals = distance_pairs(arr.take(ii, axis=0), arr.take(jj, axis=0), ca).tolist()
        vals = cast(list[float], vals)
        for (i, j), v in zip(todo, vals, strict=True):
            gaps[i][j] = v  # every row asked was made above

    def prefetch_gaps(self, pairs: list[tuple[str, str]]) -> None:
        """Work out ``distance(a, b)`` of many pairs at once, for later calls to find."""
        self._refresh()
        index = self.index
        self._fill_gaps([(index[a], index[b]) for a, b in pairs])

    def sees(self, observer: str, target: str) -> bool:
        """6.2-6.3: can ``observer`` see ``target``? (cached per position state)"""
        self._refresh()
        key = (observer, target)
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        out = self._compute(observer, target)
        self._cache[key] = out
        return out

    def visible(self, observer: str, targets: list[str]) -> list[str]:
        """The targets ``observer`` sees, terrain sight batched in one call."""
        self._refresh()
        cache = self._cache
        try:  # every answer held (the usual case: prefetched): one pass over the targets
            return [t for t in targets if cache[(observer, t)]]
        except KeyError:
            i, index = self.index[observer], self.index
            self._work_out([(i, index[t]) for t in targets])
        return [t for t in targets if cache[(observer, t)]]

    def prefetch(self, requests: list[tuple[str, list[str]]]) -> None:
        """Work out ``visible(observer, targets)`` for many observers at once, for later calls
        to find in the cache: the troops in the way of every line in one batch, then the
        terrain sight of every pair left in one call (the answer of a pair does not depend on
        the others in a batch, so these are the answers ``visible`` would give)."""
        self._refresh()
        index = self.index
        self._work_out([(index[o], index[t]) for o, ts in requests for t in ts])

    def _answers(self, ia: np.ndarray, ja: np.ndarray) -> np.ndarray:
        """The answers (bool array) of the pairs (observer row ``ia[n]``, target row
        ``ja[n]``): from the cache, the rest worked out in one batch and cached."""
        il, jl = ia.tolist(), ja.tolist()
        ids = self.ids
        keys = list(zip(map(ids.__getitem__, il), map(ids.__getitem__, jl), strict=True))
        self._work_out_keyed(keys, il, jl, (ia, ja))
        return np.fromiter(map(self._cache.__getitem__, keys), dtype=bool, count=len(keys))

    def _work_out(self, pairs: list[tuple[int, int]]) -> None:
        """Caches the answers (6.2-6.3) of the pairs (observer row, target row) not cached:
        off the map or beyond the sight limit, hidden by troops (every pair in one batch,
        :meth:`_clear_of_troops`), then the terrain sight of the rest in one call."""
        il = [p[0] for p in pairs]
        jl = [p[1] for p in pairs]
        ids = self.ids
        keys = list(zip(map(ids.__getitem__, il), map(ids.__getitem__, jl), strict=True))
        self._work_out_keyed(keys, il, jl)

    def _work_out_keyed(
        self,
        keys: list[tuple[str, str]],
        il: list[int],
        jl: list[int],
        rows: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> None:
        """:meth:`_work_out` of the pairs (``il[n]``, ``jl[n]``) whose ids are ``keys[n]``
        (``rows``: ``il`` and ``jl`` as arrays, when the caller has them)."""
        cache = self._cache
        # the pairs not cached, each once, in the order first asked (a key's rows are the
        # same wherever it occurs: ids and rows are one to one)
        todo = {k: p for k, p in zip(keys, zip(il, jl, strict=True), strict=True) if k not in cache}
        if not todo:
            return
        if len(todo) <= _FEW_PAIRS:
            self._work_out_few(todo)
            return
        if rows is not None and len(todo) == len(keys):  # every pair new, each once: in order
            ia, ja = rows
        else:
            both = np.array(list(todo.values()), dtype=np.intp)
            ia, ja = both[:, 0], both[:, 1]
        ok = self.on_map[ia] & self.on_map[ja]
        limit = self._limits(ia)
        if limit is not None:
            ok &= ~self._beyond(ia, ja, limit)
        if ok.all():  # every pair on the map and within its limit (the usual case)
            go = np.flatnonzero(self._clear_of_troops(ia, ja))
        else:
            go = np.flatnonzero(ok)
            if go.size:
                go = go[self._clear_of_troops(ia[go], ja[go])]
        seen = np.zeros(ia.size, dtype=bool)
        if go.size:
            seen[go] = self._terrain(ia[go], ja[go])
        cache.update(zip(todo, seen.tolist(), strict=True))

    def _limits_now(self) -> tuple[float | None, float | None]:
        """6.3: the sight limits of strangers and of troops who know the ground in the light
        and weather now (asked of the rules once per change of light)."""
        fn, weather, time, fog = self._limit_fn, self.weather, self.time, self.fog_m
        if self._by_local[0] != (weather, time, fog):
            self._by_local = (
                (weather, time, fog),
                _lower(fn(weather, time, False), fog),
                _lower(fn(weather, time, True), fog),
            )
        return self._by_local[1], self._by_local[2]

    def _limit_of(self, i: int) -> float | None:
        """6.3: formation ``i``'s sight limit now (None: none but the ground)."""
        stranger, local = self._limits_now()
        if stranger == local:  # who knows the ground does not matter now
            return local
        return local if self._column_one("local", i) else stranger

    def _beyond_one(self, i: int, j: int, limit: float) -> bool:
        """:meth:`_beyond` of one pair: the boxes round the two farther apart than ``limit``
        settle it, and so do centres nearer (by more than a micrometre); else the gap."""
        box = self._box_list()
        a, b = box[i], box[j]
        gx = max(max(b[0] - a[2], a[0] - b[2]), 0.0)
        gy = max(max(b[1] - a[3], a[1] - b[3]), 0.0)
        if float(np.hypot(gx, gy)) > limit:
            return True
        (px, py), (qx, qy) = self._xy[i], self._xy[j]
        if float(np.hypot(px - qx, py - qy)) < limit - 1e-6:
            return False
        return self._gaps_to(i, [j])[0] > limit

    def _box_list(self) -> list[list[float]]:
        """The spatial index's boxes as Python floats (the same numbers)."""
        got = self._box_py
        if got is None:
            got = self._box_py = cast(list[list[float]], self.spatial.box.tolist())
        return got

    def _work_out_few(self, todo: dict[tuple[str, str], tuple[int, int]]) -> None:
        """:meth:`_work_out` of a few pairs, one pair at a time in plain floats (the same
        tests: the same answers): off the map or beyond the 6.3 limit, then the troops the line
        crosses (:meth:`_crossed`) judged by :meth:`_troops_clear`, then the terrain sight of
        the pairs left in one call. A batch's fixed cost is most of a call about a pair or two
        (morale asks thousands of those a battle)."""
        on, cache = self._on, self._cache
        go: list[tuple[int, int]] = []
        for key, (i, j) in todo.items():
            limit = self._limit_of(i) if on[i] and on[j] else None
            if (
                on[i]
                and on[j]
                and (limit is None or not self._beyond_one(i, j, limit))
                and self._clear_one(i, j)
            ):
                go.append((i, j))
            else:
                cache[key] = False
        if go:
            ia = np.array([p[0] for p in go], dtype=np.intp)
            ja = np.array([p[1] for p in go], dtype=np.intp)
            ids = self.ids
            for (i, j), v in zip(go, self._terrain(ia, ja).tolist(), strict=True):
                cache[(ids[i], ids[j])] = v

    def _clear_one(self, i: int, j: int) -> bool:
        """:meth:`_troops_clear` of one pair without the whole batch's arrays: the boxes the
        line's box meets (engine.spatial's padded boxes) no lower than the higher end (anything
        lower is seen over, 6.2), nearest the target first (troops next to it are the likeliest
        to block), each given the slab test of ``segment_hits_sparse`` (the same arithmetic in
        plain floats, as its few-pairs path) and judged as ``_troops_clear`` judges it, up to
        the first that blocks. The answer does not depend on the order."""
        xy, box = self._xy, self.spatial.box
        (px, py), (qx, qy) = xy[i], xy[j]
        meet = (box[:, 0] <= max(px, qx)) & (box[:, 2] >= min(px, qx))
        meet &= (box[:, 1] <= max(py, qy)) & (box[:, 3] >= min(py, qy))
        lv = self._lv
        top = max(lv[i], lv[j])
        ks = [k for k in np.flatnonzero(meet).tolist() if k != i and k != j and lv[k] >= top]
        if not ks:
            return True
        if len(ks) > 1:
            ks.sort(key=lambda k: (xy[k][0] - qx) ** 2 + (xy[k][1] - qy) ** 2)
        fx, fy, rx, ry = self._axes_list()
        rows = self._rows_list()
        dx, dy = qx - px, qy - py
        for k in ks:
            ox, oy, hw, hd = rows[k]
            sx, sy = px - ox, py - oy
            ok, t0, t1 = True, 0.0, 1.0  # geometry._segment_hits_few, step by step
            for ux, uy, h in ((rx[k], ry[k], hw), (fx[k], fy[k], hd)):
                s_ = sx * ux + sy * uy
                v = dx * ux + dy * uy
                if abs(v) < 1e-12:  # parallel to this pair of sides
                    ok = ok and not abs(s_) > h
                    continue
                ta = (-h - s_) / v
                tb = (h - s_) / v
                t0 = max(t0, min(ta, tb))
                t1 = min(t1, max(ta, tb))
            if ok and t0 <= t1 and not self._troops_clear(i, j, [k]):
                return False
        return True

    def _axes_list(self) -> tuple[list[float], list[float], list[float], list[float]]:
        """``self.axes`` as Python floats (the same numbers), for the per-pair loops."""
        got = self._axes_py
        if got is None:
            fx, fy, rx, ry = (cast(list[float], v.tolist()) for v in self.axes)
            got = self._axes_py = (fx, fy, rx, ry)
        return got

    def _rows_list(self) -> list[list[float]]:
        """Each rectangle's centre and half extents as Python floats (rows of ``arr``)."""
        got = self._rows_py
        if got is None:
            got = self._rows_py = cast(list[list[float]], self.arr[:, :4].tolist())
        return got

    def _limits(self, ia: np.ndarray) -> np.ndarray | None:
        """6.3: each observer's sight limit (inf: none), or None when no observer has one."""
        stranger, local = self._limits_now()
        by_local = {True: local, False: stranger}
        if by_local[True] == by_local[False]:  # who knows the ground does not matter now
            same = by_local[True]
            return None if same is None else np.full(ia.size, same, dtype=float)
        inf = float("inf")
        limit = {}
        for i in dict.fromkeys(ia.tolist()):
            v = by_local[bool(self._column_one("local", i))]
            limit[i] = inf if v is None else v
        if all(v == inf for v in limit.values()):
            return None
        return np.array([limit[i] for i in ia.tolist()], dtype=float)

    def _beyond(self, ia: np.ndarray, ja: np.ndarray, limit: np.ndarray) -> np.ndarray:
        """Whether the gap between each pair of rectangles is more than ``limit`` (the gaps of
        ``distance``): the boxes round them farther apart settle it, and so do centres nearer
        (by more than a micrometre: the gap is never more than the centres' distance); the
        rest are measured (:meth:`_fill_gaps`)."""
        box = self.spatial.box
        a, b = box.take(ia, axis=0), box.take(ja, axis=0)
        gx = np.maximum(np.maximum(b[:, 0] - a[:, 2], a[:, 0] - b[:, 2]), 0.0)
        gy = np.maximum(np.maximum(b[:, 1] - a[:, 3], a[:, 1] - b[:, 3]), 0.0)
        out = np.hypot(gx, gy) > limit
        xy = self.arr
        near = np.hypot(xy[ia, 0] - xy[ja, 0], xy[ia, 1] - xy[ja, 1]) < limit - 1e-6
        ask = np.flatnonzero(~out & ~near & np.isfinite(limit))
        if ask.size:
            pairs = list(zip(ia[ask].tolist(), ja[ask].tolist(), strict=True))
            self._fill_gaps(pairs)
            gaps = self._gaps
            out[ask] = np.array([gaps[i][j] for i, j in pairs]) > limit[ask]
        return out

    def _clear_of_troops(self, ia: np.ndarray, ja: np.ndarray) -> np.ndarray:
        """For each pair (observer row ``ia[n]``, target row ``ja[n]``), whether no formation
        in between blocks the view (6.2): :meth:`_troops_clear` of every pair at once. The
        lines crossed come from the spatial index and the slab test; each crossing is then
        judged by the same tests in arrays (a point distance near a threshold measured again
        as ``_troops_clear`` measures it)."""
        n_pairs = ia.size
        if n_pairs > _CHUNK_LINES:
            # each pair's answer is its own: in chunks, the candidate crossings of a batch
            # (lines x boxes met, ~30 a line through 2 x 960's crowds) held at once no larger
            # than a chunk's (the whole batch's held 190 MB there)
            return np.concatenate(
                [
                    self._clear_of_troops(ia[k : k + _CHUNK_LINES], ja[k : k + _CHUNK_LINES])
                    for k in range(0, n_pairs, _CHUNK_LINES)
                ]
            )
        ps, qs = self._xy2.take(ia, axis=0), self._xy2.take(ja, axis=0)
        index = self.spatial
        if n_pairs >= _NEAR_TARGET_FIRST_FROM and index.n >= _NEAR_TARGET_AMONG:
            # troops next to the target first: the last _NEAR_TARGET_M[0] of each line has few
            # boxes to meet, and one crossing that blocks settles a pair (hidden); then the
            # next stretch of the lines left open, out to _NEAR_TARGET_M[1], and so on; only
            # the pairs left open whose line is longer than the last reach are asked about the
            # rest of the line, out to the observer. The stretches follow each other (each
            # starts at the point the one before ended, the same numbers), so every line has had
            # all of it looked at (a box the line crosses where two stretches meet holds that
            # point within its millimetre's pad: both stretches' boxes meet it); the crossings
            # found are real ones of the whole line (its own slab test), so the answers are the
            # same
            clear = np.ones(n_pairs, dtype=bool)
            rest = np.arange(n_pairs)
            start = qs
            for reach in (*_NEAR_TARGET_M, None):
                if reach is None:  # the rest of each line left open, out to its observer
                    ends, far = ps[rest], np.zeros(rest.size, dtype=bool)
                else:
                    ends, far = self._toward(qs[rest], ps[rest], reach)
                if rest.size * index.n <= _FEW_CROSSINGS:  # the same pairs as the tree's
                    si, ri = index.crossing_few(ends, start)
                else:
                    si, ri = index.crossing_unordered(ends, start)
                si, ri = self._blockers(ia[rest], ja[rest], ps[rest], qs[rest], si, ri)
                open_ = np.ones(rest.size, dtype=bool)
                open_[si] = False
                clear[rest[~open_]] = False
                go = open_ & far  # open so far, and longer than this reach
                rest, start = rest[go], ends[go]
                if not rest.size:
                    break
            return clear
        return self._clear_of_troops_whole(ia, ja)

    @staticmethod
    def _toward(qs: np.ndarray, ps: np.ndarray, reach: float) -> tuple[np.ndarray, np.ndarray]:
        """Points on each segment ``qs -> ps`` at most ``reach`` from ``qs`` (``ps`` when
        nearer): the box of ``point -> qs`` lies in the box of the whole segment; and whether
        each segment is longer than ``reach`` (its point is not ``ps``)."""
        d = qs - ps
        dist = np.hypot(d[:, 0], d[:, 1])
        far = dist > reach
        out = ps.copy()
        if far.any():
            out[far] = qs[far] - d[far] * (reach / dist[far])[:, None]
        return out, far

    def _clear_of_troops_whole(self, ia: np.ndarray, ja: np.ndarray) -> np.ndarray:
        """:meth:`_clear_of_troops` over the whole of every line."""
        n_pairs = ia.size
        ps, qs = self._xy2.take(ia, axis=0), self._xy2.take(ja, axis=0)
        # the slab test on the (line, formation) pairs whose boxes meet only (engine.spatial)
        index = self.spatial
        if n_pairs * index.n <= _FEW_CROSSINGS:
            si, ri = index.crossing_few(ps, qs)
        else:
            si, ri = index.crossing_unordered(ps, qs)  # the order of crossings is not needed
        # anything on a lower level than the higher end is seen over: such troops never block,
        # so they need no slab test
        lv = self.levels
        top = np.maximum(lv[ia], lv[ja])
        keep = (ri != ia[si]) & (ri != ja[si]) & (lv[ri] >= top[si])
        si, ri = si[keep], ri[keep]
        si, ri = self._passing_near(ps, qs, si, ri)
        hit = segment_hits_sparse(ps, qs, self.arr, si, ri, self.axes)
        si, ri = si[hit], ri[hit]
        clear = np.ones(n_pairs, dtype=bool)
        if not si.size:
            return clear
        if si.size <= _FEW_JUDGED:  # a few crossings: _troops_clear itself, line by line
            crossed: dict[int, list[int]] = {}
            for s_, r_ in zip(si.tolist(), ri.tolist(), strict=True):
                crossed.setdefault(s_, []).append(r_)
            # the crossed lines' rows as Python ints (only theirs: a batch can be thousands of
            # lines, of which a few cross anything), the blocked ones marked at once
            lines = list(crossed)
            il, jl, troops_clear = ia[lines].tolist(), ja[lines].tolist(), self._troops_clear
            blocked = [
                s_
                for s_, i_, j_ in zip(lines, il, jl, strict=True)
                if not troops_clear(i_, j_, crossed[s_])
            ]
            clear[blocked] = False
            return clear
        clear[si[self._judge(ia, ja, si, ri)]] = False
        return clear

    def _passing_near(
        self, ps: np.ndarray, qs: np.ndarray, si: np.ndarray, ri: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Of the candidate crossings (line ``si[n]``: ``ps -> qs``, formation ``ri[n]``), all
        but boxes the line passes by (a long line's own box meets many): the line misses a box
        when the box's centre is farther from it than the box reaches across it; the boxes are
        padded by a millimetre, far beyond rounding, so no crossing is dropped. A few are left
        to the slab test as they are."""
        if si.size <= _CULL_LINES_FROM:
            return si, ri
        if si.size > _CULL_CHUNK:
            # candidate by candidate: in chunks, each one's sums held for a chunk at a time
            # (long lines through 2 x 960's crowds meet ~170 boxes each)
            parts = [
                self._passing_near(ps, qs, si[k : k + _CULL_CHUNK], ri[k : k + _CULL_CHUNK])
                for k in range(0, si.size, _CULL_CHUNK)
            ]
            return np.concatenate([a for a, _ in parts]), np.concatenate([b for _, b in parts])
        box = self.spatial.box.take(ri, axis=0)
        p0 = ps.take(si, axis=0)
        nx, ny = (ps[:, 1] - qs[:, 1])[si], (qs[:, 0] - ps[:, 0])[si]
        cx = (box[:, 0] + box[:, 2]) * 0.5 - p0[:, 0]
        cy = (box[:, 1] + box[:, 3]) * 0.5 - p0[:, 1]
        reach = np.abs(nx) * (box[:, 2] - box[:, 0]) + np.abs(ny) * (box[:, 3] - box[:, 1])
        near = np.abs(nx * cx + ny * cy) * 2.0 <= reach
        return si[near], ri[near]

    def _blockers(
        self,
        ia: np.ndarray,
        ja: np.ndarray,
        ps: np.ndarray,
        qs: np.ndarray,
        si: np.ndarray,
        ri: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Of the candidate crossings (line ``si[n]``, formation ``ri[n]``), those that cross
        the line (the slab test) and block it (:meth:`_judge`)."""
        lv = self.levels
        top = np.maximum(lv[ia], lv[ja])
        keep = (ri != ia[si]) & (ri != ja[si]) & (lv[ri] >= top[si])
        si, ri = self._passing_near(ps, qs, si[keep], ri[keep])
        hit = segment_hits_sparse(ps, qs, self.arr, si, ri, self.axes)
        si, ri = si[hit], ri[hit]
        if not si.size:
            return si, ri
        blocks = self._judge(ia, ja, si, ri)
        return si[blocks], ri[blocks]

    def _judge(self, ia: np.ndarray, ja: np.ndarray, si: np.ndarray, ri: np.ndarray) -> np.ndarray:
        """Whether each crossing (line ``si[n]``, formation ``ri[n]``, no lower than the line's
        higher end) blocks the line (6.2), judged in arrays as :meth:`_troops_clear` judges
        it."""
        side = self._side_codes()
        oi, tj = ia[si], ja[si]
        enemy = side[ri] != side[oi]
        # troops the observer sees over (6.2: monsters over anything, ...): the rule asked
        # once per pair of unit types in the batch
        tc = self._column("type", np.concatenate([oi, ri])).astype(np.intp)
        over = self._over_matrix()[tc[: oi.size], tc[oi.size :]]
        skirm = enemy & ~over  # enemy skirmishers in the way, not seen over: perhaps a screen
        if skirm.any():
            skirm[skirm] = self._column("skirm", ri[skirm]) > 0
        # friends within see_through of the observer, enemy screens within skirmish_screen_m
        # of it and of the troops they screen: seen through
        rules = self.rules
        friend = ~enemy
        thr = np.full(si.size, rules.skirmish_screen_m)
        ask = friend & ~over
        if ask.any():
            thr[ask] = self._column("see_through", oi[ask])
        judge = np.flatnonzero(~over & (friend | skirm))  # the others block outright
        through = np.zeros(si.size, dtype=bool)
        if judge.size:
            near = self._point_gaps(ri[judge], oi[judge], thr[judge]) <= thr[judge]
            # screens near the observer, and within skirmish_screen_m of the troops they
            # screen (measured only for those: a screen the observer is not near blocks)
            screen = skirm[judge] & near
            if screen.any():
                n_ = judge[screen]
                pairs = list(zip(ri[n_].tolist(), tj[n_].tolist(), strict=True))
                self._fill_gaps(pairs)  # in one call (kept: the numbers of distance())
                gaps = self._gaps
                to_screened = np.array([gaps[k][j] for k, j in pairs])
                near[screen] = to_screened <= rules.skirmish_screen_m
            through[judge] = near
        return ~(over | through)

    def _over_matrix(self) -> np.ndarray:
        """6.2 who sees over whom among the unit types met so far: ``[a, b]`` whether troops of
        type code ``a`` see over those of ``b`` (the rule asked once per pair of types; types
        are only ever added, so the matrix holds while their count does)."""
        names = self._type_names
        got = self._over
        if got is None or got.shape[0] != len(names):
            sees_over = self._sees_over
            got = self._over = np.array(
                [[sees_over(a, b) for b in names] for a in names], dtype=bool
            ).reshape(len(names), len(names))
        return got

    def _column(self, name: str, rows: np.ndarray) -> np.ndarray:
        """What sight reads of formations ``rows`` (:meth:`_column_value`) as floats, each
        formation's value worked out once per position state (a column of this position
        state, filled as rows are read; :meth:`_same_view` compares what was read)."""
        col = self._cols.get(name)
        if col is None:
            col = self._cols[name] = np.full(len(self.forms), np.nan)
        out = col[rows]
        miss = np.isnan(out)
        if miss.any():
            at = np.unique(rows[miss])
            value = self._column_value
            col[at] = np.array([float(value(name, r)) for r in at.tolist()], dtype=float)
            out = col[rows]
        return out

    def _column_one(self, name: str, r: int) -> float:
        """:meth:`_column` of one formation."""
        col = self._cols.get(name)
        if col is None:
            col = self._cols[name] = np.full(len(self.forms), np.nan)
        v = float(col[r])
        if v != v:  # not read yet
            v = col[r] = float(self._column_value(name, r))
        return v

    def _column_value(self, name: str, r: int) -> float:
        """What sight reads of formation ``r``: its unit type (``type``, :meth:`_type_code`;
        6.2 who sees over whom), whether it is a skirmisher (``skirm``: screens), how far its
        friends are seen through (``see_through``: farther with a character), whether it knows
        the ground (``local``: 6.3)."""
        f = self.forms[r]
        if name == "type":
            return self._type_code(r)
        if name == "skirm":
            return float(f.skirmisher)
        if name == "see_through":
            rules = self.rules
            if f.character_ids():
                return rules.character_see_through_m
            return rules.friend_see_through_m
        if name == "local":
            return float(self.local(f))
        raise ValueError(f"expected type, skirm, see_through or local, got {name!r}")

    def _type_code(self, r: int) -> int:
        """A small number for formation ``r``'s unit type (its place in ``_type_names``)."""
        name = self.forms[r].unit_type
        codes = self._type_codes
        code = codes.get(name)
        if code is None:
            code = codes[name] = len(self._type_names)
            self._type_names.append(name)
        return code

    def _point_gaps(self, ks: np.ndarray, os: np.ndarray, thr: np.ndarray) -> np.ndarray:
        """``point_distance(obbs[k], *centre of o)`` for each (k, o), as arrays; where one is
        within a micrometre of its threshold ``thr`` it is measured again by ``point_distance``
        itself, so comparisons with the threshold come out as _troops_clear's."""
        arr = self.arr
        fx, fy, rx, ry = (v[ks] for v in self.axes)
        ao, ak = arr.take(os, axis=0), arr.take(ks, axis=0)
        dx = ao[:, 0] - ak[:, 0]
        dy = ao[:, 1] - ak[:, 1]
        a = np.maximum(np.abs(dx * rx + dy * ry) - ak[:, 2], 0.0)
        b = np.maximum(np.abs(dx * fx + dy * fy) - ak[:, 3], 0.0)
        out = np.hypot(a, b)
        for n in np.flatnonzero(np.abs(out - thr) <= 1e-6).tolist():
            k, o = int(ks[n]), int(os[n])
            out[n] = point_distance(self.obbs[k], *self._xy[o])
        return out

    def _side_codes(self) -> np.ndarray:
        """Each formation's side as a small integer (rows of this position state; the codes
        in ``_side_names``)."""
        if self._sides is None:
            codes = self._side_names = {}
            self._sides = np.array(
                [codes.setdefault(f.side, len(codes)) for f in self.forms], dtype=np.intp
            )
        return self._sides

    def _side_list(self) -> list[int]:
        """:meth:`_side_codes` as Python ints (for the per-crossing loops)."""
        got = self._sides_py
        if got is None:
            got = self._sides_py = cast(list[int], self._side_codes().tolist())
        return got

    def _terrain(self, ia: np.ndarray, ja: np.ndarray) -> np.ndarray:
        """Terrain sight (6.2) of the pairs (observer row, target row), in one call."""
        self.los_calls += ia.size
        try:
            xy = self._xy2
            return np.atleast_1d(
                self.bf.line_of_sight_many(xy.take(ia, axis=0), xy.take(ja, axis=0))
            )
        except OffMapError:
            out = np.zeros(ia.size, dtype=bool)
            observers = np.unique(ia)
            if observers.size > 1:  # one observer at a time, as visible() would have asked
                for i in observers.tolist():
                    at = np.flatnonzero(ia == i)
                    out[at] = self._terrain(ia[at], ja[at])
            return out

    def _compute(self, observer: str, target: str) -> bool:
        self._refresh()
        self._work_out([(self.index[observer], self.index[target])])
        return self._cache[(observer, target)]

    def _troops_clear(self, i: int, j: int, hits: list[int] | None = None) -> bool:
        """No formation between ``i`` and ``j`` blocks the view (6.2). ``hits``: the formations
        the line crosses (without ``i`` and ``j``), ascending, when the caller has them."""
        xy = self._xy[i]
        p = (xy[0], xy[1])
        if hits is None:
            q = (float(self.arr[j, 0]), float(self.arr[j, 1]))
            crossed = segment_hits(p, q, self.arr, self.axes)
            crossed[i] = crossed[j] = False
            hits = crossed.nonzero()[0].tolist()
        if not hits:
            return True
        levels = self._lv
        top = max(levels[i], levels[j])
        col, names = self._column_one, self._type_names
        # each formation's side as a small number (one to one with the side's name), read from
        # a list: no Formation looked up per troop in the way
        sides = self._side_list()
        o_side = sides[i]
        o_type = see_through = None  # read on first need (profiles are loops over bases)
        for k in hits:
            if levels[k] < top:
                continue  # anything on a lower level can be seen over
            if o_type is None:
                o_type = names[int(col("type", i))]
            if self._sees_over(o_type, names[int(col("type", k))]):
                continue
            if sides[k] == o_side:
                if see_through is None:
                    see_through = col("see_through", i)
                if point_distance(self.obbs[k], *p) <= see_through:
                    continue
                return False
            if col("skirm", k):
                screen = self.rules.skirmish_screen_m
                # the gap to the screened troops (distance(), kept for the state) is measured
                # only for a screen the observer is near (a screen it is not near blocks)
                if (
                    point_distance(self.obbs[k], *p) <= screen
                    and self._gaps_to(k, [j])[0] <= screen
                ):
                    continue
            return False
        return True

    def heard(self, observer: str) -> str | None:
        """6.2: the one closest moving or fighting formation within ``hearing_m``, if any.

        Who is within earshot is kept per position state; who of them moves or fights (this
        bound's notes, the contacts) is read when asked: those change without a move."""
        self._refresh()
        near = self._heard.get(observer)
        if near is None:
            near = self._heard[observer] = self._earshot(self.index[observer])
        forms, contacts = self.forms, self.state.contacts
        for k in near[0]:
            f = forms[k]
            if f.moved_m > 0 or f.fought or contacts.get(f.id):
                return f.id
        return None

    def heard_many(self, observers: Sequence[str]) -> list[str | None]:
        """:meth:`heard` of each observer. Asked of more than a few at once, every row's
        earshot comes from the hearing table (:meth:`_hearing_table`) from the first, not the
        first few one row at a time (the same lists: the same answers)."""
        self._refresh()
        if len(observers) > 4 and self._hear_near is None:
            self._hear_calls = max(self._hear_calls, 4)  # the table at the next ask
        # :meth:`heard` of each, its state read once: nothing changes between the questions
        # (working out an earshot reads the position state only, and it is current)
        held, index, earshot = self._heard, self.index, self._earshot
        forms, contacts = self.forms, self.state.contacts
        out: list[str | None] = []
        for o in observers:
            near = held.get(o)
            if near is None:
                near = held[o] = earshot(index[o])
            got = None
            for k in near[0]:
                f = forms[k]
                if f.moved_m > 0 or f.fought or contacts.get(f.id):
                    got = f.id
                    break
            out.append(got)
        return out

    def _earshot(self, i: int) -> tuple[list[int], list[float]]:
        """The formations within ``hearing_m`` of formation ``i`` (not ``i``), nearest first
        (ties by row), and their gaps."""
        best_d = self.rules.hearing_m
        # the formations whose boxes are within earshot (engine.spatial), ascending: every one
        # within hearing_m is among them, so nearest first (ties by order) as over all of them
        table = self._hearing_table()
        if table is not None:  # sorted and cut with the table, every row at once
            return table.near(i)
        near = self.spatial.within(i, best_d).tolist()
        return _nearest_first(i, near, self._gaps_to(i, near), best_d)

    def _hearing_table(self) -> _HearingTable | None:
        """Every formation's candidates within earshot and their gaps, in one pass, once
        several formations have asked in this position state (None before): box lower bounds
        of every pair, then ``distance_pairs`` on the pairs within ``hearing_m`` (the same
        gaps as one row at a time)."""
        if self._hear_near is not None:
            return self._hear_near
        self._hear_calls += 1
        if self._hear_calls <= 4:
            return None
        from engine.geometry import corners_many, distance_pairs

        index = self.spatial
        if index.n > _HEAR_TREE_FROM:  # the pairs within earshot by a sweep, not N^2 bounds
            ii, jj = _box_pairs_within(index.box, self.rules.hearing_m)
        else:
            ii, jj = np.nonzero(index.lower_bound_matrix() <= self.rules.hearing_m)
        ca = corners_many(self.arr)  # corners() of every rectangle, the same numbers
        # a rectangle's gap to itself is 0.0 (distance_pairs: it overlaps itself, its
        # separation is minus its width, when both half extents are positive): not measured
        arr = self.arr
        ask = (ii != jj) | ~((arr[ii, 2] > 0.0) & (arr[ii, 3] > 0.0))
        gg = np.zeros(ii.size)
        if ask.any():
            ia, ja = ii[ask], jj[ask]
            gg[ask] = distance_pairs(
                arr.take(ia, axis=0), arr.take(ja, axis=0), ca.take(ia, axis=0)
            )
        starts = np.searchsorted(ii, np.arange(len(self.ids) + 1)).tolist()
        js, gs = jj.tolist(), cast(list[float], gg.tolist())
        # each row's formations within earshot, nearest first, ties in row order: _earshot's
        # cut and stable sort of each row (ascending columns) as one sort by (row, gap, column)
        best_d = self.rules.hearing_m
        ok = (ii != jj) & (gg <= best_d)
        si, sj, sg = ii[ok], jj[ok], gg[ok]
        at = np.lexsort((sj, sg, si))
        cut = np.searchsorted(si[at], np.arange(len(self.ids) + 1)).tolist()
        table = _HearingTable(
            starts, js, gs, cut, sj[at].tolist(), cast(list[float], sg[at].tolist())
        )
        # the gaps of the rows asked already (each pair's first value stays); a row not asked
        # yet gets its gaps from the table when first asked (:meth:`_gap_row`), not all now
        gaps = self._gaps
        for r, row in gaps.items():
            a, b = starts[r], starts[r + 1]
            for j, g in zip(js[a:b], gs[a:b], strict=True):
                row.setdefault(j, g)
        self._hear_near = table
        return table

    def aware(self, observer: str, target: str) -> bool:
        """Seen or heard: what counts for morale (10.2 "events you can see or hear")."""
        return self.heard(observer) == target or self.sees(observer, target)

    def aware_many(self, observer: str, targets: list[str]) -> list[bool]:
        """``[aware(observer, t) for t in targets]``, the sight of the targets not heard in one
        batch (the same pairs as one at a time, so the same answers and cache)."""
        heard = self.heard(observer)
        rest = [t for t in targets if t != heard]
        seen = set(self.visible(observer, rest)) if rest else set()
        return [t == heard or t in seen for t in targets]

    def aware_of_any(self, observer: str, targets: Sequence[str]) -> bool:
        """``any(aware(observer, t) for t in targets)``, with terrain sight batched in chunks of
        1, 2, 4, ... targets (the same answer; the nearest targets usually settle it)."""
        heard = self.heard(observer)  # brings the answers held to the state as it is now
        cache = self._cache
        k, chunk = 0, 1
        while k < len(targets):
            part = list(targets[k : k + chunk])
            if heard in part:
                return True
            # the answers held first (nothing changes between the questions of one call: the
            # answers visible would give), then the rest in one batch
            try:
                if any([cache[(observer, t)] for t in part]):
                    return True
            except KeyError:
                if self.visible(observer, part):
                    return True
            k, chunk = k + chunk, chunk * 2
        return False
