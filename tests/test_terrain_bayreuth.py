"""The real DEM + OSM land-cover pair north of Bayreuth: classes by 7.2/7.3 and 6.2."""

from __future__ import annotations

import geopandas as gpd
import numpy as np
import pytest
import shapely

from scenario_builder.battlefield import CoverClass, MoveClass
from scenario_builder.build import build_from_paths
from scenario_builder.codetables import CodeTables
from scenario_builder.landcover import read_vector, vector_features

TABLES = CodeTables.load()


def osm_features(bayreuth_dir, crs) -> gpd.GeoDataFrame:
    frames = []
    for name in ("landcover_osm.geojson", "linear_osm.geojson"):
        path = bayreuth_dir / name
        frames.append(vector_features(read_vector(path), TABLES, path).to_crs(crs))
    feats = gpd.GeoDataFrame(gpd.pd.concat(frames, ignore_index=True), geometry="geometry", crs=crs)
    return feats


def cells_inside(
    bf, feats: gpd.GeoDataFrame, feature: str, margin: float
) -> tuple[np.ndarray, np.ndarray]:
    """Cell centres at least ``margin`` inside polygons of ``feature`` and at least ``margin`` from
    any feature that outranks it (features.csv priority), so the answer is unambiguous."""
    prio = TABLES.vocab.priority(feature)
    own = feats[feats["feature"] == feature]
    own = own[own.geom_type.isin(["Polygon", "MultiPolygon"])]
    inner = shapely.union_all(own.geometry.buffer(-margin).values)
    higher = feats[feats["feature"].map(TABLES.vocab.priority) > prio]
    widths = higher["width_m"].fillna(0).to_numpy() / 2.0 + margin
    blocked = shapely.union_all(shapely.buffer(higher.geometry.values, widths))
    rows, cols = np.mgrid[0 : bf.shape[0], 0 : bf.shape[1]]
    xs, ys = bf.transform @ (cols.ravel() + 0.5, rows.ravel() + 0.5)
    keep = shapely.contains_xy(inner, xs, ys) & ~shapely.contains_xy(blocked, xs, ys)
    return xs[keep], ys[keep]


def test_7_3_osm_forest_cells_are_woods_with_overhead_cover_and_block_sight(
    built_bayreuth, bayreuth_dir
):
    bf = built_bayreuth.battlefield
    xs, ys = cells_inside(bf, osm_features(bayreuth_dir, bf.crs), "forest", margin=bf.res)
    assert xs.size > 1000  # most of the forest is sampled
    assert (bf.category_at(xs, ys) == MoveClass.WOODS).all()
    assert (bf.cover_at(xs, ys) == CoverClass.OVERHEAD).all()
    assert bf.blocks_sight_at(xs, ys).all()


def test_7_2_osm_water_is_impractical(built_bayreuth, bayreuth_dir):
    bf = built_bayreuth.battlefield
    xs, ys = cells_inside(bf, osm_features(bayreuth_dir, bf.crs), "water", margin=bf.res / 2)
    assert xs.size >= 10
    assert (bf.category_at(xs, ys) == MoveClass.IMPRACTICAL).all()
    assert not bf.blocks_sight_at(xs, ys).any()


def test_7_2_osm_river_line_is_a_continuous_impractical_band(built_bayreuth, bayreuth_dir):
    bf = built_bayreuth.battlefield
    feats = osm_features(bayreuth_dir, bf.crs)
    river = feats[feats["feature"] == "river"].geometry
    pts = shapely.line_interpolate_point(
        river.values[0], np.arange(0, river.values[0].length, bf.res / 2)
    )
    x, y = shapely.get_x(pts), shapely.get_y(pts)
    inside = bf.contains(x, y)
    names = bf.feature_at(x[inside], y[inside])
    # the river may pass under a higher-priority feature (a pond it feeds) but never gaps to
    # open land; narrower than a cell (20 m on 25 m), it leaves woods to the trees (7.2)
    assert set(names) <= {"river", "water", "cliff", "forest"}
    cats = bf.category_at(x[inside], y[inside])
    assert np.isin(cats, [MoveClass.IMPRACTICAL, MoveClass.WOODS]).all()
    assert (cats == MoveClass.IMPRACTICAL).mean() > 0.7  # 125 m of it runs through a wood


@pytest.fixture(scope="module")
def bayreuth_fine(bayreuth_dir):
    """A 5 m build around the one OSM wetland and the village south-west of it."""
    return build_from_paths(
        bayreuth_dir / "dem.tif",
        landcover=[bayreuth_dir / "landcover_osm.geojson", bayreuth_dir / "linear_osm.geojson"],
        bbox=(11.5470, 49.9830, 11.5620, 49.9925),
        resolution=5.0,
    )


def test_7_2_osm_wetland_is_wet(bayreuth_fine, bayreuth_dir):
    bf = bayreuth_fine.battlefield
    xs, ys = cells_inside(bf, osm_features(bayreuth_dir, bf.crs), "marsh", margin=bf.res)
    assert xs.size >= 5
    assert (bf.category_at(xs, ys) == MoveClass.WET).all()
    assert (bf.cover_at(xs, ys) == CoverClass.WET).all()


def test_7_2_isolated_buildings_are_debris_dense_ones_impractical(bayreuth_fine, bayreuth_dir):
    bf = bayreuth_fine.battlefield
    feats = osm_features(bayreuth_dir, bf.crs)
    buildings = feats[(feats["feature"] == "building") & (feats.area > 60)]
    pts = buildings.geometry.representative_point()
    x, y = pts.x.to_numpy(), pts.y.to_numpy()
    inside = bf.contains(x, y)
    x, y = x[inside], y[inside]
    assert x.size >= 20
    names = bf.feature_at(x, y)
    assert set(names) <= {
        "building",
        "built_up",
        "water",
        "river",
        "wall",
        "tower",
        "castle",
        "cliff",
    }
    is_b = names == "building"
    assert is_b.mean() > 0.5  # a village of detached houses: mostly isolated buildings
    assert (bf.category_at(x[is_b], y[is_b]) == MoveClass.DEBRIS).all()
    assert (bf.cover_at(x[is_b], y[is_b]) == CoverClass.DEBRIS).all()
    dense = names == "built_up"
    assert (bf.category_at(x[dense], y[dense]) == MoveClass.IMPRACTICAL).all()


def test_regions_carry_the_classes_of_their_cells(built_bayreuth):
    bf, regions, _ = built_bayreuth
    big = regions[regions.area > 20 * bf.res**2].head(200)
    pts = big.geometry.representative_point()
    assert (bf.feature_at(pts.x.to_numpy(), pts.y.to_numpy()) == big["feature"].to_numpy()).all()
    moves = bf.category_at(pts.x.to_numpy(), pts.y.to_numpy())
    assert [MoveClass(m).name.lower() for m in moves] == big["move"].tolist()
    assert regions.area.sum() == pytest.approx(bf.shape[0] * bf.shape[1] * bf.res**2)


def test_7_1_footprint_fractions_from_the_classes(built_bayreuth, bayreuth_dir):
    """A 40 x 20 m base straddling a forest edge gets a fraction in each class (7.1's 50 % rule)."""
    bf = built_bayreuth.battlefield
    xs, ys = cells_inside(bf, osm_features(bayreuth_dir, bf.crs), "forest", margin=bf.res)
    base = shapely.box(xs[0] - 20, ys[0] - 10, xs[0] + 20, ys[0] + 10)
    fr = bf.fractions(base, layer="move")
    assert fr[MoveClass.WOODS] == pytest.approx(1.0)
    assert sum(bf.fractions(base.buffer(200), layer="move").values()) == pytest.approx(1.0)
