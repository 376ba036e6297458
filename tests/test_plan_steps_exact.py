"""The plan-moves phase makes each formation's plan in two steps (9.1, 10.3, 11.1-11.2:
``phases._plan_steps`` up to its one sight question (6.2), the questions of every formation
worked out in one batch, then each plan finished) instead of asking the questions by a copy of
plan_for's tests and then planning from the start; a charge, which wants only the nearest seen
enemy, asks of its nearest first and of the rest only if that one is unseen. Pinned on real
battles against the code it replaced:

- the first batch asks every formation the old ``_sight_asks`` (kept, as it was, in
  ``tests/reference/plans.py``) asked,
  in the planning order (2.1: low initiative first), and no pair is asked that it did not ask;
- every plan equals ``plan_for``'s, made formation by formation with ``Sight.visible`` of every
  target, as the old phase made them, and the phase's plans come in the planning order.

The battle is the engine benchmark's on Minden (real ground, ``benchmarks/bench_engine.py``),
30 formations a side fought to the last, so formations attack, shoot, break, rout and pursue.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from engine.rulesets.two_mm_earth import phases
from engine.state import Formation
from tests.reference import plans as plans_ref

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

BOUNDS = 16


def _battle(built_minden: Any, seed: int) -> Any:
    from bench_engine import last_stand, scenario

    from engine.battle import Battle
    from engine.dice import Dice
    from engine.orders import InstantDelivery

    bf = built_minden.battlefield
    return Battle(bf, last_stand(scenario(bf, 30)), Dice(seed), delivery=InstantDelivery())


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
    checked: list[tuple[int, int, int, int, int]] = []
    replaying = [False]

    def steps(ctx: Any, f: Formation) -> Any:
        # the old question of f, asked as f's plan starts (before it, only earlier
        # formations' plans have started: none of what f's question reads changes)
        if not replaying[0]:
            want_asks.append((f.id, plans_ref.sight_asks(ctx, f)))
        return real_steps(ctx, f)

    def low_first(ctx: Any) -> list[Formation]:
        # the planning phases start here: a re-plan since (shooting damage) is not checked
        want_asks.clear()
        batches.clear()
        return real_order(ctx)

    def prefetch(requests: list[tuple[str, list[str]]]) -> None:
        if want_asks:  # the plan phase's batch (morale prefetches too)
            batches.append(list(requests))
        real_prefetch(requests)

    def unjam(watch: Any, state: Any, f: Formation, plan: Any, plans: dict[str, Any]) -> Any:
        if want_asks:  # the first formation after the plans are made: check them all
            order = real_order(b.ctx)
            assert [g.id for g in order] == [fid for fid, _ in want_asks]
            # every formation asked in the first batch, in the planning order; no pair asked
            # that the old phase did not ask (a charge's nearest first, the rest if unseen)
            want = dict(want_asks)
            assert [fid for fid, _ in batches[0]] == [fid for fid, ts in want_asks if ts]
            asked: dict[str, list[str]] = {}
            for batch in batches:
                for fid, ts in batch:
                    asked.setdefault(fid, []).extend(ts)
            for fid, ts in asked.items():
                assert ts and ts == want[fid][: len(ts)], fid
            assert list(plans) == [g.id for g in order]
            replaying[0] = True  # the old phase: plan_for of each, in order
            for g in order:
                assert plans[g.id] == phases.plan_for(b.ctx, g), g.id
            replaying[0] = False
            kinds = {p.kind for p in plans.values()}
            n_old = sum(len(ts) for ts in want.values())
            n_new = sum(len(ts) for ts in asked.values())
            partial = sum(1 for fid, ts in asked.items() if len(ts) < len(want[fid]))
            checked.append((n_old, n_new, len(kinds), len(batches), partial))
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
    assert sum(c[0] for c in checked) > 300, "formations asked what they see"
    assert sum(c[1] for c in checked) < sum(c[0] for c in checked) / 2, "fewer pairs asked"
    assert max(c[2] for c in checked) >= 4, "plans of several kinds (charge, rout, ...)"
    assert sum(1 for c in checked if c[3] == 2) >= 3, "charges whose nearest was not seen"
    assert sum(c[4] for c in checked) > 100, "charges that saw their nearest"
