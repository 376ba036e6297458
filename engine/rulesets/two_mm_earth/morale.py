"""Army morale (10.1-10.5), pursuit (11.1), rallying (11.2), Random troops (11.3).

The morale phase collects, for each formation, the 10.2 triggers of the bound (and the 11.1
ones for retreating troops), asks the ruleset what each does (``Ruleset.morale_effect``: panic
test, must retreat, must rout), and runs the ruleset's panic test (``Ruleset.morale_test``: v0.9's
10.5 or v0.7's rout test) with R chosen by situation - melee R in contact, ranged R when shot at,
the highest otherwise - the 10.2 "-1R" modifiers, -1 retreating / -2 routing, minus the highest
leadership unless routing.

Events that spread (a friend routing near by, all seen friends retreating) are handled in passes:
a formation that breaks in one pass can set off its neighbours in the next; each trigger is
acted on at most once per formation per bound. Friends only count if seen or heard (10.2, 6.2).

Readings (docs/rules-interpretations.md): "friendly non-skirmishers rout within ..." and "seen
friend retreating" are events of the bound in which the friend broke, not standing conditions;
the "MORE than 50 % / 75 % killed throughout game" rows fire once, in the bound the line is
crossed; "All seen friendlies retreating" needs at least two seen friendly formations.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any, overload

import numpy as np

from engine.log import (
    Destroyed,
    Event,
    PanicTest,
    Pursuit,
    Rally,
    Retreat,
    Rout,
    TemperamentChange,
)
from engine.movement import footprint_classes
from engine.rulesets.two_mm_earth.charts import Order as OrderKind
from engine.rulesets.two_mm_earth.charts import Temperament
from engine.rulesets.two_mm_earth.context import TwoMmContext
from engine.rulesets.two_mm_earth.damage import kill_base
from engine.rulesets.two_mm_earth.profiles import profile_of
from engine.rulesets.two_mm_earth.triggers import MoraleSituation
from engine.state import Base, BaseStatus, Formation, Morale

__all__ = [
    "begin_aftermath",
    "casualties",
    "enemy_contact_sides",
    "immediate_tests",
    "leadership",
    "morale_passes",
    "morale_phase",
    "pursuit_over",
    "pursuit_phase",
    "rally_phase",
    "set_morale",
]

_BROKEN = (Morale.RETREATING, Morale.ROUTING)


def leadership(f: Formation, characters: dict) -> int:
    """10.5: the highest L of a living character in the formation."""
    ls = [characters[c].leadership for c in f.character_ids() if c in characters]
    return max(ls, default=0)


def set_morale(
    ctx: TwoMmContext, f: Formation, new: Morale, reason: str, phase: str
) -> list[Event]:
    """Change a formation's morale state, with its event."""
    if f.morale is new or f.morale is Morale.DESTROYED:
        return []
    old = f.morale
    f.morale = new
    f.changed_bound = ctx.state.bound
    if new is Morale.ROUTING:
        f.routed_bound = ctx.state.bound
        f.pursuing = None
        return [Rout(phase, f.id, reason)]
    if new is Morale.RETREATING:
        f.pursuing = None
        if old is Morale.ROUTING:
            f.routed_bound = None
        return [Retreat(phase, f.id, reason)]
    if new is Morale.STEADY:
        return [Rally(phase, f.id, reason)]
    return [Destroyed(phase, f.id, reason, tuple(b.id for b in f.alive_bases))]


def _resilience_pair(f: Formation) -> tuple[int, int]:
    front = f.front_rank() or f.alive_bases
    from engine.rulesets.two_mm_earth.resolution import mean_resilience

    return (
        mean_resilience(profile_of(b.profile).resilience.melee for b in front),
        mean_resilience(profile_of(b.profile).resilience.ranged for b in front),
    )


def _friend_triggers(
    ctx: TwoMmContext,
    f: Formation,
    side_forms: list[Formation] | None = None,
    reach: RoutReach | None = None,
    last: dict[str, _SideView] | None = None,
    view: _SideView | None = None,
) -> list[str]:
    """10.2 friendly routs near by, "all seen friendlies retreating"; 11.1 seen broken friends.

    ``side_forms``: ``state.active(f.side)`` when the caller has it; ``reach``: the morale
    passes' :class:`RoutReach` (a new one otherwise); ``last``: the passes' latest view of
    each side (:func:`_side_view`); ``view``: the side's view as it is now, when the caller
    has it (:meth:`_FriendReads.view`).

    Only the friends that can set off a trigger are asked about: troops already retreating
    (11.1) react to any broken friend they see or hear, the rest only to a routing
    non-skirmisher within 250 m (10.2), so for those the candidates are the routers whose
    rectangles the spatial index puts within 250 m (:meth:`_SideView.routs_near`); the sight
    asked is the same for every pair that matters, and the triggers come in the same order."""
    state, sight = ctx.state, ctx.sight
    out: list[str] = []
    if side_forms is None:
        side_forms = state.active(f.side)
    side = view if view is not None else _side_view(ctx, f.side, side_forms, last)
    if side.n_broken - (f.morale in _BROKEN) <= 0:
        return out  # no friend broken
    sees_broken = f.morale is Morale.RETREATING and f.changed_bound != state.bound
    if sees_broken:
        cands = [g for g in side.broken_now if g is not f]
    else:
        cands = side.routs_near(f, reach if reach is not None else RoutReach(ctx))
    aware_now = sight.aware_many(f.id, [g.id for g in cands]) if cands else []
    for g, aware in zip(cands, aware_now, strict=True):
        if not aware:
            continue
        if g.morale is Morale.ROUTING and not g.skirmisher:
            d = sight.distance(f.id, g.id)
            if d <= 100.0:
                out.append("friendly_rout_0_100m")
            elif d <= 250.0:
                out.append("friendly_rout_100_250m")
        if sees_broken:
            out.append("retreating_sees_broken")  # 11.1: troops already retreating
    if f.morale is Morale.STEADY:
        # one seen steady friend is enough to rule the trigger out: nearest first, stop early
        # (sorted only as far as asked: the nearest few usually settle it). The nearest alone
        # settles it most often (seen or heard): asked first when the k-d tree's rows name it,
        # without sorting (Sight.aware_of_any asks it first too: the same answer)
        first = side.first_steady(f)
        if first is not None and sight.aware(f.id, first):
            return out
        if sight.aware_of_any(f.id, side.nearest_steady(f)):
            return out
        seen = _aware_of(ctx, f, side.broken)
        # 10.2 "all seen friendlies": friendly formations in the plural, at least two, each
        # counted once with its wings and fallen-out groups (4.2, 11.1, 11.3: one original,
        # routing if any part of it routs) and never the tester's own. One broken friend in
        # sight is what the "friendly non-skirmishers rout within ..." rows are for; read as
        # one, a lone rout seen at any distance would make its viewers rout and those rows idle
        friends: dict[str, bool] = {}
        own = f.wing_of or f.id
        for g in seen:
            root = g.wing_of or g.id
            if root != own:
                friends[root] = friends.get(root, False) or g.morale is Morale.ROUTING
        if len(friends) >= ALL_SEEN_MIN and all(g.morale in _BROKEN for g in seen):
            routing = sum(friends.values())
            if routing * 2 >= len(friends):
                out.append("all_seen_friendlies_retreating_half_routing")
            else:
                out.append("all_seen_friendlies_retreating")
    return out


#: 10.2 "All seen friendlies retreating": the fewest friendly formations (originals, with
#: their wings) a formation must see, all broken, for the row to apply
ALL_SEEN_MIN = 2

#: 10.2 "friendly non-skirmishers rout within 250 m": the farthest a friend's rout sets one off
ROUT_NEAR_M = 250.0


#: up to this many steady friends, their nearest come from every centre distance (faster than
#: building a k-d tree up to about 60 on a 2-core test machine; no scipy.spatial import)
_KNN_BRUTE = 64


class _SideView:
    """One side's formations by morale, for the morale triggers of all its formations: one
    per side for each revision of the table (a morale change makes a new one). The steady
    formations' nearest steady friends come from one k-d tree query (scipy) for all of them,
    not the distance to every friend; the routers of the bound near each formation from the
    boxes round the rectangles (engine.spatial)."""

    def __init__(
        self, ctx: TwoMmContext, side_forms: list[Formation], prev: _SideView | None = None
    ) -> None:
        bound = ctx.state.bound
        self.ctx = ctx
        self.side_forms, self.bound = side_forms, bound
        self.broken = [g for g in side_forms if g.morale in _BROKEN]
        self.n_broken = len(self.broken)
        self.broken_now = [g for g in self.broken if g.changed_bound == bound]
        #: the routers of the bound (``broken_now`` order), and which of them are skirmishers
        self.routing_now = [g for g in self.broken_now if g.morale is Morale.ROUTING]
        self._skirmisher: dict[str, bool] = {}
        t = ctx.state.table()
        self.rows = t.rows
        self._routs: list[Formation] | None = None
        #: the last view of the side with k-d tree rows (:meth:`knn`) over a superset of these
        #: steady formations, in the same morale passes (nothing moves in them, and no one
        #: rallies: the steady only get fewer): its rows, less the friends broken since, are
        #: each formation's nearest steady friends still (see :meth:`nearest_steady`)
        self._base: _SideView | None = None
        if prev is not None and prev.side_forms is side_forms and prev.bound == bound:
            self._read_on(prev)
            return
        self.steady = [g for g in side_forms if g.morale is Morale.STEADY]
        self.ids = [g.id for g in self.steady]
        self.row = {g.id: k for k, g in enumerate(self.steady)}
        #: the steady formations' centres ((S, 2): their rectangles' centres, Formation.centre)
        self.pts = t.arr[[t.rows[i] for i in self.ids]][:, :2].reshape(-1, 2)
        self.pts_list: list[list[float]] = self.pts.tolist()
        self._knn: tuple[list[list[float]], list[list[int]]] | None = None

    def _read_on(self, prev: _SideView) -> None:
        """The steady formations and their centres from ``prev``, the side's view before the
        morale changes since, in the same passes: no one rallies and nothing moves in them, so
        the steady are ``prev``'s less those broken since, in the same order, at the same
        centres; when none broke (a retreat turned rout) its k-d tree rows too. The routers:
        ``prev``'s list itself when no one routed since (``RoutReach.rows`` keeps its stack)."""
        self._skirmisher = prev._skirmisher  # (a formation's profiles do not change)
        steady = [g for g in prev.steady if g.morale is Morale.STEADY]
        if len(steady) == len(prev.steady):
            self.steady, self.ids, self.row = prev.steady, prev.ids, prev.row
            self.pts, self.pts_list, self._knn = prev.pts, prev.pts_list, prev._knn
            self._base = prev._base
        else:
            keep = [prev.row[g.id] for g in steady]
            self.steady = steady
            self.ids = [g.id for g in steady]
            self.row = {i: k for k, i in enumerate(self.ids)}
            self.pts = prev.pts[keep]
            self.pts_list = [prev.pts_list[k] for k in keep]
            self._knn = None
            self._base = prev if prev._knn is not None else prev._base
        routing = self.routing_now
        if prev._routs is not None and len(routing) == len(prev.routing_now):
            # routers stay routing through the passes: as many routers are the same ones
            self._routs = prev._routs

    def knn(self) -> tuple[list[list[float]], list[list[int]]] | None:
        """Each steady formation's nearest steady centres (itself among them) by the k-d
        tree's distances, :attr:`_NearestFirst.KNN` of them, in one query; None when there are
        too few friends to need it."""
        n, want = len(self.ids), _NearestFirst.KNN
        if self._knn is None and n >= want:
            if n <= _KNN_BRUTE:
                # a few friends: every centre distance in one array, the nearest sorted (no
                # k-d tree: building one, and importing scipy.spatial, cost more). Ties may
                # come in another order than the tree's; _NearestFirst takes these as a
                # guess checked by a margin, so the order read is the same
                pts = self.pts
                d = np.hypot(pts[:, None, 0] - pts[None, :, 0], pts[:, None, 1] - pts[None, :, 1])
                k = np.argpartition(d, want - 1, axis=1)[:, :want]
                dk = np.take_along_axis(d, k, axis=1)
                order = np.argsort(dk, axis=1, kind="stable")
                k = np.take_along_axis(k, order, axis=1)
                self._knn = (np.take_along_axis(dk, order, axis=1).tolist(), k.tolist())
            else:
                from scipy.spatial import cKDTree

                d, k = cKDTree(self.pts).query(self.pts, k=want)
                self._knn = (d.tolist(), k.tolist())
        return self._knn

    def nearest_steady(self, f: Formation) -> _NearestFirst:
        """``f``'s steady friends (``f`` steady), nearest centre first."""
        k = self.row[f.id]
        # the k-d tree's answer for every steady friend pays when most of them ask (the
        # passes' prefetch asks it for all); a view made anew after a morale change is asked
        # by a few: their rows of the last view's tree, less the friends no longer steady (a
        # shorter list of nearest: _NearestFirst checks by its margin whether it settles the
        # read, else measures), or without one every distance (_NearestFirst without ``first``)
        knn = self._knn
        first = (knn[0][k], knn[1][k]) if knn is not None else self._carried(f.id)
        return _NearestFirst(self.pts_list[k], self.ids, self.pts, k, first, self.pts_list)

    def first_steady(self, f: Formation) -> str | None:
        """``nearest_steady(f)[0]`` when the k-d tree's rows settle it without sorting (the
        next nearest is farther by more than :class:`_NearestFirst`'s margin, so the order by
        ``math.dist`` and id starts with it too), else None."""
        k = self.row[f.id]
        knn = self._knn
        pairs: Iterable[tuple[float, int | None]]
        if knn is not None:
            pairs = zip(knn[0][k], knn[1][k], strict=True)
        else:  # :meth:`_carried`'s row, read only as far as needed
            base = self._base
            kb = base.row.get(f.id) if base is not None else None
            if base is None or base._knn is None or kb is None:
                return None
            ids, row = base.ids, self.row
            pairs = ((d, row.get(ids[j])) for d, j in zip(base._knn[0][kb], base._knn[1][kb]))
        best = -1
        for d, j in pairs:
            if j is None or j == k:  # (a friend no longer steady, or f)
                continue
            if best < 0:
                best, thr = j, d * (1 + 1e-9) + 1e-9
            else:
                return self.ids[best] if d > thr else None
        # the row ends after the nearest: settled only if no other friend is steady
        return self.ids[best] if best >= 0 and len(self.ids) == 2 else None

    def _carried(self, fid: str) -> tuple[list[float], list[int]] | None:
        """``fid``'s row of :attr:`_base`'s k-d tree, its friends still steady (in this view's
        rows), in the tree's order; None without a base."""
        base = self._base
        if base is None or base._knn is None:
            return None
        kb = base.row.get(fid)
        if kb is None:
            return None
        ids, row = base.ids, self.row
        dist: list[float] = []
        at: list[int] = []
        for d, j in zip(base._knn[0][kb], base._knn[1][kb], strict=True):
            k = row.get(ids[j])
            if k is not None:
                dist.append(d)
                at.append(k)
        return dist, at

    def routs_near(self, f: Formation, reach: RoutReach) -> list[Formation]:
        """The non-skirmishers routing since this bound (``broken_now`` order, not ``f``) whose
        rectangles may be within :data:`ROUT_NEAR_M` of ``f``'s (every one that is, perhaps
        more: :class:`RoutReach`)."""
        routs = self._routs
        if routs is None:
            skirmisher = self._skirmisher
            for g in self.routing_now:
                if g.id not in skirmisher:
                    skirmisher[g.id] = g.skirmisher
            routs = [g for g in self.routing_now if not skirmisher[g.id]]
            self._routs = routs
        if not routs or (len(routs) == 1 and routs[0] is f):
            return []
        near = reach.near_of(routs, f)
        return [g for g in near if g is not f] if near else []


class RoutReach:
    """10.2's reach of a router (:data:`ROUT_NEAR_M`) over Sight's rows (``ctx.sight.index``):
    whether the box round its rectangle is within that distance of the box round each
    formation's (a superset of the formations within that gap), from the box gaps against all
    (``RectIndex.lower_bounds``), one row per router, kept while Sight looks at the same
    rectangles (one morale phase: nothing moves in it).

    The rectangles are Sight's, the ones ``Sight.distance`` measures the 10.2 gap on (Sight
    keeps the table it looked at after the last move: a formation that has lost bases since has
    a smaller rectangle on the table than in Sight). Asking for them is a question to Sight, so
    callers ask only where the rules ask Sight at once anyway (which moment Sight first looks
    at the table after a move matters)."""

    def __init__(self, ctx: TwoMmContext) -> None:
        self.sight = ctx.sight
        self._of: np.ndarray | None = None  # the Sight rectangles the rows were made for
        self._rows: dict[str, np.ndarray] = {}
        self._stacks: dict[int, tuple[list[Formation], np.ndarray]] = {}
        self._near: dict[
            int, tuple[list[Formation], np.ndarray, dict[str, list[Formation]], bool]
        ] = {}

    def _fresh(self) -> Any:
        index = self.sight.spatial  # brings Sight up to date
        if self._of is not self.sight.arr:
            self._of, self._rows, self._stacks, self._near = self.sight.arr, {}, {}, {}
        return index

    def row_of(self, f: Formation) -> int:
        """``f``'s row in Sight."""
        self._fresh()
        return self.sight.index[f.id]

    def row(self, g: Formation) -> np.ndarray:
        """Router ``g``'s reach over Sight's rows."""
        index = self._fresh()
        hit = self._rows.get(g.id)
        if hit is None:
            hit = self._rows[g.id] = index.lower_bounds(self.sight.index[g.id]) <= ROUT_NEAR_M
        return hit

    def rows(self, routs: list[Formation]) -> np.ndarray:
        """:meth:`row` of each router of ``routs`` stacked ((R, N), in their order), kept for
        that list while Sight looks at the same rectangles: one column per formation asked
        (10.2 is asked of every formation of the side, against the same routers)."""
        index = self._fresh()
        hit = self._stacks.get(id(routs))
        if hit is None or hit[0] is not routs:
            rows, at = self._rows, self.sight.index
            for g in routs:  # Sight is up to date (above): no need to ask it again per router
                if g.id not in rows:
                    rows[g.id] = index.lower_bounds(at[g.id]) <= ROUT_NEAR_M
            hit = self._stacks[id(routs)] = (routs, np.stack([rows[g.id] for g in routs]))
            _keep_last(self._stacks)
        return hit[1]

    def near_of(self, routs: list[Formation], f: Formation) -> list[Formation]:
        """The routers of ``routs`` (in their order) whose :meth:`row` takes in ``f``'s row:
        ``f``'s column of :meth:`rows`, kept for the list. Read for every column at once when
        the list is first asked about while its routers reach few formations (at most one
        hit a row in all: the 2 x 60 battle's lists, 0.24 a row on average), else column by
        column as asked (2 x 240: 1.7 a row, ~24 formations asking about each list)."""
        self._fresh()
        hit = self._near.get(id(routs))
        if hit is None or hit[0] is not routs:
            stack = self.rows(routs)
            every = int(np.count_nonzero(stack)) <= stack.shape[1]
            by_id: dict[str, list[Formation]] = {}
            if every:
                cols, at = np.nonzero(stack.T)  # by column, then router order
                forms = self.sight.forms
                for c, r in zip(cols.tolist(), at.tolist(), strict=True):
                    got = by_id.get(forms[c].id)
                    if got is None:
                        by_id[forms[c].id] = [routs[r]]
                    else:
                        got.append(routs[r])
            hit = self._near[id(routs)] = (routs, stack, by_id, every)
            _keep_last(self._near)
        _, stack, by_id, every = hit
        near = by_id.get(f.id)
        if near is None:
            if every:
                return []
            col = stack[:, self.sight.index[f.id]].tolist()
            near = by_id[f.id] = [g for g, h in zip(routs, col, strict=True) if h]
        return near


#: how many lists of routers :class:`RoutReach` keeps its stacked rows for: a side's view is
#: made anew after each break and asks about its own list, so only the latest few are asked
#: again; kept for every list, a panic cascade (hundreds of breaks in a bound, each list one
#: router longer, every stack routers x formations) held 390 MB at 2 x 960
_KEPT_LISTS = 4


def _keep_last(kept: dict[int, Any]) -> None:
    """Drop the oldest of ``kept`` (by insertion) past :data:`_KEPT_LISTS` entries: one asked
    again is stacked again, the same rows."""
    while len(kept) > _KEPT_LISTS:
        del kept[next(iter(kept))]


def rout_neighbours(
    ctx: TwoMmContext, routs: list[Formation], reach: RoutReach | None = None
) -> dict[str, list[Formation]]:
    """Formation id -> the formations of ``routs`` (in their order) that may be within
    :data:`ROUT_NEAR_M` of it (:class:`RoutReach`), for every formation of a router's side."""
    if not routs:
        return {}
    reach = reach if reach is not None else RoutReach(ctx)
    ri, oi = np.nonzero(np.stack([reach.row(g) for g in routs]))
    forms = ctx.sight.forms
    out: dict[str, list[Formation]] = {}
    # ordered by router, so each formation's list follows ``routs``
    for r, o in zip(ri.tolist(), oi.tolist(), strict=True):
        g = routs[r]
        if forms[o].side == g.side:
            out.setdefault(forms[o].id, []).append(g)
    return out


def _side_view(
    ctx: TwoMmContext,
    side: str,
    side_forms: list[Formation],
    last: dict[str, _SideView] | None = None,
) -> _SideView:
    """The side's view for this revision of the table. ``last``: the morale passes' latest
    view of each side (updated here), whose k-d tree rows a new view reads on from."""
    memo = ctx.state.table().memo
    key = ("morale_side", side, id(side_forms))
    hit = memo.get(key)
    if hit is None or hit[0] is not side_forms:
        prev = last.get(side) if last is not None else None
        hit = memo[key] = (side_forms, _SideView(ctx, side_forms, prev))
    if last is not None:
        last[side] = hit[1]
    return hit[1]


class _NearestFirst(Sequence[str]):
    """Formation ids in the order ``sorted(ids, key=lambda i: (math.dist(point, pts[i]), i))``
    (without ``ids[own]``, the asking formation), sorted only as far as they are read (slices
    from the start): the few nearest are found first - from ``first``, the k-d tree's nearest
    (distances, indices) when the caller has them, else by numpy - and only those are sorted
    exactly. The candidates are taken with a margin far above the rounding difference between
    those distances and ``math.dist``, so the prefix is the one the full sort gives."""

    #: sorted at the first read (and doubled after): the first read is nearly always of one
    #: (Sight.aware_of_any's first chunk: 13.0k of 13.2k calls on 2 x 240 stop there)
    FIRST = 4
    #: the k-d tree's nearest asked for each formation (itself among them): reads up to
    #: KNN - 2 are sorted from them alone
    KNN = 18

    def __init__(
        self,
        point: Any,
        ids: list[str],
        pts: np.ndarray,
        own: int | None = None,
        first: tuple[list[float], list[int]] | None = None,
        pts_list: list[list[float]] | None = None,
    ) -> None:
        self.point = (float(point[0]), float(point[1]))
        self.ids, self.pts, self.own, self.first = ids, pts, own, first
        self.pts_list = pts_list
        self.n = len(ids) - (own is not None)
        self.done: list[str] = []

    def __len__(self) -> int:
        return self.n

    def _cands(self, want: int) -> list[int]:
        """Indices (not ``own``) holding the ``want`` nearest by ``math.dist``, ties included."""
        own = self.own
        if want >= self.n:
            return [k for k in range(len(self.ids)) if k != own]
        if self.first is not None:
            near = [(d, k) for d, k in zip(*self.first, strict=True) if k != own]
            if len(near) > want:
                # complete when the next one is clear of the want-th by more than the margin
                thr = near[want - 1][0]
                if near[want][0] > thr * (1 + 1e-9) + 1e-9:
                    return [k for _d, k in near[:want]]
        d = np.hypot(self.pts[:, 0] - self.point[0], self.pts[:, 1] - self.point[1])
        if own is not None:
            d[own] = np.inf
        thr = float(np.partition(d, want - 1)[want - 1])
        return np.flatnonzero(d <= thr * (1 + 1e-9) + 1e-9).tolist()

    def _upto(self, m: int) -> None:
        n = self.n
        if m <= len(self.done) or len(self.done) == n:
            return
        want = min(n, max(m, 2 * len(self.done), self.FIRST))
        if self.pts_list is None:
            self.pts_list = self.pts.tolist()
        pts, ids, p = self.pts_list, self.ids, self.point
        keyed = sorted((math.dist(p, pts[k]), ids[k]) for k in self._cands(want))
        self.done = [i for _, i in keyed[:want]]

    @overload
    def __getitem__(self, k: int) -> str: ...

    @overload
    def __getitem__(self, k: slice) -> list[str]: ...

    def __getitem__(self, k: int | slice) -> str | list[str]:
        if isinstance(k, slice):
            start, stop, step = k.indices(self.n)
            self._upto(stop)
            return self.done[start:stop:step]
        self._upto(k + 1 if k >= 0 else self.n)
        return self.done[k]


def _prefetch_nearest_steady(
    ctx: TwoMmContext,
    by_side: dict[str, list[Formation]],
    last: dict[str, _SideView] | None = None,
    due: set[str] | None = None,
    reads: _FriendReads | None = None,
) -> None:
    """Sight of each steady formation's nearest steady friend, for every side with broken
    formations, in one batch: :func:`_friend_triggers` asks that first (and it mostly settles
    the question). A guess by the k-d tree's distances (:meth:`_SideView.knn`) - answers are
    per pair, so a wrong guess costs time only. ``due``: only these formations will ask;
    ``reads``: the passes' views of the sides (:meth:`_FriendReads.view`)."""
    requests: list[tuple[str, list[str]]] = []
    for forms in by_side.values():
        if not any(g.morale in _BROKEN for g in forms):
            continue
        if due is not None and not any(g.id in due for g in forms):
            continue
        side = forms[0].side
        view = reads.view(side) if reads is not None else _side_view(ctx, side, forms, last)
        if len(view.steady) < 2:
            continue
        knn = view.knn()
        asking: list[tuple[str, str]] = []
        for k, fid in enumerate(view.ids):
            if due is not None and fid not in due:
                continue
            if knn is not None:
                near = next(j for j in knn[1][k] if j != k)
            else:
                near = view.row[view.nearest_steady(view.steady[k])[0]]
            asking.append((fid, view.ids[near]))
        # one heard needs no sight (Sight.aware: heard first; every one of these asks what it
        # hears, so the question is asked here instead of later, of them all at once)
        heard = ctx.sight.heard_many([fid for fid, _ in asking])
        requests += [(fid, [g]) for (fid, g), h in zip(asking, heard, strict=True) if h != g]
    if requests:
        ctx.sight.prefetch(requests)


def _prefetch_broken_friends(
    ctx: TwoMmContext,
    by_side: dict[str, list[Formation]],
    reach: RoutReach,
    due: set[str],
    reads: _FriendReads,
) -> None:
    """Sight of the broken friends each formation due a read asks about first in
    :func:`_friend_triggers` (``Sight.aware_many``: 11.1 troops already retreating, every
    friend broken this bound; the rest, the routers the spatial index puts within 10.2's
    reach), less the one it hears (heard needs no sight), in one batch: the same pairs, for
    the formations' reads to find (a break later in the pass asks its own, after it)."""
    sight, bound = ctx.sight, ctx.state.bound
    requests: list[tuple[str, list[str]]] = []
    for side, forms in by_side.items():
        view = reads.view(side)
        if not view.broken_now:
            continue
        for f in forms:
            if f.id not in due or f.morale in (Morale.ROUTING, Morale.DESTROYED):
                continue
            if f.morale is Morale.RETREATING and f.changed_bound != bound:
                cands = [g for g in view.broken_now if g is not f]
            else:
                cands = view.routs_near(f, reach)
            if cands:
                heard = sight.heard(f.id)
                requests.append((f.id, [g.id for g in cands if g.id != heard]))
    if requests:
        sight.prefetch(requests)


def _prefetch_rout_gaps(
    ctx: TwoMmContext,
    by_side: dict[str, list[Formation]],
    reach: RoutReach,
    due: set[str] | None = None,
) -> None:
    """10.2 friendly routs within 100 and 250 m: the gap from every formation still to be
    tested to every friend that broke this bound within reach (the spatial index's
    candidates, :func:`rout_neighbours`), in one call (what :func:`_friend_triggers` asks of
    ``Sight.distance`` pair by pair). ``due``: only these formations will ask."""
    bound = ctx.state.bound
    pairs: list[tuple[str, str]] = []
    asked = False  # Sight is asked whenever a router has a friend to test (see RoutReach)
    for forms in by_side.values():
        routs = [g for g in forms if g.morale is Morale.ROUTING and g.changed_bound == bound]
        if not routs or all(f.morale in (Morale.ROUTING, Morale.DESTROYED) for f in forms):
            continue
        asking = forms if due is None else [f for f in forms if f.id in due]
        if not asking:
            continue
        asked = True
        near = rout_neighbours(ctx, [g for g in routs if not g.skirmisher], reach)
        pairs += [
            (f.id, r.id)
            for f in asking
            if f.morale not in (Morale.ROUTING, Morale.DESTROYED)
            for r in near.get(f.id, ())
            if r is not f
        ]
    if asked:
        ctx.sight.prefetch_gaps(pairs)


def _aware_of(ctx: TwoMmContext, f: Formation, others: list[Formation]) -> list[Formation]:
    """The formations of ``others`` that ``f`` sees or hears, sight batched."""
    if not others:
        return []
    flags = ctx.sight.aware_many(f.id, [g.id for g in others])
    return [g for g, a in zip(others, flags, strict=True) if a]


def _own_triggers(
    ctx: TwoMmContext, f: Formation, bases: dict[str, Base] | None = None
) -> list[str]:
    """``f``'s own 10.2 / 11.1 triggers now (not those of its friends). ``bases``:
    ``state.bases`` when the caller has it (a scan of every formation to check)."""
    out: list[str] = []
    if f.front_at_start and f.killed_in_bound:
        if bases is None:
            bases = ctx.state.bases
        if all(bases[b].status is BaseStatus.DEAD for b in f.front_at_start):
            out.append("front_rank_killed_in_bound")
    if f.characters_killed:
        out.append("character_killed")
    if "flank" in f.new_contact_sides:
        out.append("enemy_contact_flank")
    if "rear" in f.new_contact_sides:
        out.append("enemy_contact_rear")
    if f.morale is Morale.RETREATING and f.new_contact_sides:
        out.append("retreating_touched")  # 11.1
    if len(f.killed_frac_crossed) < 2:  # (both lines crossed: nothing more to count)
        dead = len(f.bases) - f.n_alive  # the bases not living (Formation._living: not dead)
        start = f.start_bases or len(f.bases)
        for frac, name in ((0.5, "killed_over_50pct_game"), (0.75, "killed_over_75pct_game")):
            if dead / start > frac and name not in f.killed_frac_crossed:
                f.killed_frac_crossed = (*f.killed_frac_crossed, name)
                out.append(name)
    if f.alive_at_start:
        share = f.killed_in_bound / f.alive_at_start
        if share > 0.75:
            out.append("killed_over_75pct_bound")
        elif share > 0.5:
            out.append("killed_over_50pct_bound")
    return out


_AT_BEST_RETREAT = {"retreating_touched", "retreating_sees_broken"}


def _effect(ctx: TwoMmContext, trigger: str, f: Formation) -> str | None:
    """What ``trigger`` does to ``f`` under the ruleset's own table; None: nothing (a trigger
    another version's table lists, e.g. v0.9's flank contact under v0.7)."""
    effect = ctx.rs.morale_effect(trigger, str(f.temperament), f.morale.value)
    if trigger in _AT_BEST_RETREAT and effect is not None:
        return "panic_test"
    return effect


def enemy_contact_sides(ctx: TwoMmContext, f: Formation) -> tuple[int, bool]:
    """v0.7 5.2: "+1 for every side of the formation there is an enemy in contact, with a rear
    enemy giving +2": (how many of front, left flank, right flank are touched by an enemy base,
    whether the rear is). Every contact now counts, not only the bound's new ones; the two
    flanks are two sides."""
    state = ctx.state
    bases = state.bases
    sides: set[str] = set()
    o = None
    for eid in state.contacts.get(f.id, ()):
        g = state.formations[eid]
        if g.side == f.side:
            continue
        for _a, b in ctx.base_pairs.get((f.id, eid), ()):
            side = f.contact_side(bases[b])
            if side == "flank":
                from engine.geometry import local

                o = o or f.obb()
                side = "right" if local(o, bases[b].x, bases[b].y)[0] >= 0 else "left"
            sides.add(side)
    return len(sides - {"rear"}), "rear" in sides


def _resolve(
    ctx: TwoMmContext,
    f: Formation,
    triggers: list[str],
    phase: str = "morale",
    in_contact: bool = False,
    forced: frozenset[str] = frozenset(),
) -> list[Event]:
    before = f.morale
    events = _resolve_one(ctx, f, triggers, phase, in_contact, forced)
    if f.linked and f.morale is not before:
        # 11.3: Pike & Shot wings "take panic tests and test for retreating/routing as if they
        # were still in a brigaded formation": the sister wings share the outcome
        for g in ctx.state.active(f.side):
            if g is not f and g.linked and g.wing_of == f.wing_of and g.morale is before:
                events += set_morale(ctx, g, f.morale, f"11.3 with {f.id} (one brigade)", phase)
                g.retreat_from = f.retreat_from
                g.tested = (*g.tested, *triggers)
    return events


def _resolve_one(
    ctx: TwoMmContext,
    f: Formation,
    triggers: list[str],
    phase: str,
    in_contact: bool,
    forced: frozenset[str] = frozenset(),
) -> list[Event]:
    # ``forced``: triggers no table of the book has, that a special rule makes a panic test
    effects = {
        t: e
        for t in triggers
        if (e := ("panic_test" if t in forced else _effect(ctx, t, f))) is not None
    }
    if not effects:
        return []
    triggers = [t for t in triggers if t in effects]  # (a trigger may come twice)
    reason = ", ".join(triggers)
    cite = ctx.rs.morale_cite
    if any(e == "rout" for e in effects.values()):
        return set_morale(ctx, f, Morale.ROUTING, f"{cite[0]} {reason}", phase)
    must_retreat = any(e == "retreat" for e in effects.values())
    tests = tuple(t for t, e in effects.items() if e == "panic_test")
    if tests and _caught_unready(ctx, f):
        # a reading of 10.5 / 10.2: troops not yet formed for battle test at -1R
        tests = (*tests, "caught_unready")
    events: list[Event] = []
    outcome = "retreat" if must_retreat else "none"
    if tests:
        melee_r, ranged_r = _resilience_pair(f)
        state = ctx.state
        context = (
            "melee" if in_contact or state.contacts.get(f.id) else ("shot" if f.shot_at else "idle")
        )
        seen: list[Formation] = []
        if getattr(ctx.rs, "morale_reads_seen_friends", True):
            # (v0.7's 5.2 / 9.1 count them; v0.9's 10.5 does not: no sight asked for it)
            friends = [g for g in state.active(f.side) if g.id != f.id and g.morale in _BROKEN]
            seen = _aware_of(ctx, f, friends)
        at_best = "retreat" if (must_retreat or f.morale is Morale.RETREATING) else None
        contact_sides, rear_contact = enemy_contact_sides(ctx, f)
        situation = MoraleSituation(
            melee_r,
            ranged_r,
            context=context,
            leadership=leadership(f, state.characters),
            state=f.morale.value,
            triggers=tests,
            seen_fleeing=sum(1 for g in seen if g.morale is Morale.RETREATING),
            seen_routing=sum(1 for g in seen if g.morale is Morale.ROUTING),
            contact_sides=contact_sides,
            rear_contact=rear_contact,
            # v0.7 9.1 (a friend seen fleeing or routing); 5.3's fleeing troops seeing broken
            # friends take the ordinary 5.2 rout test (v0.9 reads neither flag)
            army_morale=any(t.startswith(("friendly_", "all_seen")) for t in tests),
            at_best=at_best,
        )
        res = ctx.rs.morale_test(ctx.dice, situation, purpose=f"panic {f.id}")
        events.append(
            PanicTest(phase, f.id, tests, res.effective_r, res.score, res.outcome, res.dice)
        )
        outcome = res.outcome
    if outcome == "rout":
        events += set_morale(ctx, f, Morale.ROUTING, f"{cite[1]} ({reason})", phase)
    elif outcome == "retreat" and f.morale is Morale.STEADY:
        events += set_morale(ctx, f, Morale.RETREATING, f"{cite[2]} {reason}", phase)
        f.retreat_from = _threat_centre(ctx, f)
    return events


#: the trigger special rule shock_of_charge tests with (engine.special_rules.ShockOfCharge)
SHOCK_OF_CHARGE = "shock_of_charge"


def shock_of_charge(ctx: TwoMmContext, phase: str) -> list[Event]:
    """Special rule ``shock_of_charge``: each steady raw (or, with ``unready``, still unready)
    formation an enemy charged into contact this bound (``ctx.charged``) takes the book's panic
    test (v0.9 10.5, v0.7 5.2) at once, once a bound, with the trigger ``shock_of_charge``."""
    if ctx.special.shock is None or not plays_own_morale(ctx):
        return []
    state = ctx.state
    events: list[Event] = []
    for fid in ctx.charged:
        f = state.formations[fid]
        if f.removed or f.morale is not Morale.STEADY or SHOCK_OF_CHARGE in f.tested:
            continue
        if not shocked(ctx, f):
            continue
        f.tested = (*f.tested, SHOCK_OF_CHARGE)
        forced = frozenset({SHOCK_OF_CHARGE})
        events += _resolve(ctx, f, [SHOCK_OF_CHARGE], phase, in_contact=True, forced=forced)
    return events


def shocked(ctx: TwoMmContext, f: Formation) -> bool:
    """Whether ``f``, charged this bound (``ctx.charged``), tests for special rule
    ``shock_of_charge``: raw (the rule's ``formations``) or, with ``unready``, still caught
    unready (engine.readiness)."""
    spec = ctx.special.shock
    if spec is None or f.id not in ctx.charged:
        return False
    unready = ctx.readiness is not None and ctx.readiness.holds(f.id)
    return spec.tests(f.id, unready)


def _caught_unready(ctx: TwoMmContext, f: Formation) -> bool:
    """Readiness: ``f`` is still in camp, asleep, on the march or forming up (engine.readiness)
    and the ruleset's table has a row for it (v0.9's -1R; v0.7 has none)."""
    if ctx.readiness is None or f.morale is not Morale.STEADY or not ctx.readiness.holds(f.id):
        return False
    return any(row.trigger == "caught_unready" for row in ctx.rs.morale_triggers)


def plays_own_morale(ctx: TwoMmContext) -> bool:
    """Whether the ruleset plays 2mm Earth's morale (10.x): a composed ruleset that swaps in
    another game's morale (e.g. War & Conquest's) has no ``morale_effect`` and runs its own
    morale phase, so the immediate tests below are not asked."""
    return callable(getattr(ctx.ruleset, "morale_effect", None))


def touched_while_retreating(ctx: TwoMmContext, f: Formation, phase: str) -> list[Event]:
    """11.1: "Retreating troops who then touch (or are touched by) an enemy base immediately
    take a panic test, with the best possible result being to continue retreat" - asked the
    moment a move ends in contact, before either side moves on (once a bound)."""
    if not plays_own_morale(ctx):
        return []
    if f.morale is not Morale.RETREATING or "retreating_touched" in f.tested:
        return []
    f.tested = (*f.tested, "retreating_touched")
    return _resolve(ctx, f, ["retreating_touched"], phase, in_contact=True)


def immediate_tests(ctx: TwoMmContext, forms: list[Formation], phase: str) -> list[Event]:
    """10.2 / 10.5 / 11.1 tests the book makes at once, where the event happens: enemy contact
    on a flank or the rear and retreating troops touched (end of the moves), losses and a front
    rank or character killed by shooting (shooting damage) or by a step of the melee's strike
    order. 10.5: "your formation immediately retreats / you immediately rout"; 11.1 "immediately
    take a panic test". Each trigger acts once per formation per bound (``Formation.tested``);
    the morale phase then tests what spreads (friends routing, all seen friends retreating)."""
    events: list[Event] = []
    if not plays_own_morale(ctx):
        return events
    for f in forms:
        if f.removed or f.morale in (Morale.ROUTING, Morale.DESTROYED):
            continue
        triggers = [t for t in _own_triggers(ctx, f) if t not in f.tested]
        if f.new_contact_sides and "retreating_touched" not in f.tested:
            # 11.1 asks whether troops *already* retreating were touched: settled now, so a
            # formation that breaks at this very contact is not asked again later
            f.tested = (*f.tested, "retreating_touched")
        if not triggers:
            continue
        f.tested = (*f.tested, *triggers)
        events += _resolve(ctx, f, triggers, phase)
    return events


def _threat_centre(ctx: TwoMmContext, f: Formation) -> tuple[float, float] | None:
    """The enemy formation to retreat from: one in contact, else the nearest (10.3)."""
    state = ctx.state
    ids = state.contacts.get(f.id) or ()
    cands = [state.formations[i] for i in ids if not state.formations[i].removed]
    fx, fy = f.centre()
    if not cands:
        # every enemy on the table: numpy finds the few nearest (with a margin far above
        # rounding), the exact key below picks among them
        t = state.table()
        rows = np.flatnonzero(t.sides != f.side)
        if not rows.size:
            return None
        d2 = (t.arr[rows, 0] - fx) ** 2 + (t.arr[rows, 1] - fy) ** 2
        near = rows[d2 <= d2.min() * (1 + 1e-9) + 1e-9]
        cands = [t.forms[k] for k in near.tolist()]
    g = min(cands, key=lambda g: ((g.centre()[0] - fx) ** 2 + (g.centre()[1] - fy) ** 2, g.id))
    return g.centre()


def random_troops(ctx: TwoMmContext, f: Formation) -> list[Event]:
    """11.3: Random troops are Rash until 2+ melee hits, 3+ ranged hits or 4+ hits in a bound
    make them Reluctant; Reluctant again Rash after a bound inactive and unharmed."""
    if not f.random_troops or f.removed:
        return []
    total = f.hits_melee + f.hits_ranged
    if f.temperament is Temperament.RASH and (
        f.hits_melee >= 2 or f.hits_ranged >= 3 or total >= 4
    ):
        f.temperament = Temperament.RELUCTANT
        return [TemperamentChange("morale", f.id, "reluctant", f"{total} hits in the bound")]
    return []


def morale_phase(ctx: TwoMmContext) -> list[Event]:
    """10.x and 11.1: every formation's triggers, in passes until nothing more breaks."""
    events: list[Event] = []
    for f in ctx.state.active():
        events += random_troops(ctx, f)
    events += morale_passes(ctx)
    events += rout_consequences(ctx)
    return events


class _BreakWatchers:
    """The friends that will ask whether they see a formation break (11.1 troops already
    retreating; 10.2 those a router is near), in the side's order, for the morale passes'
    prefetch after each break. The troops retreating since an earlier bound are found once:
    in the passes no one joins them (a break sets ``changed_bound`` to this bound), and those
    that leave are dropped by the same test as before."""

    def __init__(self, ctx: TwoMmContext, by_side: dict[str, list[Formation]]) -> None:
        bound = ctx.state.bound
        self.forms = ctx.state.formations
        self.bound = bound
        self.pos = {g.id: k for forms in by_side.values() for k, g in enumerate(forms)}
        self.retreating = {
            side: [g for g in forms if g.morale is Morale.RETREATING and g.changed_bound != bound]
            for side, forms in by_side.items()
        }

    def of(self, f: Formation, near: set[str]) -> list[Formation]:
        """``f``'s side's formations (not ``f``) in the side's order that are in ``near`` or
        retreating since an earlier bound, and neither routing nor destroyed."""
        pos, forms, bound = self.pos, self.forms, self.bound
        cands = {pos[g.id]: g for g in self.retreating[f.side]}
        for i in near:
            g, k = forms[i], pos.get(i)  # (Sight's rows may hold formations not active)
            if k is not None and g.side == f.side:
                cands[k] = g
        return [
            g
            for _k, g in sorted(cands.items(), key=lambda kv: kv[0])
            if g is not f
            and (g.id in near or (g.morale is Morale.RETREATING and g.changed_bound != bound))
            and g.morale not in (Morale.ROUTING, Morale.DESTROYED)
        ]


class _FriendReads:
    """When each formation's friend triggers (:func:`_friend_triggers`) need reading again in
    the morale passes. They are read from the formation's own side alone - its friends'
    morale, what it sees and hears of them - and in the passes nothing moves (Sight answers
    of the position) and only morale changes, so they change only when a formation of its
    side changes morale: each side's count of those, and the count each formation's were last
    read at. A read at the same count gives the same triggers, acted on already."""

    def __init__(self, ctx: TwoMmContext, sides: dict[str, list[Formation]]) -> None:
        self.ctx, self.sides = ctx, sides
        self.changes = dict.fromkeys(sides, 0)
        self.at: dict[str, int] = {}
        self._views: dict[str, tuple[int, _SideView]] = {}

    def due(self, f: Formation) -> bool:
        """Whether ``f``'s side changed since its friends were last read (or never read)."""
        return self.at.get(f.id) != self.changes[f.side]

    def read(self, f: Formation) -> None:
        self.at[f.id] = self.changes[f.side]

    def changed(self, side: str) -> None:
        """A formation of ``side`` changed morale."""
        self.changes[side] += 1

    def view(self, side: str) -> _SideView:
        """The side's :class:`_SideView` as it is now: made anew (read on from the last) only
        after a morale change on the side, by the same rule (not at every change of the
        table, which a break on the other side makes too)."""
        n = self.changes[side]
        hit = self._views.get(side)
        if hit is None or hit[0] != n:
            prev = hit[1] if hit is not None else None
            hit = self._views[side] = (n, _SideView(self.ctx, self.sides[side], prev))
        return hit[1]


def morale_passes(ctx: TwoMmContext) -> list[Event]:
    """Every formation's triggers (its own and its friends'), each asked of the ruleset's table,
    in passes until nothing more breaks."""
    state = ctx.state
    events: list[Event] = []
    done: dict[str, set[str]] = {}
    # Nothing leaves the table during the passes (they only set retreating or routing; 11.1's
    # destructions come after, in rout_consequences), so who is on it is worked out once.
    active = state.active()
    by_side: dict[str, list[Formation]] = {}
    for f in active:
        by_side.setdefault(f.side, []).append(f)
    # own triggers not yet acted on at once (immediate_tests) are tested here
    bases = state.bases
    own = {f.id: [t for t in _own_triggers(ctx, f, bases) if t not in f.tested] for f in active}
    reach = RoutReach(ctx)  # the 10.2 reach of each router, kept through the passes
    watch = _BreakWatchers(ctx, by_side)
    reads = _FriendReads(ctx, by_side)  # and each side's view (k-d tree rows read on)
    for _ in range(8):
        changed = False
        # the formations whose friends will be read in this pass (and those of a side with a
        # break before them in it), for the prefetches
        due = {f.id for f in active if reads.due(f)}
        _prefetch_nearest_steady(ctx, by_side, None, due, reads)
        _prefetch_broken_friends(ctx, by_side, reach, due, reads)
        _prefetch_rout_gaps(ctx, by_side, reach, due)
        for f in active:
            if f.morale in (Morale.ROUTING, Morale.DESTROYED):
                continue
            seen = done.get(f.id)
            if seen is None:
                seen = done[f.id] = set(f.tested)
            mine = own.pop(f.id, None)
            triggers = [t for t in mine if t not in seen] if mine else []
            if reads.due(f):
                reads.read(f)
                triggers += [
                    t
                    for t in _friend_triggers(
                        ctx, f, by_side[f.side], reach, view=reads.view(f.side)
                    )
                    if t not in seen and t not in triggers
                ]
            if not triggers:
                continue
            seen.update(triggers)
            before = f.morale
            events += _resolve(ctx, f, triggers)
            changed |= f.morale is not before
            if f.morale is not before:
                reads.changed(f.side)  # (linked wings change with f, on its side: _resolve)
            if f.morale is not before and f.morale in _BROKEN:
                # the friends that will ask whether they see f break, in one batch: troops
                # already retreating, and if f routs (a non-skirmisher) those near enough
                # (_friend_triggers)
                near: set[str] = set()
                if f.morale is Morale.ROUTING and not f.skirmisher:
                    near = {k for k, gs in rout_neighbours(ctx, [f], reach).items() if gs}
                watchers = watch.of(f, near)
                ctx.sight.prefetch([(g.id, [f.id]) for g in watchers])
                if near:
                    # and the 10.2 gap each friend near a new router asks of it later in this
                    # pass (Sight.distance), in one call (_prefetch_rout_gaps at the next)
                    ctx.sight.prefetch_gaps([(g.id, f.id) for g in watchers if g.id in near])
        if not changed:
            break
    return events


def rout_consequences(ctx: TwoMmContext) -> list[Event]:
    """11.1: routers touching an enemy base or impractical terrain at the end of their next
    bound are destroyed; routers off the table have fled."""
    state = ctx.state
    events: list[Event] = []
    touching_of: dict[str, set[str]] | None = None  # formation -> its bases touching others
    for f in state.active():
        if f.morale is not Morale.ROUTING or f.routed_bound is None:
            continue
        o = f.obb()
        if not ctx.bf.contains(o.cx, o.cy):
            gone = tuple(b.id for b in f.alive_bases)
            f.morale = Morale.DESTROYED
            f.changed_bound = state.bound
            events.append(Destroyed("morale", f.id, "11.1 fled the field", gone))
            continue
        if f.routed_bound != state.bound - 1:
            continue
        if touching_of is None:  # one pass over the contacts, not one per router
            touching_of = {}
            for (x, _), pairs in ctx.base_pairs.items():
                touching_of.setdefault(x, set()).update(a for a, _ in pairs)
        touching = touching_of.get(f.id, set())
        classes, _ = footprint_classes(ctx.bf, f, "move")
        on_impractical = 4 in classes
        killed = []
        for b in f.alive_bases:
            if on_impractical or b.id in touching:
                events.append(
                    kill_base(f, b, by="rout", phase="morale", characters=state.characters)
                )
                killed.append(b.id)
                if b.id in touching and not on_impractical:
                    ctx.caught.add(b.id)  # run down by the enemy, not drowned or fallen
        if killed:
            events.append(
                Destroyed(
                    "morale", f.id, "11.1 routed into enemy or impractical terrain", tuple(killed)
                )
            )
            if f.n_alive == 0:
                f.morale = Morale.DESTROYED
                f.changed_bound = state.bound
    return events


def pursuit_phase(ctx: TwoMmContext) -> list[Event]:
    """11.1: the side not retreating pursues a broken enemy it fought, unless ordered to hold or
    retreat. After an army broke (``ctx.aftermath``) the winner's formations that are
    free to pursue and have no quarry take the nearest broken formation still on the field:
    "If you are the side NOT retreating/routing, you will automatically pursue"."""
    state = ctx.state
    events: list[Event] = []
    for f in state.active():
        if f.morale is not Morale.STEADY or f.order in ("hold", "retreat") or f.held:
            continue
        if ctx.aftermath is not None and f.side not in ctx.aftermath:
            quarry = state.formations.get(f.pursuing or "")
            if quarry is None or quarry.removed or quarry.morale not in _BROKEN:
                events += _aftermath_quarry(ctx, f)
            continue
        for eid in f.contacts_prev + state.contacts.get(f.id, ()):
            g = state.formations[eid]
            if g.removed or g.morale not in _BROKEN or g.changed_bound != state.bound:
                continue
            f.pursuing = g.id
            events.append(Pursuit("pursuit", f.id, g.id))
            break
    return events


def _aftermath_quarry(ctx: TwoMmContext, f: Formation) -> list[Event]:
    """The nearest broken enemy formation on the field (by centre distance, ties by id)."""
    fx, fy = f.centre()
    best: tuple[float, str] | None = None
    for g in ctx.state.active():
        if g.side not in (ctx.aftermath or ()) or g.morale not in _BROKEN:
            continue
        gx, gy = g.centre()
        key = (round(math.hypot(gx - fx, gy - fy), 3), g.id)
        if best is None or key < best:
            best = key
    if best is None:
        f.pursuing = None
        return []
    f.pursuing = best[1]
    return [Pursuit("pursuit", f.id, best[1])]


def begin_aftermath(ctx: TwoMmContext) -> list[Event]:
    """The army broke (the scenario's victory.rout_fraction, not a rule of the book).
    Its general's last order to every formation still standing is to retreat: 10.2 "must
    retreat if ordered to retreat", read as carried out at once (no messenger: the army has
    given up the field, docs/rules-interpretations.md "Pursuit after the break"). The winner's
    pursuit follows in the pursuit phase (11.1)."""
    state = ctx.state
    events: list[Event] = []
    for f in state.active():
        if f.side not in (ctx.aftermath or ()):
            continue
        f.pursuing = None
        f.target_point = None
        f.target_formation = None
        f.hold_fire = False
        if f.morale is Morale.ROUTING:
            continue
        f.order = "retreat"
        events += set_morale(
            ctx, f, Morale.RETREATING, "10.2 ordered to retreat: the army broke", "pursuit"
        )
    for f in state.active():
        if f.side in (ctx.aftermath or ()) or f.morale is not Morale.STEADY:
            continue
        if f.order in ("hold", "retreat"):
            continue
        events += _aftermath_quarry(ctx, f)
    return events


def pursuit_over(ctx: TwoMmContext) -> bool:
    """11.1 has nothing more to do when no broken side has a retreating or routing formation
    left on the field (the rest fled off it or were caught), or the winner has no formation
    free to pursue."""
    broken = ctx.aftermath or frozenset()
    quarry = any(f.side in broken and f.morale in _BROKEN for f in ctx.state.active())
    hunters = any(
        f.side not in broken and f.morale is Morale.STEADY and f.order not in ("hold", "retreat")
        for f in ctx.state.active()
    )
    return not (quarry and hunters)


def casualties(ctx: TwoMmContext) -> dict[str, dict[str, int]]:
    """2mm Earth tells apart only injured (red marker, 2.4) and killed (removed) bases; 11.1
    removes routers caught by the enemy. Read as: killed = removed by shooting, melee or
    routing into impractical ground; captured = run down by the enemy at the end of the rout
    bound (11.1); wounded = injured bases still on the table at the end; dispersed = routers
    who fled off the field (11.1), gone but not cut down, and the guns special rule
    crews_flee abandoned (docs/rules-interpretations.md, "Killed, wounded, captured and
    dispersed"). Per formation (engine.casualties)."""
    from engine.casualties import dispersed, lost_bases

    return lost_bases(ctx.state, captured=ctx.caught, dispersed=dispersed(ctx), wounded=True)


def rally_phase(ctx: TwoMmContext) -> list[Event]:
    """11.2: retreating troops that spent a whole bound completely inactive rally (get their 1R
    back); 11.3 Random troops acting Reluctant turn Rash after a bound inactive and unharmed."""
    state = ctx.state
    events: list[Event] = []
    for f in state.active():
        inactive = f.moved_m == 0 and not f.shot and not f.fought and not state.contacts.get(f.id)
        f.inactive_bounds = f.inactive_bounds + 1 if inactive else 0
        if (
            f.morale is Morale.RETREATING
            and inactive
            and f.order != OrderKind.RETREAT
            and f.changed_bound is not None
            and f.changed_bound < state.bound
        ):
            events += set_morale(ctx, f, Morale.STEADY, "11.2 a whole bound inactive", "rally")
            f.retreat_from = None
            if f.order == "none":
                f.order = "hold"
        if (
            f.random_troops
            and f.temperament is Temperament.RELUCTANT
            and inactive
            and f.hits_melee + f.hits_ranged == 0
        ):
            f.temperament = Temperament.RASH
            events.append(
                TemperamentChange("rally", f.id, "rash", "11.3 a bound inactive and unharmed")
            )
    return events
