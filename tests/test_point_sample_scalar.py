"""``Battlefield._sample`` for one point in Python floats (its scalar path, without arrays)
answers as the array path does: the same cell of every layer, on real ground (Flodden, SRTM 3",
25 m; Minden), at random points, on each edge and a hair inside it, and the same OffMapError
off the map. The medieval d10 and Dark Age moves sample every step of a march this way."""

from __future__ import annotations

import numpy as np
import pytest

from scenario_builder.errors import OffMapError

LAYERS = ("elevation", "slope", "move", "cover", "level", "blocks_sight", "feature")


def _points(bf, rng: np.random.Generator) -> list[tuple[float, float]]:
    minx, miny, maxx, maxy = bf.bounds
    pts = list(zip(rng.uniform(minx, maxx, 400).tolist(), rng.uniform(miny, maxy, 400).tolist()))
    # the edges the grid owns (minx and maxy are on the map, maxx and miny are not) and the
    # far edges a hair inside, where the cell index rounds onto the last row or column
    tiny = 1e-7
    for x in (minx, minx + tiny, maxx - tiny, np.nextafter(maxx, minx)):
        for y in (maxy, maxy - tiny, miny + tiny, np.nextafter(miny, maxy)):
            pts.append((float(x), float(y)))
    # cell boundaries exactly
    res = bf.res
    pts += [(minx + k * res, maxy - k * res) for k in range(1, 50, 7)]
    return pts


@pytest.mark.parametrize("site", ["built_flodden", "built_minden"])
def test_scalar_point_sample_is_the_array_sample(site: str, request) -> None:
    bf = request.getfixturevalue(site).battlefield
    pts = _points(bf, np.random.default_rng(15))
    xs = np.array([p[0] for p in pts])
    ys = np.array([p[1] for p in pts])
    for name in LAYERS:
        if name not in bf._layers:
            continue
        many = bf._sample(name, xs, ys)
        for (x, y), want in zip(pts, many.tolist(), strict=True):
            got = bf._sample(name, x, y)
            assert type(got) is type(want) and got == want, (name, x, y, got, want)
            # the 0-d array path (numpy scalars in) gives the same again
            assert bf._sample(name, np.float64(x), np.float64(y)) == want


@pytest.mark.parametrize("where", ["west", "east", "south", "north"])
def test_scalar_point_off_the_map_raises_as_arrays_do(built_minden, where: str) -> None:
    bf = built_minden.battlefield
    minx, miny, maxx, maxy = bf.bounds
    cx, cy = (minx + maxx) / 2.0, (miny + maxy) / 2.0
    x, y = {
        "west": (minx - 0.5, cy),
        "east": (maxx, cy),  # the east edge is not on the map
        "south": (cx, miny),  # nor the south
        "north": (cx, maxy + 0.5),
    }[where]
    with pytest.raises(OffMapError) as scalar:
        bf.elevation_at(x, y)
    with pytest.raises(OffMapError) as arrays:
        bf.elevation_at(np.array([x]), np.array([y]))
    assert str(scalar.value) == str(arrays.value)
