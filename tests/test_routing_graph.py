"""Messenger routes (9.1–9.2) on real built battlefields: the Bayreuth pair (SRTM + real OSM
forest) and Gettysburg at its native ~7.5 m resolution (data/SOURCES.md)."""

from __future__ import annotations

import itertools
import math

import networkx as nx
import numpy as np
import pytest
from scipy import ndimage
from shapely.geometry import LineString, Point, box

from scenario_builder.errors import NoRouteError, OffMapError
from scenario_builder.routing import RouteGraph, arrival_bound, triple_mask

skimage_graph = pytest.importorskip("skimage.graph")


@pytest.fixture(scope="module")
def bayreuth(built_bayreuth):
    bf = built_bayreuth.battlefield
    mask = triple_mask(bf.layer("move"), bf.layer("cover"), bf.layer("blocks_sight"))
    return bf, mask, RouteGraph.from_battlefield(bf)


@pytest.fixture(scope="module")
def gettysburg(built_gettysburg):
    bf = built_gettysburg.battlefield
    return bf, RouteGraph.from_battlefield(bf)


def cell_xy(bf, r: float, c: float) -> tuple[float, float]:
    return (bf.transform.c + (c + 0.5) * bf.res, bf.transform.f - (r + 0.5) * bf.res)


def open_spot(bf, g: RouteGraph, width_m: float, height_m: float) -> tuple[float, float]:
    """Centre of the open (no triple cell) rectangle of that size nearest the map's centre."""
    mask = g.grid.triple
    h, w = math.ceil(height_m / bf.res) + 2, math.ceil(width_m / bf.res) + 2
    sat = np.pad(mask.astype(np.int64).cumsum(0).cumsum(1), ((1, 0), (1, 0)))
    sums = sat[h:, w:] - sat[:-h, w:] - sat[h:, :-w] + sat[:-h, :-w]
    rr, cc = np.nonzero(sums == 0)
    assert rr.size, f"no open {width_m} x {height_m} m rectangle on {bf}"
    rows, cols = mask.shape
    k = int(np.argmin((rr + h / 2 - rows / 2) ** 2 + (cc + w / 2 - cols / 2) ** 2))
    return cell_xy(bf, rr[k] + h / 2 - 0.5, cc[k] + w / 2 - 0.5)


def mcp_cost(mask: np.ndarray, res: float, rc0: tuple[int, int], rc1: tuple[int, int]) -> float:
    """scikit-image's 8-connected optimum (cell centre to cell centre), metres."""
    mcp = skimage_graph.MCP_Geometric(np.where(mask, 3.0, 1.0))
    cum, _ = mcp.find_costs([rc0], [rc1])
    return float(cum[rc1]) * res


def straight(g: RouteGraph, a, b) -> tuple[float, float, float]:
    """(cost, triple, length) in metres of the straight string a-b."""
    ua, va = g.grid.to_grid(*a)
    ub, vb = g.grid.to_grid(*b)
    return tuple(x * g.grid.res for x in g.grid.stretch(ua, va, ub, vb))


def test_9_1_graph_is_far_smaller_than_the_grid(gettysburg, bayreuth) -> None:
    # Open ground merges into big blocks; jagged 25 m forest edges need small ones.
    for (bf, g), fewer in ((gettysburg, 50), (bayreuth[::2], 3)):
        cells = bf.shape[0] * bf.shape[1]
        assert g.n_nodes < cells / fewer, (bf, g.n_nodes, cells)


def test_9_1_cost_within_half_percent_of_mcp_on_real_forest(bayreuth) -> None:
    bf, mask, g = bayreuth
    rows, cols = mask.shape
    rng = np.random.default_rng(11)
    for _ in range(8):
        rc0 = (int(rng.integers(rows)), int(rng.integers(cols)))
        rc1 = (int(rng.integers(rows)), int(rng.integers(cols)))
        r = g.route(cell_xy(bf, *rc0), cell_xy(bf, *rc1))
        best = mcp_cost(mask, bf.res, rc0, rc1)
        assert r.cost_m <= best * 1.005, (rc0, rc1, r.cost_m, best)
        # Recomputing the cost of the returned path on the raster gives the reported figures.
        pts = [g.grid.to_grid(x, y) for x, y in r.path]
        cost, _, length = g.grid.path_cost(pts)
        assert cost * bf.res == pytest.approx(r.cost_m)
        assert length * bf.res == pytest.approx(r.length_m)


def test_9_1_cost_within_half_percent_of_mcp_on_gettysburg_native(gettysburg) -> None:
    bf, g = gettysburg
    mask = g.grid.triple
    rows, cols = mask.shape
    rc0, rc1 = (20, 15), (rows - 30, cols - 20)
    r = g.route(cell_xy(bf, *rc0), cell_xy(bf, *rc1))
    assert r.cost_m <= mcp_cost(mask, bf.res, rc0, rc1) * 1.005


def test_9_1_messenger_search_finds_the_graph_optimum_in_real_woods(bayreuth) -> None:
    """Orders go by messenger along the cheapest string (2mm Earth 9.1): the landmark-guided A*
    must return a cheapest path of the graph, the one Dijkstra finds with no guide at all, on
    the Bayreuth forest's long routes, also with enemy bases hiding some of the edges."""
    bf, mask, g = bayreuth
    rows, cols = mask.shape
    rng = np.random.default_rng(3)
    ends: list[tuple[tuple[int, int], tuple[int, int]]] = [((2, 2), (rows - 3, cols - 3))]
    while len(ends) < 6:
        rc0 = (int(rng.integers(rows)), int(rng.integers(cols)))
        rc1 = (int(rng.integers(rows)), int(rng.integers(cols)))
        across = straight(g, cell_xy(bf, *rc0), cell_xy(bf, *rc1))[1] > 0
        if across and math.dist(rc0, rc1) > min(rows, cols) / 2:  # long, woods in the way
            ends.append((rc0, rc1))
    for k, (rc0, rc1) in enumerate(ends):
        a, b = cell_xy(bf, *rc0), cell_xy(bf, *rc1)
        blocked = None
        if k % 2:  # an enemy base astride the middle of the way
            mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
            blocked = [box(mx - 80, my - 40, mx + 80, my + 40)]
        obstacles = g._obstacles(blocked)
        ga, gb = g.grid.to_grid(*a), g.grid.to_grid(*b)
        links = g._end_links(ga, gb, obstacles)
        bad = g._blocked_edges(obstacles) if obstacles is not None else set()
        path = g._search(links, bad, ga, gb)
        assert not bad.intersection(itertools.pairwise(path))
        ends_graph = nx.Graph()
        ends_graph.add_weighted_edges_from(links)
        whole = nx.compose(g.graph, ends_graph)
        whole.remove_edges_from(bad)
        found = sum(whole[u][v]["weight"] for u, v in itertools.pairwise(path))
        best = nx.dijkstra_path_length(whole, path[0], path[-1])
        assert found == pytest.approx(best, rel=1e-12), (rc0, rc1, found, best)


def _crossing_case(mask: np.ndarray) -> tuple[tuple[int, int], tuple[int, int], int]:
    """A row where the biggest wood is 4-12 cells across with open ground either side, and the
    two sides are not joined by open ground within 40 rows: going round is > 80 cells, crossing
    costs < 36."""
    lab, _ = ndimage.label(mask)
    sizes = np.bincount(lab.ravel())
    sizes[0] = 0
    k = int(np.argmax(sizes))
    rows = np.nonzero((lab == k).any(axis=1))[0]
    for r in range(max(rows.min(), 40), min(rows.max(), mask.shape[0] - 41)):
        line = lab[r] == k
        runs = np.flatnonzero(np.diff(np.concatenate([[0], line.astype(int), [0]])))
        for start, stop in zip(runs[::2], runs[1::2], strict=True):
            w = stop - start
            lo, hi = start - 3, stop + 2
            if not (4 <= w <= 12 and lo >= 0 and hi < mask.shape[1]):
                continue
            if mask[r, lo:start].any() or mask[r, stop : hi + 1].any():
                continue
            opens, _ = ndimage.label(~mask[r - 40 : r + 41])
            if opens[40, lo] != opens[40, hi]:
                return (r, lo), (r, hi), w
    raise AssertionError("no crossing case in the Bayreuth forest")


def test_9_1_route_crosses_a_wood_when_going_round_is_longer(bayreuth) -> None:
    bf, mask, g = bayreuth
    rc0, rc1, _width = _crossing_case(mask)
    a, b = cell_xy(bf, *rc0), cell_xy(bf, *rc1)
    r = g.route(a, b)
    assert r.triple_share > 0  # through the wood (perhaps at a narrower neck nearby)
    assert r.cost_m < 80 * bf.res  # any way round is longer than 80 cells
    assert r.cost_m <= straight(g, a, b)[0] + 1e-6
    assert r.cost_m <= mcp_cost(mask, bf.res, rc0, rc1) * 1.005


def _small_wood_case(mask: np.ndarray) -> tuple[tuple[int, int], tuple[int, int]]:
    """A small wood (<= 5 rows tall) whose straight crossing row has open ground 25 cells either
    side, and open ground joining the two ends within 4 rows of the wood: a short way round."""
    lab, n = ndimage.label(mask)
    objects = ndimage.find_objects(lab)
    for k in range(1, n + 1):
        sl = objects[k - 1]
        r0, r1, c0, c1 = sl[0].start, sl[0].stop, sl[1].start, sl[1].stop
        if r1 - r0 > 5 or c1 - c0 > 8 or r0 < 4 or r1 + 4 > mask.shape[0]:
            continue
        if c0 - 25 < 0 or c1 + 25 >= mask.shape[1]:
            continue
        rm = (r0 + r1) // 2
        lo, hi = c0 - 25, c1 + 24
        row = mask[rm, lo : hi + 1] & (lab[rm, lo : hi + 1] != k)
        if row.any() or not mask[rm, c0:c1].any():
            continue
        opens, _ = ndimage.label(~mask[r0 - 4 : r1 + 4, lo : hi + 1])
        if opens[rm - r0 + 4, 0] == opens[rm - r0 + 4, hi - lo] != 0:
            return (rm, lo), (rm, hi)
    raise AssertionError("no small wood in the Bayreuth forest")


def test_9_1_route_goes_round_a_small_wood_when_three_times_through_is_longer(bayreuth) -> None:
    bf, mask, g = bayreuth
    rc0, rc1 = _small_wood_case(mask)
    a, b = cell_xy(bf, *rc0), cell_xy(bf, *rc1)
    through = straight(g, a, b)
    assert through[1] > 0  # the straight string would cross the wood
    r = g.route(a, b)
    assert r.triple_share == 0.0
    assert r.cost_m < through[0]
    assert r.n_vertices >= 3  # it bends round the wood
    assert r.cost_m <= mcp_cost(mask, bf.res, rc0, rc1) * 1.005


def test_9_1_triple_share_inside_a_known_wood(bayreuth) -> None:
    bf, mask, g = bayreuth
    depth = ndimage.distance_transform_edt(np.pad(mask, 1))[1:-1, 1:-1]  # the map edge is no wood
    r0, c0 = np.unravel_index(int(np.argmax(depth)), mask.shape)
    assert depth[r0, c0] > 12
    a, b = cell_xy(bf, r0, c0), cell_xy(bf, r0 + 5, c0 + 5)  # deep inside: all of it is wood
    r = g.route(a, b)
    assert r.triple_share == pytest.approx(1.0)
    assert r.cost_m == pytest.approx(3 * math.dist(a, b))
    assert r.length_m == pytest.approx(math.dist(a, b))
    # Out of the wood along the row: the share is the wood's cells on that row, counted exactly.
    c_out = c0 + int(np.argmax(~mask[r0, c0:])) + 4
    run = int(mask[r0, c0:c_out].sum())
    cost, triple, length = straight(g, cell_xy(bf, r0, c0), cell_xy(bf, r0, c_out))
    assert triple == pytest.approx((run - 0.5) * bf.res)
    assert cost == pytest.approx(length + 2 * triple)


def test_9_1_enemy_forces_a_detour_allies_do_not(gettysburg) -> None:
    bf, g = gettysburg
    cx, cy = open_spot(bf, g, 3000, 1100)
    a, b = (cx - 1500, cy), (cx + 1500, cy + 100)
    free = g.route(a, b)
    assert free.n_vertices == 2 and free.cost_m == pytest.approx(math.dist(a, b))
    # A column of 25 enemy bases 40 x 20 m in contact, straddling the straight string.
    enemy = [box(cx - 20, cy - 500 + 20 * i, cx + 20, cy - 480 + 20 * i) for i in range(50)]
    r = g.route(a, b, blocked=enemy)
    assert r.cost_m > free.cost_m + 100
    assert not any(r.line.intersects(p) for p in enemy)
    # The string wraps the enemy column's end: within 0.5 % of the shortest way round its corners.
    top = (cx - 20, cy + 500), (cx + 20, cy + 500)
    ideal = math.dist(a, top[0]) + 40 + math.dist(top[1], b)
    assert r.length_m <= ideal * 1.005
    # Allies are not passed as blocked: the same call without them is the free route.
    assert g.route(a, b, blocked=[]) == free
    assert g.n_nodes == free_nodes(g)  # the static graph is untouched by queries


def test_9_1_route_memo_answers_only_the_same_question(gettysburg) -> None:
    """Routes are remembered per graph (Monte Carlo replays in one worker ask the same
    questions); an answer is reused only for the same ends and the same enemy polygons."""
    bf, g = gettysburg
    cx, cy = open_spot(bf, g, 3000, 1100)
    a, b = (cx - 1500, cy), (cx + 1500, cy + 100)
    enemy = [box(cx - 20, cy - 500 + 20 * i, cx + 20, cy - 480 + 20 * i) for i in range(50)]
    first = g.route(a, b, blocked=enemy)
    assert g.route(a, b, blocked=list(enemy)) is first  # the same question: the memo
    assert g._route(a, b, enemy) == first  # which holds what a fresh search finds
    # the column moved 1 km north, clear of the string: a new search, the straight route
    away = [box(cx - 20, cy + 600 + 20 * i, cx + 20, cy + 620 + 20 * i) for i in range(20)]
    clear = g.route(a, b, blocked=away)
    assert clear.n_vertices == 2 and clear.cost_m < first.cost_m
    assert g.route((a[0] + 1.0, a[1]), b, blocked=enemy) is not first  # other ends


def free_nodes(g: RouteGraph) -> int:
    return sum(1 for n in g.graph.nodes if n >= 0)


def test_9_1_gap_between_enemy_bases_lets_the_string_through(gettysburg) -> None:
    bf, g = gettysburg
    cx, cy = open_spot(bf, g, 1600, 300)
    a, b = (cx - 800, cy + 50), (cx + 800, cy + 50)
    # Two bases with a 20 m gap on the straight line: "twist it around enemy units", not gaps.
    enemy = [box(cx - 20, cy + 60, cx + 20, cy + 80), box(cx - 20, cy + 20, cx + 20, cy + 40)]
    r = g.route(a, b, blocked=enemy)
    assert r.n_vertices == 2 and r.cost_m == pytest.approx(1600.0)


def test_9_1_enclosed_and_off_map_raise(gettysburg) -> None:
    bf, g = gettysburg
    cx, cy = open_spot(bf, g, 700, 700)
    ring = Point(cx, cy).buffer(300).difference(Point(cx, cy).buffer(250))
    with pytest.raises(NoRouteError, match="cut off"):
        g.route((cx, cy), (cx + 1000, cy), blocked=[ring])
    with pytest.raises(NoRouteError, match="blocked ground"):
        g.route((cx, cy), (cx + 1000, cy), blocked=[Point(cx, cy).buffer(30)])
    minx, _miny, maxx, _maxy = bf.bounds
    with pytest.raises(OffMapError, match="route end"):
        g.route((cx, cy), (maxx + 10, cy))
    with pytest.raises(OffMapError, match="route start"):
        g.route((minx - 1, cy), (cx, cy))
    assert free_nodes(g) == g.n_nodes  # temporary end nodes are removed even after errors


def test_9_2_arrival_bound_is_continuous_one_bound_per_rate(bayreuth) -> None:
    bf, _mask, g = bayreuth
    cx, cy = bf.centre
    r = g.route((cx - 2000, cy - 1000), (cx + 2500, cy + 1500))
    for rate in (200.0, 500.0, 1000.0):  # prehistoric, ancients, modern
        assert arrival_bound(r.cost_m, rate, sent_bound=4) == 4 + math.ceil(r.cost_m / rate) - 1
    # 9.2 continuity: within the rate acts at once (a character's reach), just beyond it one
    # bound later, never two
    assert [
        arrival_bound(c, 500.0, 0) for c in (0.0, 380.0, 500.0, 501.0, 603.0, 1000.0, 1001.0)
    ] == [0, 0, 0, 1, 1, 1, 2]
    assert arrival_bound(1000.0000000001, 500.0, 0) == 1  # float noise does not cost a bound
    with pytest.raises(ValueError, match="positive"):
        arrival_bound(10.0, 0.0, 1)


def test_9_1_replan_from_the_messenger_when_enemy_moves_across(gettysburg) -> None:
    bf, g = gettysburg
    cx, cy = open_spot(bf, g, 4000, 1000)
    a, b = (cx - 2000, cy), (cx + 2000, cy)
    r = g.route(a, b)
    travelled = 1500.0  # three bounds at 500 m (ancients)
    here = r.position_at(travelled)
    assert here == pytest.approx((cx - 500, cy))
    enemy = [box(cx - 30, cy - 400, cx + 30, cy + 400)]
    assert r.blocked_by(enemy, from_cost_m=travelled)
    assert not r.blocked_by([box(cx - 1900, cy - 50, cx - 1800, cy + 50)], from_cost_m=travelled)
    new = g.route_from(here, b, blocked=enemy)
    assert new.path[0] == pytest.approx(here)
    assert not new.line.intersects(enemy[0])
    assert travelled + new.cost_m > r.cost_m
    assert new.cost_m < 2 * math.dist(here, b)


def test_9_1_route_is_any_angle_not_a_zigzag(gettysburg) -> None:
    bf, g = gettysburg
    cx, cy = open_spot(bf, g, 2400, 1400)
    a, b = (cx - 1200, cy - 700), (cx + 1100, cy + 600)  # ~30 degrees: no 8-connected direction
    r = g.route(a, b)
    assert g.grid.stretch(*g.grid.to_grid(*a), *g.grid.to_grid(*b))[1] == 0
    assert r.n_vertices == 2
    assert r.cost_m == pytest.approx(math.dist(a, b))


def test_9_1_graph_cache_in_memory_and_on_disk(built_bayreuth, tmp_path) -> None:
    bf = built_bayreuth.battlefield
    assert RouteGraph.from_battlefield(bf) is RouteGraph.from_battlefield(bf)
    mask = triple_mask(bf.layer("move"), bf.layer("cover"), bf.layer("blocks_sight"))
    g1 = RouteGraph.from_mask(mask, bf.transform, cache_dir=tmp_path)
    files = list(tmp_path.glob("routegraph-*.pickle"))
    assert len(files) == 1
    g2 = RouteGraph.from_mask(mask, bf.transform, cache_dir=tmp_path)
    assert g2.n_edges == g1.n_edges
    cx, cy = bf.centre
    assert g1.route((cx - 900, cy), (cx + 900, cy + 300)) == g2.route(
        (cx - 900, cy), (cx + 900, cy + 300)
    )
    files[0].write_bytes(b"not a pickle")  # a spoiled cache is rebuilt, never an error
    g3 = RouteGraph.from_mask(mask, bf.transform, cache_dir=tmp_path)
    assert g3.n_edges == g1.n_edges


def test_9_1_geojson_of_a_route(gettysburg) -> None:
    bf, g = gettysburg
    cx, cy = open_spot(bf, g, 800, 900)
    r = g.route((cx, cy), (cx + 300, cy + 400))
    feat = r.to_geojson({"messenger": "m1"})
    assert feat["geometry"]["type"] == "LineString"
    assert feat["properties"]["cost_m"] == pytest.approx(500.0)
    assert feat["properties"]["messenger"] == "m1"
    assert LineString(feat["geometry"]["coordinates"]).length == pytest.approx(500.0, abs=0.05)
