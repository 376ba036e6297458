"""medieval-d10, the MELEE CHART and its results played in whole battles on the shipped Towton
ground (OS Terrain 50, data/scenarios/towton_1461.yaml), and the readings a table would dispute:

- the winner of a round of melee, not the loser, takes THE CONTROL TEST (reasons 1-2): the
  phase 13 bookkeeping gave "won melee against X" to the unit that lost to X;
- GAME TURN SEQUENCE phase 15 "declare which units must ... Follow-up or be Pushed-back" and
  phase 3 "move any units that are being Pushed-back or Following-up in an on-going Melee":
  a beaten unit its test leaves in the fight is pushed back, the winner follows up (or, not
  wishing to, takes Control Test reason 1, and must follow up on failing it); the MELEE
  CHART's "being PUSHED-BACK +1" and THE MORALE TEST CHART's "Being Pushed Back in good
  order -1" then count;
- the MELEE CHART's figures that fight are those in contact (a column fights on its four
  files, not with every figure); a commander in the front rank helps his unit;
- the winner of the initiative chooses side A or B; a wall or hedge does not disorder
  skirmishers; the FIRING CHART's "resting" and "gun smoke" lines.

docs/rules-interpretations.md, "Melee: push-backs and follow-ups" and the entries after it.
"""

from __future__ import annotations

import math
from dataclasses import replace as dc_replace
from typing import Any

import pytest

from engine.battle import Battle
from engine.dice import Dice
from engine.rulesets.medieval_d10 import control as cm
from engine.rulesets.medieval_d10 import fire as fm
from engine.rulesets.medieval_d10 import melee as mm
from engine.rulesets.medieval_d10 import morale as mo
from engine.rulesets.medieval_d10.charts import (
    ArmourGrade,
    MeleeRow,
    MoraleColumn,
    TerrainColumn,
)
from engine.rulesets.medieval_d10.compulsory import phase_compulsory
from engine.rulesets.medieval_d10.initiative import chooses_side_a, phase_initiative
from engine.rulesets.medieval_d10.procedures import melee_need
from engine.rulesets.medieval_d10.terrain import Terrain, disorders
from engine.rulesets.medieval_d10.units import Formation
from engine.scenario import load_scenario

NAME = "medieval-d10"


@pytest.fixture(scope="module")
def towton() -> Any:
    from scenario_builder.build import build_site

    return build_site("towton").battlefield


def _battle(bf: Any, seed: int, dice: Dice | None = None, *, bases: bool = False) -> Battle:
    sc = load_scenario("towton_1461")
    if bases:  # at its bases (c. 600 men a figure), without its figures at the book's scale
        sc = sc.model_copy(update={"men_per_figure": None}, deep=True)
        for side in sc.sides:
            for fs in side.formations:
                fs.figures = fs.figure_frontage = None
    return Battle(bf, sc, dice or Dice(seed), ruleset=NAME)


def _fought(bf: Any, seed: int, *, bases: bool = False) -> list[dict[str, Any]]:
    battle = _battle(bf, seed, bases=bases)
    battle.run()
    return list(battle.ctx.game.events)


@pytest.fixture(scope="module")
def seed24(towton: Any) -> list[dict[str, Any]]:
    """Towton seed 24 at its bases (the smaller battle; docs/scenarios.md, "Figures"). Seed 5
    until a commander's risk became percentile dice against his share of the front rank,
    which moved the dice."""
    return _fought(towton, 24, bases=True)


@pytest.fixture(scope="module")
def seed12(towton: Any) -> list[dict[str, Any]]:
    """Towton seed 12 at the book's figure scale: seven push-backs, six follow-ups."""
    return _fought(towton, 12)


@pytest.fixture(scope="module")
def seed7(towton: Any) -> list[dict[str, Any]]:
    return _fought(towton, 7)


def _melees(events: list[dict[str, Any]], turn: int) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == "melee" and e["turn"] == turn]


def _kills(melee: dict[str, Any], unit: str) -> tuple[int, int]:
    """(kills by ``unit``, kills by its foe) in one melee record."""
    if melee["a"] == unit:
        return melee["kills_by_a"], melee["kills_by_b"]
    return melee["kills_by_b"], melee["kills_by_a"]


def test_the_melee_winner_takes_the_control_test_towton_seed_7(seed7: Any) -> None:
    """THE CONTROL TEST reasons 1-2, "The unit has won a round of melee": only a unit that
    killed more than its foe in that turn's melee tests (seed 7 before: ln_centre, beaten 2
    kills to 1 by yk_centre in turn 14, tested as its winner)."""
    won = [e for e in seed7 if e["type"] == "control" and e["reason"].startswith("won melee")]
    assert len(won) >= 2
    for test in won:
        foe = test["reason"].removeprefix("won melee against ").split(",")[0]
        (fight,) = [
            m for m in _melees(seed7, test["turn"]) if {m["a"], m["b"]} == {test["unit"], foe}
        ]
        mine, theirs = _kills(fight, test["unit"])
        assert mine > theirs, (test, fight)


def test_pushed_back_and_followed_up_in_an_on_going_melee_towton_seed_12(seed12: Any) -> None:
    """MELEE result: the loser, not broken by its phase-15 test, is pushed back in phase 3
    of the next turn by the unit that beat it; the winner follows up into contact and the
    melee goes on that turn (seed 12 at the book's figure scale: seven push-backs and six
    follow-ups; before push-backs were played, no unit was ever pushed back)."""
    pushes = [e for e in seed12 if e["type"] == "push_back"]
    follows = [e for e in seed12 if e["type"] == "follow_up"]
    assert len(pushes) >= 2 and len(follows) >= 2
    for p in pushes:
        assert p["phase"].startswith("3 ") and p["metres"] > 0
        # it lost last turn's melee to the unit pushing it
        (lost,) = [
            m for m in _melees(seed12, p["turn"] - 1) if {m["a"], m["b"]} == {p["unit"], p["by"]}
        ]
        mine, theirs = _kills(lost, p["unit"])
        assert mine < theirs
    for f in follows:
        assert f["contact"], f
        assert any(
            {m["a"], m["b"]} == {f["unit"], f["target"]} for m in _melees(seed12, f["turn"])
        ), "the melee goes on the turn the winner follows up"


def test_a_winner_not_wishing_to_follow_up_tests_and_must_follow_up_towton_seed_24(
    seed24: Any,
) -> None:
    """THE CONTROL TEST reason 1, "won a round of melee but the Player controlling them does
    not wish to Follow-Up": yk_right, held back by its charge test's "Fall back in disorder"
    in turn 12, does not wish to follow up the Lancastrian right it beat and tests; failing
    it, "must Follow-Up if in melee" in phase 3 of turn 13. At its bases: at the figure scale seeds
    1-12 pass every such test (the winner stays)."""
    (test,) = [e for e in seed24 if e["type"] == "control" and "no wish" in e["reason"]]
    assert test["phase"].startswith("16 ") and not test["passed"]
    (follow,) = [
        e
        for e in seed24
        if e["type"] == "follow_up" and e["unit"] == test["unit"] and e["turn"] == test["turn"] + 1
    ]
    assert follow["contact"]


def _two_in_contact(bf: Any) -> tuple[Any, Any, Any]:
    """Towton's yk_centre and ln_centre, face to face in contact, as the battle opens."""
    battle = _battle(bf, 1)
    next(iter(battle.phases()))
    game = battle.ctx.game
    a, b = game.units["yk_centre"], game.units["ln_centre"]
    fx, fy = a.forward()
    d = (game.size(a)[1] + game.size(b)[1]) / 2 + 0.5
    b.x, b.y = a.x + fx * d, a.y + fy * d
    b.facing = (a.facing + 180.0) % 360.0
    assert game.in_contact(a, b)
    return game, a, b


def _melee_factors(game: Any, u: Any, foe: Any, monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    seen: list[dict[str, int]] = []
    real = mm.melee_need

    def spy(row: Any, cls: Any, armour: Any, factors: dict[str, int]) -> int:
        seen.append(dict(factors))
        return int(real(row, cls, armour, factors))

    monkeypatch.setattr(mm, "melee_need", spy)
    mm.strike(game, u, foe)
    monkeypatch.setattr(mm, "melee_need", real)
    return seen[-1]


def test_a_pushed_back_unit_fights_at_plus_one_and_tests_at_minus_one(
    towton: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """MELEE CHART "If your unit is being PUSHED-BACK +1"; THE MORALE TEST CHART "Falling
    Back / Being Pushed Back in good order -1": both for the turn it is pushed back."""
    game, a, b = _two_in_contact(towton)
    assert _melee_factors(game, b, a, monkeypatch)["pushed_back"] == 0
    b.pushed_by = a.id
    phase_compulsory(game)
    assert b.pushed_back_turn == game.turn and not game.in_contact(a, b)
    assert _melee_factors(game, b, a, monkeypatch)["pushed_back"] == 1
    seen: list[dict[str, int]] = []
    real = mo.morale_modifier
    monkeypatch.setattr(
        mo, "morale_modifier", lambda c, f, k: seen.append(dict(f)) or real(c, f, k)
    )
    mo.take_morale_test(game, b, MoraleColumn.OTHER, "a test")
    assert seen[-1]["falling_back_good_order"] == 1 and seen[-1]["advancing"] == 0


def test_a_holding_winner_tests_to_follow_up_an_attacking_one_follows(towton: Any) -> None:
    """The automatic player's wish (:func:`~.control.wishes_to_follow_up`): a unit ordered
    to attack follows its pushed-back foe with no test; one holding its ground tests."""
    game, a, b = _two_in_contact(towton)
    a.order, a.target, b.pushed_by = "attack", b.id, a.id
    a.control_reasons = [f"won melee against {b.id}"]
    cm.phase_control(game)
    assert a.follow_up == b.id
    assert not [e for e in game.events if e["type"] == "control" and e["unit"] == a.id]
    a.follow_up, a.order = None, "hold"
    a.control_reasons = [f"won melee against {b.id}"]
    cm.phase_control(game)
    (test,) = [e for e in game.events if e["type"] == "control" and e["unit"] == a.id]
    assert "no wish to follow up" in test["reason"]
    assert (a.follow_up == b.id) is (not test["passed"])


def test_the_figures_in_contact_fight_a_column_on_its_four_files(towton: Any) -> None:
    """MELEE CHART "one d10 for every five figures in the fighting unit" with Automatic
    Kills' "figures in contact with the enemy": the front rank across the shared frontage
    fights; a column (4 files) and the line facing it both fight with 4 figures, however
    many figures stand behind."""
    game, a, b = _two_in_contact(towton)
    a.line_ranks = b.line_ranks = None  # the line of its order (3 ranks), not Towton's depth
    a.unit = dc_replace(a.unit, spec=a.unit.spec.model_copy(update={"figures": 20}))
    b.unit = dc_replace(b.unit, spec=b.unit.spec.model_copy(update={"figures": 20}))
    a.unit, b.unit = dc_replace(a.unit, figures_lost=0), dc_replace(b.unit, figures_lost=0)
    assert a.unit.formation is b.unit.formation is Formation.LINE
    assert game.files(a) == 7  # 20 figures in 3 ranks
    assert mm.fighting_figures(game, a, b) == 7
    b.unit = dc_replace(b.unit, formation=Formation.COLUMN)
    assert game.files(b) == 4
    assert mm.fighting_figures(game, b, a) == 4
    assert mm.fighting_figures(game, a, b) == 4  # only those facing the column touch it


def test_every_melee_of_towton_seed_12_rolls_by_the_figures_in_contact(
    seed12: Any, towton: Any
) -> None:
    """Towton's units at the book's scale (48-120 figures, 12-32 files) fight on the files
    in contact: never more d10s than a fifth of the unit's front rank, rounded up (every
    figure fighting would roll 10-24), and more than one where a wide front meets one."""
    files = {
        fs.id: fs.figure_frontage
        for side in load_scenario("towton_1461").sides
        for fs in side.formations
    }
    melees = [e for e in seed12 if e["type"] == "melee"]
    assert melees
    most = 0
    for m in melees:
        for key, unit in (("faces_a", m["a"]), ("faces_b", m["b"])):
            if m.get(key) is not None:
                assert len(m[key]) <= math.ceil((files[unit] or 1) / 5), m
                most = max(most, len(m[key]))
    assert most >= 2


def test_a_commander_in_the_front_rank_helps_his_unit() -> None:
    """MELEE CHART "If your unit has any COMMANDER or INSPIRATIONAL figure in the front rank
    +1", played as a help: one off the score it needs (docs/rules-interpretations.md)."""
    base = melee_need(MeleeRow.TWO_HANDED, "B", ArmourGrade.HEAVY)
    assert melee_need(MeleeRow.TWO_HANDED, "B", ArmourGrade.HEAVY, {"commander_front_rank": 1}) == (
        base - 1
    )


def test_the_initiative_winner_takes_side_b_when_it_stands_on_the_defensive(
    towton: Any,
) -> None:
    """GAME TURN SEQUENCE phase 1, "may choose to be side A or B": a side with no unit
    ordered to attack lets the enemy be side A and answers its charges as side B."""
    battle = _battle(towton, 1)
    next(iter(battle.phases()))
    game = battle.ctx.game
    for u in game.alive():
        u.order = "hold"
    game.units["yk_centre"].order, game.units["yk_centre"].from_turn = "attack", 1
    assert chooses_side_a(game, "yorkists") and not chooses_side_a(game, "lancastrians")
    for _ in range(6):  # whoever wins the roll, the attacking Yorkists are side A
        game.turn += 1
        phase_initiative(game)
        assert game.side_a == "yorkists"


def test_a_wall_or_hedge_disorders_formed_troops_not_skirmishers() -> None:
    """TERRAIN CHART Wall, Fence, Hedge: the one printed "0.5 M.R. Disordered" disorders the
    formed columns, as the Wood and Stream rows do; skirmishers and limbered guns cross at
    half rate in their order."""
    wall = Terrain.WALL_FENCE_HEDGE
    assert disorders(TerrainColumn.CLOSE_LOOSE_INFANTRY, wall)
    assert disorders(TerrainColumn.CLOSE_CAVALRY, wall)
    assert not disorders(TerrainColumn.SKIRMISH, wall)
    assert not disorders(TerrainColumn.LIMBERED_ARTILLERY, wall)


def test_gun_smoke_and_resting_on_flodden(
    built_flodden: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """FIRING CHART "Target partially obscured by gun smoke +2": a battery that fired this
    Game Turn or the last is hidden by its own smoke (the two gun trains at Flodden);
    "resting" their firearms on walls counts only for foot standing at one (guns on open
    ground: none)."""
    b = Battle(built_flodden.battlefield, load_scenario("flodden_1513"), Dice(1), ruleset=NAME)
    next(iter(b.phases()))
    game = b.ctx.game
    guns = [
        u
        for u in game.alive()
        if u.unit.spec.missile is not None and u.unit.spec.missile.is_gunpowder
    ]
    shooter = guns[0]
    target = next(u for u in guns if u.side != shooter.side)
    assert not fm.smoked(game, target)
    target.fired_turn = game.turn
    assert fm.smoked(game, target)
    seen: list[dict[str, int]] = []
    real = fm.firing_need
    monkeypatch.setattr(
        fm,
        "firing_need",
        lambda w, band, arm, cls, f: seen.append(dict(f)) or real(w, band, arm, cls, f),
    )
    # bring the target into range of the shooter and fire
    fx, fy = shooter.forward()
    target.x, target.y = shooter.x + fx * 200, shooter.y + fy * 200
    shooter.unit = dc_replace(shooter.unit, limbered=False)
    fm.fire(game, shooter, target)
    assert seen and seen[-1]["gun_smoke"] == 1 and seen[-1]["resting"] == 0


class _Loaded(Dice):
    """Seeded dice whose control-test d10 comes up ``face``; the rest left to chance."""

    def __init__(self, seed: int, face: int) -> None:
        super().__init__(seed)
        self.face = face

    def _faces(self, n: int, sides: int, purpose: str) -> tuple[int, ...]:
        if purpose.endswith(" control"):
            return (self.face,) * n
        return super()._faces(n, sides, purpose)


SAXTON = (-1.2801722, 53.8255776)  # the village behind the Yorkist line (overlay centroid)


def test_mercenaries_in_reach_of_the_enemy_village_test_and_run_at_it(towton: Any) -> None:
    """THE CONTROL TEST reason 7, "mercenaries (M class) within charge reach of a
    loot-worthy enemy ... settlement (i.e. a Built-up Area ...)": Lancastrian archers made M
    class, 60 m north of Saxton (nearer the Yorkist army's ground), test; failing (a 10), they run
    at it in phase 3, out of orders, and retake the test each phase 16. The Yorkists' own
    village is no loot to a Yorkist unit. No shipped troop list has M class troops, so the
    rule is played here on Towton's ground with one unit re-classed."""
    from engine.rulesets.medieval_d10.charts import TroopClass

    dice = _Loaded(1, 10)
    battle = _battle(towton, 1, dice)
    next(iter(battle.phases()))
    game = battle.ctx.game
    merc, yorkist = game.units["ln_archers_left"], game.units["yk_left"]
    for u in (merc, yorkist):
        u.unit = dc_replace(
            u.unit, spec=u.unit.spec.model_copy(update={"troop_class": TroopClass.M})
        )
    sx, sy = towton.to_xy(*SAXTON)
    assert game.terrain_at(sx, sy)[0] is Terrain.BUILT_UP
    edge = sy
    while game.terrain_at(sx, edge)[0] is Terrain.BUILT_UP:
        edge += 5.0  # north to the village's edge
    merc.x, merc.y = sx, edge + 60.0 + game.size(merc)[1] / 2
    yorkist.x, yorkist.y = sx + 150.0, sy - 100.0  # beyond 150 yds of the mercenaries
    assert cm.loot_in_reach(game, yorkist) is None  # its own side's village
    loot = cm.loot_in_reach(game, merc)
    assert loot is not None and game.terrain_at(*loot)[0] is Terrain.BUILT_UP
    assert 50.0 < math.dist((merc.x, merc.y), loot) < game.allowance(merc, bonus=True)
    cm.phase_control(game)
    (test,) = [e for e in game.events if e["type"] == "control" and e["unit"] == merc.id]
    assert test["reason"] == "mercenaries within charge reach of loot" and not test["passed"]
    assert merc.mode.value == "pursuing" and merc.loot == loot
    game.begin_turn()
    phase_compulsory(game)
    (run,) = [e for e in game.events if e["type"] == "loot"]
    assert run["metres"] > 0 and run["arrived"]
    dice.face = 1  # the retake passes: back under orders
    cm.phase_control(game)
    retake = [e for e in game.events if e["type"] == "control" and e["unit"] == merc.id][-1]
    assert retake["reason"] == "retake a failed control test (loot)"
    assert retake["passed"] is (merc.mode.value == "act as ordered") and (
        retake["passed"] is (merc.loot is None)
    )
