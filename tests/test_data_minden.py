"""Minden, 1 August 1759 (data/scenarios/minden_1759.yaml) on its own ground: the minden SRTM crop
with the 1759 overlay (data/battlefields/minden_1759/OVERLAY_SOURCES.md). The places checked are
the sources' (Todtenhausen and Minden from their coordinates, the Bastau lowland south of the
French left, the Weser at the foot of the terrace bluff), not read back from the overlay. The
troop lists' readings of 8.1/8.2 are pinned here, and the battle is fought on that ground with
engine.testing.check_battle's invariants after every phase."""

from __future__ import annotations

from typing import Any

import pytest

from engine.battle import Battle
from engine.dice import Dice
from engine.rulesets.two_mm_earth.profiles import Flag, UnitType, load_army
from engine.scenario import Scenario, load_scenario
from engine.testing import check_battle
from scenario_builder.battle import build_battlefield
from scenario_builder.paths import data_dir
from tests.support.shipped import classes_at, classes_under, fought_as_run, orders_issued

SITES = data_dir() / "battlefields"


@pytest.fixture(scope="module")
def minden() -> tuple[Scenario, Any]:
    sc = load_scenario("minden_1759")
    return sc, build_battlefield(sc).battlefield


def test_the_1759_site_is_the_minden_crop_byte_for_byte() -> None:
    # data/SOURCES.md: minden_1759/dem.tif is a copy, so the bare minden ground of the
    # benchmarks and the scenario's ground are the same heights
    assert (SITES / "minden_1759" / "dem.tif").read_bytes() == (
        SITES / "minden" / "dem.tif"
    ).read_bytes()
    assert not list((SITES / "minden").glob("overlay*")), "the bare minden site has no overlay"


@pytest.mark.parametrize(
    ("where", "lon", "lat", "move", "cover"),
    [
        # 7.2 swamps are wet: the Bastau lowland south of Hahlen and the French left
        ("the Bastau marsh below the French left", 8.8600, 52.2900, "wet", "wet"),
        ("the Bastau marsh west of Minden", 8.8750, 52.2870, "wet", "wet"),
        # 7.2 good-sized rivers are impractical: the Weser at the foot of the bluff below Broglie
        ("the Weser below Broglie's right", 8.9245, 52.3210, "impractical", "open"),
        # Todtenhausen, a scattered village (52 20 13 N, 8 55 16 E): debris
        ("Todtenhausen", 8.9211, 52.3369, "debris", "debris"),
        # Minden's old town (52.2833 N, 8.9167 E): built-up, impractical with overhead cover
        ("Minden", 8.9170, 52.2880, "impractical", "overhead"),
        # the open plain the British crossed, between the lines
        ("the plain between the lines", 8.8750, 52.3150, "plain", "open"),
    ],
)
def test_the_named_ground_has_its_class(
    minden: tuple[Scenario, Any], where: str, lon: float, lat: float, move: str, cover: str
) -> None:
    assert classes_at(minden[1], lon, lat) == (move, cover), where


def test_every_formation_stands_on_the_plain_and_the_heavy_guns_behind_their_works(
    minden: tuple[Scenario, Any],
) -> None:
    """Every formation deploys on the built battlefield, off the marsh and the river; the
    Bückeburg guns stand on the breastworks of the Todtenhausen batteries (field_wall: 7.2
    debris cover), as Brandis has them ("entrenchments armed with heavy guns")."""
    sc, bf = minden
    battle = Battle(bf, sc, Dice(1))
    for fid, under in classes_under(battle).items():
        assert not under & {"wet", "impractical"}, (fid, under)
        if fid == "al_wangenheim_guns":
            assert "debris" in under, under
        else:
            assert under <= {"plain"}, (fid, under)


def test_8_2_flintlock_lines_volley_horse_does_not_guns_fire_only_as_ordnance() -> None:
    """8.2: "troops armed entirely with flintlock firearms can fire volleys" (2-rank
    Ordnance, 8.1): every line-infantry profile of both 1759 lists; the horse has no missiles;
    the guns are war machines that fire only as Ordnance and cannot move and fire."""
    for name in ("allied_1759", "french_1759"):
        for p in load_army(name).profiles:
            if p.unit_type is UnitType.INFANTRY:
                assert p.has(Flag.VOLLEYS) and p.range_m == 150, p.id
            elif p.unit_type is UnitType.CAVALRY:
                assert p.arming.ranged is None and not p.flags, p.id
            else:
                assert p.unit_type is UnitType.WAR_MACHINE, p.id
                assert p.has(Flag.ORDNANCE_ONLY) and p.has(Flag.NMF), p.id


def test_minden_fights_on_its_ground_with_the_historical_opening(
    minden: tuple[Scenario, Any],
) -> None:
    """Seed 1 to the end under check_battle's invariants. The British and the Hanoverian
    Guards are sent at the French horse from bound 1 (the advance "by mistake"); the French
    first line charges them when they come within 500 m and the second when the first is half
    gone (the scenario's triggers); Sackville's cavalry is never ordered forward; the rest of
    the allied infantry goes in at bound 15."""
    sc, bf = minden
    battle = fought_as_run(sc, bf, 1)
    report = check_battle(battle)
    assert report.result is not None and report.result["winner"] in ("allies", "french")
    orders = orders_issued(battle.log)
    assert (1, "attack al_british on fr_cav1") in orders
    assert (1, "attack al_hanover_guards on fr_cav1") in orders
    charges = [bd for bd, o in orders if o == "attack fr_cav1 on al_british"]
    seconds = [bd for bd, o in orders if o == "attack fr_cav2 on al_british"]
    assert charges and seconds and charges[0] < seconds[0], orders
    assert [o for _, o in orders if o.split()[1] == "al_sackville"] == ["hold al_sackville"]
    assert (15, "attack al_wutginau on fr_right") in orders


def test_minden_same_seed_same_log_byte_for_byte(minden: tuple[Scenario, Any]) -> None:
    sc, bf = minden
    assert fought_as_run(sc, bf, 3).run().to_json() == fought_as_run(sc, bf, 3).run().to_json()
