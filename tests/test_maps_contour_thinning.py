"""Contours on steep SRTM ground read as lines, not a solid brown band: Flodden's south face of
Branxton Hill (2 m levels on 10-27 degree slopes, 25 m cells) on the web map at zooms 13-15
and on the demo print's index page at A4, measured as the gap between neighbouring drawn
contours (maps.contour_thinning: intermediate levels dropped where they would crowd, index
levels kept)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import shapely

from maps.contour_thinning import MIN_GAP_PT, MIN_GAP_PX, rank


@pytest.fixture(scope="module")
def flodden(flodden_dir: Path) -> Any:
    from scenario_builder.battlefield import Battlefield

    return Battlefield.load(flodden_dir)


def _gaps(lines: list[tuple[int, Any]], step: float, cap: float) -> np.ndarray:
    """For points every ``step`` along each drawn line, the distance to the nearest drawn line
    of another level (same units as the lines; ``cap`` where none is that near)."""
    geoms = np.array([g for _, g in lines], dtype=object)
    level = np.array([k for k, _ in lines])
    pts, own = [], []
    for i, (_k, g) in enumerate(lines):
        n = max(int(g.length // step), 1)
        pts += [g.interpolate(j * step) for j in range(n)]
        own += [i] * n
    points, owner = np.array(pts, dtype=object), np.array(own)
    pi, gj = shapely.STRtree(geoms).query(points, predicate="dwithin", distance=cap)
    other = level[owner[pi]] != level[gj]
    pi, gj = pi[other], gj[other]
    best = np.full(len(points), cap)
    np.minimum.at(best, pi, shapely.distance(points[pi], geoms[gj]))
    return best


@pytest.fixture(scope="module")
def web_runs(flodden: Any) -> Any:
    """The web map's contour runs (maps.battlefield_map), back in the battlefield's metres."""
    import geopandas as gpd

    from maps.battlefield_map import _draw_contours

    drawn = _draw_contours(flodden)
    assert drawn is not None
    return gpd.read_file(drawn.geojson).to_crs(flodden.crs)


def _web_lines(runs: Any, zoom: int, thinned: bool) -> list[tuple[int, Any]]:
    """The runs drawn at ``zoom`` (or every run)."""
    shown = runs[runs["z"] <= zoom] if thinned else runs
    return [(int(k), g) for k, g in zip(shown["level"], shown.geometry, strict=True)]


def _south_face(flodden: Any) -> Any:
    """Branxton Hill's steep south face, 1.5 km round it (lon/lat of the overlay's hill)."""
    import pyproj

    to_bf = pyproj.Transformer.from_crs("EPSG:4326", flodden.crs, always_xy=True)
    x, y = to_bf.transform(-2.172, 55.612)
    return shapely.box(x - 1500, y - 1500, x + 1500, y + 1500)


@pytest.mark.parametrize("zoom", [13, 14, 15])
def test_web_contours_keep_a_legible_gap_on_steep_ground(
    flodden: Any, web_runs: Any, zoom: int
) -> None:
    """On the steep face every level drawn runs together (a tenth of the lines under a pixel
    from the next); the drawn runs stand MIN_GAP_PX apart along three quarters of their
    length and half of it along nine tenths (where 2 m levels bunch in one 25 m cell's edge),
    and every 50th level is drawn wherever it runs."""
    face = _south_face(flodden)
    m_per_px = 40075016.686 * math.cos(math.radians(55.612)) / 2 ** (zoom + 8)

    def clipped(lines: list[tuple[int, Any]]) -> list[tuple[int, Any]]:
        out = [(k, g.intersection(face)) for k, g in lines]
        return [(k, g) for k, g in out if not g.is_empty and g.length > 0]

    every = clipped(_web_lines(web_runs, zoom, thinned=False))
    drawn = clipped(_web_lines(web_runs, zoom, thinned=True))
    gap_every = _gaps(every, 4 * m_per_px, 20 * m_per_px) / m_per_px
    gap_drawn = _gaps(drawn, 4 * m_per_px, 20 * m_per_px) / m_per_px
    assert np.percentile(gap_every, 10) < MIN_GAP_PX / 4  # the problem, measured
    assert np.percentile(gap_drawn, 25) >= MIN_GAP_PX, np.percentile(gap_drawn, [10, 25])
    assert np.percentile(gap_drawn, 10) >= MIN_GAP_PX / 2, np.percentile(gap_drawn, [10, 25])
    tops = {k for k, _ in every if rank(k) == 50}
    assert tops and tops <= {k for k, _ in drawn}


def test_print_index_contours_keep_a_legible_gap(flodden: Any) -> None:
    """The demo's battle area on the A4 index page (143 sheets: 0.145 pt per ground metre):
    every level's line would run 1-2 pt from the next on the steep face; thinned, nearly all
    drawn lines stand MIN_GAP_PT apart, and on a 2mm sheet (2.8 pt/m) nothing is thinned."""
    from maps.layout import PT_PER_MM, prepare_shapes

    face = _south_face(flodden)
    shapes = prepare_shapes(flodden, face.bounds)
    assert shapes.thin is not None
    pt_per_m = 0.145

    def page(k: int, g: Any) -> Any:
        return shapely.affinity.scale(g, pt_per_m, pt_per_m, origin=(0, 0))

    every = [(k, page(k, g)) for k, g in shapes.contours]
    drawn = [(k, shapes.thin(k - shapes.lo, g, pt_per_m)) for k, g in shapes.contours]
    drawn = [(k, page(k, g)) for k, g in drawn if not g.is_empty]
    gap_every = _gaps(every, 2.0, 10 * MIN_GAP_PT)
    gap_drawn = _gaps(drawn, 2.0, 10 * MIN_GAP_PT)
    assert np.percentile(gap_every, 10) < MIN_GAP_PT / 4, np.percentile(gap_every, 10)
    assert np.percentile(gap_drawn, 25) >= MIN_GAP_PT, np.percentile(gap_drawn, [10, 25])
    assert np.percentile(gap_drawn, 10) >= MIN_GAP_PT / 2, np.percentile(gap_drawn, [10, 25])
    sheet = 1.0 * PT_PER_MM  # 2mm: a metre of ground is a millimetre of table
    for k, g in shapes.contours:
        assert shapes.thin(k - shapes.lo, g, sheet).length == pytest.approx(g.length)
