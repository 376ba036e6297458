"""The General's plans carried out on real ground, battle by battle (2mm Earth 9.1, 3.2).

Each fix is played in a whole shipped battle and read from its log: formed troops with
missiles close by Advance (9.1: Attack would make them shoot) and reach melee; an attack on a
place by them is an Advance to it; a formation plan's waypoints are marched without the
default "attack the nearest" taking over; a trigger's order is not undone by an objective; a
move that touches an enemy's outline goes on until bases touch (3.2); and a formation that
means to act and stands is named by an ``idle`` event with its cause and counted in the
result. Readings: docs/rules-interpretations.md ("Who closes and who shoots", "Contact base to
base", "The idle watcher").
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from engine.battle import Battle
from engine.dice import Dice
from engine.geometry import CONTACT_M
from engine.log import BattleLog
from engine.movement import base_pairs, close_with_bases
from engine.rulesets import get_ruleset
from engine.rulesets.two_mm_earth.commanders import REACHED_M, closes_on_advance
from engine.scenario import Scenario, load_scenario
from engine.state import BaseStatus
from scenario_builder.battle import build_battlefield, fight


@pytest.fixture(scope="module")
def ground() -> dict[str, Any]:
    return {}


def _built(cache: dict[str, Any], sid: str) -> Any:
    if sid not in cache:
        cache[sid] = build_battlefield(load_scenario(sid))
    return cache[sid]


def _fight(cache: dict[str, Any], sid: str, seed: int) -> BattleLog:
    log, _ = fight(load_scenario(sid), _built(cache, sid), seed)
    return log  # type: ignore[no-any-return]


def _of(log: BattleLog, kind: str) -> list[tuple[int, Any]]:
    return [(b.bound, e) for b in log.bounds for e in b.events if e.type == kind]


# -- who closes and who shoots (9.1) ------------------------------------------------------------


@pytest.mark.parametrize("seed", [1, 2])
def test_a_bill_and_bow_battle_reaches_melee(ground: dict[str, Any], seed: int) -> None:
    """Barnet: every battle is bill-and-bow (missiles and melee). Ordered to Advance, they go
    on into contact and fight hand to hand, as the sources say (the Arrivall); with Attack
    they would stand off and shoot for the whole battle (0 melee before)."""
    log = _fight(ground, "barnet_1471", seed)
    melee = _of(log, "melee")
    assert len(melee) >= 5, len(melee)
    fought = {e.formation for _, e in melee}
    assert any(f.startswith("ln_") for f in fought) and any(f.startswith("yk_") for f in fought)


@pytest.mark.parametrize("seed", [1, 3])
def test_a_musket_line_attacking_a_place_reaches_melee(ground: dict[str, Any], seed: int) -> None:
    """Gettysburg, 2 July: the Confederate brigades are sent to attack places (the Peach
    Orchard, Devil's Den). Musket infantry attacking a place Advance to it (9.1: Attack alone
    is to shoot), so the assault goes in and melee is fought (0 melee before, seeds 1-4)."""
    log = _fight(ground, "gettysburg_1863_day2", seed)
    orders = [e.order for _, e in _of(log, "order_issued") if e.formation == "cs_benning"]
    assert any(o.startswith("advance cs_benning to ") for o in orders), orders
    assert not any(o.startswith("attack cs_benning") for o in orders), orders
    melee = _of(log, "melee")
    assert melee and any(e.formation.startswith("cs_") for _, e in melee)


def test_who_closes_on_advance_by_profile(ground: dict[str, Any]) -> None:
    """Bill-and-bow and musket infantry close; melee-only troops charge by Attack (False);
    skirmishers and batteries stand off and shoot."""
    from engine.deploy import deploy

    want = {
        "barnet_1471": {"ln_oxford": True},
        "gettysburg_1863_day2": {"cs_benning": True, "us_usss": False, "us_smith": False},
        "flodden_1513": {"en_admiral": False, "en_guns": False, "en_admiral_bows": True},
    }
    for sid, cases in want.items():
        sc = load_scenario(sid)
        rs = get_ruleset(sc.ruleset)
        state = deploy(sc, rs.ground(_built(ground, sid).battlefield), rs)
        for fid, closes in cases.items():
            f = state.formations[fid]
            assert closes_on_advance(f) is closes, (sid, fid)


# -- plans carried out ---------------------------------------------------------------------------


def _with_plan(sid: str, side: str, extra: dict[str, Any], hold_but: str | None = None) -> Scenario:
    """Shipped ``sid`` with ``extra`` in ``side``'s plan; ``hold_but``: every other formation
    of the side ordered to hold (and no triggers), so the one planned acts alone."""
    sc = load_scenario(sid)
    data = sc.model_dump(mode="json", exclude_defaults=True)
    for s in data["sides"]:
        if s["id"] == side and hold_but is not None:
            for f in s["formations"]:
                if f["id"] != hold_but:
                    f["order"] = "hold"
                    f.pop("target_formation", None)
                    f.pop("target", None)
        if s["id"] == side:
            plan = sc.plan_of(side)
            merged = plan.model_dump(mode="json", exclude_defaults=True) if plan else {}
            merged.update(extra)
            if hold_but is not None:
                merged.pop("triggers", None)
                merged.pop("objectives", None)
            s["plan"] = merged
    new = Scenario.model_validate(data)
    new._path = sc.path
    return new


def test_a_flank_march_keeps_to_its_waypoints_then_attacks(ground: dict[str, Any]) -> None:
    """Halidon Hill: the Guardian's division marches round the English left by two waypoints
    that pass within striking distance of the English, then attacks Balliol's battle (the rest
    of the Scots stand, so the march is all that moves them). Every
    order until the last waypoint is reached is the march (the default "attack the nearest"
    no longer takes over a plan step: before, it alternated with the waypoint), and the
    attack follows."""
    sc = _with_plan(
        "halidon_hill_1333",
        "scots",
        {
            "points": {
                "wp1": {"lonlat": [-2.0780, 55.7840]},
                "wp2": {"lonlat": [-2.0655, 55.7805]},
            },
            "formations": [
                {
                    "formation": "sc_douglas",
                    "waypoints": ["wp1", "wp2"],
                    "steps": [{"target_formation": "en_balliol", "order": "attack"}],
                }
            ],
        },
        hold_but="sc_douglas",
    )
    # the English archers hold their fire (9.1 Hold) for the whole battle: the march is not
    # shot to pieces on the way (at Halidon it was the archers who broke the Scots)
    data = sc.model_dump(mode="json", exclude_defaults=True)
    english = next(s for s in data["sides"] if s["id"] == "english")
    english.setdefault("plan", {})["formations"] = [
        {"formation": f["id"], "hold_fire": {"until": {"bound": 500}}}
        for f in english["formations"]
        if f["id"].startswith("en_bows")
    ]
    sc2 = Scenario.model_validate(data)
    sc2._path = sc.path
    sc = sc2
    bf = _built(ground, "halidon_hill_1333").battlefield
    rs = get_ruleset(sc.ruleset)
    b = Battle(bf, sc, Dice(1), ruleset=rs, commanders=dict(rs.automatic_commanders(sc, bf)))
    plan = sc.plan_of("scots")
    assert plan is not None
    wp2 = plan.place("wp2", b.bf.to_xy)
    log = b.run()
    orders = [(bd, e.order) for bd, e in _of(log, "order_issued") if e.formation == "sc_douglas"]
    kinds = [o.split()[0] for _, o in orders]
    assert kinds[:3] == ["advance", "advance", "attack"], orders
    assert orders[2][1] == "attack sc_douglas on en_balliol", orders
    # the attack was given once the second waypoint was reached (the bound before)
    centres = {rec.bound: _centre(rec.snapshot, "sc_douglas") for rec in log.bounds if rec.snapshot}
    assert math.dist(centres[orders[2][0] - 1], wp2) <= REACHED_M
    # and on the way it passed within striking distance (300 m) of an English formation
    english = [f["id"] for f in log.header["formations"] if f["side"] == "english"]
    closest = min(
        math.dist(centres[bd], _centre(log.bounds[bd].snapshot, g))
        for bd in range(1, orders[2][0])
        for g in english
        if any(v["formation"] == g for v in log.bounds[bd].snapshot["bases"].values())
    )
    assert closest <= 400.0, closest


def test_a_plan_step_waits_for_a_friend_attacked_then_goes_on(ground: dict[str, Any]) -> None:
    """Flodden, seed 5: Dacre's Border horse hold until Edmund Howard's wing beside them is
    attacked (a step's ``until: {when: {attacked: en_edmund}}``, any trigger condition), then
    go on with their plan and charge Home's division - their own briefing, no messenger. A
    trigger could not write this: its order ends the formation's plan. (The shipped scenario's
    trigger waits for a quarter of Edmund's bases lost.)"""
    sc = load_scenario("flodden_1513")
    data = sc.model_dump(mode="json", exclude_defaults=True)
    eng = next(s for s in data["sides"] if s["id"] == "english")
    plan = sc.plan_of("english")
    assert plan is not None
    merged = plan.model_dump(mode="json", exclude_defaults=True)
    merged["triggers"] = [t for t in merged["triggers"] if "en_dacre" not in t["formations"]]
    merged["formations"] = [
        {
            "formation": "en_dacre",
            "steps": [
                {"order": "hold", "until": {"when": {"attacked": "en_edmund"}}},
                {"order": "attack", "target_formation": "sc_home"},
            ],
        }
    ]
    eng["plan"] = merged
    edited = Scenario.model_validate(data)
    edited._path = sc.path
    log, _ = fight(edited, _built(ground, "flodden_1513"), 5)
    attacked_at = None
    for b in log.to_dict()["bounds"]:
        bases = (b.get("snapshot") or {}).get("bases", {}).values()
        hit = any(v["state"] != "ok" for v in bases if v["formation"] == "en_edmund")
        in_melee = any(
            e["type"] == "melee" and "en_edmund" in (e.get("formation"), e.get("target"))
            for e in b["events"]
        )
        if hit or in_melee:
            attacked_at = b["bound"]
            break
    assert attacked_at is not None, "Home's division attacked Edmund Howard's wing"
    moves = [bd for bd, e in _of(log, "moved") if e.formation == "en_dacre" and e.distance_m > 1]
    assert moves and min(moves) > attacked_at, (attacked_at, moves[:3])
    sent = [(bd, e.order) for bd, e in _of(log, "order_received") if e.formation == "en_dacre"]
    assert "attack en_dacre on sc_home" in [o for _, o in sent], sent
    assert not [e for _, e in _of(log, "messenger_sent") if e.to == "en_dacre"]


def _centre(snapshot: dict[str, Any], fid: str) -> tuple[float, float]:
    xy = [(v["x"], v["y"]) for v in snapshot["bases"].values() if v["formation"] == fid]
    return (sum(x for x, _ in xy) / len(xy), sum(y for _, y in xy) / len(xy))


def test_a_triggered_advance_is_not_undone_by_the_objective(ground: dict[str, Any]) -> None:
    """Barnet: Montagu's battle holds the ridge (an objective) until an enemy comes within
    250 m, when a trigger orders it forward. The objective no longer sends it back to Hold
    every other bound: after the trigger, no Hold is issued to it."""
    log = _fight(ground, "barnet_1471", 1)
    orders = [(bd, e.order) for bd, e in _of(log, "order_issued") if e.formation == "ln_montagu"]
    fired = next(bd for bd, o in orders if o.startswith("advance"))
    assert not [o for bd, o in orders if bd > fired and o.startswith("hold")], orders


# -- contact base to base (3.2) ------------------------------------------------------------------


def test_a_holed_line_closes_until_bases_touch(ground: dict[str, Any]) -> None:
    """Flodden's ground: the Lord Admiral's vanguard (two ranks) has lost its front rank but
    for one end base, so its outline still runs along the front; Argyll's division comes up
    against that outline opposite the hole, touching no living base. close_with_bases carries
    it on until its bases touch the second rank (3.2), a base's depth less the contact
    tolerance, no further; nothing overlaps."""
    from engine.deploy import deploy
    from engine.geometry import FewSeparation

    sc = load_scenario("flodden_1513")
    rs = get_ruleset(sc.ruleset)
    state = deploy(sc, rs.ground(_built(ground, "flodden_1513").battlefield), rs)
    g = state.formations["en_admiral"]
    f = state.formations["sc_argyll"]
    g.set_pose(f.cx, f.cy + 400.0, 180.0)  # facing south, toward f
    f.set_pose(f.cx, f.cy, 0.0)
    front_y = min(b.y for b in g.bases)
    front = [b for b in g.bases if abs(b.y - front_y) < 1e-6]
    keep = max(front, key=lambda b: b.x)
    for b in front:
        if b is not keep:
            b.status = BaseStatus.DEAD
    g.place()
    # f opposite the hole, up to g's outline: the rectangles touch, no bases do
    f.set_pose(g.cx - 40.0, f.cy, 0.0)
    gap = (g.obb().cy - g.obb().hd) - (f.obb().cy + f.obb().hd)
    f.set_pose(f.cx, f.cy + gap, 0.0)
    assert not base_pairs(f, g)
    closed = close_with_bases(state, f, g, 0.0, 100.0)
    assert closed == pytest.approx(g.bases[0].d - CONTACT_M, abs=0.5), closed
    pairs = base_pairs(f, g)
    assert pairs and keep.id not in {q for _, q in pairs}
    few = FewSeparation.of_boxes([[float(v) for v in b.obb()] for b in g.alive_bases])
    assert min(min(few.gaps(b.obb())) for b in f.alive_bases) >= -1e-6  # touching, not over
    # and with no allowance left it does not move
    before = (f.cx, f.cy)
    assert close_with_bases(state, f, g, 0.0, 0.0) == 0.0 and (f.cx, f.cy) == before


def test_flodden_outlines_touching_close_from_standing(ground: dict[str, Any]) -> None:
    """Flodden seed 3: Argyll's division and Stanley's wing came to stand outline to outline
    with no bases touching, both planning charges, and the move phase passed over them as
    "in contact" for bounds 11 to 19 (idle events named them). A formation whose outline
    touches an enemy's with no living bases in contact now closes base to base from where it
    stands (3.2, within its move allowance): they fight hand to hand from bound 11 until
    Stanley's wing is destroyed, and no formation of the battle is idle with an intent."""
    log = _fight(ground, "flodden_1513", 3)
    melee = {(e.formation, e.target) for _, e in _of(log, "melee")}
    assert {("sc_argyll", "en_stanley"), ("en_stanley", "sc_argyll")} <= melee, melee
    closes = [
        (bd, e)
        for bd, e in _of(log, "moved")
        if e.formation == "sc_argyll" and e.halted == "contact_enemy" and e.distance_m < 5.0
    ]
    assert closes, "no close from standing"
    assert [bd for bd, e in _of(log, "destroyed") if e.formation == "en_stanley"]
    assert log.result is not None and log.result["idle"] == 0, log.result


# -- the idle watcher ----------------------------------------------------------------------------


def test_idle_formations_are_named_with_their_cause(ground: dict[str, Any]) -> None:
    """Gettysburg seed 1: Winslow's battery, ordered to attack (shoot), stands behind de
    Trobriand's brigade in the Wheatfield with nothing to shoot at past it; the watcher names
    it (blocked by friend us_trobriand) after 5 bounds, at bound 10, and the result counts the
    idle events. (Halidon Hill's battles crowding the King's point were the case until the
    formations holding one objective stood side by side.)"""
    log = _fight(ground, "gettysburg_1863_day2", 1)
    idle = _of(log, "idle")
    assert idle
    assert all(e.bounds % 5 == 0 and e.cause for _, e in idle)
    first = next((bd, e) for bd, e in idle if e.formation == "us_winslow")
    assert first[0] == 10 and first[1].bounds == 5, first
    assert first[1].cause == "blocked by friend us_trobriand", first
    assert log.result is not None and log.result["idle"] == len(idle)


def test_the_general_answers_an_idle_report(ground: dict[str, Any]) -> None:
    """Gettysburg seed 1: once the watcher names Winslow's battery blocked by de Trobriand's
    brigade on its way to its station in the Wheatfield line (bound 10), the General answers
    in the next bound (``replanned``): the place it stands is its station, and it holds there
    - so it is never reported idle again. The summary counts the answer among the events."""
    from scenario_builder.battle import summarise

    log = _fight(ground, "gettysburg_1863_day2", 1)
    idle = [(bd, e) for bd, e in _of(log, "idle") if e.formation == "us_winslow"]
    answers = [(bd, e) for bd, e in _of(log, "replanned") if e.formation == "us_winslow"]
    assert [bd for bd, _ in idle] == [10], idle
    assert len(answers) == 1 and answers[0][0] == 11, answers
    e = answers[0][1]
    assert (e.cause, e.order) == ("friend", "hold us_winslow"), e
    assert "wheatfield" in e.reason, e.reason
    issued = [
        ev for bd, ev in _of(log, "order_issued") if bd == 11 and ev.formation == "us_winslow"
    ]
    assert [ev.order for ev in issued] == ["hold us_winslow"]
    summary = summarise(log, load_scenario("gettysburg_1863_day2"))
    assert summary["events"]["replanned"] >= 1


def test_a_formation_barred_from_its_enemy_goes_at_the_nearest(ground: dict[str, Any]) -> None:
    """Flodden under 2mm Earth with W&C morale, seed 3: the Lord Admiral's vanguard, sent at
    the King's division, stands behind a friend for 5 bounds (idle at bound 10, engine.jams'
    side-step did not get it round); the General re-aims it at the nearest enemy, Errol's
    division, in the next bound."""
    sc = load_scenario("flodden_1513")
    log, _ = fight(sc, _built(ground, "flodden_1513"), 3, ruleset="2mm-earth-v0.9+wc-morale")
    idle = [(bd, e.formation) for bd, e in _of(log, "idle")]
    assert (10, "en_admiral") in idle, idle
    answers = [(bd, e.formation, e.order) for bd, e in _of(log, "replanned")]
    assert (11, "en_admiral", "attack en_admiral on sc_errol") in answers, answers


def test_guns_with_nothing_in_range_are_told_to_hold(ground: dict[str, Any]) -> None:
    """Chacabuco seed 1: the Royalist guns, ordered to attack (shoot), have no enemy in range
    or sight for 5 bounds (idle at bound 14); the General tells them to hold (they cannot
    close: war machines stand off and shoot, 9.1), so they shoot what comes into range and
    are not reported again."""
    log = _fight(ground, "chacabuco_1817", 1)
    idle = [(bd, e.cause) for bd, e in _of(log, "idle") if e.formation == "rs_guns"]
    answers = [(bd, e.order) for bd, e in _of(log, "replanned") if e.formation == "rs_guns"]
    assert idle == [(14, "no enemy in range or in sight to attack")], idle
    assert answers == [(15, "hold rs_guns")], answers


def test_maldon_shieldwalls_in_contact_fight_it_out(ground: dict[str, Any]) -> None:
    """Maldon (dark-age) seed 2: the shieldwalls that stood planning charges and moving 0 m
    from bound 14 to 40 (the holed unit's outline touching the enemy, no living stand) now
    close base to base and fight: the battle is decided well before its 40 bounds, every
    steady formation with an intent acted within 5 bounds (no idle event), and close-quarter
    melee is fought on both sides."""
    log = _fight(ground, "maldon_991", 2)
    assert log.result is not None
    assert log.result["winner"] is not None and log.result["bounds"] < 40, log.result
    assert log.result["idle"] == 0 and "stall" not in log.result, log.result
    melee = _of(log, "melee")
    assert {e.formation[:3] for _, e in melee} == {"en_", "vk_"}


def test_maldon_closing_from_standing_tries_the_next_pair_of_stands(
    ground: dict[str, Any],
) -> None:
    """Maldon (dark-age) seed 1: the third Viking lið stands outline to outline with the left
    fyrd, turned 70 degrees from it, no stands touching. The way toward the nearest pair of
    stands is barred (another of its stands would stand on one of theirs first), while the next
    pair's is open: it closes that way and fights (before, it planned its charge and moved 0 m
    for 25 bounds, "a move planned but not made", and the battle went 40 bounds undecided)."""
    log = _fight(ground, "maldon_991", 1)
    assert log.result is not None and log.result["winner"] is not None, log.result
    stuck = [(bd, e) for bd, e in _of(log, "idle") if e.cause == "a move planned but not made"]
    assert not stuck, stuck
    melee = {e.formation for _, e in _of(log, "melee")}
    assert "vk_lith_3" in melee, melee


def test_battles_holding_one_objective_stand_side_by_side(ground: dict[str, Any]) -> None:
    """Halidon Hill: the three English battles hold one point (the hill). Each is sent to its
    own station in a line through it, square to the Scots, in the order they stand, so they
    stand side by side: by bound 6 no two of their rectangles overlap or touch end to end
    more than the 20 m gap allows, and none was idle behind the King's battle (before, Norfolk's
    and Balliol's pressed onto his point: 'blocked by friend en_king' for 30 bounds)."""
    from engine.geometry import obb_array, separation

    sc = load_scenario("halidon_hill_1333")
    bf = _built(ground, "halidon_hill_1333").battlefield
    rs = get_ruleset(sc.ruleset)
    b = Battle(bf, sc, Dice(2), ruleset=rs, commanders=dict(rs.automatic_commanders(sc, bf)))
    for _ in range(6):
        b.step()
    forms = [b.state.formations[x] for x in ("en_norfolk", "en_king", "en_balliol")]
    for i, f in enumerate(forms):
        others = [g for g in forms[i + 1 :]]
        if others:
            gaps = separation(f.obb(), obb_array([g.obb() for g in others]))
            assert (gaps >= 20.0 - 1.0).all(), (f.id, gaps)
    log = b.run()
    idle = [(bd, e) for bd, e in _of(log, "idle") if e.cause == "blocked by friend en_king"]
    assert not idle, idle
