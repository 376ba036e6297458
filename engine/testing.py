"""A check suite shipped with the package (PettingZoo's ``api_test``): ``check_ruleset()``.

Plays a battle phase by phase and asserts, after every phase, the engine's invariants:

- the phases of every bound come in the ruleset's order (``ruleset.phases``);
- only legal orders are issued (kind, own formation still on the table);
- morale states are valid and change only along the legal transitions;
- casualties never decrease and a dead base never comes back;
- removed bases never act (no shot, strike or move by a formation already gone);
- bases never overlap;
- no base moves beyond its allowance (any point of the base, 6.1 / 11.3);
- no stall: the same formations are never stuck by each other (each stopped by a friend that
  is stopped by it, engine.jams) for ``engine.jams.STALL_BOUNDS`` (3) bounds running;
- the battle ends within ``max_bounds``;
- every event names the phase it happened in;
- no silent hooks (:func:`check_hooks`): every hook the ruleset class defines is overridden in
  turn (its ``hook_checks`` say how to perturb each one) and the battle must change; the hooks
  the core calls to set a battle up (``STRUCTURAL_HOOKS``) must be called.

Run it against every registered ruleset in the test suite::

    from engine.testing import check_ruleset
    report = check_ruleset("2mm-earth-v0.9", seed=3)
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from engine.geometry import corners, obb_array, separation
from engine.orders import Order
from engine.state import MORALE_TRANSITIONS, BattleState, Morale

if TYPE_CHECKING:
    from engine.seam import Ruleset
    from engine.terrain import Ground


__all__ = [
    "STRUCTURAL_HOOKS",
    "CheckReport",
    "attack_everything",
    "check_battle",
    "check_hooks",
    "check_ruleset",
]

#: hooks the core calls to set up or run every battle: checked by spying that they are called
#: Hooks the battle consults only once an army has broken (pursuit and aftermath):
#: checked on the whole battle, fought to its end with a pursuit allowed, not on its first bounds.
AFTER_BREAK_HOOKS = frozenset({"begin_aftermath", "pursuit_over", "casualties"})
#: bounds of pursuit the after-break check allows a scenario that gives none
AFTER_BREAK_PURSUIT = 6

STRUCTURAL_HOOKS = frozenset(
    {
        "ground",
        "classify_slope",
        "load_army",
        "prepare",
        "unplayable",  # asked once as the battle is set up (engine.rulesets.check_playable)
        "delivery",
        "commander",
        "automatic_commanders",
        "new_context",
        "start_bound",
        # asked as every bound ends (engine.idle); what it changes shows only after 5 idle
        # bounds, longer than some checked battles last
        "idle_view",
    }
)
#: public names of a ruleset that are helpers for its own code or the CLI, not hooks (the
#: scripted orders come in through the commanders a caller passes the battle, the troop list
#: schema and the odds are for ``scenario-builder schema`` and ``odds``: no battle reads them)
_HELPERS = frozenset(
    {
        "roll",
        "describe",
        "terrain_classes",
        "hook_checks",
        "odds_report",
        "odds_table",
        "orders_script",
        "scripted_commanders",
        "troop_list_schema",
    }
)

_ACTIONS = {"shot": "formation", "melee": "formation", "moved": "formation"}


@dataclass
class CheckReport:
    ruleset: str
    seed: int
    bounds: int = 0
    phases: int = 0
    result: dict[str, Any] | None = None
    events: dict[str, int] = field(default_factory=dict)
    hooks: dict[str, str] = field(default_factory=dict)


def attack_everything(scenario: Any, order: str = "attack") -> Any:
    """A copy of ``scenario`` with every formation given ``order`` (so the battle is busy)."""
    data = scenario.model_dump()
    for side in data["sides"]:
        for f in side["formations"]:
            f["order"] = order
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
                if e.phase != phase:
                    _fail(f"{where}: a {e.type} event logged in phase {e.phase!r}")
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
                old = morale.get(fid, f.morale)  # a wing split off this phase starts so
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
            if any(e.type == "moved" for e in new_events):
                _check_overlaps(state, where)
                if hasattr(battle.ctx, "allowances"):  # rulesets that note each move's allowance
                    _check_allowances(battle, where)
            stall = battle.ctx.jams.stalled
            if stall is not None:
                _fail(f"{where}: stall: {stall}")
        expected = [p.name for p in battle.ruleset.phases]
        if seen_phases != expected:
            _fail(f"bound {state.bound}: phases {seen_phases}, expected {expected}")
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
    battlefield: Ground | None = None,
    max_bounds: int | None = None,
    commanders: Callable[[Any, Any], dict[str, Any]] | None = None,
    hooks: bool = True,
    hook_bounds: int = 12,
) -> CheckReport:
    """Fight ``scenario`` (default: Flodden with every formation attacking) under
    ``ruleset_name`` and assert the engine's invariants after every phase (module docstring),
    then (``hooks``) :func:`check_hooks` on the same battle.

    ``battlefield`` defaults to the scenario's built ground; ``commanders(scenario, bf)`` gives
    the sides' commanders (default: the ruleset's ``automatic_commanders``).
    """
    from engine.battle import Battle
    from engine.dice import Dice
    from engine.rulesets import get_ruleset
    from engine.scenario import load_scenario

    if scenario is None:
        scenario = attack_everything(load_scenario("flodden_1513"))
    elif not hasattr(scenario, "sides"):
        scenario = load_scenario(scenario)
    if battlefield is None:
        from scenario_builder.battle import build_battlefield

        battlefield = build_battlefield(scenario).battlefield
    rs = get_ruleset(ruleset_name)
    chosen = (
        commanders(scenario, battlefield)
        if commanders
        else rs.automatic_commanders(scenario, rs.ground(battlefield))
    )
    battle = Battle(battlefield, scenario, Dice(seed), ruleset=rs, commanders=chosen)
    if max_bounds is not None:
        battle.scenario = scenario.model_copy(update={"max_bounds": max_bounds})
        battle.scenario._path = scenario.path
        battle.scenario._armies = dict(scenario._armies)
    report = check_battle(battle, max_bounds)
    if not math.isfinite(report.bounds):
        _fail("no bounds played")
    if hooks:
        report.hooks = check_hooks(
            ruleset_name, scenario, battlefield, seed, bounds=hook_bounds, commanders=commanders
        )
    return report


def _bound_logs(
    battlefield: Ground,
    scenario: Any,
    ruleset: Ruleset,
    seed: int,
    commanders: Callable[[Any, Any], dict[str, Any]] | None,
    *,
    result: dict[str, Any] | None = None,
) -> Iterator[str]:
    """Each bound's log record (JSON) of a battle, as it is played (and, played to its end,
    its result copied into ``result``)."""
    from engine.battle import Battle
    from engine.dice import Dice
    from engine.log import dumps

    chosen = (
        commanders(scenario, battlefield)
        if commanders
        else ruleset.automatic_commanders(scenario, ruleset.ground(battlefield))
    )
    battle = Battle(battlefield, scenario, Dice(seed), ruleset=ruleset, commanders=chosen)
    yield dumps(battle.log.bounds[0].to_dict())
    while not battle.finished:
        yield dumps(battle.step().to_dict())
    if result is not None:
        result.update(battle.log.result or {})
    yield dumps(battle.log.result or {})  # the result too: losses split by ``casualties``


def _hook_names(cls: type) -> list[str]:
    """The public methods and attributes a ruleset class defines below the ``Ruleset`` base."""
    from engine.seam import Ruleset

    declared = vars(Ruleset)  # the base's declarations (phases, scales, morale_states ...)
    names: set[str] = set()
    for klass in cls.__mro__:
        if klass is Ruleset or not issubclass(klass, Ruleset):
            continue
        for name, value in vars(klass).items():
            if name.startswith("_") or name in _HELPERS:
                continue
            if callable(value) or (isinstance(value, dict) and name not in declared):
                names.add(name)
    return sorted(names)


class _CountingDict(dict[Any, Any]):
    """A rate table that counts every read (for :func:`_check_absent`)."""

    reads = 0

    def __getitem__(self, key: Any) -> Any:
        type(self).reads += 1
        return super().__getitem__(key)

    def get(self, key: Any, default: Any = None) -> Any:
        type(self).reads += 1
        return super().get(key, default)


def _check_absent(
    ruleset_name: str,
    cls: type,
    name: str,
    battlefield: Ground,
    scenario: Any,
    seed: int,
    bounds: int,
    commanders: Callable[[Any, Any], dict[str, Any]] | None,
) -> str:
    """Fight ``bounds`` bounds with hook ``name`` spied on; fail if anything consults it."""
    value = getattr(cls, name)
    calls = [0]
    if callable(value):

        def spy(self: Any, *a: Any, _o: Any = value, _c: list[int] = calls, **k: Any) -> Any:
            _c[0] += 1
            return _o(self, *a, **k)

        attrs: dict[str, Any] = {name: spy}
        counting = None
    else:
        counting = type("Counting", (_CountingDict,), {"reads": 0})(value)
        attrs = {name: counting}
    variant = type(f"{cls.__name__}Spy", (cls,), attrs)()
    for _ in itertools.islice(
        _bound_logs(battlefield, scenario, variant, seed, commanders), bounds + 1
    ):
        pass
    used = calls[0] + (type(counting).reads if counting is not None else 0)
    if used:
        _fail(f"{ruleset_name}: absent hook {name} was consulted {used} time(s)")
    return "absent"


def check_hooks(
    ruleset_name: str,
    scenario: Any,
    battlefield: Ground,
    seed: int = 1,
    *,
    bounds: int = 12,
    commanders: Callable[[Any, Any], dict[str, Any]] | None = None,
) -> dict[str, str]:
    """No silent hooks: every hook ``ruleset_name``'s class defines is consulted.

    A hook in ``STRUCTURAL_HOOKS`` must be called while a battle is set up and played. Every
    other hook (a method, or a dict such as a rate table) must have an entry in the ruleset's
    ``hook_checks`` (hook name -> a function from the hook's usual answer to a different one);
    a ruleset subclass answering that way is fought on the same battle and the log must differ
    within ``bounds`` bounds. A hook that a parent layer defines but this ruleset's book does
    not have (``absent_hooks``: 2mm Earth v0.7 has no 9.3 order chart and no messengers) must
    never be consulted: it is spied on over the same bounds and any call fails. Returns
    {hook: "called" | "changes bound N" | "absent"}.
    """
    from engine.rulesets import get_ruleset

    base = get_ruleset(ruleset_name)
    cls = type(base)
    checks: Mapping[str, Callable[[Any], Any]] = getattr(cls, "hook_checks", {})
    absent = sorted(getattr(cls, "absent_hooks", ()))
    names = _hook_names(cls)
    stray = [n for n in absent if n not in names or n in STRUCTURAL_HOOKS or n in checks]
    if stray:
        _fail(f"{ruleset_name}: absent_hooks name no inherited hook (or one checked): {stray}")
    names = [n for n in names if n not in absent]
    missing = [n for n in names if n not in STRUCTURAL_HOOKS and n not in checks]
    if missing:
        _fail(f"{ruleset_name}: hooks with no check in hook_checks: {missing}")
    unknown = [n for n in checks if n not in names]
    if unknown:
        _fail(f"{ruleset_name}: hook_checks name no hook of the class: {unknown}")
    baseline = list(
        itertools.islice(_bound_logs(battlefield, scenario, base, seed, commanders), bounds + 1)
    )
    out: dict[str, str] = {}
    chase: Any = None  # the after-break hooks' battle, played once on first need
    chase_baseline: list[str] = []
    for name in absent:
        out[name] = _check_absent(
            ruleset_name, cls, name, battlefield, scenario, seed, bounds, commanders
        )
    for name in names:
        calls = [0]
        if name in STRUCTURAL_HOOKS:
            original = getattr(cls, name)

            def spy(self: Any, *a: Any, _o: Any = original, _c: list[int] = calls, **k: Any) -> Any:
                _c[0] += 1
                return _o(self, *a, **k)

            variant = type(f"{cls.__name__}Spy", (cls,), {name: spy})()
            for _ in itertools.islice(
                _bound_logs(battlefield, scenario, variant, seed, commanders), 2
            ):
                pass
            if not calls[0]:
                _fail(f"{ruleset_name}: hook {name} is never called")
            out[name] = "called"
            continue
        perturb = checks[name]
        value = getattr(cls, name)
        if callable(value):

            def changed(self: Any, *a: Any, _o: Any = value, _p: Any = perturb, **k: Any) -> Any:
                return _p(_o(self, *a, **k))

            attrs: dict[str, Any] = {name: changed}
        else:
            attrs = {name: perturb(value)}
        variant = type(f"{cls.__name__}Without{name.title()}", (cls,), attrs)()
        if name in AFTER_BREAK_HOOKS:
            if chase is None:
                chase = _with_pursuit(scenario)
                result: dict[str, Any] = {}
                chase_baseline = list(
                    _bound_logs(battlefield, chase, base, seed, commanders, result=result)
                )
                if not result.get("decided_bound"):
                    hooks = sorted(AFTER_BREAK_HOOKS)
                    _fail(
                        f"{ruleset_name}: the hook battle never breaks, so the after-break "
                        f"hooks {hooks} cannot be shown consulted"
                    )
            ref, logs = chase_baseline, _bound_logs(battlefield, chase, variant, seed, commanders)
            where = "the whole battle with a pursuit"
        else:
            ref, logs = baseline, _bound_logs(battlefield, scenario, variant, seed, commanders)
            where = f"{bounds} bounds"
        moved = next((k for k, (a, b) in enumerate(zip(ref, logs, strict=False)) if a != b), None)
        if moved is None:
            _fail(
                f"{ruleset_name}: overriding hook {name} changed nothing in {where} "
                "(a hook nothing reads)"
            )
        out[name] = f"changes bound {moved}"
    return out


def _with_pursuit(scenario: Any) -> Any:
    """``scenario`` with a pursuit after the break (its own, or ``AFTER_BREAK_PURSUIT`` bounds)."""
    victory = scenario.victory
    if victory.pursuit_bounds:
        return scenario
    new = scenario.model_copy(
        update={"victory": victory.model_copy(update={"pursuit_bounds": AFTER_BREAK_PURSUIT})}
    )
    new._path = scenario.path
    new._armies = dict(scenario._armies)
    return new


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


def flat_origin(bf: Ground, size_m: float = 700.0) -> tuple[float, float]:
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
