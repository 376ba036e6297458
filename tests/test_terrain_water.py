"""Linear water as the rules have it (7.2: Wet "applies to swamps, marshland, and significant
streams. An isolated brook or puddle is just plain terrain"), on real data: the OSM pair north of
Bayreuth and the River Till and Pallins Burn of Flodden's overlay.

- OSM streams, ditches and drains are plain brooks unless the site or scenario names them as
  significant (then wet); an overlay's ``feature: stream`` is wet.
- Rivers and significant streams are rasterised gap-free: every cell the line touches, so the
  band is 4-connected and nothing crosses it corner to corner.
- Water narrower than a cell does not replace woods (the cell is mostly trees).
"""

from __future__ import annotations

import geopandas as gpd
import numpy as np
import pytest
import rasterio.features
import shapely
from scipy import ndimage

from engine.scenario import BattlefieldRef
from scenario_builder.battlefield import Battlefield, MoveClass
from scenario_builder.build import build_site
from scenario_builder.codetables import CodeTables
from scenario_builder.landcover import read_vector, vector_features
from scenario_builder.sites import get_site

TABLES = CodeTables.load()


def _feature_codes(bf: Battlefield) -> dict[str, int]:
    return {name: int(code) for code, name in bf.meta["legend"]["feature"].items()}


def _corner_gaps(mask: np.ndarray) -> int:
    """2x2 windows where the mask meets only corner to corner: a diagonal step crosses there."""
    a, b, c, d = mask[:-1, :-1], mask[:-1, 1:], mask[1:, :-1], mask[1:, 1:]
    return int(((a & d & ~b & ~c) | (b & c & ~a & ~d)).sum())


def _touched(bf: Battlefield, geoms) -> np.ndarray:
    """Every cell the lines touch (GDAL all-touched rasterisation)."""
    return rasterio.features.rasterize(
        [(g, 1) for g in geoms], out_shape=bf.shape, transform=bf.transform, all_touched=True
    ).astype(bool)


@pytest.fixture(scope="module")
def bayreuth_osm(built_bayreuth, bayreuth_dir) -> gpd.GeoDataFrame:
    path = bayreuth_dir / "linear_osm.geojson"
    return read_vector(path).to_crs(built_bayreuth.battlefield.crs)


def test_7_2_osm_streams_and_ditches_are_plain_brooks(built_bayreuth, bayreuth_osm):
    """Bayreuth's 192 OSM streams and 31 ditches: plain, and the woods they run through stay
    woods (they used to open 620 forest cells as 25 m wet strips, 8x the real water area)."""
    bf = built_bayreuth.battlefield
    codes = _feature_codes(bf)
    feature = bf.layer("feature")
    assert not (feature == codes["stream"]).any()
    minor = bayreuth_osm[bayreuth_osm["waterway"].isin(["stream", "ditch", "drain"])]
    assert len(minor) > 200
    on_lines = _touched(bf, minor.geometry.values)
    move = bf.layer("move")
    assert not (move[on_lines] == int(MoveClass.WET)).any()
    # the forest polygons the streams cross are forest on every cell centre inside them
    lc = vector_features(
        read_vector(
            bayreuth_osm_path := get_site("north_bayreuth_pair").folder / "landcover_osm.geojson"
        ),
        TABLES,
        bayreuth_osm_path,
    ).to_crs(bf.crs)
    forest = lc[lc["feature"] == "forest"]
    inside = rasterio.features.rasterize(
        [(g, 1) for g in forest.geometry.values], out_shape=bf.shape, transform=bf.transform
    ).astype(bool)
    outranked = _touched(  # where a feature above forest (roads, rivers...) may rightly win
        bf,
        lc[
            lc["feature"].map(TABLES.vocab.priority) > TABLES.vocab.priority("forest")
        ].geometry.values,
    )
    crossing = inside & on_lines & ~outranked
    assert crossing.sum() > 200  # streams do run through these woods
    roads = bayreuth_osm[bayreuth_osm["highway"].notna() | bayreuth_osm["railway"].notna()]
    crossing &= ~_touched(bf, roads.geometry.buffer(15).values)
    assert (feature[crossing] == codes["forest"]).all()


def test_7_2_a_named_stream_can_be_significant_and_then_is_wet(bayreuth_osm):
    """The site or the scenario says otherwise: 'Dühlbach' listed as significant is wet, gap-free,
    and still leaves the woods it crosses to the trees."""
    result = build_site("north_bayreuth_pair", significant_streams=["Dühlbach"])
    bf = result.battlefield
    assert bf.meta["significant_streams"] == ["Dühlbach"]
    codes = _feature_codes(bf)
    feature = bf.layer("feature")
    wet = feature == codes["stream"]
    assert wet.sum() > 20
    lines = bayreuth_osm[(bayreuth_osm["name"] == "Dühlbach")]
    above_ground = ~lines["other_tags"].fillna("").str.contains('"tunnel"')
    touched = _touched(bf, lines[above_ground].geometry.values)
    assert wet[~touched].sum() == 0  # nothing else became wet
    # every touched cell is the stream, or woods/something that outranks a stream
    ok = {codes[n] for n in ("stream", "forest", "road", "track", "building", "water", "river")}
    ok |= {codes[n] for n in ("built_up", "castle", "wall", "cliff", "tower")}
    assert np.isin(feature[touched], list(ok)).all()
    assert BattlefieldRef(slug="x", significant_streams=["Dühlbach"]).significant_streams


def test_7_2_osm_river_band_has_no_corner_gaps_and_yields_only_to_woods(
    built_bayreuth, bayreuth_osm
):
    """The Roter Main (20 m, under a 25 m cell): every cell its line touches above ground is
    river, or water it feeds, or woods it passes under; the river band has no corner gaps
    outside the woods."""
    bf = built_bayreuth.battlefield
    codes = _feature_codes(bf)
    feature = bf.layer("feature")
    river = bayreuth_osm[bayreuth_osm["waterway"] == "river"]
    above = ~river["other_tags"].fillna("").str.contains('"tunnel"')
    touched = _touched(bf, river[above].geometry.values)
    allowed = [codes[n] for n in ("river", "water", "forest", "cliff")]
    assert np.isin(feature[touched], allowed).all()
    assert (feature[touched] == codes["river"]).mean() > 0.8
    band = np.isin(feature, [codes["river"], codes["water"], codes["forest"]])
    window = ndimage.binary_dilation(touched, iterations=1)
    assert _corner_gaps(band & window) == 0


def test_7_2_the_till_is_one_unbroken_band_and_the_pallins_burn_is_wet(built_flodden):
    """Flodden's overlay: the Till (25 m on 25 m cells) used to be burned by cell centres only
    and met itself corner to corner 109 times; now it is one 4-connected band of every cell its
    line touches. The Pallins Burn is an overlay ``stream``: the overlay says it is wet."""
    site = get_site("flodden")
    bf = built_flodden.battlefield
    codes = _feature_codes(bf)
    feature = bf.layer("feature")
    path = site.overlay_paths()[0]
    overlay = vector_features(read_vector(path), TABLES, path).to_crs(bf.crs)
    overlay["name"] = read_vector(path)["name"].values
    till = overlay[overlay["name"] == "River Till"].geometry.values
    touched = _touched(bf, till)
    assert touched.sum() > 100
    assert (feature[touched] == codes["river"]).all()
    river = feature == codes["river"]
    assert _corner_gaps(river) == 0
    assert ndimage.label(river)[1] == 1  # 4-connected: one band
    burn = overlay[overlay["name"] == "Pallins Burn"].geometry.values
    wet = _touched(bf, burn)
    assert (bf.layer("move")[wet] == int(MoveClass.WET)).mean() > 0.95
    x, y = shapely.get_x(shapely.centroid(burn[0])), shapely.get_y(shapely.centroid(burn[0]))
    assert bf.contains(x, y)


def test_site_json_level_and_stream_options_are_checked(tmp_path):
    """site.json ``levels`` and ``significant_streams``: read when well formed, a one-line error
    naming the file otherwise."""
    import json

    from scenario_builder.errors import ScenarioFileError
    from scenario_builder.sites import _load

    folder = tmp_path / "mysite"
    folder.mkdir()
    info = {"center_lon": 11.5, "center_lat": 50.0, "levels": {"step_m": 5, "smooth_m": 30}}
    (folder / "site.json").write_text(json.dumps({**info, "significant_streams": ["Main"]}))
    site = _load(folder)
    assert site.level_options() == {"step_m": 5.0, "smooth_m": 30.0}
    assert site.significant_streams() == ["Main"]
    for bad in ({"levels": {"step_m": 0}}, {"levels": {"stepm": 2}}, {"significant_streams": "x"}):
        (folder / "site.json").write_text(json.dumps({**info, **bad}))
        with pytest.raises(ScenarioFileError, match=r"site\.json"):
            s = _load(folder)
            s.level_options()
            s.significant_streams()


def test_scenario_battlefield_section_carries_step_smoothing_and_streams():
    """A scenario sets its battlefield's 6.2 step and smoothing and its 7.2 significant streams;
    they only make sense for a build, not for an already built ``path``."""
    from pydantic import ValidationError

    ref = BattlefieldRef(slug="flodden", step_m=5, smooth_m=40, significant_streams=["Till"])
    assert (ref.step_m, ref.smooth_m, ref.significant_streams) == (5, 40, ["Till"])
    with pytest.raises(ValidationError, match="already built"):
        BattlefieldRef(path="out/flodden", step_m=5)
    with pytest.raises(ValidationError):
        BattlefieldRef(slug="flodden", step_m=0)


def test_scenario_step_and_smoothing_reach_the_build(built_minden):
    """``battlefield: {slug: .., step_m: 5, smooth_m: 30}`` builds 5 m levels on 30 m smoothing
    (6.2): fewer levels than the 2 m default on the same ground."""
    from types import SimpleNamespace

    from scenario_builder.battle import build_battlefield

    ref = BattlefieldRef(slug="minden", step_m=5, smooth_m=30)
    bf = build_battlefield(SimpleNamespace(battlefield=ref, path=None)).battlefield
    assert bf.step == 5.0 and bf.meta["smooth_m"] == 30.0 and bf.meta["step_m"] == 5.0
    default = built_minden.battlefield
    assert default.step == 2.0
    assert bf.n_levels < default.n_levels
