"""Rebuild ``overlay.geojson`` for Towton 1461 from the shipped OS Terrain 50 DEM.

The ground the sources name (OVERLAY_SOURCES.md, "Method"):

- ``stream``: the Cock Beck, the D8 flow path of the DEM (pits filled by priority flood) from
  the Aberford reach to the Wharfe flood-plain below Tadcaster;
- ``marsh``: its flood meadows ("Bloody Meadow"), the valley-floor cells beside the beck from
  Lead to the London road's crossing, at most ``MEADOW_RISE_M`` above the beck;
- ``forest``: Castle Hill Wood, the slopes of the spur that the beck loops round, between the
  valley floor and the brow of the spur;
- ``track``: the London road (Tadcaster - Cock Beck crossing - Towton - the plateau - Saxton);
- ``village``: Towton and Saxton, rectangles round the present villages.

Run from the repository root: ``python data/battlefields/towton/make_overlay.py``.
"""

from __future__ import annotations

import heapq
import json
from pathlib import Path
from typing import Any

import numpy as np
import rasterio
import rasterio.features
import shapely
from pyproj import Transformer
from shapely.geometry import LineString, Point, box, mapping, shape
from shapely.ops import substring, unary_union

HERE = Path(__file__).resolve().parent
# OS grid (EPSG:27700) points the features are drawn from (OVERLAY_SOURCES.md, "Sources")
BECK_FROM = (443475.0, 437075.0)  # the Cock Beck at Aberford (SE 434 370)
BECK_TO_Y = 442050.0  # where it reaches the Wharfe flood-plain below Tadcaster (SE 481 420)
LEAD = (446300.0, 436850.0)  # St Mary's chapel, Lead (SE 463 368): the meadows start here
CROSSING = (447650.0, 440270.0)  # the London road's crossing of the beck (SE 476 402)
MEADOW_RISE_M = 1.5  # valley floor: at most this far above the beck's own cell
MEADOW_REACH_M = 150.0  # and at most this far from the beck line
# Castle Hill: the spur inside the beck's loop west of the Yorkist left (SE 466-475 378-383)
CASTLE_HILL_BOX = (446550.0, 437800.0, 447500.0, 438300.0)
WOOD_TOP_M = 46.0  # brow of the spur (its top, 48-52 m, is left open)
LONDON_ROAD = [
    (448100.0, 443000.0),  # by the north edge of the DEM, on the way to Tadcaster (SE 486 434)
    (447950.0, 441900.0),
    (447750.0, 441000.0),
    CROSSING,
    (448000.0, 440150.0),
    (448500.0, 439950.0),  # north end of Towton
    (448520.0, 439600.0),
    (448420.0, 439300.0),  # south end of Towton, where the Saxton road leaves the A162
    (448230.0, 439030.0),
    (448040.0, 438600.0),
    (447900.0, 438100.0),  # over the plateau between the armies, by Dacre's Cross
    (447760.0, 437600.0),
    (447580.0, 437100.0),  # north end of Saxton
    (447500.0, 436700.0),  # Saxton church (SE 475 368)
]
TOWTON = (448400.0, 439300.0, 448700.0, 440000.0)  # round SE 485 396
SAXTON = (447300.0, 436650.0, 447750.0, 437100.0)  # round SE 475 368
ROAD_W_M = 8.0
BECK_W_M = 5.0

REGISTER = (
    "Historic England, Register of Historic Battlefields: 'Battle of Towton 1461' (list entry "
    "1000040)"
)
BOARDMAN = "A. W. Boardman, The Battle of Towton (Sutton, 1994)"
SUTHERLAND = (
    "T. L. Sutherland, 'Towton 1461: an archaeological survey' (battlefield survey, Towton "
    "Battlefield Archaeological Survey Project, 2000s)"
)
TBS = "Towton Battlefield Society, battlefield trail and maps"
OS = "Ordnance Survey grid references of the present features (1:25 000 Explorer 290)"
DEM = (
    "Shipped DEM data/battlefields/towton/dem.tif (OS Terrain 50, Contains OS data (c) Crown "
    "copyright and database right 2013, OGL v3; data/SOURCES.md section 5)"
)


def _fill_and_flow(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Priority-flood the pits, then D8: each cell's receiver (row, col; -1 at outlets) and the
    number of cells draining through it."""
    h, w = a.shape
    filled = a.astype(float).copy()
    seen = np.zeros(a.shape, bool)
    heap: list[tuple[float, int, int]] = []
    for r in range(h):
        for c in range(w):
            if r in (0, h - 1) or c in (0, w - 1):
                heapq.heappush(heap, (filled[r, c], r, c))
                seen[r, c] = True
    steps = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc]
    while heap:
        z, r, c = heapq.heappop(heap)
        for dr, dc in steps:
            rr, cc = r + dr, c + dc
            if 0 <= rr < h and 0 <= cc < w and not seen[rr, cc]:
                seen[rr, cc] = True
                filled[rr, cc] = max(filled[rr, cc], z + 1e-4)
                heapq.heappush(heap, (filled[rr, cc], rr, cc))
    rec = -np.ones((h, w, 2), int)
    for r in range(h):
        for c in range(w):
            best = 0.0
            for dr, dc in steps:
                rr, cc = r + dr, c + dc
                if 0 <= rr < h and 0 <= cc < w:
                    drop = (filled[r, c] - filled[rr, cc]) / float(np.hypot(dr, dc))
                    if drop > best:
                        best, rec[r, c] = drop, (rr, cc)
    acc = np.ones((h, w))
    for i in np.argsort(-filled, axis=None):
        r, c = divmod(int(i), w)
        if rec[r, c, 0] >= 0:
            acc[rec[r, c, 0], rec[r, c, 1]] += acc[r, c]
    return rec, acc


def _beck(src: Any, a: np.ndarray) -> list[tuple[float, float]]:
    """The flow path down from the largest-draining cell near BECK_FROM to BECK_TO_Y."""
    rec, acc = _fill_and_flow(a)
    r0, c0 = src.index(*BECK_FROM)
    win = acc[r0 - 2 : r0 + 3, c0 - 2 : c0 + 3]
    dr, dc = np.unravel_index(int(np.argmax(win)), win.shape)
    cell = (r0 - 2 + int(dr), c0 - 2 + int(dc))
    out = []
    while cell[0] >= 0:
        x, y = src.xy(*cell)
        out.append((float(x), float(y)))
        if y >= BECK_TO_Y:
            break
        cell = (int(rec[cell][0]), int(rec[cell][1]))
    return out


def _polys(mask: np.ndarray, tr: Any) -> Any:
    return unary_union(
        [
            shape(g)
            for g, v in rasterio.features.shapes(mask.astype("uint8"), mask=mask, transform=tr)
            if v == 1
        ]
    )


def _feature(feature: str, name: str, geom: Any, to_ll: Any, **props: Any) -> dict[str, Any]:
    return {
        "type": "Feature",
        "properties": {"feature": feature, "name": name, **props},
        "geometry": mapping(to_ll(geom)),
    }


def main() -> None:
    with rasterio.open(HERE / "dem.tif") as src:
        a = src.read(1).astype(float)
        tr, crs = src.transform, src.crs
        cells = _beck(src, a)
    proj = Transformer.from_crs(crs, "EPSG:4326", always_xy=True)

    def to_ll(g: Any) -> Any:
        g = shapely.transform(g, lambda x, y: proj.transform(x, y), interleaved=False)
        return shapely.set_precision(g, 1e-6)

    beck = LineString(cells).simplify(30.0)
    road = LineString(LONDON_ROAD)

    # flood meadows: cells near the beck, between Lead and the crossing, on the valley floor
    h, w = a.shape
    rows, cols = np.mgrid[0:h, 0:w]
    xs, ys = rasterio.transform.xy(tr, rows.ravel(), cols.ravel())
    pts = shapely.points(np.asarray(xs), np.asarray(ys))
    lo = beck.project(Point(LEAD))
    hi = beck.project(Point(CROSSING))
    reach = substring(beck, lo, hi)
    near = (shapely.distance(pts, reach) <= MEADOW_REACH_M).reshape(h, w)
    beck_cells = [rasterio.transform.rowcol(tr, x, y) for x, y in cells]
    level = np.full(a.shape, np.inf)
    for (r, c), (x, y) in zip(beck_cells, cells, strict=True):
        if lo <= beck.project(Point(x, y)) <= hi:
            level[max(r - 3, 0) : r + 4, max(c - 3, 0) : c + 4] = np.minimum(
                level[max(r - 3, 0) : r + 4, max(c - 3, 0) : c + 4], a[r, c]
            )
    floor = near & (a <= level + MEADOW_RISE_M)
    meadow = _polys(floor, tr).buffer(0).difference(road.buffer(ROAD_W_M + 15.0))
    meadow = meadow.simplify(10.0).buffer(0)

    # Castle Hill Wood: the spur's slopes above the valley floor, below its brow
    spur = box(*CASTLE_HILL_BOX)
    inside = shapely.contains(spur, pts).reshape(h, w)
    slopes = inside & ~floor & (a <= WOOD_TOP_M)
    wood = _polys(slopes, tr).buffer(0)
    wood = max(getattr(wood, "geoms", [wood]), key=lambda g: g.area)  # the spur's own slopes
    wood = wood.simplify(10.0).buffer(0)

    feats = [
        _feature(
            "stream",
            "Cock Beck",
            beck,
            to_ll,
            width_m=BECK_W_M,
            evidence="attested",
            source=f"{REGISTER}; {BOARDMAN} (the beck in spate, the flight to its crossings); "
            f"{DEM} (course: the D8 flow path of the DEM, pits filled)",
            uncertainty="course traced on 50 m cells and simplified by 30 m: +-75 m; the 1461 "
            "channel may have moved within its flood-plain. A 5 m channel is the present beck; "
            "it was swollen by snow-melt on the day (Boardman 1994). Crossable (TERRAIN CHART "
            "Stream, Ford), not a river: the fleeing Lancastrians crossed and drowned in it",
        ),
        _feature(
            "marsh",
            "Flood meadows of the beck (Bloody Meadow)",
            meadow,
            to_ll,
            evidence="reconstruction",
            source=f"{REGISTER}; {BOARDMAN}; {SUTHERLAND}; {DEM} (valley floor: cells at most "
            f"{MEADOW_RISE_M} m above the beck within {MEADOW_REACH_M:.0f} m of it, from Lead "
            "to the London road's crossing)",
            uncertainty="that the valley floor was wet, flooded meadow on 29 March 1461 is in "
            "the accounts (the beck in flood, the rout through 'Bloody Meadow'); its extent is "
            "read from today's 50 m DTM, +-50 m across the valley, and the meadows beyond "
            "Lead and north of the crossing are left out. Cut 23 m either side of the road so "
            "the crossing stays a way over",
        ),
        _feature(
            "forest",
            "Castle Hill Wood",
            wood,
            to_ll,
            evidence="attested",
            source=f"{REGISTER}; {BOARDMAN} (the Lancastrian ambush hidden in Castle Hill Wood "
            f"fell on the Yorkist left); {TBS}; {OS} (Castle Hill Wood, SE 466-475 378-383, "
            f"on the spur the Cock Beck loops round); {DEM} (slopes of the spur between the "
            f"valley floor and {WOOD_TOP_M:.0f} m)",
            uncertainty="the wood is the present Castle Hill Wood; that trees stood there in "
            "1461 rests on the tradition of the ambush. Drawn on the spur's slopes from the "
            "valley floor to its brow; its 1461 edge is unknown, +-150 m; the open top of "
            "the spur (48-52 m) is left open",
        ),
        _feature(
            "track",
            "London road (Tadcaster - Towton - Saxton)",
            road,
            to_ll,
            width_m=ROAD_W_M,
            evidence="reconstruction",
            source=f"{REGISTER}; {BOARDMAN} (the old London road through Towton and Saxton; "
            f"Norfolk came up it); {OS} (Old London Road north of Towton, the Towton - Saxton "
            "road, B1217, over the plateau)",
            uncertainty="an unmetalled medieval highway, drawn on the present Old London Road "
            "and Towton - Saxton road: +-100 m on the plateau and through the villages, "
            "+-300 m from the crossing to Tadcaster (schematic); which way the road ran south "
            "of Towton (by Saxton or by the A162 line) is debated, the Saxton line is drawn",
        ),
        _feature(
            "village",
            "Towton (village)",
            box(*TOWTON),
            to_ll,
            evidence="attested",
            source=f"{REGISTER}; {BOARDMAN}; {OS} (Towton, SE 485 396)",
            uncertainty="a street village on the road; its 1461 extent of tofts and crofts is "
            "unknown, drawn round the present village, +-150 m",
        ),
        _feature(
            "village",
            "Saxton (village)",
            box(*SAXTON),
            to_ll,
            evidence="attested",
            source=f"{REGISTER}; {BOARDMAN} (Lord Dacre buried in Saxton churchyard); "
            f"{OS} (Saxton, All Saints church SE 475 368)",
            uncertainty="1461 extent unknown; drawn round the present village, +-150 m",
        ),
    ]
    fc = {
        "type": "FeatureCollection",
        "name": "towton_1461_overlay",
        "crs": {"type": "name", "properties": {"name": "urn:ogc:def:crs:OGC:1.3:CRS84"}},
        "features": feats,
    }
    text = json.dumps(fc, indent=1)
    (HERE / "overlay.geojson").write_text(text + "\n", encoding="utf-8")
    print(
        f"{len(feats)} features, {len(text)} bytes; beck {beck.length:.0f} m, meadows "
        f"{meadow.area / 1e4:.1f} ha, wood {wood.area / 1e4:.1f} ha, road {road.length:.0f} m"
    )


if __name__ == "__main__":
    main()
