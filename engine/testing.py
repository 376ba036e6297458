"""A check suite shipped with the package (PettingZoo's ``api_test``): ``check_ruleset()``.

Plays a battle phase by phase and asserts, after every phase, the engine's invariants:

- the phases of every bound come in the 1.1 order (:data:`engine.bound.PHASES`);
- only legal orders are issued (kind, own formation still on the table);
- morale states are valid and change only along the legal transitions;
- casualties never decrease and a dead base never comes back;
- removed bases never act (no shot, strike or move by a formation already gone);
- bases never overlap;
- no base moves beyond its allowance (any point of the base, 6.1 / 11.3);
- the battle ends within ``max_bounds``.

Run it against every registered ruleset in the test suite::

    from engine.testing import check_ruleset
    report = check_ruleset("2mm-earth-v0.9", seed=3)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from engine.bound import PHASES
from engine.geometry import corners, obb_array, separation
from engine.orders import Order
from engine.state import MORALE_TRANSITIONS, BattleState, Morale

__all__ = ["CheckReport", "attack_everything", "check_battle", "check_ruleset"]

_ACTIONS = {"shot": "formation", "melee": "formation", "moved": "formation"}


@dataclass
class CheckReport:
    ruleset: str
    seed: int
    bounds: int = 0
    phases: int = 0
    result: dict[str, Any] | None = None
    events: dict[str, int] = field(default_factory=dict)


def attack_everything(scenario: Any) -> Any:
    """A copy of ``scenario`` with every formation ordered to attack (so the battle is busy)."""
    data = scenario.model_dump()
    for side in data["sides"]:
        for f in side["formations"]:
            f["order"] = "attack"
            f["target"] = None
    new = type(scenario).model_validate(data)
    new._path = scenario.path
    new._armies = dict(scenario._armies)
    return new


def _fail(msg: str) -> None:
    raise AssertionError(msg)


def _check_overlaps(state: BattleState, where: str, tol: float = 0.5) -> None:
    bases = [b for f in state.active() for b in f.alive_bases]
    if len(bases) < 2:
        return
    arr = obb_array([b.obb() for b in bases])
    for i, b in enumerate(bases[:-1]):
        rest = arr[i + 1 :]
        near = np.hypot(rest[:, 0] - b.x, rest[:, 1] - b.y) < 60.0
        if not near.any():
            continue
        gaps = separation(b.obb(), rest[near])
        bad = np.flatnonzero(gaps < -tol)
        if bad.size:
            other = [bases[i + 1 + k] for k in np.flatnonzero(near)][int(bad[0])]
            _fail(f"{where}: bases {b.id} and {other.id} overlap by {-gaps[bad[0]]:.2f} m")


def _max_point_shift(before: tuple[float, float, float], b: Any) -> float:
    from engine.geometry import OBB

    c0 = corners(OBB(before[0], before[1], b.w / 2.0, b.d / 2.0, before[2]))
    c1 = corners(b.obb())
    return float(np.max(np.hypot(*(c1 - c0).T)))


def check_battle(battle: Any, max_bounds: int | None = None) -> CheckReport:
    """Run ``battle`` to its end, asserting the invariants after every phase."""
    limit = max_bounds if max_bounds is not None else battle.scenario.max_bounds
    state: BattleState = battle.state
    report = CheckReport(battle.ruleset.name, battle.dice.seed or 0)
    dead: set[str] = {b.id for f in state.formations.values() for b in f.bases if not b.alive}
    losses = state.losses()
    morale = {fid: f.morale for fid, f in state.formations.items()}
    dead_pos = {b.id: (b.x, b.y) for f in state.formations.values() for b in f.bases if not b.alive}
    while not battle.finished:
        if state.bound >= limit:
            _fail(f"battle did not end within {limit} bounds")
        removed_before = {fid for fid, f in state.formations.items() if f.removed}
        seen_phases: list[str] = []
        n_events = 0
        for phase in battle.phases():
            seen_phases.append(phase)
            report.phases += 1
            where = f"bound {state.bound} {phase}"
            if state.phase != phase:
                _fail(f"{where}: state.phase is {state.phase!r}")
            new_events = battle.ctx.events[n_events:]
            n_events = len(battle.ctx.events)
            for e in new_events:
                if e.type == "order_issued":
                    o = Order.from_text(e.order)
                    f = state.formations[o.formation]
                    if f.side != e.side:
                        _fail(f"{where}: {e.side} ordered {o.formation} of {f.side}")
                if e.type in _ACTIONS:
                    actor = getattr(e, _ACTIONS[e.type])
                    if actor in removed_before:
                        _fail(f"{where}: removed formation {actor} acted ({e.type})")
            # morale states and transitions
            for fid, f in state.formations.items():
                if f.morale not in Morale:
                    _fail(f"{where}: {fid} has morale {f.morale!r}")
                old = morale[fid]
                if f.morale is not old and f.morale not in MORALE_TRANSITIONS[old]:
                    _fail(f"{where}: {fid} went {old.value} -> {f.morale.value}")
                morale[fid] = f.morale
            # casualties
            now = state.losses()
            for side, n in now.items():
                if n < losses[side]:
                    _fail(f"{where}: {side} losses fell from {losses[side]} to {n}")
            losses = now
            for f in state.formations.values():
                for b in f.bases:
                    if b.id in dead:
                        if b.alive:
                            _fail(f"{where}: dead base {b.id} came back")
                        if (b.x, b.y) != dead_pos[b.id]:
                            _fail(f"{where}: dead base {b.id} moved")
                    elif not b.alive:
                        dead.add(b.id)
                        dead_pos[b.id] = (b.x, b.y)
            if phase == "execute_moves":
                _check_overlaps(state, where)
                _check_allowances(battle, where)
        if tuple(seen_phases) != PHASES:
            _fail(f"bound {state.bound}: phases {seen_phases}, expected {list(PHASES)}")
        report.bounds = state.bound
    if state.bound > limit:
        _fail(f"battle ran {state.bound} bounds, more than {limit}")
    report.result = battle.result
    for e in battle.log.events():
        report.events[e.type] = report.events.get(e.type, 0) + 1
    return report


def _check_allowances(battle: Any, where: str) -> None:
    ctx = battle.ctx
    ladders = {e.formation for e in ctx.events if e.type == "ladder"}
    for f in ctx.state.formations.values():
        if f.id in ladders:
            continue  # 8.3 ladder deployment is its own move
        allowance = ctx.allowances.get(f.id, 0.0)
        start = ctx.start_poses.get(f.id, {})
        for b in f.bases:
            if b.id not in start:
                continue
            shift = _max_point_shift(start[b.id], b)
            if shift > allowance + 0.05:
                _fail(f"{where}: base {b.id} moved {shift:.2f} m, allowance {allowance:.2f} m")


def check_ruleset(
    ruleset_name: str,
    scenario: Any = None,
    seed: int = 1,
    *,
    battlefield: Any = None,
    max_bounds: int | None = None,
) -> CheckReport:
    """Fight ``scenario`` (default: Flodden with every formation attacking) under
    ``ruleset_name`` and assert the engine's invariants after every phase (module docstring).

    ``battlefield`` defaults to the scenario's built ground.
    """
    from engine.battle import Battle
    from engine.dice import Dice
    from engine.scenario import load_scenario

    if scenario is None:
        scenario = attack_everything(load_scenario("flodden_1513"))
    elif not hasattr(scenario, "sides"):
        scenario = load_scenario(scenario)
    if battlefield is None:
        from scenario_builder.cli.run import build_battlefield

        battlefield = build_battlefield(scenario).battlefield
    battle = Battle(battlefield, scenario, Dice(seed), ruleset=ruleset_name)
    if max_bounds is not None:
        battle.scenario = scenario.model_copy(update={"max_bounds": max_bounds})
        battle.scenario._path = scenario.path
        battle.scenario._armies = dict(scenario._armies)
    report = check_battle(battle, max_bounds)
    if not math.isfinite(report.bounds):
        _fail("no bounds played")
    return report


def overlapping_pairs(state: BattleState, tol: float = 0.5) -> list[tuple[str, str]]:
    """Pairs of living bases overlapping by more than ``tol`` metres (for property tests)."""
    out = []
    bases = [b for f in state.active() for b in f.alive_bases]
    arr = obb_array([b.obb() for b in bases])
    for i, b in enumerate(bases[:-1]):
        gaps = separation(b.obb(), arr[i + 1 :])
        for k in np.flatnonzero(gaps < -tol):
            out.append((b.id, bases[i + 1 + int(k)].id))
    return out


# -- small scenarios for rules tests ----------------------------------------------------------


def flat_origin(bf: Any, size_m: float = 700.0) -> tuple[float, float]:
    """Centre of the first ``size_m`` square of one height level and plain ground (tests place
    troops there so sight and speed are not changed by the ground unless they mean it)."""
    from numpy.lib.stride_tricks import sliding_window_view

    w = max(2, int(size_m / bf.res))
    lv = bf.layer("level")
    mv = bf.layer("move")
    win_l = sliding_window_view(lv, (w, w))
    win_m = sliding_window_view(mv, (w, w))
    flat = (win_l.max(axis=(2, 3)) == win_l.min(axis=(2, 3))) & (win_m.max(axis=(2, 3)) == 0)
    idx = np.argwhere(flat)
    if not len(idx):
        raise ValueError(f"no flat {size_m} m square on {bf!r}")
    i, j = idx[len(idx) // 2]
    x, y = bf.transform @ (j + w / 2.0, i + w / 2.0)
    return (float(x), float(y))


def make_scenario(
    red: list[dict[str, Any]],
    blue: list[dict[str, Any]],
    *,
    armies: tuple[str, str],
    origin: tuple[float, float],
    slug: str = "minden",
    **fields: Any,
) -> Any:
    """A two-sided scenario from short formation dicts.

    Each formation dict takes the scenario fields plus ``at: (dx, dy)`` metres from ``origin``
    (instead of ``position``) and optionally ``character: <id>``; ``frontage`` defaults to the
    number of bases. Red's home edge is south, blue's north.
    """
    from engine.scenario import Scenario

    sides = []
    for sid, forms, army, home in (
        ("red", red, armies[0], "south"),
        ("blue", blue, armies[1], "north"),
    ):
        side: dict[str, Any] = {
            "id": sid,
            "name": sid.title(),
            "army": str(army),
            "home_edge": home,
            "formations": [],
            "characters": [],
        }
        for spec in forms:
            spec = dict(spec)
            dx, dy = spec.pop("at")
            ch = spec.pop("character", None)
            spec.setdefault("frontage", spec["bases"])
            spec["position"] = {"xy": [origin[0] + dx, origin[1] + dy]}
            side["formations"].append(spec)
            if ch:
                side["characters"].append({"id": ch, "formation": spec["id"]})
        sides.append(side)
    data = {
        "id": "rules_test",
        "name": "Rules test",
        "battlefield": {"slug": slug},
        "sides": sides,
        **fields,
    }
    return Scenario.model_validate(data)
