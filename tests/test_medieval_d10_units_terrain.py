"""medieval-d10 units of figures and troop lists (MOVEMENT CHART rows, MELEE CHART weapons),
the terrain code table and slopes (TERRAIN CHART), and the ground scale per figure scale.

Real data: the Flodden 1513 troop lists in ``data/troops/medieval/`` and the Flodden DEM in
``data/battlefields/flodden/dem.tif`` (SRTM 3", provenance in data/SOURCES.md).
"""

from __future__ import annotations

import csv
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from engine.rulesets.medieval_d10.charts import MeleeRow, TerrainColumn
from engine.rulesets.medieval_d10.scale import METRES_150_YD, ground_scale
from engine.rulesets.medieval_d10.terrain import (
    GENTLE_MIN_DEG,
    STEEP_MIN_DEG,
    Cover,
    CoverCode,
    SlopeClass,
    Terrain,
    TerrainCode,
    disorders,
    load_terrain_table,
    march_fraction,
    slope_class,
    slope_classes,
)
from engine.rulesets.medieval_d10.units import (
    Arm,
    Formation,
    Unit,
    UnitSpec,
    load_troop_list,
)
from scenario_builder.codetables import load_features
from scenario_builder.errors import ScenarioFileError

DATA = Path(__file__).resolve().parents[1] / "data"
TROOPS = DATA / "troops" / "medieval"


# Troop lists -----------------------------------------------------------------------------------


def test_flodden_troop_lists_load_and_their_units_move_by_the_chart() -> None:
    english = load_troop_list(TROOPS / "english_1513.yaml")
    scots = load_troop_list(TROOPS / "scots_1513.yaml")
    assert english.ruleset == scots.ruleset == "medieval-d10"
    # a formation of the scenario gives the figures (one base = one figure)
    units = {
        p.id: Unit.from_spec(p.model_copy(update={"figures": 15}))
        for p in (*english.profiles, *scots.profiles)
    }
    # MOVEMENT CHART: C close-order foot 16 cm line, +6 bonus; light C cavalry 32, +12
    assert units["sc_pike_nobles"].march_rate_cm() == 16 and units["sc_pike_nobles"].bonus_cm() == 6
    assert units["sc_highlanders"].march_rate_cm() == 16  # loose-order D: 16 cm
    assert units["en_border_horse"].march_rate_cm() == 32
    assert units["en_border_horse"].bonus_cm() == 12
    # artillery: heavy carriage unlimbered = manhandled 6 cm, limbering takes a whole turn
    guns = units["sc_guns"]
    assert guns.arm is Arm.ARTILLERY and not guns.limbered and guns.march_rate_cm() == 6
    assert guns.limber_turns() == 1 and guns.dice == 15  # one d10 per gun model
    assert units["en_guns"].limber_turns() == Fraction(1, 2)
    # one d10 per five figures, rounded up
    assert units["en_bills"].dice == 3 and units["en_bills"].with_losses(1).dice == 3
    assert units["en_bills"].with_losses(6).dice == 2
    with pytest.raises(ValueError, match="no figure count"):
        _ = Unit.from_spec(english.profiles[0]).figures_left


def test_unit_formation_losses_and_lance_rows() -> None:
    spec = UnitSpec.model_validate(
        {
            "id": "k",
            "arm": "cavalry",
            "weight": "heavy",
            "class": "B",
            "figures": 12,
            "melee": "heavy_lance",
            "sidearm": "mace",
        }
    )
    unit = Unit.from_spec(spec)
    assert unit.march_rate_cm() == 32
    assert Unit(spec, formation=Formation.COLUMN).march_rate_cm() == 40
    assert unit.melee_row(charging=True) is MeleeRow.HEAVY_LANCE
    assert unit.melee_row(charging=False) is MeleeRow.ONE_HANDED  # mace when not charging
    assert unit.terrain_column() is TerrainColumn.CLOSE_CAVALRY
    hurt = unit.with_losses(5).with_losses(20)
    assert hurt.figures_left == 0 and hurt.figures_lost == 12  # figures never go below zero
    with pytest.raises(ValueError, match="kills >= 0"):
        unit.with_losses(-1)


BAD = {
    "class: E": (
        "profiles.0: Value error, the MOVEMENT CHART row 'Heavy, Medium or Light Infantry "
        "(Close-order)' has no class E"
    ),
    "order: loose\n    arm: cavalry": "no loose-order cavalry",
    "melee: heavy_lance": "heavy_lance is a cavalry weapon",
    "nonesuch: 1": "profiles.0.nonesuch: unknown field",
    "figures_lost: 30": "figures_lost 30 exceeds figures 24",
    "contingent: nobody": "contingent 'nobody' has no commander",
}


@pytest.mark.parametrize("change", list(BAD))
def test_bad_troop_lists_give_one_line_errors_naming_file_and_line(
    tmp_path: Path, change: str
) -> None:
    base = {
        "arm": "infantry",
        "weight": "medium",
        "class": "C",
        "figures": 24,
        "melee": "bill",
    }
    changed = {line.strip().split(":")[0] for line in change.splitlines()}
    lines = [f"    {k}: {v}" for k, v in base.items() if k not in changed]
    text = (
        "army: test\nruleset: medieval-d10\ncommanders:\n  - {id: boss, kind: bold}\n"
        "profiles:\n  - id: u1\n" + "\n".join(lines) + f"\n    {change}\n"
    )
    path = tmp_path / "list.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioFileError) as err:
        load_troop_list(path)
    message = str(err.value)
    assert message.startswith(f"{path}: line ") and "\n" not in message
    assert BAD[change] in message


def test_troop_list_wrong_ruleset_and_missing_artillery_fields(tmp_path: Path) -> None:
    path = tmp_path / "guns.yaml"
    path.write_text(
        "army: t\nruleset: medieval-d10\ncommanders: [{id: b, kind: rash}]\nprofiles:\n"
        "  - {id: g, arm: artillery, weight: light, class: C, figures: 2,"
        " missile: light_field_artillery}\n",
        encoding="utf-8",
    )
    with pytest.raises(ScenarioFileError, match="artillery needs carriage"):
        load_troop_list(path)
    path.write_text(
        "army: t\nruleset: 2mm-earth\ncommanders: [{id: b, kind: rash}]\nprofiles:\n"
        "  - {id: u, arm: infantry, weight: light, class: C, figures: 2, melee: sword}\n",
        encoding="utf-8",
    )
    with pytest.raises(ScenarioFileError, match="expected ruleset medieval-d10"):
        load_troop_list(path)


# Terrain ---------------------------------------------------------------------------------------


def test_terrain_table_covers_the_feature_vocabulary() -> None:
    table = load_terrain_table()
    assert set(table.rows) == set(load_features().names())
    assert table.rows["village"].terrain is Terrain.BUILT_UP
    assert table.rows["wall"].cover is Cover.HARD and table.rows["hedge"].cover is Cover.SOFT
    assert table.rows["river"].terrain is Terrain.IMPASSABLE
    assert table.rows["forest"].blocks_sight and not table.rows["orchard"].blocks_sight
    # the raster codes name the same classes (the seam's TerrainTable reads names upper-cased)
    assert [c.terrain for c in TerrainCode] == list(Terrain)
    assert [c.cover for c in CoverCode] == list(Cover)


def test_terrain_table_errors_name_file_and_line(tmp_path: Path) -> None:
    shipped = DATA / "codes" / "medieval-d10.csv"
    rows = list(csv.DictReader(shipped.open(encoding="utf-8")))
    bad = tmp_path / "t.csv"

    def write(rows: list[dict[str, str]]) -> None:
        with bad.open("w", newline="", encoding="utf-8") as fh:
            w = csv.DictWriter(fh, fieldnames=["feature", "move", "cover", "blocks_sight", "note"])
            w.writeheader()
            w.writerows(rows)

    write([{**rows[0], "move": "lava"}, *rows[1:]])
    with pytest.raises(ScenarioFileError, match=r"t\.csv: line 2: expected move one of"):
        load_terrain_table(bad)
    write(rows[1:])
    with pytest.raises(ScenarioFileError, match=r"missing \['open'\]"):
        load_terrain_table(bad)
    write([*rows, {**rows[0], "feature": "swamp_of_doom"}])
    with pytest.raises(ScenarioFileError, match="swamp_of_doom"):
        load_terrain_table(bad)


H, Q, TQ, ONE = Fraction(1, 2), Fraction(1, 4), Fraction(3, 4), Fraction(1)
INF, CAV, SK, ART = (
    TerrainColumn.CLOSE_LOOSE_INFANTRY,
    TerrainColumn.CLOSE_CAVALRY,
    TerrainColumn.SKIRMISH,
    TerrainColumn.LIMBERED_ARTILLERY,
)
# TERRAIN CHART per terrain: (infantry, cavalry, skirmish infantry, skirmish cavalry, artillery)
MARCH = {
    Terrain.OPEN: (ONE, ONE, ONE, ONE, ONE),
    Terrain.ROAD_TRACK: (ONE, ONE, ONE, ONE, ONE),
    Terrain.BUILT_UP: (H, H, H, H, H),
    Terrain.BROKEN_GROUND: (H, H, H, H, H),
    Terrain.WOOD: (H, H, H, H, H),
    Terrain.ORCHARD_COPSE: (H, H, TQ, TQ, H),
    Terrain.STREAM_FORD: (H, H, H, H, H),
    Terrain.MARSH: (None, None, H, None, None),
    Terrain.WALL_FENCE_HEDGE: (H, H, H, H, H),
    Terrain.IMPASSABLE: (None, None, None, None, None),
}


def test_march_fraction_every_terrain_and_column() -> None:
    for terrain, want in MARCH.items():
        got = (
            march_fraction(INF, terrain),
            march_fraction(CAV, terrain, cavalry=True),
            march_fraction(SK, terrain),
            march_fraction(SK, terrain, cavalry=True),
            march_fraction(ART, terrain),
        )
        assert got == want, terrain
    # "*" local skirmishers: 0.75 in woods, marsh and built-up areas; strangers 0.5
    assert march_fraction(SK, Terrain.WOOD, local=True) == TQ
    assert march_fraction(SK, Terrain.MARSH, local=True) == TQ
    assert march_fraction(SK, Terrain.BROKEN_GROUND, local=True) == H


def test_slopes_ascending_only_except_limbered_artillery() -> None:
    g, s = SlopeClass.GENTLE, SlopeClass.STEEP
    assert march_fraction(INF, Terrain.OPEN, g) == H
    assert march_fraction(INF, Terrain.OPEN, s) == Q
    assert march_fraction(SK, Terrain.OPEN, g) == TQ and march_fraction(SK, Terrain.OPEN, s) == H
    assert march_fraction(INF, Terrain.OPEN, s, uphill=False) == ONE
    assert march_fraction(ART, Terrain.OPEN, s, uphill=False) == Q  # "Up / Down***"
    # the slower of terrain and slope applies; a road does not flatten a hill
    assert march_fraction(INF, Terrain.WOOD, s) == Q
    assert march_fraction(INF, Terrain.ROAD_TRACK, g) == H
    assert disorders(INF, Terrain.WOOD) and not disorders(INF, Terrain.ORCHARD_COPSE)
    # a wall or hedge disorders formed troops only (docs/rules-interpretations.md, "TERRAIN
    # CHART: a wall disorders formed troops")
    assert disorders(INF, Terrain.WALL_FENCE_HEDGE) and not disorders(SK, Terrain.WALL_FENCE_HEDGE)
    assert not disorders(SK, Terrain.STREAM_FORD)


def test_slope_thresholds_and_the_flodden_dem() -> None:
    assert slope_class(GENTLE_MIN_DEG - 0.01) is SlopeClass.FLAT
    assert slope_class(GENTLE_MIN_DEG) is SlopeClass.GENTLE
    assert slope_class(STEEP_MIN_DEG) is SlopeClass.STEEP
    rasterio = pytest.importorskip("rasterio")
    with rasterio.open(DATA / "battlefields" / "flodden" / "dem.tif") as src:
        z = src.read(1).astype(np.float64)
        lat = (src.bounds.top + src.bounds.bottom) / 2
        dy = src.res[1] * 111_320.0
        dx = src.res[0] * 111_320.0 * np.cos(np.radians(lat))
        gy, gx = np.gradient(z, dy, dx)
        classes = slope_classes(np.degrees(np.arctan(np.hypot(gx, gy))))
        branxton_top = src.index(-2.170, 55.618)
        piper_hill = src.index(-2.1785, 55.6292)
    share = np.bincount(classes.ravel(), minlength=3) / classes.size
    # rolling Northumbrian ground: flat going is the commonest class, steep ground is rare
    assert share[0] > share[1] > share[2] > 0.0
    assert share[2] < 0.2
    assert classes[branxton_top] == 0  # the Scots' hill-top position is flat going
    assert classes[piper_hill] == 1  # the English on Piper Hill: a gentle slope


# Scale -----------------------------------------------------------------------------------------


def test_ground_scale_per_figure_scale() -> None:
    s25, s15 = ground_scale("25mm"), ground_scale("15mm")
    # "within 150yds" = 30 cm at 25 mm, 20 cm at 15 mm
    assert s25.ground_m(30) == pytest.approx(METRES_150_YD)
    assert s15.table_cm(30) == pytest.approx(20.0)
    assert s15.ground_m(30) == pytest.approx(METRES_150_YD)
    # explosion distance 3" / 2" is the same 2/3
    assert Fraction(s15.explosion_inches, s25.explosion_inches) == s15.chart_factor
    # both ways, both scales
    for s in (s25, s15):
        for cm in (5, 16, 75, 180):
            assert s.chart_cm(s.ground_m(cm)) == pytest.approx(cm)
    assert s25.ratio == pytest.approx(457.2) and s15.ratio == pytest.approx(685.8)
    assert s25.mm_per_m == pytest.approx(10 / 4.572)
    with pytest.raises(ValueError, match="15mm or 25mm"):
        ground_scale("28mm")
