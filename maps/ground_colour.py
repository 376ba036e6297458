"""The web map's ground as the page draws it under the armies: the hillshade's grey with the
height levels' tint over it (``maps.battlefield_map``: hillshade 70 + 185 x shade, the levels
at alpha 150 in a layer at opacity 0.6).

An army's colour is made legible against the ground its own bases stand on, not a nominal grey:
Gettysburg's Confederates on Seminary Ridge, Flodden's Scots on Branxton Hill. The movement
classes' coloured fills are left out: they are never grey, and ``tests/test_maps_rulemaps.py``
keeps them apart from the hillshade.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from maps.colours import hex_to_rgb, luminance
from scenario_builder.battlefield import Battlefield

#: the level tint's weight over the hillshade: alpha 150 of 255 in a layer at opacity 0.6
LEVEL_WEIGHT = 150 / 255 * 0.6
#: an army is judged on the darker ground it stands on: the ground under this share of its
#: positions (over every bound) is at most this light
DARK_SHARE = 0.25


def drawn_ground(bf: Battlefield) -> np.ndarray:
    """(rows, cols, 3) sRGB 0..255 of the page's ground in the battlefield's own grid."""
    from maps.battlefield_map import level_colours
    from maps.reproject import hillshade

    shade = np.nan_to_num(hillshade(bf.layer("elevation"), bf.res), nan=0.0)
    grey = 70 + 185 * shade
    lv = bf.layer("level").astype(int)
    colours = level_colours(bf)
    lo = min(colours)
    lut = np.array([hex_to_rgb(colours[k]) for k in range(lo, max(colours) + 1)], float)
    tint = lut[np.clip(lv - lo, 0, len(lut) - 1)]
    out: np.ndarray = (1 - LEVEL_WEIGHT) * grey[..., None] + LEVEL_WEIGHT * tint
    return out


def _hex(rgb: np.ndarray) -> str:
    return "#" + "".join(f"{round(float(v)):02x}" for v in np.clip(rgb, 0, 255))


def ground_under(bf: Battlefield, ground: np.ndarray, xs: Any, ys: Any) -> list[str]:
    """The drawn ground's colour at each point (battlefield metres), off-grid points left out."""
    t = bf.transform
    cols = np.floor((np.asarray(xs, float) - t.c) / t.a).astype(int)
    rows = np.floor((np.asarray(ys, float) - t.f) / t.e).astype(int)
    inside = (rows >= 0) & (rows < ground.shape[0]) & (cols >= 0) & (cols < ground.shape[1])
    return [_hex(ground[r, c]) for r, c in zip(rows[inside], cols[inside], strict=True)]


def dark_ground(colours: list[str], share: float = DARK_SHARE) -> str | None:
    """The ground at ``share`` of the way from the darkest to the lightest of ``colours``."""
    if not colours:
        return None
    ordered = sorted(colours, key=luminance)
    return ordered[min(int(share * len(ordered)), len(ordered) - 1)]


def sides_ground(bf: Battlefield, log: Mapping[str, Any]) -> list[str | None]:
    """For each side of ``log`` (in its order), the darker ground its bases stood on over the
    battle (``dark_ground`` of every base position in every bound), None if none is on the grid."""
    side_of = {b["id"]: b["side"] for b in log["bases"]}
    pos: dict[str, tuple[list[float], list[float]]] = {s["id"]: ([], []) for s in log["sides"]}
    for record in log["bounds"]:
        for bid, base in record["snapshot"]["bases"].items():
            side = side_of.get(bid)
            if side in pos and base.get("x") is not None:
                pos[side][0].append(float(base["x"]))
                pos[side][1].append(float(base["y"]))
    ground = drawn_ground(bf)
    return [dark_ground(ground_under(bf, ground, *pos[s["id"]])) for s in log["sides"]]
