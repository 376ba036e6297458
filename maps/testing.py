"""Fixtures for rendering tests and benchmarks: real ground, synthetic armies.

:func:`dem_battlefield` makes a :class:`Battlefield` straight from a shipped real DEM (warped to
local UTM, levels by plain quantising, woods/water/buildings from the shipped OpenStreetMap
polygons where a site has them). It exists so the maps can be tested without the full build
pipeline; ``scenario-builder build`` makes the real thing.

:func:`synthetic_battle_log` writes a ``battle_log.json`` in the documented format with bases
placed on that real ground and moved by a simple script. It is a fixture for drawing, **not a
battle result**: no rule of the engine produced it.
"""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import Any

import numpy as np
import pyproj
import rasterio
from rasterio.warp import Resampling, reproject

from scenario_builder.battlefield import Battlefield
from scenario_builder.paths import data_dir


def _utm_for(lon: float, lat: float) -> pyproj.CRS:
    zone = int((lon + 180) // 6) + 1
    return pyproj.CRS.from_epsg((32600 if lat >= 0 else 32700) + zone)


def dem_battlefield(slug: str, *, step: float = 5.0, res: float | None = None) -> Battlefield:
    """A battlefield from ``data/battlefields/<slug>/dem.tif`` (see the module docstring)."""
    site = data_dir() / "battlefields" / slug
    with rasterio.open(site / "dem.tif") as src:
        lon0, lat0, lon1, lat1 = rasterio.warp.transform_bounds(src.crs, "EPSG:4326", *src.bounds)
        crs = _utm_for((lon0 + lon1) / 2, (lat0 + lat1) / 2)
        # the inner box of the source's four corners: every cell of it has data
        b = src.bounds
        to_utm = pyproj.Transformer.from_crs(src.crs, crs, always_xy=True)
        xs, ys = to_utm.transform(
            [b.left, b.left, b.right, b.right], [b.bottom, b.top, b.bottom, b.top]
        )
        x0, x1 = max(xs[0], xs[1]), min(xs[2], xs[3])
        y0, y1 = max(ys[0], ys[2]), min(ys[1], ys[3])
        native = abs(src.transform.a)
        if src.crs.is_geographic:
            native *= 111_320 * math.cos(math.radians((lat0 + lat1) / 2))
        elif src.crs.to_epsg() == 3857:
            native *= math.cos(math.radians((lat0 + lat1) / 2))
        cell = float(res or round(native, 1))
        w, h = int((x1 - x0) // cell) - 2, int((y1 - y0) // cell) - 2
        transform = rasterio.Affine(cell, 0, x0 + cell, 0, -cell, y1 - cell)
        dem = np.full((h, w), np.nan, dtype=np.float32)
        reproject(
            src.read(1).astype(np.float32),
            dem,
            src_transform=src.transform,
            src_crs=src.crs,
            dst_transform=transform,
            dst_crs=crs,
            resampling=Resampling.bilinear,
            src_nodata=src.nodata,
            dst_nodata=np.nan,
        )
    dem = np.where(np.isfinite(dem), dem, np.nanmean(dem)).astype(np.float32)
    level = np.floor((dem - np.nanmin(dem)) / step).astype(np.int16)
    gy, gx = np.gradient(dem.astype(float), cell)
    slope = np.degrees(np.arctan(np.hypot(gx, gy))).astype(np.float32)
    move = np.zeros(dem.shape, np.uint8)
    cover = np.zeros(dem.shape, np.uint8)
    feature = np.zeros(dem.shape, np.uint8)
    lc = site / "landcover_osm.geojson"
    if lc.is_file():
        import geopandas as gpd
        from rasterio.features import rasterize

        g = gpd.read_file(lc).to_crs(crs)
        kinds = [  # feature code (data/codes/features.csv), move, cover
            ((g["landuse"] == "forest") | (g["natural"] == "wood"), 13, 3, 3),
            (g["natural"] == "wetland", 16, 1, 1),
            (g["building"].notna(), 20, 2, 2),
            (g["natural"] == "water", 26, 4, 0),
        ]
        for mask, code, mv, cv in kinds:
            if mask.any():
                burnt = rasterize(
                    ((geom, 1) for geom in g.geometry[mask]),
                    out_shape=dem.shape,
                    transform=transform,
                    fill=0,
                    dtype="uint8",
                ).astype(bool)
                feature[burnt], move[burnt], cover[burnt] = code, mv, cv
    cliff = slope > 35
    move[cliff], feature[cliff] = 4, 24
    layers = {
        "elevation": dem,
        "slope": slope,
        "level": level,
        "move": move,
        "cover": cover,
        "blocks_sight": (move == 3) | (feature == 20) | (feature == 24),
        "feature": feature,
    }
    legend = {13: "forest", 16: "marsh", 20: "building", 24: "cliff", 26: "water", 0: "open"}
    meta = {
        "slug": slug,
        "legend": {"feature": legend},
        "sources": [{"name": "shipped DEM (see data/SOURCES.md)", "path": f"battlefields/{slug}"}],
        "fixture": "maps.testing.dem_battlefield (not a full build)",
    }
    return Battlefield(layers, transform, crs, step, meta)


def synthetic_battle_log(
    bf: Battlefield,
    *,
    bases_per_side: int = 48,
    bounds: int = 8,
    seed: int = 1,
    frontage: int = 6,
    per_formation: int = 12,
) -> dict[str, Any]:
    """A ``battlelog/1`` dict: two armies on real ground closing on each other (drawing fixture)."""
    rng = random.Random(seed)
    minx, miny, maxx, maxy = bf.bounds
    cx, cy = (minx + maxx) / 2, (miny + maxy) / 2
    gap = min(maxx - minx, maxy - miny) * 0.3
    sides = [
        {"id": "north", "name": "Northern army (fixture)", "colour": "#1f4e9c"},
        {"id": "south", "name": "Southern army (fixture)", "colour": "#c0392b"},
    ]
    formations: list[dict[str, Any]] = []
    bases: list[dict[str, Any]] = []
    pos: dict[str, list[float]] = {}
    n_form = max(1, math.ceil(bases_per_side / per_formation))
    for s_i, side in enumerate(sides):
        facing = 180.0 if s_i == 0 else 0.0
        y_line = cy + (gap if s_i == 0 else -gap)
        width = n_form * (frontage * 40 + 60)
        made = 0
        for fi in range(n_form):
            fid = f"{side['id']}_{fi + 1}"
            formations.append(
                {
                    "id": fid,
                    "side": side["id"],
                    "name": f"{side['name']} formation {fi + 1}",
                    "profile": "fixture_foot",
                }
            )
            fx = cx - width / 2 + fi * (frontage * 40 + 60) + frontage * 20
            for i in range(min(per_formation, bases_per_side - made)):
                rank, file = divmod(i, frontage)
                bid = f"{fid}.{i + 1}"
                back = 1 if s_i == 0 else -1
                x = fx + (file - (frontage - 1) / 2) * 40
                y = y_line + back * rank * 20
                pos[bid] = [x, y, facing]
                bases.append(
                    {
                        "id": bid,
                        "side": side["id"],
                        "formation": fid,
                        "profile": "fixture_foot",
                        "unit_type": "infantry",
                        "character": f"{side['id']}_general" if (fi == 0 and i == 0) else None,
                        "w": 40.0,
                        "d": 20.0,
                    }
                )
            made += min(per_formation, bases_per_side - made)
    state = {b["id"]: "ok" for b in bases}
    morale = {f["id"]: "steady" for f in formations}
    losses = {s["id"]: 0 for s in sides}
    side_of = {b["id"]: b["side"] for b in bases}
    form_of = {b["id"]: b["formation"] for b in bases}

    def snapshot(messengers: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "bases": {
                bid: {
                    "x": round(p[0], 2),
                    "y": round(p[1], 2),
                    "facing": round(p[2], 1),
                    "formation": form_of[bid],
                    "state": state[bid],
                }
                for bid, p in pos.items()
            },
            "formations": {
                f["id"]: {"morale": morale[f["id"]], "order": "advance", "wing_of": None}
                for f in formations
            },
            "messengers": messengers,
            "losses": dict(losses),
        }

    out_bounds = [{"bound": 0, "events": [], "snapshot": snapshot([])}]
    for b in range(1, bounds + 1):
        events: list[dict[str, Any]] = []
        for bid, p in pos.items():
            if state[bid] == "dead":
                continue
            toward = -1 if side_of[bid] == "north" else 1
            fm = morale[form_of[bid]]
            step = -60.0 if fm in ("retreating", "routing") else 40.0 + rng.uniform(-5, 5)
            p[1] += toward * step
            p[2] = (p[2] + rng.uniform(-3, 3)) % 360
        for f in formations:
            if rng.random() < 0.3:
                enemy = rng.choice([g for g in formations if g["side"] != f["side"]])
                faces = [rng.randint(1, 6) for _ in range(3)]
                hits = sum(1 for x in faces if x >= 4)
                events.append(
                    {
                        "type": "shot",
                        "phase": "execute_shooting",
                        "formation": f["id"],
                        "target": enemy["id"],
                        "dice": {"purpose": f"shoot {f['id']}->{enemy['id']}", "faces": faces},
                        "need": 4,
                        "hits": hits,
                    }
                )
                victims = [
                    bid for bid in pos if form_of[bid] == enemy["id"] and state[bid] != "dead"
                ]
                for v in victims[:hits]:
                    if state[v] == "ok":
                        state[v] = "injured"
                    else:
                        state[v] = "dead"
                        losses[side_of[v]] += 1
                        events.append({"type": "killed", "phase": "shooting_damage", "base": v})
        for f in formations:
            dead = sum(1 for bid in pos if form_of[bid] == f["id"] and state[bid] == "dead")
            total = sum(1 for bid in pos if form_of[bid] == f["id"])
            if dead == total:
                morale[f["id"]] = "destroyed"
            elif dead * 2 >= total:
                morale[f["id"]] = "routing"
            elif dead * 4 >= total:
                morale[f["id"]] = "retreating"
        gen = next(bid for bid in pos if bid.startswith("south_1."))
        target = next(bid for bid in pos if bid.startswith(f"south_{n_form}."))
        route = [
            [pos[gen][0], pos[gen][1] - 30],
            [pos[gen][0], pos[gen][1] - 200],
            [pos[target][0], pos[target][1] - 200],
            [pos[target][0], pos[target][1] - 30],
        ]
        length = sum(math.dist(route[i], route[i + 1]) for i in range(3))
        messengers = [
            {
                "id": f"m{b}",
                "side": "south",
                "to": f"south_{n_form}",
                "order": "attack",
                "route": [[round(x, 2), round(y, 2)] for x, y in route],
                "travelled_m": round(min(length, 250.0), 2),
                "cost_m": round(length, 2),
                "sent_bound": b,
                "arrival_bound": b + 1,
            }
        ]
        out_bounds.append({"bound": b, "events": events, "snapshot": snapshot(messengers)})
    return {
        "format": "battlelog/1",
        "ruleset": "2mm-earth-v0.9",
        "scenario": "maps_fixture",
        "seed": seed,
        "crs": bf.crs.to_string(),
        "battlefield": {"slug": bf.meta.get("slug")},
        "sides": sides,
        "formations": formations,
        "bases": bases,
        "bounds": out_bounds,
        "result": {
            "winner": None,
            "bounds": bounds,
            "reason": "fixture: not a battle result",
            "losses": dict(losses),
        },
    }


def write_run_dir(bf: Battlefield, directory: Path, **kwargs: Any) -> Path:
    """A run directory (``battle_log.json`` + ``battlefield/``) from the synthetic log."""
    import json

    directory.mkdir(parents=True, exist_ok=True)
    bf.save(directory / "battlefield")
    log = synthetic_battle_log(bf, **kwargs)
    (directory / "battle_log.json").write_text(
        json.dumps(log, sort_keys=True, separators=(",", ":"))
    )
    return directory


def right_angle_turns(g: Any, frame: Any) -> tuple[int, int]:
    """(right-angle turns, all turns) at the polygon vertices of ``g`` that lie off ``frame``.

    A traced raster outline is nothing but right angles; a smoothed one has almost none. Vertices
    touching ``frame`` (e.g. the map or table edge, buffered a little) are not counted, since the
    edge's own corners are right angles whatever the smoothing.

    >>> import shapely
    >>> right_angle_turns(shapely.box(0, 0, 10, 10), shapely.Point(-5, -5))
    (4, 4)
    """
    import shapely

    right = turns = 0
    for poly in shapely.get_parts(g):
        for ring in (poly.exterior, *poly.interiors):
            xy = np.asarray(ring.coords)[:-1]
            if len(xy) < 3:
                continue
            off = ~shapely.intersects(shapely.points(xy), frame)
            v0 = xy - np.roll(xy, 1, axis=0)
            v1 = np.roll(xy, -1, axis=0) - xy
            cos = np.abs((v0 * v1).sum(1)) / (
                np.linalg.norm(v0, axis=1) * np.linalg.norm(v1, axis=1) + 1e-12
            )
            right += int((off & (cos < 0.05)).sum())
            turns += int(off.sum())
    return right, turns
