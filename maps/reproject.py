"""Getting battlefield rasters and coordinates onto a Leaflet map.

Leaflet draws an image overlay as a rectangle in Web Mercator (EPSG:3857), so a raster on the
battlefield's UTM grid is warped to EPSG:3857 first; only then do its pixels register with the
map. Base positions travel to the browser in battlefield metres and are turned into longitude and
latitude there by a cubic polynomial fitted here (:class:`LonLatFit`), accurate to centimetres
over a battlefield, so the JSON stays small and the bases keep their true size and shape.

>>> import pyproj
>>> fit = LonLatFit.fit(pyproj.CRS("EPSG:32630"), (500000, 6160000, 515000, 6170000))
>>> fit.max_error_m < 0.05
True
>>> lon, lat = fit(507000.0, 6165000.0)
>>> round(float(lon), 5), round(float(lat), 5)
(-2.88882, 55.63084)
"""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyproj
from rasterio.warp import Resampling, calculate_default_transform, reproject

WEB_MERCATOR = "EPSG:3857"


def _terms(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Monomials u^i v^j with i + j <= 3, in the order playback.js evaluates them."""
    return np.stack([u**i * v**j for i in range(4) for j in range(4 - i)], axis=-1)


@dataclass(frozen=True)
class LonLatFit:
    """A cubic polynomial from battlefield metres to WGS84 lon/lat around ``centre``."""

    centre: tuple[float, float]
    scale: float
    lon: tuple[float, ...]
    lat: tuple[float, ...]
    max_error_m: float

    @classmethod
    def fit(cls, crs: pyproj.CRS, bounds: tuple[float, float, float, float]) -> LonLatFit:
        minx, miny, maxx, maxy = bounds
        pad = 0.5 * max(maxx - minx, maxy - miny)  # bases may stray off the grid while routing
        cx, cy = (minx + maxx) / 2, (miny + maxy) / 2
        scale = max(maxx - minx, maxy - miny) / 2 + pad
        mx, my = np.meshgrid(
            np.linspace(minx - pad, maxx + pad, 17), np.linspace(miny - pad, maxy + pad, 17)
        )
        gx, gy = mx.ravel(), my.ravel()
        to_geo = pyproj.Transformer.from_crs(crs, "EPSG:4326", always_xy=True)
        lon, lat = to_geo.transform(gx, gy)
        a = _terms((gx - cx) / scale, (gy - cy) / scale)
        clon = np.linalg.lstsq(a, lon, rcond=None)[0]
        clat = np.linalg.lstsq(a, lat, rcond=None)[0]
        # error in metres, measured on a denser grid than the fit used
        mx, my = np.meshgrid(
            np.linspace(minx - pad, maxx + pad, 41), np.linspace(miny - pad, maxy + pad, 41)
        )
        tx, ty = mx.ravel(), my.ravel()
        t = _terms((tx - cx) / scale, (ty - cy) / scale)
        to_map = pyproj.Transformer.from_crs("EPSG:4326", crs, always_xy=True)
        bx, by = to_map.transform(t @ clon, t @ clat)
        err = float(np.max(np.hypot(bx - tx, by - ty)))
        return cls((cx, cy), scale, tuple(clon.tolist()), tuple(clat.tolist()), err)

    def __call__(self, x: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
        t = _terms(
            (np.asarray(x, float) - self.centre[0]) / self.scale,
            (np.asarray(y, float) - self.centre[1]) / self.scale,
        )
        return t @ np.asarray(self.lon), t @ np.asarray(self.lat)

    def to_json(self) -> dict[str, Any]:
        return {
            "cx": self.centre[0],
            "cy": self.centre[1],
            "s": self.scale,
            "lon": [float(f"{c:.12g}") for c in self.lon],
            "lat": [float(f"{c:.12g}") for c in self.lat],
        }


@dataclass(frozen=True)
class WarpedImage:
    """A raster warped to Web Mercator: pixel array and its ``[[south, west], [north, east]]``."""

    array: np.ndarray
    latlon_bounds: list[list[float]]


def warp_to_web_mercator(
    array: np.ndarray,
    transform: Any,
    crs: pyproj.CRS,
    *,
    categorical: bool,
    nodata: float | None = None,
    max_pixels: int = 4_000_000,
) -> WarpedImage:
    """Warp one band to EPSG:3857 (nearest for classes, bilinear for continuous values)."""
    rows, cols = array.shape
    minx, maxy = transform.c, transform.f
    maxx, miny = minx + cols * transform.a, maxy + rows * transform.e
    dst_transform, w, h = calculate_default_transform(
        crs, WEB_MERCATOR, cols, rows, minx, miny, maxx, maxy
    )
    if w * h > max_pixels:  # a country-sized raster would make a huge page: coarsen
        f = (w * h / max_pixels) ** 0.5
        dst_transform, w, h = calculate_default_transform(
            crs,
            WEB_MERCATOR,
            cols,
            rows,
            minx,
            miny,
            maxx,
            maxy,
            dst_width=int(w / f),
            dst_height=int(h / f),
        )
    src = np.asarray(array, dtype=np.float32)
    fill = np.nan if nodata is None else nodata
    dst = np.full((h, w), fill, dtype=np.float32)
    reproject(
        src,
        dst,
        src_transform=transform,
        src_crs=crs,
        dst_transform=dst_transform,
        dst_crs=WEB_MERCATOR,
        resampling=Resampling.nearest if categorical else Resampling.bilinear,
        src_nodata=nodata,
        dst_nodata=fill,
    )
    west, north = dst_transform.c, dst_transform.f
    east, south = west + w * dst_transform.a, north + h * dst_transform.e
    to_geo = pyproj.Transformer.from_crs(WEB_MERCATOR, "EPSG:4326", always_xy=True)
    (lon0, lon1), (lat0, lat1) = to_geo.transform([west, east], [south, north])
    return WarpedImage(dst, [[lat0, lon0], [lat1, lon1]])


def png_data_uri(rgba: np.ndarray) -> str:
    """An (h, w, 4) uint8 array as a ``data:image/png;base64`` URI (so pages need no files)."""
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(rgba, dtype=np.uint8), "RGBA").save(
        buf, format="PNG", optimize=True
    )
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def classes_to_rgba(codes: np.ndarray, colours: dict[int, str]) -> np.ndarray:
    """Paint class codes (NaN = outside) with a colour table; unknown codes are transparent."""
    from maps.colours import hex_to_rgba

    # Sized to the codes, not 256: a steep SRTM site (Chacabuco) has over 500 height levels.
    valid = np.isfinite(codes)
    top = int(np.nanmax(codes)) if valid.any() else 0
    size = max(top, *colours, 0) + 1 if colours else top + 1
    lut = np.zeros((size, 4), dtype=np.uint8)
    for code, colour in colours.items():
        if code >= 0:
            lut[code] = hex_to_rgba(colour)
    idx = np.where(valid, codes, 0).astype(np.int64).clip(0, size - 1)
    out = lut[idx]
    out[~valid] = 0
    return out


def hillshade(
    elevation: np.ndarray, res: float, azimuth: float = 315.0, altitude: float = 45.0
) -> np.ndarray:
    """Shaded relief 0..1 (Horn's slope, light from the north-west), NaN where elevation is NaN.

    >>> z = np.tile(np.arange(5, dtype=float) * 10, (5, 1))   # rising to the east: faces west
    >>> float(hillshade(z, 10.0)[2, 2]) > float(hillshade(-z, 10.0)[2, 2])  # faces the light
    True
    """
    z = np.pad(np.asarray(elevation, float), 1, mode="edge")
    dzdx = (
        (z[:-2, 2:] + 2 * z[1:-1, 2:] + z[2:, 2:]) - (z[:-2, :-2] + 2 * z[1:-1, :-2] + z[2:, :-2])
    ) / (8 * res)
    dzdy = (
        (z[2:, :-2] + 2 * z[2:, 1:-1] + z[2:, 2:]) - (z[:-2, :-2] + 2 * z[:-2, 1:-1] + z[:-2, 2:])
    ) / (8 * res)
    slope = np.arctan(np.hypot(dzdx, dzdy))
    aspect = np.arctan2(dzdy, -dzdx)
    az = np.radians(360.0 - azimuth + 90.0)
    alt = np.radians(altitude)
    shade = np.sin(alt) * np.cos(slope) + np.cos(alt) * np.sin(slope) * np.cos(az - aspect)
    return np.clip(shade, 0.0, 1.0)
