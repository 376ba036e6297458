"""3D-printable terrain: the print window as watertight meshes at table scale, one per printer bed.

The window (the whole battlefield or ``--bbox``, cut as :func:`maps.layout.ground_window` cuts the
printed layout's) is split into equal tiles, each no larger than the bed, in whichever of the
bed's two orientations needs fewer. Tiles are labelled like the layout's sheets ("B3": row B from
the north, column 3 from the west).

Each tile is a closed heightfield solid, built from one grid of vertices ``mesh_mm`` apart
(:func:`heightfield_solid`): the top surface, the bottom, and a wall down each edge, so it is
watertight by construction (every edge is shared by exactly two faces); ``trimesh`` checks it
anyway. Heights are table millimetres above the bed: ``base_mm`` under the lowest ground of the
window, then the ground at table scale times ``exaggerate``. The ground is either

* :attr:`Surface.SMOOTH`: the DEM, bilinear between cell centres; or
* :attr:`Surface.TERRACES`: the ruleset's height levels (6.2) as flat steps, each level
  ``step`` m at table scale, from the same smoothed level outlines the layout's tints and the cut
  layers are drawn with (:func:`maps.vectors.level_outlines`), so a printed terrace sits exactly
  where its cut board would.

Neighbouring tiles share their edge row of vertices, so they meet without a seam step. The
tile's label is engraved mirrored into its underside (it reads right way round when the tile is
turned over) and is also in the file name.

The heightmap GeoTIFF is the tiles' top surface for CNC and foam cutters, one pixel per mesh
vertex (``mesh_mm`` of table) in the battlefield's CRS: uint16, 0 at the window's lowest ground
and 65535 at its highest, with the ground metres those stand for in its tags (``z_min_m``,
``z_max_m``, ``m_per_unit``; terraces count from level 0 of the build).
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import trimesh
from affine import Affine

from maps.layout import ground_window, window_levels
from maps.table import Paper, TableScale
from maps.tiling import Sheet
from scenario_builder.battlefield import Battlefield
from scenario_builder.errors import LayoutError

Window = tuple[float, float, float, float]

#: engraving depth under each tile (mm): two layers of a 0.3 mm print, deep enough to read
ENGRAVE_MM = 0.6
#: label glyph height (mm), shrunk on tiles too small for it
LABEL_MM = 20.0
MAX_TILES = 300


class Surface(enum.Enum):
    """What the top of a tile follows."""

    SMOOTH = "smooth"
    TERRACES = "terraces"


@dataclass(frozen=True, slots=True)
class ModelOptions:
    """What the user chose on the command line."""

    scale: TableScale
    bed: Paper
    base_mm: float = 3.0
    exaggerate: float = 1.0
    surface: Surface = Surface.SMOOTH
    mesh_mm: float = 1.0
    bbox: tuple[float, float, float, float] | None = None
    bbox_crs: str | None = None
    max_tiles: int = MAX_TILES

    def check(self) -> None:
        """One-line errors naming the option, before anything is read or written."""
        if not self.base_mm > 0 or not math.isfinite(self.base_mm):
            raise LayoutError("--base", f"expected a thickness above 0 mm, got {self.base_mm:g}")
        if not self.exaggerate > 0 or not math.isfinite(self.exaggerate):
            raise LayoutError("--exaggerate", f"expected a factor above 0, got {self.exaggerate:g}")
        if not 0.1 <= self.mesh_mm <= 50 or not math.isfinite(self.mesh_mm):
            raise LayoutError("--mesh-mm", f"expected 0.1 to 50 mm, got {self.mesh_mm:g}")
        if self.max_tiles < 1:
            raise LayoutError("--max-tiles", f"expected at least 1 tile, got {self.max_tiles}")


def parse_bed(text: str) -> Paper:
    """``WxHmm`` as a printer bed (50 to 5000 mm a side, as a paper).

    >>> str(parse_bed("220x220mm")), parse_bed("256x256mm").width_mm
    ('220x220mm', 256.0)
    """
    import re

    if not re.fullmatch(r"\s*\d+(?:\.\d+)?\s*[xX×]\s*\d+(?:\.\d+)?\s*mm\s*", text):
        raise LayoutError("--bed", f"expected WxHmm (a printer bed, e.g. 220x220mm), got {text!r}")
    try:
        return Paper.from_text(text)
    except LayoutError as exc:
        raise LayoutError("--bed", f"{exc.problem.split(' (')[0]} ({text!r})") from None


@dataclass(frozen=True, slots=True)
class ModelPlan:
    """The ground window, the grid of equal tiles over it and the vertex grid they share."""

    window: Window  # minx, miny, maxx, maxy in bf.crs metres
    scale: TableScale
    bed: Paper  # oriented as the tiles are laid
    cols: int
    rows: int
    cells: tuple[int, int]  # vertex spacings per tile along x, y (the tile's grid is +1)

    @property
    def table_mm(self) -> tuple[float, float]:
        minx, miny, maxx, maxy = self.window
        return (self.scale.mm(maxx - minx), self.scale.mm(maxy - miny))

    @property
    def tile_mm(self) -> tuple[float, float]:
        w, h = self.table_mm
        return (w / self.cols, h / self.rows)

    @property
    def count(self) -> int:
        return self.rows * self.cols

    def tiles(self) -> list[Sheet]:
        """The tiles (row 0 north, column 0 west) with their table windows (mm, y down)."""
        tw, th = self.tile_mm
        return [
            Sheet(r, c, (c * tw, r * th, (c + 1) * tw, (r + 1) * th))
            for r in range(self.rows)
            for c in range(self.cols)
        ]


def plan_model(bf: Battlefield, opts: ModelOptions) -> ModelPlan:
    """Choose the window, the bed orientation with fewer tiles and the vertex grid; check sizes."""
    opts.check()
    window = ground_window(bf, opts.bbox, opts.bbox_crs)
    width = opts.scale.mm(window[2] - window[0])
    height = opts.scale.mm(window[3] - window[1])
    best: ModelPlan | None = None
    for bed in (opts.bed, opts.bed.landscape()):
        cols = max(1, math.ceil(width / bed.width_mm - 1e-9))
        rows = max(1, math.ceil(height / bed.height_mm - 1e-9))
        cells = (
            max(1, math.ceil(width / cols / opts.mesh_mm - 1e-9)),
            max(1, math.ceil(height / rows / opts.mesh_mm - 1e-9)),
        )
        plan = ModelPlan(window, opts.scale, bed, cols, rows, cells)
        if best is None or plan.count < best.count:
            best = plan
    assert best is not None
    if best.count > opts.max_tiles:
        raise LayoutError(
            "--max-tiles",
            f"expected at most {opts.max_tiles} tiles, got {best.count} ({best.rows} x "
            f"{best.cols} of {opts.bed} for a {width / 1000:.2f} x {height / 1000:.2f} m "
            "table); choose a --bbox, a smaller scale or a larger --bed, or raise --max-tiles",
        )
    return best


def _grid_points(plan: ModelPlan) -> tuple[np.ndarray, np.ndarray]:
    """Ground x (west to east) and y (south to north) of the window's vertex columns and rows."""
    minx, miny, maxx, maxy = plan.window
    nx = plan.cols * plan.cells[0] + 1
    ny = plan.rows * plan.cells[1] + 1
    return np.linspace(minx, maxx, nx), np.linspace(miny, maxy, ny)


def ground_heights(bf: Battlefield, plan: ModelPlan, surface: Surface) -> np.ndarray:
    """Ground metres at every vertex of the window, rows south to north: the DEM's elevation
    (bilinear between cell centres) or the terraces' level x step (metres above level 0)."""
    xs, ys = _grid_points(plan)
    if surface is Surface.SMOOTH:
        from scipy.ndimage import map_coordinates

        elev = bf.layer("elevation").astype(np.float64)
        x0, y0 = bf.transform.c, bf.transform.f
        cols = (xs - x0) / bf.res - 0.5  # cell centres carry the DEM's values
        rows = (y0 - ys) / bf.res - 0.5
        rr, cc = np.meshgrid(rows, cols, indexing="ij")
        return np.asarray(map_coordinates(elev, [rr, cc], order=1, mode="nearest"))
    return np.asarray(terrace_levels(bf, plan, xs, ys).astype(np.float64) * bf.step)


def terrace_levels(bf: Battlefield, plan: ModelPlan, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """The height level at every vertex: the highest level whose smoothed outline holds it."""
    import rasterio.features

    from maps.vectors import level_outlines

    lo, _ = window_levels(bf, plan.window)
    dx = xs[1] - xs[0] if len(xs) > 1 else 1.0
    dy = ys[1] - ys[0] if len(ys) > 1 else 1.0
    # pixels centred on the vertices, north row first as rasterio lays them out
    transform = Affine(dx, 0.0, xs[0] - dx / 2, 0.0, -dy, ys[-1] + dy / 2)
    outlines = level_outlines(bf, plan.window)
    shapes = [(g, k) for k, g in sorted(outlines.items()) if k > lo and not g.is_empty]
    if not shapes:
        return np.full((len(ys), len(xs)), lo, dtype=np.int32)
    # nested outlines burnt lowest first: each vertex keeps the highest level holding it
    burnt = rasterio.features.rasterize(
        shapes, out_shape=(len(ys), len(xs)), transform=transform, fill=lo, dtype="int32"
    )
    return np.asarray(burnt[::-1])


def heightfield_solid(top: np.ndarray, bottom: np.ndarray, dx: float, dy: float) -> trimesh.Trimesh:
    """A closed solid over a (rows south to north, columns west to east) vertex grid: the ``top``
    surface, the ``bottom`` surface and four walls between their edges; every ``top`` must stand
    above its ``bottom``. Watertight by construction: each grid edge is shared by two triangles
    of its surface, or by one and a wall; each wall edge by two walls.

    >>> m = heightfield_solid(np.full((3, 4), 2.0), np.zeros((3, 4)), 1.0, 1.0)
    >>> m.is_watertight, m.is_volume, round(float(m.volume), 6)
    (True, True, 12.0)
    """
    ny, nx = top.shape
    xs = np.arange(nx) * dx
    ys = np.arange(ny) * dy
    gx, gy = np.meshgrid(xs, ys)
    n = nx * ny
    verts = np.concatenate(
        [
            np.column_stack([gx.ravel(), gy.ravel(), top.ravel()]),
            np.column_stack([gx.ravel(), gy.ravel(), bottom.ravel()]),
        ]
    )
    idx = np.arange(n).reshape(ny, nx)
    v00, v01 = idx[:-1, :-1].ravel(), idx[:-1, 1:].ravel()
    v10, v11 = idx[1:, :-1].ravel(), idx[1:, 1:].ravel()
    # counter-clockwise seen from above: the top's normals point up, the bottom's (reversed) down
    top_f = np.concatenate([np.column_stack([v00, v01, v11]), np.column_stack([v00, v11, v10])])
    bot_f = top_f[:, ::-1] + n
    # the boundary once round, counter-clockwise from above: south, east, north, west edges
    ring = np.concatenate([idx[0, :-1], idx[:-1, -1], idx[-1, :0:-1], idx[:0:-1, 0]])
    a, b = ring, np.roll(ring, -1)
    # outward walls: the interior is on the left of a counter-clockwise edge
    wall_f = np.concatenate([np.column_stack([a + n, b + n, b]), np.column_stack([a + n, b, a])])
    faces = np.concatenate([top_f, bot_f, wall_f])
    return trimesh.Trimesh(vertices=verts, faces=faces, process=False)


def label_mask(text: str, nx: int, ny: int, dx: float, dy: float) -> np.ndarray:
    """Vertices (rows south to north) under ``text`` drawn mirrored at the tile's centre, as seen
    from below: engraved into the underside it reads right way round when the tile is turned."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.path import Path as MplPath
    from matplotlib.textpath import TextPath

    w, h = (nx - 1) * dx, (ny - 1) * dy
    size = min(LABEL_MM, h / 3, w / (0.8 * max(len(text), 1)))
    path = TextPath(
        (0, 0), text, size=size, prop=FontProperties(family="DejaVu Sans", weight="bold")
    )
    ext = path.get_extents()
    cx, cy = (ext.x0 + ext.x1) / 2, (ext.y0 + ext.y1) / 2
    xs = np.arange(nx) * dx
    ys = np.arange(ny) * dy
    gx, gy = np.meshgrid(xs, ys)
    # mirrored in x: seen from below, east is on the left
    pts = np.column_stack([(w / 2 - gx).ravel() + cx, (gy - h / 2).ravel() + cy])
    mask = np.zeros(nx * ny, dtype=bool)
    for ring in path.to_polygons():
        xy = np.asarray(ring)
        if len(xy) >= 3:
            mask ^= MplPath(xy).contains_points(pts)  # even-odd: a glyph's holes stay open
    return mask.reshape(ny, nx)


@dataclass(frozen=True, slots=True)
class Tile:
    """One printed tile: its label, footprint (mm), volume (mm³) and highest point (mm)."""

    label: str
    row: int
    col: int
    size_mm: tuple[float, float]
    volume_mm3: float
    max_mm: float
    triangles: int


@dataclass(frozen=True, slots=True)
class Model:
    """What :func:`write_model` wrote."""

    plan: ModelPlan
    tiles: tuple[Tile, ...]
    surface: Surface
    exaggerate: float
    base_mm: float

    @property
    def volume_cm3(self) -> float:
        return sum(t.volume_mm3 for t in self.tiles) / 1000.0

    @property
    def max_mm(self) -> float:
        return max(t.max_mm for t in self.tiles)


def tile_meshes(
    bf: Battlefield, plan: ModelPlan, opts: ModelOptions, ground: np.ndarray | None = None
) -> Iterator[tuple[Sheet, trimesh.Trimesh]]:
    """Every tile as a checked watertight solid, its south-west bottom corner at the origin; one
    at a time (a 3 m table is 150 tiles of ~180 k triangles: all at once took 8 GB). ``ground``:
    :func:`ground_heights`, when the caller has it already."""
    if ground is None:
        ground = ground_heights(bf, plan, opts.surface)
    rel = ground - ground.min()  # the window's lowest ground stands on the base
    heights = opts.base_mm + rel * opts.scale.mm_per_m * opts.exaggerate
    tw, th = plan.tile_mm
    cx, cy = plan.cells
    dx, dy = tw / cx, th / cy
    depth = min(ENGRAVE_MM, opts.base_mm / 3)  # never through the base
    for sheet in plan.tiles():
        r0 = (plan.rows - 1 - sheet.row) * cy  # grid rows run south to north, tile rows north down
        c0 = sheet.col * cx
        top = heights[r0 : r0 + cy + 1, c0 : c0 + cx + 1]
        bottom = np.where(label_mask(sheet.label, cx + 1, cy + 1, dx, dy), depth, 0.0)
        mesh = heightfield_solid(top, bottom, dx, dy)
        if not (mesh.is_watertight and mesh.is_volume):  # a bug, not bad input
            raise AssertionError(f"tile {sheet.label} is not a closed solid")
        yield sheet, mesh


def write_model(bf: Battlefield, opts: ModelOptions, directory: Path) -> Model:
    """Write ``tile_<label>.stl`` per tile, ``heightmap.tif`` and ``model.json`` into
    ``directory`` (a folder the caller writes atomically)."""
    import json

    plan = plan_model(bf, opts)
    ground = ground_heights(bf, plan, opts.surface)
    tiles = []
    for sheet, mesh in tile_meshes(bf, plan, opts, ground):
        mesh.export(directory / f"tile_{sheet.label}.stl")
        lo, hi = mesh.bounds
        tiles.append(
            Tile(
                sheet.label,
                sheet.row,
                sheet.col,
                (float(hi[0] - lo[0]), float(hi[1] - lo[1])),
                float(mesh.volume),
                float(hi[2]),
                len(mesh.faces),
            )
        )
    write_heightmap(bf, plan, opts.surface, ground, directory / "heightmap.tif")
    model = Model(plan, tuple(tiles), opts.surface, opts.exaggerate, opts.base_mm)
    index = {
        "scale": str(plan.scale),
        "bed": str(plan.bed),
        "surface": opts.surface.value,
        "exaggerate": opts.exaggerate,
        "base_mm": opts.base_mm,
        "window": list(plan.window),
        "crs": bf.crs.to_string(),
        "tiles": [
            {
                "file": f"tile_{t.label}.stl",
                "label": t.label,
                "row": t.row,
                "col": t.col,
                "size_mm": [round(v, 3) for v in t.size_mm],
                "volume_cm3": round(t.volume_mm3 / 1000, 3),
                "max_height_mm": round(t.max_mm, 3),
                "triangles": t.triangles,
            }
            for t in tiles
        ],
        "volume_cm3": round(model.volume_cm3, 3),
        "max_height_mm": round(model.max_mm, 3),
    }
    (directory / "model.json").write_text(json.dumps(index, indent=1) + "\n", encoding="utf-8")
    return model


def window_cells(bf: Battlefield, window: Window) -> tuple[int, int, int, int]:
    """Row and column bounds (r0, r1, c0, c1) of the battlefield cells the window touches."""
    inv = ~bf.transform
    c0, r0 = (math.floor(v + 1e-9) for v in inv @ (window[0], window[3]))
    c1, r1 = (math.ceil(v - 1e-9) for v in inv @ (window[2], window[1]))
    rows, cols = bf.shape
    return max(r0, 0), min(max(r1, r0 + 1), rows), max(c0, 0), min(max(c1, c0 + 1), cols)


def heightmap_transform(plan: ModelPlan) -> Affine:
    """The heightmap's pixels: one per mesh vertex, centred on it (so the raster reaches half a
    pixel past the window's edges), rows north first."""
    xs, ys = _grid_points(plan)
    dx, dy = xs[1] - xs[0], ys[1] - ys[0]
    return Affine(float(dx), 0.0, float(xs[0] - dx / 2), 0.0, float(-dy), float(ys[-1] + dy / 2))


def write_heightmap(
    bf: Battlefield, plan: ModelPlan, surface: Surface, ground: np.ndarray, path: Path
) -> None:
    """The tiles' top surface (``ground``: :func:`ground_heights`, no base or exaggeration) on
    the mesh's grid as a uint16 GeoTIFF in the battlefield's CRS (module docstring): the ground
    a cutter carves is the ground the printer prints."""
    import rasterio

    z = ground[::-1]  # rasters run north to south
    zmin, zmax = float(z.min()), float(z.max())
    span = zmax - zmin
    units = np.zeros(z.shape) if span == 0 else np.rint((z - zmin) / span * 65535)
    profile: dict[str, Any] = {
        "driver": "GTiff",
        "width": z.shape[1],
        "height": z.shape[0],
        "count": 1,
        "dtype": "uint16",
        "crs": bf.crs,
        "transform": heightmap_transform(plan),
        "compress": "deflate",
        "predictor": 2,
        "tiled": True,
    }
    with rasterio.open(path, "w", **profile) as dst:
        dst.write(units.astype(np.uint16), 1)
        dst.update_tags(
            z_min_m=f"{zmin:.6f}",
            z_max_m=f"{zmax:.6f}",
            m_per_unit=f"{span / 65535:.9g}",
            surface=surface.value,
        )
