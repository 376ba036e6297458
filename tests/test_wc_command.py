"""War & Conquest's Command Tests and flee moves played in battle, in both compositions
(``2mm-earth-v0.9+wc-morale`` and ``dark-age``), on shipped ground where they fire.

The text (``004_3e419fecf92d7f8f.txt``) cited by its headings: "Command Tests" ("Taken the same
way as morale tests & use the unit's morale value. If successful the unit may perform the
maneuver or response"; "Drilled Formations may always re-roll failed Command Tests"),
"Resolution Summary" 2 ("A battle formation may become disordered if friends flee through it.
It must pass a Command Test"), "Army General" ("Zone of command of 10"") and "End Phase" 4
("Commence next turn by making a Strategy Roll").
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
import shapely

from engine.battle import Battle
from engine.dice import Dice, ScriptedDice
from engine.geometry import corners
from engine.rulesets import get_ruleset
from engine.rulesets.war_and_conquest import battle as wc
from engine.rulesets.war_and_conquest.morale import TWO_MM_EARTH, Discipline
from engine.scenario import load_scenario
from engine.state import Morale
from engine.testing import attack_everything, flat_origin, make_scenario
from scenario_builder.battle import build_battlefield, commanders

WC = "2mm-earth-v0.9+wc-morale"
DA = "dark-age"


def _battle(scenario: Any, ruleset: str, seed: int, plan: bool = True) -> Battle:
    rs = get_ruleset(ruleset)
    ground = rs.ground(build_battlefield(scenario).battlefield)
    chosen = commanders(scenario, ground, rs) if plan else None
    if chosen is None:
        return Battle(ground, scenario, Dice(seed), ruleset=rs)
    return Battle(ground, scenario, Dice(seed), ruleset=rs, commanders=chosen)


def _tests(b: Battle, bound: int | None = None) -> list[Any]:
    return [
        e
        for rec in b.log.bounds
        if bound is None or rec.bound == bound
        for e in rec.events
        if e.type == "wc_test"
    ]


def _check_score(e: Any) -> None:
    """The score is the two lowest dice of the (last) throw: 3d6 or 2d6."""
    faces = (e.reroll or e.dice).faces
    assert len(faces) in (2, 3) and e.score == sum(sorted(faces)[:2]), e


# -- Resolution Summary 2: friends fled through -----------------------------------------------


class _Spy:
    """Wraps the W&C flee move: each fleeing formation's rectangle before and after, and every
    friend's rectangle as the move found them (read independently of the engine's answer)."""

    def __init__(self, b: Battle) -> None:
        wc.notes(b.ctx)  # the notes and the flee move, made now so they can be wrapped
        self.inner = b.ctx.flee_move
        self.calls: list[dict[str, Any]] = []
        self.b = b
        b.ctx.flee_move = self

    def __call__(self, bf: Any, state: Any, f: Any, plan: Any, **kw: Any) -> Any:
        before = f.obb()
        friends = {
            g.id: (g.obb(), g.morale, g.loose or g.skirmisher)
            for g in state.active()
            if g.side == f.side and g is not f
        }
        res = self.inner(bf, state, f, plan, **kw)
        self.calls.append(
            {
                "bound": state.bound,
                "f": f.id,
                "before": before,
                "after": f.obb(),
                "friends": friends,
            }
        )
        return res


def _poly(o: Any) -> shapely.Polygon:
    return shapely.Polygon(corners(o))


def _fled_through_battle(scenario: Any, ruleset: str, seed: int, bounds: int) -> tuple[Any, Any]:
    b = _battle(scenario, ruleset, seed)
    spy = _Spy(b)
    while b.state.bound < bounds and not b.finished:
        b.step()
    return b, spy


def _check_fled_through(b: Battle, spy: _Spy) -> int:
    """Every flee move's crossed friends, from its own rectangles (a straight move: the hull of
    the rectangle before and after), against the Command Tests in that bound's Resolution."""
    fired = 0
    crossed: dict[int, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for c in spy.calls:
        a, z = _poly(c["before"]), _poly(c["after"])
        assert c["before"].facing == pytest.approx(c["after"].facing)  # flee moves go straight
        swept = a.union(z).convex_hull
        for gid, (box, _morale, _loose) in c["friends"].items():
            # never ends on a friend (it stops at the near side, and disperses in the End phase)
            assert z.intersection(_poly(box)).area < 1.0, (c["f"], gid)
            if swept.intersection(_poly(box)).area > 1.0:
                crossed[c["bound"]][gid].add(c["f"])
    for rec in b.log.bounds:
        tests = {
            e.formation: e
            for e in rec.events
            if e.type == "wc_test"
            and e.triggers
            and e.triggers[0].startswith("friends fled through")
        }
        want = crossed.get(rec.bound, {})
        for fid, e in tests.items():
            assert fid in want, (rec.bound, fid)
            assert e.phase == "resolution" and e.test == "command"
            assert e.triggers[0] == "friends fled through: " + ", ".join(sorted(want[fid]))
            _check_score(e)
            passed = e.score <= e.mv
            assert e.outcome == ("pass" if passed else "disordered"), e
            disorder = [x for x in rec.events if x.type == "retreat" and x.formation == fid]
            assert bool(disorder) == (not passed)
            fired += 1
        # a crossed friend in good order and in battle formation tested, unless it broke or
        # was destroyed earlier in the bound
        for fid in want:
            _box, morale, loose = next(
                c["friends"][fid]
                for c in spy.calls
                if c["bound"] == rec.bound and fid in c["friends"]
            )
            broke = any(
                x.type in ("rout", "retreat", "destroyed") and x.formation == fid
                for x in rec.events
            )
            if morale is Morale.STEADY and not loose and not broke:
                assert fid in tests, (rec.bound, fid)
    return fired


def test_resolution_2_friends_fled_through_maldon_dark_age() -> None:
    """Maldon (OS Terrain 50) under dark-age, seed 21: the Viking archers flee through Olaf's
    retinue at bound 8; the retinue takes the Command Test in that bound's Resolution phase
    (seed 7 and the second ship crew until formed units kept their aim within 5.15's
    deviation; seed 27, bound 9, until skirmishers fell back before formed enemy, 5.12; seed 17
    until a unit that breaks in Resolution made its flee move there, seed 9 until formations
    in contact closed base to base and friends were side-stepped, seed 6 before Maldon's
    English closed into one Battle Line, 5.5: each moved the fight)."""
    b, spy = _fled_through_battle(load_scenario("maldon_991"), DA, 21, 9)
    assert _check_fled_through(b, spy) >= 1
    (e,) = [
        e for e in _tests(b, 8) if e.triggers and e.triggers[0].startswith("friends fled through")
    ]
    assert (e.formation, e.triggers[0]) == ("vk_hird", "friends fled through: vk_archers")
    assert len(e.dice.faces) == 3  # a battle formation over half strength: 3d6, two lowest


class _Loaded(Dice):
    """Seeded dice whose rolls for the named purposes (a prefix each) come up with the faces
    given, in turn: the one throw a test is about, with the rest of the battle left to chance."""

    def __init__(self, seed: int, loads: dict[str, list[tuple[int, ...]]]) -> None:
        super().__init__(seed)
        self.loads = loads

    def _faces(self, n: int, sides: int, purpose: str) -> tuple[int, ...]:
        for prefix, faces in self.loads.items():
            if purpose.startswith(prefix) and faces:
                assert len(faces[0]) == n, (purpose, faces[0])
                return faces.pop(0)
        return super()._faces(n, sides, purpose)


def test_resolution_2_friends_fled_through_teutoburg_wc_morale_drilled_reroll() -> None:
    """Teutoburg (Kalkriese) under 2mm-earth-v0.9+wc-morale: the Roman horse (Numonius Vala's,
    who "deserted the army and fled towards the Rhine", Velleius Paterculus 2.119) breaks 2 m
    south of legio XVIII, which holds Varus, and flees north through it; the legion, drilled
    and within Varus' zone of command (+1), fails its first throw and passes on the re-roll.
    Built on the battle's own ground and troops (every side told to hold, so the legion stands
    where it was put), since where a flight crosses a legion in a whole battle moves with every
    change to how the fight is played (found at seed 4, then seed 10, until formations whose
    outlines touched closed base to base from standing, 3.2)."""
    sc = attack_everything(load_scenario("teutoburg_ad9"), "hold")
    b = _battle(sc, WC, 10, plan=False)
    legion, horse = b.state.formations["rm_leg_xviii"], b.state.formations["rm_alae"]
    # the horse's rectangle 2 m short of the legion's south face (both face west: their
    # north-south extent is the half width)
    horse.set_pose(legion.cx, legion.cy - legion.obb().hw - horse.obb().hw - 2.0, horse.facing)
    horse.morale = Morale.ROUTING
    horse.routed_bound = horse.changed_bound = 0
    b.ctx.dice = _Loaded(10, {"command rm_leg_xviii (friends fled": [(6, 6, 6), (1, 1, 1)]})
    spy = _Spy(b)
    b.step()
    assert _check_fled_through(b, spy) == 1
    (e,) = [e for e in _tests(b, 1) if e.triggers and e.triggers[0].startswith("friends fled")]
    assert (e.formation, e.triggers) == (
        "rm_leg_xviii",
        ("friends fled through: rm_alae", wc.ZONE),
    )
    assert e.mv == wc.morale_value(legion) + 1
    assert sum(sorted(e.dice.faces)[:2]) > e.mv  # the first throw failed
    assert e.reroll is not None and e.reroll.purpose.endswith("(drilled re-roll)")
    assert e.outcome == "pass" and e.score == sum(sorted(e.reroll.faces)[:2]) <= e.mv
    assert legion.morale is Morale.STEADY
    (path,) = [c for c in spy.calls if c["f"] == "rm_alae"]
    assert path["after"].cy - path["before"].cy > 2 * (legion.obb().hw + horse.obb().hw)


# -- Command Tests for chart 9.3's order rolls --------------------------------------------------


@pytest.mark.parametrize(
    ("scenario", "ruleset", "seed", "formation"),
    [("flodden_1513", WC, 3, "sc_argyll"), ("maldon_991", DA, 1, "en_hearth")],
)
def test_command_tests_decide_chart_9_3_orders(
    scenario: str, ruleset: str, seed: int, formation: str
) -> None:
    """Rash troops ordered to hold (chart 9.3 asks for a die) take a W&C Command Test instead:
    passed, they hold; failed, they attack (the chart's other result). No 9.3 die is rolled."""
    b = _battle(load_scenario(scenario), ruleset, seed)
    b.step()
    events = b.log.bounds[-1].events
    assert not [e for e in events if e.type == "order_roll"]
    (e,) = [e for e in _tests(b, 1) if e.formation == formation]
    assert e.phase == "orders" and e.test == "command"
    assert e.triggers[0] == "order hold (9.3, rash)"
    _check_score(e)
    want = "pass: hold" if e.score <= e.mv else "fail: attack"
    assert e.outcome == want
    f = b.state.formations[formation]
    assert f.held == (want == "pass: hold")


def test_drilled_legions_reroll_failed_command_tests_teutoburg() -> None:
    """Teutoburg (Kalkriese) under dark-age, every formation ordered to retreat at bound 1:
    normal troops must pass a Command Test to retreat (9.3's roll). The legionaries are
    drilled (data/troops/wc_discipline.csv) and re-roll a failure; the German warband is
    undisciplined (2d6); nobody else re-rolls."""
    sc = attack_everything(load_scenario("teutoburg_ad9"), "retreat")
    rerolled = 0
    for seed in range(1, 7):
        b = _battle(sc, DA, seed, plan=False)
        b.step()
        tests = [e for e in _tests(b, 1) if e.test == "command"]
        assert tests
        for e in tests:
            f = b.state.formations[e.formation]
            unit = wc.wc_unit(f, sc)
            _check_score(e)
            if unit.discipline is Discipline.DRILLED:
                first = sum(sorted(e.dice.faces)[:2])
                assert (e.reroll is not None) == (first > e.mv), e
                rerolled += e.reroll is not None
            else:
                assert e.reroll is None
            if unit.discipline is Discipline.UNDISCIPLINED:
                assert len(e.dice.faces) == 2
        if rerolled:
            break
    assert rerolled, "no drilled re-roll in six seeds"


def test_undisciplined_warband_rolls_2d6_only_in_command_tests_teutoburg() -> None:
    """Command Tests: "Battle Formations over half strength roll 3d6 ... There are two
    exceptions: Undisciplined Formations only roll 2d6. Drilled Formations may always re-roll
    failed Command Tests." Both exceptions are the Command Tests'; a morale test is the Morale
    Rules' ("Battle Formations over half strength may roll 3d6"). Teutoburg under
    2mm-earth-v0.9+wc-morale: the German warband's Command Tests throw two dice, and its morale
    tests three while it is a battle formation over half strength (none did before). The
    warband seldom tests, since it mostly wins: these are battles where it does, under both W&C
    compositions."""
    sc = load_scenario("teutoburg_ad9")
    three = 0
    for ruleset, seed in ((WC, 3), (DA, 4), (DA, 5)):
        b = _battle(sc, ruleset, seed)
        b.run()
        for e in _tests(b):
            f = b.state.formations[e.formation]
            if wc.wc_unit(f, sc).discipline is not Discipline.UNDISCIPLINED:
                continue
            _check_score(e)
            if e.test == "command":
                assert len(e.dice.faces) == 2, e
            elif e.test == "morale":
                three += len(e.dice.faces) == 3
    assert three >= 1


# -- the Army General's zone of command -----------------------------------------------------------


def test_general_zone_of_command_adds_one_to_command_tests() -> None:
    """Army General: +1 MV within 10" (254 m at 1 mm = 1 m) of the General, to at most 10;
    every command test's MV in a Teutoburg retreat is the unit's MV, plus one exactly when its
    leader is within 254 m of its side's General's base (measured here with shapely)."""
    sc = attack_everything(load_scenario("teutoburg_ad9"), "retreat")
    b = _battle(sc, DA, 2, plan=False)
    states = {}
    # the distances at the moment of the test: the orders phase, before anything moves
    for f in b.state.formations.values():
        states[f.id] = wc.leader_xy(f)
    general = {}
    for side in b.state.sides.values():
        ch = b.state.characters[side.general]
        base = b.state.bases[ch.base]
        general[side.id] = shapely.Point(base.x, base.y)
    b.step()
    seen = set()
    for e in _tests(b, 1):
        f = b.state.formations[e.formation]
        mv = wc.morale_value(f)
        near = shapely.Point(states[f.id]).distance(general[f.side]) <= TWO_MM_EARTH.metres(10)
        bonus = 1 if near and mv < 10 else 0
        assert e.mv == mv + bonus, e
        assert (wc.ZONE in e.triggers) == bool(bonus)
        seen.add(bonus)
    assert seen == {0, 1}  # both cases fire in this battle


# -- End Phase 4: one Strategy Roll a turn --------------------------------------------------------


def test_one_strategy_roll_a_turn_flodden() -> None:
    """The Strategy Roll is made once a turn (End Phase 4 for the next turn; the first turn's in
    its orders phase), and the Resolution and End phases use it rather than rolling again."""
    b = _battle(load_scenario("flodden_1513"), WC, 3)
    for _ in range(8):
        b.step()
    rolls = [(rec.bound, e) for rec in b.log.bounds for e in rec.events if e.type == "wc_strategy"]
    assert [e.bound for _, e in rolls] == list(range(1, 10))
    assert rolls[0][1].phase == "orders" and all(e.phase == "end" for _, e in rolls[1:])
    assert all(rec_bound == e.bound - 1 for rec_bound, e in rolls[1:])
    for _, e in rolls:
        a, c = e.dice[-1].faces
        assert a != c and e.order[0] == (sorted(b.state.sides)[0 if a > c else 1])
        assert all(d.faces[0] == d.faces[1] for d in e.dice[:-1])  # ties re-rolled
    assert not [d for d in b.ctx.dice.history if d.purpose.startswith("strategic advantage")]


def test_strategic_advantage_orders_the_tests(minden: Any) -> None:
    """Resolution Summary 1: "Player with Strategic Advantage chooses 1st & then alternate":
    with blue holding it this turn, blue's tests come first, then red's, in turn."""
    b = _wc_battle(
        minden,
        [
            {"id": "r1", "profile": "inf", "bases": 2, "at": (0, 0)},
            {"id": "r2", "profile": "inf", "bases": 2, "at": (150, 0)},
            {"id": "r3", "profile": "inf", "bases": 2, "at": (300, 0)},
        ],
        [
            {"id": "b1", "profile": "inf", "bases": 2, "at": (0, 600), "facing": 180},
            {"id": "b2", "profile": "inf", "bases": 2, "at": (150, 600), "facing": 180},
        ],
    )
    ctx = b.ctx
    notes = wc.notes(ctx)
    notes.order, notes.order_bound = ("blue", "red"), b.state.bound
    for f in b.state.formations.values():
        f.alive_at_start, f.killed_in_bound = f.n_alive + 1, 1  # lost one of three: 33 %
    ctx.dice = ScriptedDice([1, 1, 1] * 5)  # everyone passes; no Strategy Roll is made
    events = wc.resolution_phase(ctx, TWO_MM_EARTH, "resolution")
    order = [e.formation for e in events if e.type == "wc_test"]
    assert order == ["b1", "r1", "b2", "r2", "r3"]
    assert not [e for e in events if e.type == "wc_strategy"]


# -- restraining pursuit ---------------------------------------------------------------------------


ROOT = Path(__file__).resolve().parents[1]
RULES_ARMIES = (
    str(ROOT / "tests/data/troops/rules_red.yaml"),
    str(ROOT / "tests/data/troops/rules_blue.yaml"),
)


@pytest.fixture(scope="module")
def minden(built_minden) -> Any:
    return built_minden.battlefield


def _wc_battle(minden: Any, red: list[dict[str, Any]], blue: list[dict[str, Any]]) -> Battle:
    sc = make_scenario(red, blue, armies=RULES_ARMIES, origin=flat_origin(minden))
    return Battle(minden, sc, Dice(1), ruleset=get_ruleset(WC))


def test_restraining_pursuit_is_a_command_test(minden: Any) -> None:
    """A formation commanded to hold whose enemy in contact breaks restrains its men only if it
    passes a Command Test (the host's "unless commanded to hold", 2mm Earth 11.1, as W&C's
    "maneuver or response"); failing, it pursues and the flee/pursuit roll-off follows."""
    for dice, restrained in (
        ([6, 6, 6, 4, 4, 1, 1, 1, 1], True),
        ([6, 6, 6, 6, 6, 5, 1, 1, 6, 6], False),
    ):
        b = _wc_battle(
            minden,
            [{"id": "r", "profile": "inf", "bases": 4, "at": (0, 0)}],
            [{"id": "x", "profile": "inf", "bases": 4, "at": (0, 20.5), "facing": 180}],
        )
        from engine.movement import update_contacts

        b.ctx.base_pairs = update_contacts(b.state)
        assert b.state.contacts["r"] == ("x",)
        r, x = b.state.formations["r"], b.state.formations["x"]
        r.held = True
        notes = wc.notes(b.ctx)
        notes.order, notes.order_bound = ("blue", "red"), b.state.bound
        x.killed_in_bound, x.alive_at_start = 1, 4  # x lost the combat (r lost none)
        wc.record_fought(b.ctx)  # the round r and x fought this bound
        b.ctx.dice = ScriptedDice(dice)
        events = wc.resolution_phase(b.ctx, TWO_MM_EARTH, "resolution")
        (test,) = [e for e in events if e.type == "wc_test" and e.test == "command"]
        assert test.formation == "r" and test.triggers[0] == "restrain pursuit of x"
        assert test.outcome == ("restrained" if restrained else "pursues")
        assert [e.type for e in events if e.type == "pursuit"] == (
            [] if restrained else ["pursuit"]
        )
        assert (r.pursuing is None) == restrained


# -- Morale Tests in battle: failing while engaged, skirmishers, one test a phase ---------------


def test_a_winner_that_fails_holds_and_cannot_pursue(minden: Any) -> None:
    """Morale Tests (engaged): "If the unit has won the combat, it cannot pursue & stays where it
    is". r beat x; x fails and flees; r, made to test by a fleeing friend within 5", fails too:
    it holds, and nobody pursues x."""
    b = _wc_battle(
        minden,
        [
            {"id": "r", "profile": "inf", "bases": 4, "at": (0, 0)},
            {"id": "r2", "profile": "inf", "bases": 4, "at": (0, -60)},
        ],
        [{"id": "x", "profile": "inf", "bases": 4, "at": (0, 20.5), "facing": 180}],
    )
    from engine.movement import update_contacts

    b.ctx.base_pairs = update_contacts(b.state)
    r, r2, x = (b.state.formations[k] for k in ("r", "r2", "x"))
    assert b.state.contacts["r"] == ("x",)
    r2.morale = Morale.ROUTING  # 60 m (2.4") behind r's leader, as strong as r
    notes = wc.notes(b.ctx)
    notes.order, notes.order_bound = ("blue", "red"), b.state.bound
    x.killed_in_bound, x.alive_at_start = 1, 4
    wc.record_fought(b.ctx)  # the round r and x fought this bound
    b.ctx.dice = ScriptedDice([6, 6, 6, 6, 6, 6])  # x fails, then r fails
    events = wc.resolution_phase(b.ctx, TWO_MM_EARTH, "resolution")
    tests = {e.formation: e for e in events if e.type == "wc_test"}
    assert tests["x"].outcome == "flee" and x.morale is Morale.ROUTING
    assert tests["r"].triggers == ("fleeing friend",) and tests["r"].outcome == "hold"
    assert r.morale is Morale.STEADY and r.pursuing is None
    assert not [e for e in events if e.type == "pursuit"]


def test_battle_formations_ignore_fleeing_skirmishers(minden: Any) -> None:
    """Morale Tests: "Battle formations ignore fleeing skirmishers"; a skirmish formation near the
    same fleeing skirmishers tests."""
    b = _wc_battle(
        minden,
        [
            {"id": "line", "profile": "inf", "bases": 2, "at": (0, 0)},
            {"id": "bows", "profile": "skirm", "bases": 2, "at": (0, -100)},
            {"id": "flee", "profile": "skirm", "bases": 4, "at": (100, -50)},
        ],
        [{"id": "x", "profile": "inf", "bases": 2, "at": (0, 900), "facing": 180}],
    )
    b.state.formations["flee"].morale = Morale.ROUTING
    notes = wc.notes(b.ctx)
    notes.order, notes.order_bound = ("red", "blue"), b.state.bound
    b.ctx.dice = ScriptedDice([1, 1])
    events = wc.resolution_phase(b.ctx, TWO_MM_EARTH, "resolution")
    tested = [(e.formation, e.triggers) for e in events if e.type == "wc_test"]
    assert tested == [("bows", ("fleeing friend",))]


def test_one_morale_test_per_unit_per_resolution_phase_teutoburg() -> None:
    """ "Units only need to take one Morale test during the Resolution Phase": over a whole
    Teutoburg battle (wc-morale, seed 4) no formation takes two in one phase, and every
    Resolution phase runs its tests before its pursuits."""
    b = _battle(load_scenario("teutoburg_ad9"), WC, 4)
    b.run(30)
    n = 0
    for rec in b.log.bounds:
        res = [e for e in rec.events if e.phase == "resolution"]
        morale = [e.formation for e in res if e.type == "wc_test" and e.test == "morale"]
        assert len(morale) == len(set(morale)), rec.bound
        firsts = [i for i, e in enumerate(res) if e.type == "pursuit"]
        if firsts:
            late = [e for e in res[firsts[0] :] if e.type == "wc_test" and e.test == "morale"]
            assert not late, rec.bound
        n += len(morale)
    assert n > 5


@pytest.mark.parametrize("gap_m", [60.0, 100.0])
def test_a_fleeing_unit_passes_through_friends_but_never_ends_on_one(
    minden: Any, gap_m: float
) -> None:
    """Resolution Summary 2 and End Phase 3 on one move: a routing formation flees south through
    the friend behind it (which takes the Command Test) when it can clear it; when its move would
    end on the friend it stops at the friend's near side, touching it, and is dispersed in the
    End phase if it does not rally first ("Fleeing troops that contact friend or foe are
    dispersed", after "Rally Fleeing Troops")."""
    b = _wc_battle(
        minden,
        [
            {"id": "front", "profile": "inf", "bases": 4, "at": (0, 0)},
            {"id": "behind", "profile": "inf", "bases": 4, "at": (0, -gap_m)},
        ],
        [{"id": "x", "profile": "inf", "bases": 4, "at": (0, 400), "facing": 180}],
    )
    front, behind = b.state.formations["front"], b.state.formations["behind"]
    front.morale = Morale.ROUTING
    front.routed_bound = front.changed_bound = 0
    spy = _Spy(b)
    rec = b.step()
    (call,) = [c for c in spy.calls if c["f"] == "front"]
    moved = call["before"].cy - call["after"].cy
    far_edge = gap_m + behind.obb().hd + call["after"].hd  # where front's centre clears behind
    tests = [e for e in rec.events if e.type == "wc_test" and e.test == "command"]
    assert (moved >= far_edge) == (gap_m == 60.0)  # 100 m behind: the rout move ends on it
    if moved >= far_edge:  # it fled through
        (t,) = tests
        assert (t.formation, t.triggers[0]) == ("behind", "friends fled through: front")
        assert front.morale is not Morale.DESTROYED or front.removed
    else:  # it would have ended on "behind": stopped touching it, then dispersed
        assert not tests
        gap = gap_m - moved - behind.obb().hd - call["after"].hd
        assert -0.5 <= gap <= 1.0, gap
        (rally,) = [e for e in rec.events if e.type == "wc_test" and e.test == "rally"]
        dispersed = [e for e in rec.events if e.type == "destroyed" and e.formation == "front"]
        assert bool(dispersed) == (rally.outcome == "flees")  # a rallied unit is not fleeing
    assert _check_fled_through(b, spy) == len(tests)


@pytest.mark.parametrize(
    ("scenario", "ruleset", "seed", "bound", "formation", "fled", "outcome"),
    [
        # (Teutoburg seed 50 bound 12, rm_aux_van restrained, and Maldon seed 9 bound 17,
        # en_fyrd_right pursuing, until the round was judged as fought and a unit that broke
        # in Resolution fled there; Teutoburg seed 55 bound 14 until the battles holding one
        # objective stood side by side; Teutoburg seed 18 and Maldon seed 28 bound 11 until
        # missile troops closed by Advance, 9.1, and formations in contact closed base to
        # base, 3.2; Maldon seed 20 bound 17 until its English closed into one Battle Line;
        # Maldon seed 1 bound 8 until formed units kept their aim within 5.15's deviation)
        ("teutoburg_ad9", WC, 55, 15, "gm_jav_east", "rm_aux_rear", "pursues"),
        ("maldon_991", DA, 21, 7, "en_fyrd_right", "vk_lith_1", "restrained"),
    ],
)
def test_restraining_pursuit_in_battle(
    scenario: str, ruleset: str, seed: int, bound: int, formation: str, fled: str, outcome: str
) -> None:
    """On shipped ground, in both compositions: a formation told to hold whose enemy in contact
    breaks takes the Command Test to restrain its men (Teutoburg: the German skirmishers fail
    and chase the Roman rearguard; Maldon: the right fyrd holds its ground)."""
    b = _battle(load_scenario(scenario), ruleset, seed)
    while b.state.bound < bound:
        b.step()
    events = b.log.bounds[-1].events
    (t,) = [e for e in _tests(b, bound) if e.triggers[:1] == (f"restrain pursuit of {fled}",)]
    assert (t.formation, t.phase, t.test, t.outcome) == (
        formation,
        "resolution",
        "command",
        outcome,
    )
    _check_score(t)
    assert (t.score <= t.mv) == (outcome == "restrained")
    rout = [e for e in events if e.type == "rout" and e.formation == fled]
    assert rout and events.index(rout[0]) < events.index(t)  # it broke in this phase's tests
    chase = [e for e in events if e.type == "pursuit" and e.formation == formation]
    assert bool(chase) == (outcome == "pursues")
    if chase:  # the flee/pursuit roll-off follows at once
        rolls = [d.purpose for d in b.ctx.dice.history[-40:]]
        assert f"pursue {formation} after {fled}" in rolls
