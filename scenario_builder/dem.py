"""Read and validate a DEM, fill its voids, and reproject it onto a local UTM grid in metres.

Any GeoTIFF (or other GDAL raster) in any CRS is accepted. The target grid is north-up in the
UTM zone of the area's centre, with square cells chosen from the source's ground resolution
(rounded to a tidy value, at most ``MAX_DEFAULT_RES``) unless the caller sets one.

>>> from scenario_builder.sites import get_site
>>> src = read_dem(get_site("minden").dem)
>>> src.voids, src.sea_cells          # SRTM voids inland: filled from their neighbours
(3, 0)
>>> halidon = read_dem(get_site("halidon_hill").dem)
>>> halidon.voids, halidon.sea_cells  # the North Sea corner OS Terrain 50 has no tile for
(156, 156)
>>> grid = target_grid(src)
>>> grid.crs.to_epsg(), grid.res     # SRTM's ~57 m, capped at MAX_DEFAULT_RES
(32632, 25.0)
>>> target_grid(src, resolution=55).res
55.0
>>> utm_crs(-77.236, 39.809).to_epsg(), utm_crs(-70.7, -32.95).to_epsg()
(32618, 32719)
>>> nice_resolution(7.34), nice_resolution(56.7), nice_resolution(0.3)
(7.5, 55.0, 1.0)
"""

from __future__ import annotations

import math
import os
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import rasterio
import rasterio.errors
import rasterio.fill
import rasterio.warp
import rasterio.windows
from affine import Affine
from pyproj import CRS, Transformer
from scipy import ndimage

from scenario_builder.coords import Extent
from scenario_builder.errors import CRSError, DataSourceError, NoOverlapError

BBox = tuple[float, float, float, float]  # west, south, east, north (WGS84 degrees unless a
# bbox_crs says otherwise: the user may give map metres, scenario_builder.coords)

# A base is 40 x 20 m (2 mm at 1:900): cells much coarser than half a frontage would make the
# footprint fractions of 7.1 and the 25 m wood-edge rule of 6.2 meaningless, so a coarse DEM is
# interpolated onto cells of at most this size unless the user asks otherwise.
MAX_DEFAULT_RES = 25.0

# A void is sea (7.2 impractical water), not ground to interpolate, when it reaches the edge of
# the data (the sea goes on beyond it) and the valid cells around it lie at sea level. National
# DTMs leave the sea out (OS Terrain 50 has no tile for open sea; SRTM voids water); their
# coastal cells sit near mean sea level, about -2 m at low water to +2 m at high water (Ordnance
# Datum Newlyn is mean sea level at Newlyn; spring tides on the North Sea coast run about +-2 m).
# A void in hills has a rim far above this, and an inland void does not touch the edge.
SEA_RIM_MAX_M = 2.0


@dataclass(frozen=True)
class Grid:
    """A north-up grid of square cells in a projected CRS (metres)."""

    crs: CRS
    transform: Affine
    width: int
    height: int

    @property
    def res(self) -> float:
        return float(self.transform.a)

    @property
    def shape(self) -> tuple[int, int]:
        return (self.height, self.width)

    @property
    def bounds(self) -> tuple[float, float, float, float]:
        left, top = self.transform.c, self.transform.f
        return (left, top - self.height * self.res, left + self.width * self.res, top)


@dataclass(frozen=True)
class SourceDEM:
    """The DEM as read: data (voids filled) on its own grid, with what was found on the way."""

    path: Path
    data: np.ndarray  # float32, voids filled
    transform: Affine
    crs: CRS
    voids: int  # nodata cells filled
    ground_res: float  # metres per source cell on the ground (the finer axis)
    sea: np.ndarray | None = None  # bool, True where a void is sea (see SEA_RIM_MAX_M)

    @property
    def sea_cells(self) -> int:
        return 0 if self.sea is None else int(self.sea.sum())

    @property
    def bounds(self) -> tuple[float, float, float, float]:
        h, w = self.data.shape
        return rasterio.transform.array_bounds(h, w, self.transform)[:4]

    def lonlat_bounds(self) -> BBox:
        return rasterio.warp.transform_bounds(self.crs, "EPSG:4326", *self.bounds, densify_pts=21)


def utm_crs(lon: float, lat: float) -> CRS:
    """The WGS84 UTM zone CRS containing (lon, lat): EPSG:326zz north, 327zz south."""
    zone = min(60, math.floor((lon + 180.0) / 6.0) + 1)
    return CRS.from_epsg((32600 if lat >= 0 else 32700) + zone)


def nice_resolution(metres: float) -> float:
    """Round a ground spacing to a tidy cell size (0.5 m below 10 m, 1 m below 30 m, else 5 m)."""
    if metres < 10:
        step = 0.5
    elif metres < 30:
        step = 1.0
    else:
        step = 5.0
    return max(1.0, round(metres / step) * step)


def _ground_res(transform: Affine, crs: CRS, shape: tuple[int, int]) -> float:
    """Metres on the ground between neighbouring source cells at the centre (finer axis)."""
    h, w = shape
    r, c = h / 2.0, w / 2.0
    pts = [transform @ (c, r), transform @ (c + 1, r), transform @ (c, r + 1)]
    lon, lat = Transformer.from_crs(crs, "EPSG:4326", always_xy=True).transform(
        [p[0] for p in pts], [p[1] for p in pts]
    )
    local = utm_crs(lon[0], lat[0])
    x, y = Transformer.from_crs("EPSG:4326", local, always_xy=True).transform(lon, lat)
    dx = math.hypot(x[1] - x[0], y[1] - y[0])
    dy = math.hypot(x[2] - x[0], y[2] - y[0])
    return min(dx, dy)


def _open_checked(path: Path) -> rasterio.DatasetReader:
    if not path.exists():
        raise DataSourceError(path, "file not found")
    if path.is_dir():
        raise DataSourceError(path, "expected a raster file, got a directory")
    if path.stat().st_size == 0:
        raise DataSourceError(path, "expected a raster, got an empty file (0 bytes)")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", rasterio.errors.NotGeoreferencedWarning)
            return rasterio.open(path)
    except rasterio.errors.RasterioIOError as exc:
        raise DataSourceError(
            path, f"expected a raster (GeoTIFF), got unreadable or corrupt data ({_short(exc)})"
        ) from exc


def _short(exc: BaseException) -> str:
    return str(exc).splitlines()[0][:160] if str(exc) else type(exc).__name__


def read_dem(
    path: str | os.PathLike[str], bbox: BBox | None = None, bbox_crs: str | None = None
) -> SourceDEM:
    """Read a DEM (band 1), cut to ``bbox`` (W,S,E,N in ``bbox_crs``, default WGS84 degrees) if
    given, voids filled.

    Raises DataSourceError (missing, empty, corrupt, not a raster), CRSError (no CRS) or
    NoOverlapError (bbox outside the data, window all nodata).
    """
    path = Path(path)
    with _open_checked(path) as src:
        if src.crs is None:
            raise CRSError(path, "expected a coordinate reference system, got none")
        if src.count < 1:
            raise DataSourceError(path, "expected at least one band, got 0")
        crs = CRS.from_user_input(src.crs)
        window = rasterio.windows.Window(0, 0, src.width, src.height)
        if bbox is not None:
            window = _bbox_window(path, src, crs, bbox, bbox_crs or "EPSG:4326")
        try:
            masked = src.read(1, window=window, masked=True, out_dtype="float32")
        except (rasterio.errors.RasterioIOError, rasterio.errors.RasterioError) as exc:
            raise DataSourceError(
                path, f"expected readable raster data, got a corrupt file ({_short(exc)})"
            ) from exc
        transform = src.window_transform(window)
    valid = ~np.ma.getmaskarray(masked) & np.isfinite(masked.filled(np.nan))
    if not valid.any():
        where = "in the bbox window" if bbox is not None else "in the file"
        raise NoOverlapError(path, f"expected elevation values, got only nodata {where}")
    data = masked.filled(np.nan).astype(np.float32)
    voids = int((~valid).sum())
    sea = sea_voids(data, valid) if voids else None
    if voids:
        # Inverse-distance fill from the void's rim; searching the whole window guarantees no
        # hole survives (a masked cell would break slope and levels later).
        data = rasterio.fill.fillnodata(
            np.where(valid, data, 0).astype(np.float32),
            mask=valid.astype(np.uint8),
            max_search_distance=float(max(data.shape)) * 1.5,
            smoothing_iterations=0,
        )
    return SourceDEM(
        path=path,
        data=data.astype(np.float32),
        transform=transform,
        crs=crs,
        voids=voids,
        ground_res=_ground_res(transform, crs, data.shape),
        sea=sea if sea is not None and sea.any() else None,
    )


def dem_extent(path: str | os.PathLike[str]) -> Extent:
    """Where a DEM lies, before it is read: lon/lat, and metres on the local UTM grid a build
    makes of it (:func:`target_grid`), for reading a user's ``--bbox`` in either."""
    path = Path(path)
    with _open_checked(path) as src:
        if src.crs is None:
            raise CRSError(path, "expected a coordinate reference system, got none")
        crs = CRS.from_user_input(src.crs)
        bounds = tuple(src.bounds)
    lonlat = rasterio.warp.transform_bounds(crs, "EPSG:4326", *bounds, densify_pts=21)
    utm = utm_crs((lonlat[0] + lonlat[2]) / 2.0, (lonlat[1] + lonlat[3]) / 2.0)
    x0, y0, x1, y1 = _inner_rect(crs, bounds, utm)
    return Extent(utm, (x0, y0, x1, y1), tuple(lonlat))


def sea_voids(data: np.ndarray, valid: np.ndarray, rim_max_m: float = SEA_RIM_MAX_M) -> np.ndarray:
    """The void cells that are sea: each 8-connected void region touching the data's edge whose
    rim (the valid cells next to it) has a median height at or below ``rim_max_m``.

    >>> import numpy as np
    >>> z = np.array([[5, 1, 0], [6, 1, 0], [7, 1, 1]], dtype=np.float32)
    >>> ok = np.array([[1, 1, 0], [1, 1, 0], [1, 1, 1]], dtype=bool)
    >>> sea_voids(z, ok).astype(int).tolist()       # the right-hand void: at the edge, rim ~1 m
    [[0, 0, 1], [0, 0, 1], [0, 0, 0]]
    >>> sea_voids(z + 50, ok).any()                  # the same void in hills: a hole to fill
    np.False_
    """
    voids = ~valid
    labels, n = ndimage.label(voids, structure=np.ones((3, 3), dtype=bool))
    sea = np.zeros(voids.shape, dtype=bool)
    if n == 0:
        return sea
    edge = np.zeros(voids.shape, dtype=bool)
    edge[0, :] = edge[-1, :] = edge[:, 0] = edge[:, -1] = True
    for k, region in enumerate(ndimage.find_objects(labels), start=1):
        # grow the bounding box by one cell to see the rim
        sl = tuple(slice(max(0, r.start - 1), r.stop + 1) for r in region)
        here = labels[sl] == k
        if not (here & edge[sl]).any():
            continue
        rim = ndimage.binary_dilation(here, structure=np.ones((3, 3), dtype=bool)) & valid[sl]
        if rim.any() and float(np.median(data[sl][rim])) <= rim_max_m:
            sea[sl] |= here
    return sea


def _bbox_window(
    path: Path, src: rasterio.DatasetReader, crs: CRS, bbox: BBox, bbox_crs: str
) -> rasterio.windows.Window:
    left, bottom, right, top = rasterio.warp.transform_bounds(bbox_crs, crs, *bbox, densify_pts=21)
    sb = src.bounds
    il, ib, ir, it = (
        max(left, sb.left),
        max(bottom, sb.bottom),
        min(right, sb.right),
        min(top, sb.top),
    )
    if il >= ir or ib >= it:
        # the data's extent in the coordinates the user wrote the bbox in
        have_box = rasterio.warp.transform_bounds(crs, bbox_crs, *sb, densify_pts=21)
        digits = 4 if CRS.from_user_input(bbox_crs).is_geographic else 0
        have = ",".join(f"{v:.{digits}f}" for v in have_box)
        raise NoOverlapError(path, f"bbox {','.join(map(str, bbox))} is outside the data ({have})")
    win = rasterio.windows.from_bounds(il, ib, ir, it, transform=src.transform)
    win = win.round_offsets(op="floor").round_lengths(op="ceil")
    try:
        win = win.intersection(rasterio.windows.Window(0, 0, src.width, src.height))
    except rasterio.errors.WindowError:  # a bbox thinner than one cell rounds to nothing
        win = rasterio.windows.Window(0, 0, 0, 0)
    if win.width < 2 or win.height < 2:
        unit = "degrees" if crs.is_geographic else "m"
        raise NoOverlapError(
            path,
            f"bbox {','.join(map(str, bbox))} covers fewer than 2x2 cells of the DEM "
            f"({src.res[0]:g} x {src.res[1]:g} {unit} each)",
        )
    return win


def _inner_rect(
    src_crs: CRS, bounds: tuple[float, float, float, float], dst: CRS
) -> tuple[float, ...]:
    """The largest axis-aligned rectangle in ``dst`` inside the (densified) source rectangle."""
    left, bottom, right, top = bounds
    n = 32
    t = np.linspace(0.0, 1.0, n)
    tr = Transformer.from_crs(src_crs, dst, always_xy=True)
    lx, _ = tr.transform(np.full(n, left), bottom + t * (top - bottom))
    rx, _ = tr.transform(np.full(n, right), bottom + t * (top - bottom))
    _, by = tr.transform(left + t * (right - left), np.full(n, bottom))
    _, ty = tr.transform(left + t * (right - left), np.full(n, top))
    return (float(np.max(lx)), float(np.max(by)), float(np.min(rx)), float(np.min(ty)))


def target_grid(
    src: SourceDEM,
    *,
    resolution: float | None = None,
    bbox: BBox | None = None,
    bbox_crs: str | None = None,
) -> Grid:
    """The local UTM grid covering the DEM (and the bbox, W,S,E,N in ``bbox_crs``, default WGS84
    degrees, if given) with square cells."""
    return _grid(
        src.path,
        src.crs,
        src.bounds,
        src.ground_res,
        resolution=resolution,
        bbox=bbox,
        bbox_crs=bbox_crs,
    )


def planned_grid(
    path: str | os.PathLike[str],
    *,
    resolution: float | None = None,
    bbox: BBox | None = None,
    bbox_crs: str | None = None,
) -> Grid:
    """The grid :func:`target_grid` will make of ``read_dem(path, bbox, bbox_crs)``, from the
    DEM's header alone: no cell is read, so a build can be sized (and refused) before it
    allocates anything.

    >>> from scenario_builder.sites import get_site
    >>> dem = get_site("minden").dem
    >>> planned_grid(dem, resolution=55) == target_grid(read_dem(dem), resolution=55)
    True
    """
    path = Path(path)
    with _open_checked(path) as src:
        if src.crs is None:
            raise CRSError(path, "expected a coordinate reference system, got none")
        crs = CRS.from_user_input(src.crs)
        window = rasterio.windows.Window(0, 0, src.width, src.height)
        if bbox is not None:
            window = _bbox_window(path, src, crs, bbox, bbox_crs or "EPSG:4326")
        transform = src.window_transform(window)
    shape = (int(window.height), int(window.width))
    bounds = rasterio.transform.array_bounds(shape[0], shape[1], transform)[:4]
    return _grid(
        path,
        crs,
        bounds,
        _ground_res(transform, crs, shape),
        resolution=resolution,
        bbox=bbox,
        bbox_crs=bbox_crs,
    )


# A transverse Mercator grid is true to a part in a thousand within about 3 degrees of its
# central meridian; an area wider than this cannot be laid on one UTM grid without its edges
# (and the arithmetic of the inner rectangle) going wrong.
MAX_SPAN_DEG = 6.0


def _grid(
    path: Path,
    src_crs: CRS,
    src_bounds: tuple[float, float, float, float],
    ground_res: float,
    *,
    resolution: float | None,
    bbox: BBox | None,
    bbox_crs: str | None,
) -> Grid:
    w, s, e, n = rasterio.warp.transform_bounds(src_crs, "EPSG:4326", *src_bounds, densify_pts=21)
    box_crs = CRS.from_user_input(bbox_crs or "EPSG:4326")
    if bbox is not None:
        # Only the part of the bbox on the DEM is built (read_dem cuts the same window): a box
        # far larger than the DEM (a whole-world one) would otherwise project to nonsense.
        have = rasterio.warp.transform_bounds(src_crs, box_crs, *src_bounds, densify_pts=21)
        bbox = (
            max(bbox[0], have[0]),
            max(bbox[1], have[1]),
            min(bbox[2], have[2]),
            min(bbox[3], have[3]),
        )
        lon_box = (
            bbox
            if box_crs.is_geographic
            else rasterio.warp.transform_bounds(box_crs, "EPSG:4326", *bbox, densify_pts=21)
        )
        w, s = max(w, lon_box[0]), max(s, lon_box[1])
        e, n = min(e, lon_box[2]), min(n, lon_box[3])
    if e - w > MAX_SPAN_DEG or n - s > MAX_SPAN_DEG:
        raise NoOverlapError(
            path,
            f"expected an area at most {MAX_SPAN_DEG:g} degrees across (one UTM grid), got "
            f"{e - w:.1f} x {n - s:.1f} degrees ({w:.2f},{s:.2f},{e:.2f},{n:.2f}); give a --bbox",
        )
    crs = utm_crs((w + e) / 2.0, (s + n) / 2.0)
    res = float(resolution) if resolution else min(MAX_DEFAULT_RES, nice_resolution(ground_res))
    if not res > 0:
        raise ValueError(f"expected a positive resolution, got {resolution}")
    x0, y0, x1, y1 = _inner_rect(src_crs, src_bounds, crs)
    if bbox is not None:
        bx0, by0, bx1, by1 = _inner_rect(box_crs, bbox, crs)
        x0, y0, x1, y1 = max(x0, bx0), max(y0, by0), min(x1, bx1), min(y1, by1)
    # Snap inward to whole cells so every cell lies on real data.
    left, top = math.ceil(x0 / res) * res, math.floor(y1 / res) * res
    width, height = int((x1 - left) // res), int((top - y0) // res)
    if width < 2 or height < 2:
        across = f"{(x1 - x0) / 1000:.3g} x {(y1 - y0) / 1000:.3g} km"
        coarsest = min(x1 - x0, y1 - y0) / 3.0  # 3 cells a side leave 2 after snapping inward
        raise NoOverlapError(
            path,
            f"expected at least 2x2 cells, got {max(width, 0)}x{max(height, 0)}: the area "
            f"built is {across}, too small for {res:g} m cells (at most {coarsest:.0f} m fit)",
        )
    return Grid(crs, Affine(res, 0.0, left, 0.0, -res, top), width, height)


def reproject_dem(src: SourceDEM, grid: Grid) -> np.ndarray:
    """Elevation on ``grid`` (bilinear), float32 metres; edge cells without data are filled."""
    out = np.full(grid.shape, np.nan, dtype=np.float32)
    # read_dem fills every void, so the source has no nodata: GDAL then takes its warp kernel
    # without validity masks (about twice as fast; the same values), and the cells it cannot
    # reach keep the NaN they start with (init_dest_nodata=False) instead of a nodata it writes
    clean = not np.isnan(src.data).any()
    rasterio.warp.reproject(
        source=src.data,
        destination=out,
        src_transform=src.transform,
        src_crs=src.crs,
        src_nodata=None if clean else np.nan,
        dst_transform=grid.transform,
        dst_crs=grid.crs,
        dst_nodata=None if clean else np.nan,
        init_dest_nodata=not clean,
        resampling=rasterio.warp.Resampling.bilinear,
    )
    missing = ~np.isfinite(out)
    if missing.all():
        raise NoOverlapError(src.path, "expected the DEM to cover the target grid, got no cells")
    if missing.any():  # a rim of half a source cell where bilinear has no neighbour
        out = rasterio.fill.fillnodata(
            np.where(missing, 0, out).astype(np.float32),
            mask=(~missing).astype(np.uint8),
            max_search_distance=float(max(grid.shape)),
            smoothing_iterations=0,
        )
    return out.astype(np.float32)


def reproject_sea(src: SourceDEM, grid: Grid) -> np.ndarray | None:
    """The sea mask of :func:`sea_voids` on ``grid``: cells at least half sea (None if no sea)."""
    if src.sea is None:
        return None
    share = np.zeros(grid.shape, dtype=np.float32)
    rasterio.warp.reproject(
        source=src.sea.astype(np.float32),
        destination=share,
        src_transform=src.transform,
        src_crs=src.crs,
        dst_transform=grid.transform,
        dst_crs=grid.crs,
        resampling=rasterio.warp.Resampling.bilinear,
    )
    return share >= 0.5
