"""Smoothed terrain-class regions for print (maps.smoothing.smooth_classes, drawn by the layout as
the wet / debris / woods / impractical fills) on real ground: the Bayreuth pair (OSM land cover,
25 m cells: woods, fields, one-cell streams, salt-and-pepper edges) and Flodden (the demo's
battlefield: the mire, the Pallins Burn and the River Till drawn corner to corner).

What a player needs from the printed fills (7.3): each class where the rules' raster has it,
within a cell; no stream, lone copse or clearing lost or broken into dots; and no 25 mm staircase.
"""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from rasterio.features import shapes
from scipy import ndimage
from shapely.geometry import shape
from shapely.geometry.base import BaseGeometry

from maps.colours import PRINT_MOVE
from maps.layout import prepare_shapes
from maps.testing import right_angle_turns
from maps.vectors import class_regions

# the ground the demo prints (scenario-builder demo, Flodden 1513), EPSG:32630
FLODDEN_WINDOW = (550383.26, 6163436.06, 553325.87, 6166478.75)
CODES = sorted(PRINT_MOVE)  # wet, debris, woods, impractical
CASES = ["bayreuth_whole", "flodden_whole", "flodden_window"]
EIGHT = np.ones((3, 3), bool)


def _case(request: pytest.FixtureRequest, name: str):
    site = "built_bayreuth" if name.startswith("bayreuth") else "built_flodden"
    bf = request.getfixturevalue(site).battlefield
    window = FLODDEN_WINDOW if name == "flodden_window" else None
    return bf, window, class_regions(bf, "move", CODES, window)


def _raw(bf, code: int) -> BaseGeometry:
    """The class's cells as traced from the raster: the region the rules use."""
    mask = np.asarray(bf.layer("move")) == code
    polys = [
        shape(g) for g, v in shapes(mask.astype(np.uint8), mask=mask, transform=bf.transform) if v
    ]
    return shapely.union_all(polys) if polys else shapely.Polygon()


def _segments(g: BaseGeometry) -> np.ndarray:
    out = []
    for line in shapely.get_parts(g):
        xy = shapely.get_coordinates(line)
        out.append(shapely.linestrings(np.stack([xy[:-1], xy[1:]], axis=1)))
    return np.concatenate(out)


def _far(a: BaseGeometry, b: BaseGeometry, step: float) -> float:
    """Directed distance: how far the farthest point of line ``a`` is from line ``b``."""
    if a.is_empty:
        return 0.0
    pts = shapely.points(shapely.get_coordinates(shapely.segmentize(a, step)))
    _, d = shapely.STRtree(_segments(b)).query_nearest(pts, return_distance=True, all_matches=False)
    return float(d.max())


def _centres(bf, mask: np.ndarray, window) -> tuple[np.ndarray, np.ndarray]:
    rows, cols = np.nonzero(mask)
    xs, ys = bf.transform @ (cols + 0.5, rows + 0.5)
    if window is not None:
        keep = shapely.contains_xy(shapely.box(*window), xs, ys)
        xs, ys = xs[keep], ys[keep]
    return xs, ys


@pytest.mark.parametrize("name", CASES)
def test_7_3_class_regions_within_a_cell_of_the_raster(
    request: pytest.FixtureRequest, name: str
) -> None:
    """Both ways: every smoothed edge within a cell of the class's raster edge and every raster
    edge within a cell of a smoothed one (the map's or window's own edge left out)."""
    bf, window, smooth = _case(request, name)
    res = bf.res
    box = shapely.box(*(window or bf.bounds))
    frame = box.boundary.buffer(res * 0.05)
    worst = 0.0
    checked = 0
    for code, g in smooth.items():
        raw = _raw(bf, code)
        if shapely.clip_by_rect(raw, *box.bounds).area < res * res:
            assert g.is_empty
            continue
        checked += 1
        raw_edge = shapely.intersection(raw.boundary, box.buffer(-res))
        worst = max(worst, _far(g.boundary.difference(frame), raw.boundary, res / 4))
        worst = max(worst, _far(raw_edge, g.boundary, res / 4))
    assert checked >= 2
    assert worst <= res, f"{worst / res:.2f} cells"


@pytest.mark.parametrize("name", CASES)
def test_7_3_every_cell_centre_on_its_own_side(request: pytest.FixtureRequest, name: str) -> None:
    """Each cell of a class has its centre inside the class's printed fill and every other cell
    outside: lone cells (a copse), one-cell holes (a clearing), streams' ends all show."""
    bf, window, smooth = _case(request, name)
    move = np.asarray(bf.layer("move"))
    lone = 0
    for code, g in smooth.items():
        mask = move == code
        sizes = np.bincount(ndimage.label(mask, structure=EIGHT)[0].ravel())[1:]
        lone += int((sizes == 1).sum())
        xs, ys = _centres(bf, mask, window)
        inside = shapely.contains_xy(g, xs, ys)
        assert inside.all(), f"class {code}: {int((~inside).sum())} of its cells left out"
        xs, ys = _centres(bf, ~mask, window)
        covered = shapely.contains_xy(g, xs, ys)
        assert not covered.any(), f"class {code}: {int(covered.sum())} other cells taken in"
    if name == "bayreuth_whole":
        assert lone > 100  # the test sees lone cells (8-connected components of one cell)


@pytest.mark.parametrize(
    ("site", "code", "what", "corners"),
    [
        # Bayreuth's OSM streams are plain brooks now (7.2) and the Till one 4-connected band:
        # the corner-to-corner pieces are the Roter Main where it leaves woods to
        # the trees, its ponds and the built-up blocks
        ("built_bayreuth", 4, "Roter Main, ponds, built-up (impractical)", True),
        ("built_flodden", 1, "Pallins Burn and the mire (wet)", False),
        ("built_flodden", 4, "River Till (impractical)", False),
    ],
)
def test_7_3_streams_stay_whole(
    request: pytest.FixtureRequest, site: str, code: int, what: str, corners: bool
) -> None:
    """Every 8-connected piece of a stream class prints as one piece: a stream one cell wide, or
    drawn corner to corner, does not fall apart into a row of dots."""
    bf = request.getfixturevalue(site).battlefield
    mask = np.asarray(bf.layer("move")) == code
    g = class_regions(bf, "move", CODES)[code]
    labels, n = ndimage.label(mask, structure=EIGHT)
    # a real test: some piece of 20+ cells is nowhere two cells thick (the burn, the streams) ...
    core = ndimage.binary_erosion(mask, structure=EIGHT)
    size = np.bincount(labels.ravel(), minlength=n + 1)
    thick = np.bincount(labels[core], minlength=n + 1)
    assert ((size >= 20) & (thick == 0))[1:].any(), what
    # ... and (but the burn) pieces hang together at corners only: fewer 8- than 4-connected
    assert (ndimage.label(mask)[1] > n) == corners, what
    parts = shapely.get_parts(g)
    tree = shapely.STRtree(parts)
    rows, cols = np.nonzero(mask)
    xs, ys = bf.transform @ (cols + 0.5, rows + 0.5)
    centres = shapely.points(xs, ys)
    for i in range(1, n + 1):
        mine = labels[rows, cols] == i
        got = tree.query(centres[mine], predicate="within")
        assert len(set(got[1].tolist())) == 1, f"{what}: piece {i} printed in several pieces"
        assert len(set(got[0].tolist())) == int(mine.sum())


@pytest.mark.parametrize("name", CASES)
def test_7_3_no_cell_staircase_in_the_class_fills(
    request: pytest.FixtureRequest, name: str
) -> None:
    bf, window, smooth = _case(request, name)
    box = shapely.box(*(window or bf.bounds))
    frame = box.boundary.buffer(bf.res * 0.05)
    raw = np.sum(
        [right_angle_turns(shapely.clip_by_rect(_raw(bf, c), *box.bounds), frame) for c in smooth],
        axis=0,
    )
    got = np.sum([right_angle_turns(g, frame) for g in smooth.values()], axis=0)
    assert raw[0] / raw[1] > 0.9  # the traced cells: nothing but right angles
    assert got[1] > 100 and got[0] / got[1] < 0.02, got


def test_7_3_layout_prints_the_smoothed_fills(built_flodden) -> None:
    """The layout's class fills for the demo's window are the smoothed regions, inside it."""
    bf = built_flodden.battlefield
    shapes_ = prepare_shapes(bf, FLODDEN_WINDOW)
    want = class_regions(bf, "move", CODES, FLODDEN_WINDOW)
    assert [c for c, _ in shapes_.classes] == [c for c in CODES if not want[c].is_empty] == [1, 2]
    for code, g in shapes_.classes:
        assert g.equals(want[code])
        assert g.within(shapely.box(*FLODDEN_WINDOW).buffer(1e-6))
