"""The messenger routing graph (9.1): a networkx graph over a balanced quadtree of the cost raster.

Nodes are the corners of the quadtree's blocks (integer ids ``row * (cols + 1) + col`` of grid
corners); edges join every pair of vertices on a block's boundary. Inside one block the cost
factor is constant, so an edge's weight is exact: length x factor (1, or 3 through a wood, 9.1);
an edge along the border of two blocks takes the cheaper factor (the string runs along the edge of
the wood, not through it). A 1.4 M-cell battlefield becomes a graph of a few tens of thousands of
nodes, which networkx's A* searches in a fraction of the time it needs on the raw grid, and the
chords give ~16 directions instead of 8; :mod:`.smoothing` then pulls the path taut (any angle).

Enemy bases are not in the graph: :meth:`RouteGraph.route` passes networkx a weight *function*
that returns ``None`` (edge hidden) for edges touching blocked ground, so one static graph serves
every bound.

>>> import numpy as np, affine
>>> wood = np.zeros((40, 40), dtype=bool); wood[10:30, 18:22] = True     # a north-south wood
>>> g = RouteGraph.from_mask(wood, affine.Affine(10, 0, 0, 0, -10, 400))
>>> r = g.route((105.0, 195.0), (305.0, 195.0))          # 200 m across a 40 m wood
>>> round(r.length_m, 1), round(r.cost_m, 1), round(r.triple_share, 2)
(200.0, 280.0, 0.2)
>>> from shapely.geometry import box
>>> r2 = g.route((105.0, 195.0), (305.0, 195.0), blocked=[box(170, 40, 230, 360)])
>>> r2.cost_m > r.cost_m and not r2.line.intersects(box(170, 40, 230, 360))
True
"""

from __future__ import annotations

import hashlib
import itertools
import math
import pickle
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import affine
import networkx as nx
import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from scenario_builder.errors import NoRouteError, OffMapError
from scenario_builder.routing.costs import TRIPLE, CostGrid, triple_mask_of
from scenario_builder.routing.landmarks import Landmarks
from scenario_builder.routing.quadtree import (
    MIDPOINT_SLOTS,
    NORMAL,
    OFF,
    SLOT_SIDES,
    SLOTS,
    TRIPLE_CLASS,
    Quadtree,
)
from scenario_builder.routing.route import Point, Route
from scenario_builder.routing.smoothing import clear_of, smooth

GRAPH_VERSION = 2  # bump when the graph layout changes: invalidates on-disk caches
MAX_BLOCK_M = 250.0  # widest block: keeps detours round enemy bases local before smoothing
LANDMARKS = 16  # ALT landmarks round the rim (A* guide; 8 bytes a node each), part of the cache key
#: routes remembered per graph (a few hundred bytes each): Monte Carlo replays of one battle in
#: one worker ask the same questions in their first bounds, before their dice part them
ROUTE_MEMO = 4096
_SRC, _DST = -1, -2
_FACTOR = {NORMAL: 1.0, TRIPLE_CLASS: TRIPLE}

_memory_cache: weakref.WeakKeyDictionary[Any, dict[Any, RouteGraph]] = weakref.WeakKeyDictionary()


def _slot_pairs() -> list[tuple[int, int, str, int]]:
    """(slot i, slot j, kind, side midpoint slot or -1) for every edge a block can hold.

    kind "chord": across the block; "half": from a side's midpoint to one of its corners;
    "side": corner to corner along a side with no midpoint.
    """
    pairs = []
    for i in range(8):
        for j in range(i + 1, 8):
            shared = SLOT_SIDES[i] & SLOT_SIDES[j]
            if not shared:
                pairs.append((i, j, "chord", -1))
            elif i in MIDPOINT_SLOTS or j in MIDPOINT_SLOTS:
                pairs.append((i, j, "half", -1))
            else:
                mid = next(m for m in MIDPOINT_SLOTS if SLOT_SIDES[m] == shared)
                pairs.append((i, j, "side", mid))
    return pairs


_PAIRS = _slot_pairs()


class RouteGraph:
    """Static routing graph of one battlefield; query with :meth:`route` every bound."""

    def __init__(
        self,
        grid: CostGrid,
        quadtree: Quadtree,
        graph: nx.Graph,
        edges: np.ndarray,
        landmarks: Landmarks,
        *,
        name: str = "battlefield",
    ) -> None:
        self.grid = grid
        self.quadtree = quadtree
        self.graph = graph
        self.edges = edges  # (n, 2) node ids, for the spatial index of blocked edges
        self.landmarks = landmarks
        self.name = name
        self._stride = quadtree.leaf_of.shape[1] + 1
        self._tree: shapely.STRtree | None = None
        self._lock = threading.Lock()
        # (a, b, blocked polygons as WKB) -> Route: a route depends on nothing else
        self._memo: OrderedDict[tuple[Any, ...], Route] = OrderedDict()
        self._memo_lock = threading.Lock()

    # -- building ------------------------------------------------------------------------------
    @classmethod
    def from_battlefield(
        cls,
        bf: Any,
        *,
        max_block_m: float = MAX_BLOCK_M,
        cache_dir: str | Path | None = None,
        triple: Mapping[str, Iterable[str]] | None = None,
    ) -> RouteGraph:
        """Build (or fetch from the in-memory / on-disk cache) the graph of a Battlefield.
        ``triple``: 9.1's triple classes in the battlefield's own vocabulary (role -> names,
        ``Ruleset.route_triple``); None: 2mm Earth's Impractical and Overhead."""
        key = (
            max_block_m,
            None
            if triple is None
            else tuple(sorted((r, tuple(sorted(n))) for r, n in triple.items())),
        )
        per_bf = _memory_cache.setdefault(bf, {})
        cached = per_bf.get(key)
        if cached is not None:
            return cached
        mask = triple_mask_of(bf, triple)
        name = str(getattr(bf, "source_dir", None) or bf.meta.get("slug") or "battlefield")
        graph = cls.from_mask(
            mask, bf.transform, max_block_m=max_block_m, cache_dir=cache_dir, name=name
        )
        per_bf[key] = graph
        return graph

    @classmethod
    def from_mask(
        cls,
        triple: np.ndarray,
        transform: affine.Affine,
        *,
        max_block_m: float = MAX_BLOCK_M,
        cache_dir: str | Path | None = None,
        name: str = "battlefield",
    ) -> RouteGraph:
        """Build from a triple-cost mask on a north-up grid (``transform`` of square cells)."""
        res = float(transform.a)
        grid = CostGrid(np.asarray(triple, dtype=bool), res, float(transform.c), float(transform.f))
        max_size = 1 << max(0, math.floor(math.log2(max(1.0, max_block_m / res))))
        path = None
        if cache_dir is not None:
            key = hashlib.sha256(
                pickle.dumps((GRAPH_VERSION, LANDMARKS, max_size, grid.shape, tuple(transform)[:6]))
                + np.packbits(grid.triple).tobytes()
            ).hexdigest()[:20]
            path = Path(cache_dir) / f"routegraph-{key}.pickle"
            loaded = _read_cache(path)
            if loaded is not None:
                qt, graph, edges, landmarks = loaded
                return cls(grid, qt, graph, edges, landmarks, name=name)
        classes = grid.triple.astype(np.int8)
        qt = Quadtree.build(classes, max_size=max_size)
        graph, edges, landmarks = _build_graph(qt, res)
        if path is not None:
            _write_cache(path, (qt, graph, edges, landmarks))
        return cls(grid, qt, graph, edges, landmarks, name=name)

    # -- queries -------------------------------------------------------------------------------
    def route(self, a: Point, b: Point, blocked: Sequence[BaseGeometry] | None = None) -> Route:
        """Cheapest messenger route from ``a`` to ``b`` (map metres) around ``blocked`` ground.

        ``blocked``: polygons of enemy bases (9.1 "twist it around enemy units"); allies are
        simply not passed. Raises :class:`OffMapError` if an end is off the battlefield and
        :class:`NoRouteError` if the ends are cut off from each other.

        The same question twice (same ends, same polygons) gets the same answer from a memo of
        the last :data:`ROUTE_MEMO` routes found.
        """
        try:
            wkb = shapely.to_wkb(np.asarray(blocked, dtype=object)) if blocked else ()
            key = (float(a[0]), float(a[1]), float(b[0]), float(b[1]), *wkb)
        except (TypeError, ValueError, IndexError):  # bad ends: _route says which
            return self._route(a, b, blocked)
        with self._memo_lock:
            hit = self._memo.get(key)
            if hit is not None:
                self._memo.move_to_end(key)
                return hit
        route = self._route(a, b, blocked)
        with self._memo_lock:
            self._memo[key] = route
            if len(self._memo) > ROUTE_MEMO:
                self._memo.popitem(last=False)
        return route

    def _route(self, a: Point, b: Point, blocked: Sequence[BaseGeometry] | None) -> Route:
        ga, gb = self._to_grid(a, "start"), self._to_grid(b, "end")
        obstacles = self._obstacles(blocked)
        if obstacles is not None:
            for label, p, g in (("start", a, ga), ("end", b, gb)):
                if obstacles.covers(shapely.Point(g)):
                    where = f"({p[0]:.1f}, {p[1]:.1f})"
                    raise NoRouteError(self.name, f"the route {label} {where} is on blocked ground")
        nodes = self._graph_path(ga, gb, obstacles)
        reach = 2.0 * float(self.quadtree.size.max())
        pts = smooth(nodes, self.grid, obstacles, reach=reach)
        return self._make_route(pts)

    def route_from(
        self, progress_point: Point, b: Point, blocked: Sequence[BaseGeometry] | None = None
    ) -> Route:
        """Re-plan from where a messenger is now (e.g. ``Route.position_at(travelled)``).

        Same as :meth:`route`; named for the engine's use when ``Route.blocked_by`` says the
        enemy moved across the old route.
        """
        return self.route(progress_point, b, blocked)

    # -- internals -----------------------------------------------------------------------------
    def _to_grid(self, p: Point, label: str) -> tuple[float, float]:
        try:
            x, y = float(p[0]), float(p[1])
        except (TypeError, ValueError, IndexError):
            raise OffMapError(self.name, f"expected a route {label} (x, y), got {p!r}") from None
        u, v = self.grid.to_grid(x, y)
        rows, cols = self.grid.shape
        if not (0.0 <= u < cols and 0.0 <= v < rows) or not (math.isfinite(u + v)):
            minx, maxy = self.grid.x0, self.grid.y0
            bounds = (minx, maxy - rows * self.grid.res, minx + cols * self.grid.res, maxy)
            raise OffMapError(
                self.name,
                f"route {label} ({x:.1f}, {y:.1f}) is off the battlefield "
                f"(bounds {tuple(round(b, 1) for b in bounds)})",
            )
        return (u, v)

    def _obstacles(self, blocked: Sequence[BaseGeometry] | None) -> BaseGeometry | None:
        if not blocked:
            return None
        res, x0, y0 = self.grid.res, self.grid.x0, self.grid.y0
        polys = [
            shapely.affinity.affine_transform(p, (1 / res, 0, 0, -1 / res, -x0 / res, y0 / res))
            for p in blocked
            if p is not None and not p.is_empty
        ]
        if not polys:
            return None
        union = shapely.union_all(polys)
        shapely.prepare(union)
        return union

    def _edge_tree(self) -> shapely.STRtree:
        if self._tree is None:
            uv = self.edges
            r0, c0 = np.divmod(uv[:, 0], self._stride)
            r1, c1 = np.divmod(uv[:, 1], self._stride)
            coords = np.stack([np.stack([c0, r0], 1), np.stack([c1, r1], 1)], 1).astype(float)
            self._tree = shapely.STRtree(shapely.linestrings(coords))
        return self._tree

    def _blocked_edges(self, obstacles: BaseGeometry) -> set[tuple[int, int]]:
        parts = list(getattr(obstacles, "geoms", [obstacles]))
        hit = self._edge_tree().query(parts, predicate="intersects")[1]
        uv = self.edges[np.unique(hit)]
        out = set(zip(uv[:, 0].tolist(), uv[:, 1].tolist(), strict=True))
        out |= {(v, u) for u, v in out}
        return out

    def _coords(self, n: int, temp: dict[int, tuple[float, float]]) -> tuple[float, float]:
        if n < 0:
            return temp[n]
        r, c = divmod(n, self._stride)
        return (float(c), float(r))

    def _block_vertices(self, leaf: int) -> list[tuple[int, tuple[float, float]]]:
        qt = self.quadtree
        r0, c0, s = int(qt.row[leaf]), int(qt.col[leaf]), int(qt.size[leaf])
        out = []
        for slot, (dr, dc) in enumerate(SLOTS):
            if slot in MIDPOINT_SLOTS and not qt.mids[leaf, MIDPOINT_SLOTS.index(slot)]:
                continue
            if s == 1 and slot in MIDPOINT_SLOTS:
                continue
            r, c = r0 + dr * s // 2, c0 + dc * s // 2
            out.append((r * self._stride + c, (float(c), float(r))))
        return out

    def _graph_path(
        self,
        ga: tuple[float, float],
        gb: tuple[float, float],
        obstacles: BaseGeometry | None,
    ) -> list[tuple[float, float]]:
        links = self._end_links(ga, gb, obstacles)
        bad = self._blocked_edges(obstacles) if obstacles is not None else set()
        nodes = self._search(links, bad, ga, gb)
        temp = {_SRC: ga, _DST: gb}
        return [self._coords(n, temp) for n in nodes]

    def _end_links(
        self,
        ga: tuple[float, float],
        gb: tuple[float, float],
        obstacles: BaseGeometry | None,
    ) -> list[tuple[int, int, float]]:
        """Edges ``(_SRC or _DST, node, weight)`` joining each end to the vertices of its block
        it sees past ``obstacles`` (and the ends to each other when they share a block)."""
        qt, grid = self.quadtree, self.grid
        la = int(qt.leaf_of[int(ga[1]), int(ga[0])])
        lb = int(qt.leaf_of[int(gb[1]), int(gb[0])])
        clear = clear_of(obstacles)
        links: list[tuple[int, int, float]] = []
        for end, leaf, p in ((_SRC, la, ga), (_DST, lb, gb)):
            factor = _FACTOR[int(qt.cls[leaf])]
            for node, q in self._block_vertices(leaf):
                if clear(p, q):
                    links.append((end, node, math.dist(p, q) * factor * grid.res))
        if la == lb and clear(ga, gb):
            links.append((_SRC, _DST, math.dist(ga, gb) * _FACTOR[int(qt.cls[la])] * grid.res))
        return links

    def _search(
        self,
        links: list[tuple[int, int, float]],
        bad: set[tuple[int, int]],
        ga: tuple[float, float],
        gb: tuple[float, float],
    ) -> list[int]:
        """networkx's A* from ``_SRC`` to ``_DST`` over the graph with the ends' ``links``,
        edges in ``bad`` hidden (the weight function returns None), guided by the larger of the
        straight-line distance and the landmarks' bound (both admissible)."""
        temp = {_SRC: ga, _DST: gb}
        weight: str | Callable[[int, int, dict[str, Any]], float | None]
        if bad:

            def weight(u: int, v: int, d: dict[str, Any]) -> float | None:
                return None if (u, v) in bad else d["weight"]

        else:
            weight = "weight"
        res, stride = self.grid.res, self._stride
        tu, tv = gb
        lm = self.landmarks
        target = lm.target([(n, w) for e, n, w in links if e == _DST and n >= 0])
        bound = lm.bound

        def heuristic(n: int, _t: int) -> float:
            if n < 0:
                u, v = temp[n]
                return math.hypot(u - tu, v - tv) * res
            v, u = divmod(n, stride)
            h = math.hypot(u - tu, v - tv) * res
            alt = bound(n, target)
            return alt if alt > h else h

        with self._lock:
            self.graph.add_weighted_edges_from(links)
            try:
                nodes: list[int] = nx.astar_path(
                    self.graph, _SRC, _DST, heuristic=heuristic, weight=weight
                )
            except nx.NetworkXNoPath:
                raise NoRouteError(
                    self.name, "no route: the destination is cut off by blocked ground"
                ) from None
            finally:
                self.graph.remove_nodes_from([_SRC, _DST])
        return nodes

    def _make_route(self, pts: list[tuple[float, float]]) -> Route:
        grid = self.grid
        stretches = [grid.stretch(*a, *b) for a, b in itertools.pairwise(pts)]
        cost = sum(s[0] for s in stretches) * grid.res
        triple = sum(s[1] for s in stretches) * grid.res
        length = sum(s[2] for s in stretches) * grid.res
        return Route(
            cost_m=cost,
            length_m=length,
            triple_share=(triple / length) if length > 0 else 0.0,
            path=tuple(grid.to_xy(u, v) for u, v in pts),
            stretch_costs=tuple(s[0] * grid.res for s in stretches),
        )

    @property
    def n_nodes(self) -> int:
        return self.graph.number_of_nodes()

    @property
    def n_edges(self) -> int:
        return self.graph.number_of_edges()


def _build_graph(qt: Quadtree, res: float) -> tuple[nx.Graph, np.ndarray, Landmarks]:
    """All block edges, deduplicated with the cheaper weight, as a networkx graph."""
    stride = qt.leaf_of.shape[1] + 1
    live = qt.cls != OFF
    row, col, size = qt.row[live].astype(np.int64), qt.col[live].astype(np.int64), qt.size[live]
    factor = np.where(qt.cls[live] == TRIPLE_CLASS, TRIPLE, 1.0)
    mids = qt.mids[live] & (size[:, None] > 1)
    present = np.ones((row.size, 8), dtype=bool)
    for k, slot in enumerate(MIDPOINT_SLOTS):
        present[:, slot] = mids[:, k]
    half = size // 2
    slot_r = [row + dr * half + (size % 2) * (dr // 2) for dr, _ in SLOTS]
    slot_c = [col + dc * half + (size % 2) * (dc // 2) for _, dc in SLOTS]
    us, vs, ws = [], [], []
    for i, j, kind, mid in _PAIRS:
        ok = present[:, i] & present[:, j]
        if kind == "side":
            ok &= ~present[:, mid]
        if not ok.any():
            continue
        ri, ci, rj, cj = slot_r[i][ok], slot_c[i][ok], slot_r[j][ok], slot_c[j][ok]
        us.append(ri * stride + ci)
        vs.append(rj * stride + cj)
        ws.append(np.hypot(ri - rj, ci - cj) * factor[ok] * res)
    u, v, w = np.concatenate(us), np.concatenate(vs), np.concatenate(ws)
    lo, hi = np.minimum(u, v), np.maximum(u, v)
    order = np.lexsort((w, hi, lo))
    lo, hi, w = lo[order], hi[order], w[order]
    first = np.ones(lo.size, dtype=bool)
    first[1:] = (lo[1:] != lo[:-1]) | (hi[1:] != hi[:-1])
    lo, hi, w = lo[first], hi[first], w[first]
    graph = nx.Graph()
    graph.add_weighted_edges_from(zip(lo.tolist(), hi.tolist(), w.tolist(), strict=True))

    def xy_of(ids: np.ndarray) -> np.ndarray:
        r, c = np.divmod(ids, stride)
        return np.stack([c, r], axis=1).astype(float)

    id_space = stride * (qt.leaf_of.shape[0] + 1)
    landmarks = Landmarks.build(lo, hi, w, xy_of, count=LANDMARKS, id_space=id_space)
    return graph, np.stack([lo, hi], axis=1), landmarks


def _read_cache(path: Path) -> tuple[Any, ...] | None:
    """A cached graph, or None if absent or unreadable (a cache is never worth an error)."""
    try:
        with path.open("rb") as fh:
            loaded = pickle.load(fh)
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, ValueError):
        return None
    return loaded if isinstance(loaded, tuple) and len(loaded) == 4 else None


def _write_cache(path: Path, value: tuple[Any, ...]) -> None:
    from scenario_builder.atomic import atomic_path

    try:
        with atomic_path(path) as tmp, tmp.open("wb") as fh:
            pickle.dump(value, fh, protocol=pickle.HIGHEST_PROTOCOL)
    except OSError:
        pass  # read-only or full cache directory: the graph is still built


def default_cache_dir() -> Path:
    """Where graphs are cached on disk: ``$SCENARIO_BUILDER_CACHE/routing``, else the user cache
    directory (``$XDG_CACHE_HOME`` or ``~/.cache``) ``/scenario-builder/routing``."""
    import os

    root = os.environ.get("SCENARIO_BUILDER_CACHE")
    if root:
        return Path(root) / "routing"
    xdg = os.environ.get("XDG_CACHE_HOME")
    return Path(xdg or Path.home() / ".cache") / "scenario-builder" / "routing"


def routes_geojson(routes: Iterable[Route]) -> dict[str, Any]:
    """A FeatureCollection of routes (for maps and the CLI)."""
    return {"type": "FeatureCollection", "features": [r.to_geojson() for r in routes]}
