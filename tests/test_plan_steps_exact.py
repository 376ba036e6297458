"""Issue 15: the plan-moves phase makes each formation's plan in two steps (9.1, 10.3, 11.1-11.2:
``phases._plan_steps`` up to its one sight question (6.2), the questions of every formation
worked out in one batch, then each plan finished) instead of asking the questions by a copy of
plan_for's tests and then planning from the start. Pinned on a real battle against the code it
replaced:

- the batch holds the questions the old ``_sight_asks`` (kept below, as it was) gave for each
  formation, in the planning order (2.1: low initiative first);
- every plan equals ``plan_for``'s, made formation by formation with ``Sight.visible`` as the
  old phase made them, and the phase's plans come in the planning order.

The battle is the engine benchmark's on Minden (real ground, ``benchmarks/bench_engine.py``),
30 formations a side fought to the last, so formations attack, shoot, break, rout and pursue.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from engine.rulesets.two_mm_earth import phases
from engine.rulesets.two_mm_earth.shooting import range_m, shooting_bases
from engine.state import Formation, Morale

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

BOUNDS = 16


def _battle(built_minden: Any, seed: int) -> Any:
    from bench_engine import last_stand, scenario

    from engine.battle import Battle
    from engine.dice import Dice
    from engine.orders import InstantDelivery

    bf = built_minden.battlefield
    return Battle(bf, last_stand(scenario(bf, 30)), Dice(seed), delivery=InstantDelivery())


def _old_sight_asks(ctx: Any, f: Formation) -> list[str]:
    """phases._sight_asks as it was: plan_for's tests up to its sight question."""
    state = ctx.state
    if f.morale in (Morale.ROUTING, Morale.RETREATING) or f.order != "attack":
        return []
    contacts = state.contacts.get(f.id, ())
    broken = (Morale.RETREATING, Morale.ROUTING)
    if contacts and not (
        f.pursuing in contacts and all(state.formations[c].morale in broken for c in contacts)
    ):
        return []
    if any(b.ladder_ready for b in f.alive_bases):
        return []
    if f.pursuing is not None:
        g = state.formations.get(f.pursuing)
        if g is not None and not g.removed and g.morale in broken:
            return []
    target = state.formations.get(f.target_formation or "")
    if target is None or target.removed or target.side == f.side:
        target = None
    near = phases._near_gaps(ctx, f)
    if shooting_bases(f):
        rng = range_m(f)
        if target is not None:
            return [target.id] if phases._gap(f, target, ctx) <= rng else []
        return [g.id for g, d in near if d <= rng]
    return [g.id for g, _d in near] if target is None else []


@pytest.mark.parametrize("seed", [1, 3])
def test_9_1_plans_and_sight_questions_equal_the_old_phase(
    built_minden: Any, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    real_steps, real_unjam = phases._plan_steps, phases.unjam
    real_order = phases.low_initiative_first
    b = _battle(built_minden, seed)
    sight = b.ctx.sight
    real_prefetch = sight.prefetch
    want_asks: list[tuple[str, list[str]]] = []
    batches: list[list[tuple[str, list[str]]]] = []
    checked: list[tuple[int, int, int]] = []
    replaying = [False]

    def steps(ctx: Any, f: Formation) -> Any:
        # the old question of f, asked as f's plan starts (before it, only earlier
        # formations' plans have started: none of what f's question reads changes)
        if not replaying[0]:
            want_asks.append((f.id, _old_sight_asks(ctx, f)))
        return real_steps(ctx, f)

    def low_first(ctx: Any) -> list[Formation]:
        # the planning phases start here: a re-plan since (shooting damage) is not checked
        want_asks.clear()
        return real_order(ctx)

    def prefetch(requests: list[tuple[str, list[str]]]) -> None:
        if want_asks:  # the plan phase's batch (morale prefetches too)
            batches.append(list(requests))
        real_prefetch(requests)

    def unjam(watch: Any, state: Any, f: Formation, plan: Any, plans: dict[str, Any]) -> Any:
        if want_asks:  # the first formation after the plans are made: check them all
            order = real_order(b.ctx)
            assert [g.id for g in order] == [fid for fid, _ in want_asks]
            assert batches[-1] == [(fid, ts) for fid, ts in want_asks if ts]
            assert list(plans) == [g.id for g in order]
            replaying[0] = True  # the old phase: plan_for of each, in order
            for g in order:
                assert plans[g.id] == phases.plan_for(b.ctx, g), g.id
            replaying[0] = False
            kinds = {p.kind for p in plans.values()}
            checked.append((len(batches[-1]), len(order), len(kinds)))
            want_asks.clear()
        return real_unjam(watch, state, f, plan, plans)

    monkeypatch.setattr(phases, "_plan_steps", steps)
    monkeypatch.setattr(phases, "unjam", unjam)
    monkeypatch.setattr(phases, "low_initiative_first", low_first)
    monkeypatch.setattr(sight, "prefetch", prefetch)
    for _ in range(BOUNDS):
        if b.finished:
            break
        b.step()
    assert len(checked) >= 10
    assert sum(n for n, _m, _k in checked) > 100, "formations asked what they see"
    assert max(k for _n, _m, k in checked) >= 4, "plans of several kinds (charge, rout, ...)"
