"""Dark Age 5.25 mount and dismount as orders (``003_e8e36df29227b52b.txt``): "Replace the
mounted troops by figures on foot (or visa versa) Takes ½ move and 1 DP for all troops
(including unformed). Two mounted stands form one dismounted stand." Played on Maldon's shipped
ground (data/scenarios/maldon_991) as the poem has it (ll. 2-4, 23): Byrhtnoth's hearth-troop
rode to the field and alighted - here they deploy on their horses (``heorthwerod_horsed``,
data/troops/english_991.yaml), dismount at bound 1 as ``heorthwerod`` and walk on, then take
horse again at bound 3. (Their lord and Byrhtwold stand with the right-hand fyrd here, so that
the hearth-troop is all riders.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.battle import Battle
from engine.dice import Dice
from engine.rulesets import get_ruleset
from engine.rulesets.dark_age.battle import chapter_view
from engine.rulesets.dark_age.formations import Formation, Troop
from engine.rulesets.dark_age.movement import MoveKind, allowance, half_move
from engine.scenario import ManoeuvreSpec, load_scenario
from scenario_builder.errors import ScenarioFileError
from scenario_builder.paths import data_dir

DA = "dark-age"
ORDERS = [
    ManoeuvreSpec(bound=1, formations=["en_hearth"], manoeuvre="dismount", profile="heorthwerod"),
    ManoeuvreSpec(bound=1, formations=["en_fyrd_left"], manoeuvre="dismount", profile="fyrd"),
    ManoeuvreSpec(bound=2, formations=["en_fyrd_right"], manoeuvre="mount"),
    ManoeuvreSpec(bound=3, formations=["en_hearth"], manoeuvre="mount"),
]


@pytest.fixture(scope="module")
def fought() -> tuple[Battle, dict[int, dict[str, Any]]]:
    """Maldon seed 3, the hearth-troop mounted and ordered forward, fought 3 bounds; after each
    bound: its chapter view, stands, width, ranks, strength, profiles and this bound's roll."""
    from scenario_builder.battle import build_battlefield, commanders

    sc = load_scenario("maldon_991")
    rs = get_ruleset(DA)
    ground = rs.ground(build_battlefield(sc).battlefield)
    sc = sc.model_copy(deep=True)
    english = sc.sides[0]
    for fs in english.formations:
        if fs.id == "en_hearth":
            fs.profile, fs.order = "heorthwerod_horsed", "advance"
    for ch in english.characters:
        if ch.formation == "en_hearth":
            ch.formation = "en_fyrd_right"
    english.manoeuvres = list(ORDERS)
    b = Battle(ground, sc, Dice(3), ruleset=rs, commanders=commanders(sc, ground, rs))
    seen: dict[int, dict[str, Any]] = {}

    def look(bound: int) -> None:
        f = b.state.formations["en_hearth"]
        seen[bound] = {
            "view": chapter_view(f),
            "stands": f.n_alive,
            "frontage": f.frontage,
            "ranks": f.ranks,
            "start": f.start_bases,
            "profiles": {b_.profile.id for b_ in f.alive_bases},  # type: ignore[attr-defined]
            "roll": getattr(b.ctx, "move_rolls", {}).get("en_hearth"),
            "moved": f.moved_m,
        }

    look(0)
    for bound in range(1, 4):
        b.step()
        look(bound)
    return b, seen


def _events(b: Battle, bound: int, fid: str, *types: str) -> list[Any]:
    (rec,) = [r for r in b.log.bounds if r.bound == bound]
    return [e for e in rec.events if e.type in types and getattr(e, "formation", "") == fid]


def test_5_25_the_hearth_troop_dismounts_two_stands_to_one(fought: Any) -> None:
    """Bound 1: six mounted stands, three wide and two deep, become three on foot, the same
    width (the rear rank's riders join the front); ½ move and 1 DP; heavy cavalry become Dark
    Age infantry, their stands the troop list's heorthwerod."""
    b, seen = fought
    assert seen[0]["view"][0] is Troop.HEAVY_CAVALRY and seen[0]["stands"] == 6
    assert (seen[0]["frontage"], seen[0]["ranks"]) == (3, 2)
    after = seen[1]
    assert after["view"][0] is Troop.DARK_AGE_INFANTRY
    assert after["view"][2] is Formation.SHIELDWALL
    assert (after["stands"], after["frontage"], after["ranks"], after["start"]) == (3, 3, 1, 3)
    assert after["profiles"] == {"heorthwerod"}
    (made,) = _events(b, 1, "en_hearth", "manoeuvre")
    assert (made.manoeuvre, made.section, made.time, made.dps) == ("dismount", "5.25", "½ move", 1)
    assert "6 stands heavy cavalry -> 3 dark age infantry" in made.describe()
    dis = _events(b, 1, "en_hearth", "disorder")
    assert any(d.reason == "dismount (5.25)" and d.dps == 1 for d in dis)
    # the horses and their holders are a marker, not stands on the table (the snapshot)
    (rec,) = [r for r in b.log.bounds if r.bound == 1]
    snap = rec.snapshot["bases"]
    assert sum(1 for v in snap.values() if v["formation"] == "en_hearth") == 3


def test_5_25_on_foot_they_move_at_the_foot_rate_halved(fought: Any) -> None:
    """The bound's roll is read for infantry once they are on foot (the face less one, 5.9),
    then halved (5.28 second): the AvD's 3 is 1 javelin throw on foot, not the riders' 2."""
    _b, seen = fought
    troop, form, roll = seen[1]["roll"]
    assert troop is Troop.DARK_AGE_INFANTRY and form is Formation.SHIELDWALL
    on_foot = allowance(Troop.DARK_AGE_INFANTRY, roll.face, MoveKind.NORMAL, form)
    assert roll.face == 3 and roll.allowance == half_move(on_foot)
    assert roll.allowance != half_move(
        allowance(Troop.HEAVY_CAVALRY, roll.face, MoveKind.NORMAL, form)
    )
    assert 0.0 < seen[1]["moved"] <= roll.allowance.least * 25.0 + 1e-6


def test_5_25_they_take_horse_again(fought: Any) -> None:
    """Bound 3: each stand on foot brings back its horses' stand: six heavy cavalry, three wide
    and two deep, on their mounted profile, the strength they had mounted; another DP."""
    b, seen = fought
    back = seen[3]
    assert back["view"][0] is Troop.HEAVY_CAVALRY
    assert (back["stands"], back["frontage"], back["ranks"], back["start"]) == (6, 3, 2, 6)
    assert back["profiles"] == {"heorthwerod_horsed"}
    (made,) = _events(b, 3, "en_hearth", "manoeuvre")
    assert (made.manoeuvre, made.dps) == ("mount", 1)


def test_5_25_only_riders_dismount_and_only_the_dismounted_mount(fought: Any) -> None:
    b, _seen = fought
    (foot,) = _events(b, 1, "en_fyrd_left", "manoeuvre_refused")
    assert "only mounted troops dismount" in foot.reason
    (walk,) = _events(b, 2, "en_fyrd_right", "manoeuvre_refused")
    assert "not dismounted" in walk.reason


def _maldon_with(tmp_path: Path, order: str) -> Path:
    text = (data_dir() / "scenarios" / "maldon_991.yaml").read_text(encoding="utf-8")
    text = text.replace(
        "    plan:\n      stance: defensive",
        f"    manoeuvres:\n      - {order}\n    plan:\n      stance: defensive",
    )
    p = tmp_path / "maldon_bad.yaml"
    p.write_text(text, encoding="utf-8")
    return p


@pytest.mark.parametrize(
    ("order", "says"),
    [
        ("{bound: 1, formations: [en_hearth], manoeuvre: dismount}", "profile is for dismount"),
        ("{bound: 1, formations: [en_hearth], manoeuvre: mount, profile: fyrd}", "profile"),
        (
            "{bound: 1, formations: [en_hearth], manoeuvre: dismount, profile: hearth}",
            "expected a profile of english_991",
        ),
        (
            "{bound: 1, formations: [en_hearth], manoeuvre: dismount, profile: heorthwerod_horsed}",
            "expected a profile on foot",
        ),
    ],
)
def test_a_bad_dismount_order_is_a_file_error(tmp_path: Path, order: str, says: str) -> None:
    from scenario_builder.battle import build_battlefield

    p = _maldon_with(tmp_path, order)
    with pytest.raises(ScenarioFileError) as err:
        sc = load_scenario(p)
        rs = get_ruleset(DA)
        Battle(rs.ground(build_battlefield(sc).battlefield), sc, Dice(1), ruleset=rs)
    assert "maldon_bad.yaml" in str(err.value) and says in str(err.value)


def test_check_ruleset_with_the_hearth_troop_dismounting_and_mounting() -> None:
    """The engine's invariants after every phase (no overlaps, no base beyond its allowance,
    losses only grow, ...) hold while stands leave for the horse lines and come back
    (engine.testing.check_ruleset); the line wheels as one body (5.17) with them ordered
    forward."""
    from engine.testing import check_ruleset
    from scenario_builder.battle import build_battlefield, commanders

    sc = load_scenario("maldon_991").model_copy(deep=True)
    rs = get_ruleset(DA)
    ground = rs.ground(build_battlefield(sc).battlefield)
    english = sc.sides[0]
    for fs in english.formations:
        if fs.id == "en_hearth":
            fs.profile = "heorthwerod_horsed"
        if fs.id.startswith("en_"):
            fs.order = "attack"
    for ch in english.characters:
        if ch.formation == "en_hearth":
            ch.formation = "en_fyrd_right"
    english.manoeuvres = [ORDERS[0], ORDERS[3]]
    report = check_ruleset(
        DA,
        sc,
        seed=2,
        battlefield=ground,
        max_bounds=8,
        hooks=False,  # the hooks are checked on Flodden (test_engine_battle)
        commanders=lambda s, bf: commanders(s, bf, rs),
    )
    # the dismount, the mount and the line's four-unit wheel, none refused
    assert report.bounds >= 4 and report.events.get("manoeuvre", 0) >= 6
    assert not report.events.get("manoeuvre_refused")
