"""Code tables and classification (7.1–7.3, 6.2): total mappings, one class per cell, overrides."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from scenario_builder.battlefield import CoverClass, MoveClass
from scenario_builder.classify import apply_cliffs, classify, promote_dense_buildings, slope_degrees
from scenario_builder.codetables import (
    RASTER_SOURCES,
    CodeTables,
    codes_dir,
    load_features,
    load_raster_table,
    load_ruleset_table,
    table_kind,
)
from scenario_builder.errors import ScenarioFileError

TABLES = CodeTables.load()
VOCAB = TABLES.vocab
CODES = sorted(VOCAB.legend())


def test_every_feature_has_exactly_one_ruleset_row_and_every_table_uses_the_vocabulary():
    rs = load_ruleset_table()
    assert set(rs.rows) == set(VOCAB.names())
    for name in RASTER_SOURCES:
        table = load_raster_table(name)
        assert set(table.mapping.values()) <= set(VOCAB.names())
    assert {r.feature for r in TABLES.osm.rules} <= set(VOCAB.names())


@pytest.mark.parametrize(
    ("feature", "move", "cover", "blocks"),
    [
        ("forest", MoveClass.WOODS, CoverClass.OVERHEAD, True),  # 7.3 woods, 7.2 overheads, 6.2
        ("water", MoveClass.IMPRACTICAL, CoverClass.OPEN, False),
        ("river", MoveClass.IMPRACTICAL, CoverClass.OPEN, False),  # good-sized rivers
        ("stream", MoveClass.WET, CoverClass.WET, False),  # significant streams
        ("brook", MoveClass.PLAIN, CoverClass.OPEN, False),  # an isolated brook is plain
        ("marsh", MoveClass.WET, CoverClass.WET, False),
        ("building", MoveClass.DEBRIS, CoverClass.DEBRIS, False),  # house-sized buildings
        ("built_up", MoveClass.IMPRACTICAL, CoverClass.OVERHEAD, True),
        ("castle", MoveClass.IMPRACTICAL, CoverClass.OVERHEAD, True),  # manors, castles
        ("cliff", MoveClass.IMPRACTICAL, CoverClass.OPEN, False),
        ("rock", MoveClass.DEBRIS, CoverClass.DEBRIS, False),  # rock formations
        ("orchard", MoveClass.DEBRIS, CoverClass.OVERHEAD, False),  # well-spaced shady trees
        ("wall", MoveClass.DEBRIS, CoverClass.DEBRIS, False),  # walls give debris cover
        ("tower", MoveClass.IMPRACTICAL, CoverClass.OVERHEAD, True),  # towers: overhead cover
        ("open", MoveClass.PLAIN, CoverClass.OPEN, False),
    ],
)
def test_7_2_7_3_feature_classes(feature, move, cover, blocks):
    layers = classify(np.array([[VOCAB.code(feature)]], np.uint8), TABLES)
    assert layers["move"][0, 0] == move
    assert layers["cover"][0, 0] == cover
    assert bool(layers["blocks_sight"][0, 0]) is blocks


@settings(max_examples=60, deadline=None)
@given(
    arrays(
        np.uint8, st.tuples(st.integers(1, 30), st.integers(1, 30)), elements=st.sampled_from(CODES)
    )
)
def test_every_cell_gets_exactly_one_class_of_each_kind(feature):
    layers = classify(feature, TABLES)
    for name, enum in (("move", MoveClass), ("cover", CoverClass)):
        arr = layers[name]
        assert arr.shape == feature.shape
        assert np.isin(arr, [int(m) for m in enum]).all()
        # the same feature always gets the same class: a function of the feature alone
        for code in np.unique(feature):
            assert len(np.unique(arr[feature == code])) == 1
    assert layers["blocks_sight"].dtype == bool
    # 6.2: what blocks sight is woods or solid impractical terrain
    blocks = layers["blocks_sight"]
    assert np.isin(layers["move"][blocks], [MoveClass.WOODS, MoveClass.IMPRACTICAL]).all()


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(RASTER_SOURCES), st.lists(st.integers(0, 600), min_size=1, max_size=40))
def test_raster_codes_map_totally_unknown_ones_to_open(source, codes):
    table = load_raster_table(source)
    lut, known = table.lut(VOCAB, 601)
    arr = np.asarray(codes)
    feats = lut[arr]
    assert np.isin(feats, CODES).all()
    for c, f in zip(arr, feats, strict=True):
        expected = table.mapping.get(int(c), "open")
        assert VOCAB.name(f) == expected
        assert known[c] == (int(c) in table.mapping)


def test_cliffs_from_slope_but_water_stays_water():
    z = np.tile(np.arange(6, dtype=np.float32) * 10.0, (4, 1))  # 45 degrees at 10 m cells
    slope = slope_degrees(z, 10.0)
    feat = np.full(z.shape, VOCAB.code("forest"), np.uint8)
    feat[0, :] = VOCAB.code("water")
    out = apply_cliffs(feat, slope, VOCAB, 35.0)
    assert (out[1:] == VOCAB.code("cliff")).all()
    assert (out[0] == VOCAB.code("water")).all()
    assert (apply_cliffs(feat, slope, VOCAB, 50.0) == feat).all()


def test_7_2_dense_buildings_are_built_up_isolated_ones_stay_debris():
    res = 5.0
    feat = np.full((60, 60), VOCAB.code("meadow"), np.uint8)
    feat[5:35, 5:35] = VOCAB.code("building")  # a 150 m block of buildings: a town
    feat[50, 50] = VOCAB.code("building")  # a lone barn
    out = promote_dense_buildings(feat, VOCAB, res, window_m=100.0, fraction=0.5)
    assert VOCAB.name(out[20, 20]) == "built_up"
    assert VOCAB.name(out[50, 50]) == "building"


def test_codes_override_is_recognised_by_header(tmp_path: Path):
    rs = tmp_path / "my_rules.csv"
    text = (
        (codes_dir() / "2mm-earth.csv")
        .read_text()
        .replace("orchard,debris,overhead,false", "orchard,woods,overhead,true")
    )
    rs.write_text(text)
    wc = tmp_path / "wc.csv"
    wc.write_text("code,feature,name\n10,orchard,Tree cover (here: olive groves)\n")
    assert table_kind(rs) == "ruleset" and table_kind(wc) == "raster"
    tables = CodeTables.load([rs, wc])
    assert tables.ruleset.rows["orchard"].move == "woods"
    assert tables.raster is not None and tables.raster.mapping == {10: "orchard"}
    assert CodeTables.load(["nlcd"]).raster.mapping[41] == "forest"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            "code,feature,name\n10,jungle,Tree cover\n",
            "expected a feature from features.csv, got 'jungle'",
        ),
        ("code,feature,name\nten,forest,Tree cover\n", "expected an integer code"),
        ("feature,move,cover,blocks_sight\nforest,flying,open,false\n", "expected move in"),
        ("key,value,feature,width_m\nwaterway,river,river,-3\n", "expected a positive width"),
        ("a,b\n1,2\n", "expected a code table header"),
        ("", "empty"),
    ],
)
def test_bad_code_tables_name_the_file_and_the_problem(tmp_path: Path, text, problem):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(Exception) as info:
        CodeTables.load([path])
    assert isinstance(info.value, (ScenarioFileError, OSError))
    assert str(path) in str(info.value) and problem in str(info.value)


def test_ruleset_table_must_cover_the_whole_vocabulary(tmp_path: Path):
    path = tmp_path / "short.csv"
    path.write_text("feature,move,cover,blocks_sight\nforest,woods,overhead,true\n")
    with pytest.raises(ScenarioFileError, match="missing"):
        load_ruleset_table(path)


def test_vocabulary_codes_are_unique_and_open_is_the_default():
    vocab = load_features()
    assert len(set(vocab.legend())) == len(vocab.features)
    assert vocab.code("open") == 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert vocab.name(vocab.code("forest")) == "forest"
