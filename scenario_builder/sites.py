"""Shipped battlefield registry: ``data/battlefields/<slug>/site.json``.

>>> site = get_site("gettysburg")
>>> site.battle, site.year, site.dem.name
('Battle of Gettysburg', 1863, 'dem.tif')
>>> [s.slug for s in list_sites()][:2]
['barnet', 'beth_horon']
>>> get_site("north_bayreuth_pair").landcover_paths()[0].name
'landcover_osm.geojson'
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scenario_builder.errors import DataSourceError, ScenarioFileError
from scenario_builder.paths import data_dir
from scenario_builder.suggest import did_you_mean

# site.json "files" keys that hold land cover (rasters or vectors), in the order they are applied.
_LANDCOVER_KEYS = ("landcover_raster", "landcover", "landcover_polygons", "linear_features")


def sites_dir() -> Path:
    return data_dir() / "battlefields"


@dataclass(frozen=True)
class Site:
    """One shipped battlefield: its folder and what ``site.json`` says about it."""

    slug: str
    folder: Path
    battle: str | None
    year: int | None
    center_lon: float
    center_lat: float
    files: dict[str, str] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def dem(self) -> Path:
        return self.folder / self.files.get("dem", "dem.tif")

    def landcover_paths(self) -> list[Path]:
        """Land-cover inputs shipped with the site (rasters or vector files)."""
        return [self.folder / self.files[k] for k in _LANDCOVER_KEYS if k in self.files]

    def overlay_paths(self) -> list[Path]:
        """Historical overlays: ``overlay.geojson`` (and any ``overlay*.geojson``/``.gpkg``)."""
        found = sorted(self.folder.glob("overlay*.geojson")) + sorted(
            self.folder.glob("overlay*.gpkg")
        )
        return [p for p in found if p.is_file()]

    def level_options(self) -> dict[str, float]:
        """``site.json`` ``levels``: this battlefield's height step and smoothing (6.2), metres."""
        raw = self.info.get("levels") or {}
        path = self.folder / "site.json"
        if not isinstance(raw, dict):
            raise ScenarioFileError(path, f"expected 'levels' to be an object, got {raw!r}")
        out: dict[str, float] = {}
        for key, value in raw.items():
            if key not in ("step_m", "smooth_m"):
                raise ScenarioFileError(
                    path, f"expected 'levels' keys step_m or smooth_m, got {key!r}"
                )
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or value < 0
                or (key == "step_m" and value == 0)
            ):
                raise ScenarioFileError(
                    path, f"expected 'levels.{key}' to be a positive number (metres), got {value!r}"
                )
            out[key] = float(value)
        return out

    def significant_streams(self) -> list[str]:
        """``site.json`` ``significant_streams``: OSM stream names that are wet (7.2)."""
        raw = self.info.get("significant_streams") or []
        if not isinstance(raw, list) or not all(isinstance(n, str) for n in raw):
            raise ScenarioFileError(
                self.folder / "site.json",
                f"expected 'significant_streams' to be a list of stream names, got {raw!r}",
            )
        return list(raw)

    def __str__(self) -> str:
        return self.slug


def _load(folder: Path) -> Site:
    path = folder / "site.json"
    try:
        info = json.loads(path.read_text(encoding="utf-8"))
        return Site(
            slug=info.get("slug", folder.name),
            folder=folder,
            battle=info.get("battle"),
            year=info.get("year"),
            center_lon=float(info["center_lon"]),
            center_lat=float(info["center_lat"]),
            files=dict(info.get("files", {})),
            info=info,
        )
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ScenarioFileError(path, f"expected a valid site.json, got {exc}") from exc


def list_sites() -> list[Site]:
    """All shipped sites, sorted by slug."""
    root = sites_dir()
    return [_load(d) for d in sorted(root.iterdir()) if (d / "site.json").is_file()]


def get_site(slug: str) -> Site:
    """A shipped site by slug (DataSourceError naming the known slugs if absent)."""
    folder = sites_dir() / slug
    if not (folder / "site.json").is_file():
        slugs = [s.slug for s in list_sites()]
        hint = did_you_mean(slug, slugs) or f"expected one of {', '.join(slugs)}"
        raise DataSourceError(
            slug,
            f"expected a shipped site, got an unknown slug; {hint} (see `scenario-builder sites`)",
        )
    return _load(folder)
