"""Rebuild ``overlay.geojson`` for Maldon 991 from the shipped OS Terrain 50 DEM.

The poem's ground is the tidal Blackwater ("Pante"): at low water a channel and mud, crossed by
one causeway (*brycg*) from Northey Island to the mainland. Today's DTM still holds that shape,
so the overlay is traced from the DEM itself (OVERLAY_SOURCES.md, "Method"):

- ``water``: cells below 0 m ODN, the low-water channel (impassable, Dark Age 5.14);
- ``marsh``: cells from 0 to 1 m ODN, the intertidal mud (difficult, 5.13);
- ``ford``: the causeway, the shortest gap between the mainland and Northey Island (above 1 m).

Run from the repository root: ``python data/battlefields/maldon/make_overlay.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import rasterio
import rasterio.features
import shapely
from pyproj import Transformer
from scipy import ndimage
from scipy.spatial import cKDTree
from shapely.geometry import LineString, mapping, shape
from shapely.ops import unary_union

HERE = Path(__file__).resolve().parent
CHANNEL_M = 0.0  # below: the low-water channel
MUD_M = 1.0  # below: intertidal mud; above: dry ground (today's reclaimed marsh is 2-3 m)
MIN_AREA_M2 = 20_000.0  # drop specks smaller than eight 50 m cells
CAUSEWAY_W_M = 10.0
SOURCE = (
    "Shipped DEM data/battlefields/maldon/dem.tif (OS Terrain 50, Contains OS data (c) Crown "
    "copyright and database right 2013, OGL v3); the Battle of Maldon (poem, lines 63-99: the "
    "tide, the brycg, the crossing); E. D. Laborde, 'The site of the Battle of Maldon', English "
    "Historical Review 40 (1925); G. R. Petty and S. Petty, 'Geology and The Battle of Maldon', "
    "Speculum 51 (1976); Battlefields Trust Resource Centre, 'Maldon 991'"
)


def main() -> None:
    with rasterio.open(HERE / "dem.tif") as src:
        a = src.read(1)
        tr, crs = src.transform, src.crs
    proj = Transformer.from_crs(crs, "EPSG:4326", always_xy=True)

    def to_ll(g: Any) -> Any:
        return shapely.transform(g, lambda x, y: proj.transform(x, y), interleaved=False)

    land = a > MUD_M
    lab, _ = ndimage.label(land)
    sizes = np.bincount(lab.ravel())
    sizes[0] = 0
    mainland, island = np.argsort(sizes)[::-1][:2]
    pm, pi = np.argwhere(lab == mainland), np.argwhere(lab == island)
    d, i = cKDTree(pm).query(pi)
    j = int(d.argmin())
    ends = [rasterio.transform.xy(tr, *p) for p in (pm[i[j]], pi[j])]
    causeway = LineString(ends)
    gap = causeway.buffer(CAUSEWAY_W_M * 2)

    feats = []
    for value, feature, name, uncertainty in (
        (
            1,
            "water",
            "Blackwater channel at low water (Pante)",
            "traced from today's 50 m DTM below 0 m ODN: +-50 m; the 991 channel has moved and "
            "sea level has risen about 1 m since (Petty and Petty 1976)",
        ),
        (
            2,
            "marsh",
            "Intertidal mud of the Blackwater",
            "traced from today's 50 m DTM between 0 and 1 m ODN: +-50 m; the 991 salt-marsh edge "
            "is unknown and today's sea walls have reclaimed land behind it",
        ),
    ):
        mask = (a < CHANNEL_M) if value == 1 else ((a >= CHANNEL_M) & (a < MUD_M))
        polys = [
            shape(g)
            for g, v in rasterio.features.shapes(mask.astype("uint8"), mask=mask, transform=tr)
            if v == 1
        ]
        geom = unary_union([p for p in polys if p.area >= MIN_AREA_M2]).difference(gap)
        geom = geom.simplify(25.0).buffer(0)
        feats.append(
            {
                "type": "Feature",
                "properties": {
                    "feature": feature,
                    "name": name,
                    "evidence": "reconstruction",
                    "source": SOURCE,
                    "uncertainty": uncertainty,
                },
                "geometry": mapping(to_ll(geom)),
            }
        )
    feats.append(
        {
            "type": "Feature",
            "properties": {
                "feature": "ford",
                "name": "Northey causeway (the brycg)",
                "evidence": "attested",
                "width_m": CAUSEWAY_W_M,
                "source": SOURCE,
                "uncertainty": "placed on the narrowest gap in the DTM between the "
                "mainland and Northey Island (above 1 m ODN): +-50 m; the present causeway "
                "is about 220 m long",
            },
            "geometry": mapping(to_ll(causeway)),
        }
    )
    fc = {
        "type": "FeatureCollection",
        "name": "maldon_991_overlay",
        "crs": {"type": "name", "properties": {"name": "urn:ogc:def:crs:OGC:1.3:CRS84"}},
        "features": feats,
    }
    text = json.dumps(fc, indent=1)
    (HERE / "overlay.geojson").write_text(text + "\n", encoding="utf-8")
    print(f"{len(feats)} features, {len(text)} bytes; causeway {causeway.length:.0f} m at {ends}")


if __name__ == "__main__":
    main()
