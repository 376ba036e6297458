"""The movement phase's cheaper code gives, call by call in real battles, exactly
(bit for bit) what the code it replaced gives.

Each battle is fought with the engine's functions wrapped: every call is answered by the current
code and checked against the old code path on the same arguments (kept in
``tests/reference/movement.py`` and ``geometry.py``: 6.1 the sweep against the sweep over the whole
table with no culling, main at df84c1a, and the rows it keeps against the rows the sweep kept at
main 488014c; 6.1 / 11.3 the corners' displacement of a turn, 7.1 the footprint's frame points and
the formation's box in its own frame, against their ``geometry.forward`` / ``right`` / ``local``
versions). The battles are the engine benchmark's (``benchmarks/bench_engine.py``, Minden, real
ground: lines that close, charge, turn to face, rout and pursue) and Flodden (real ground, a
historical deployment).
"""

from __future__ import annotations

import math
import operator
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

import pytest

import engine.movement as mv
from engine.geometry import OBB, FewSeparation, _scalar_axes
from engine.state import CLOCK, BaseStatus, Formation, FormationTable
from tests.reference import geometry as geometry_ref
from tests.reference import movement as movement_ref

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))


def _same_bits(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    """Equal float by float, the sign of a zero too (== takes -0.0 for 0.0)."""
    return len(a) == len(b) and all(
        x == y and math.copysign(1.0, x) == math.copysign(1.0, y) for x, y in zip(a, b, strict=True)
    )


@contextmanager
def _checked(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, int]]:
    """Wrap the movement functions: each call answered by the new code, checked against the
    old; yields the counts of calls checked (and of sweeps that met something, that turned)."""
    seen = {"sweep": 0, "sweep_met": 0, "sweep_turn": 0, "disp": 0, "frame": 0, "box": 0}
    seen["reach"] = seen["pose"] = seen["touch"] = seen["touch_near"] = 0
    seen["frame_loose"] = seen["length"] = seen["length_turn"] = seen["place_obb"] = 0
    seen["sync"] = seen["sync_one"] = seen["sync_dropped"] = seen["disp_kept"] = 0
    seen["steps"] = seen["steps_blocked"] = 0
    seen["step_gaps"] = seen["step_met"] = seen["step_met_several"] = 0
    seen["upto"] = seen["subset_along"] = seen["contact"] = seen["contact_met"] = 0
    seen["place"] = seen["allowance"] = seen["allowance_classes"] = 0
    seen["contacts"] = seen["contacts_pairs"] = seen["mark"] = seen["marked"] = 0
    seen["clash"] = seen["bisect"] = seen["bisect_first"] = 0
    import engine.rulesets.two_mm_earth.phases as ph

    touching = ph._touching_enemy

    def check_touching(ctx: Any, f: Any, table: Any = None) -> bool:
        got = touching(ctx, f, table)
        assert table is not None and got == movement_ref.touching_enemy(ctx, f, table), f.id
        seen["touch"] += 1
        seen["touch_near"] += got
        return got

    pose_toward = mv._pose_toward

    def check_pose(f: Any, bx: Any, plan: Any, allowance: float, rules: Any) -> Any:
        got = pose_toward(f, bx, plan, allowance, rules)
        assert got == movement_ref.pose_toward(f, bx, plan, allowance, rules), (f.id, allowance)
        seen["pose"] += 1
        return got

    sweep, disp, frame_cls, box = mv._sweep, mv._disp_vectors, mv.Frame, mv._local_box
    reachable = mv._reachable

    def check_reachable(*args: Any) -> tuple[list[int], list[list[float]]]:
        got = reachable(*args)
        assert got == movement_ref.reachable(*args), args[0].id
        seen["reach"] += 1
        return got

    current: list[Any] = [None]  # the sweep being made: (box, start, dx, dy, dth)

    def check_sweep(
        state: Any, f: Any, bx: Any, start: Any, dx: float, dy: float, dth: float, table: Any = None
    ) -> tuple[float, str | None]:
        current[0] = (bx, start, dx, dy, dth)
        bisecting[0] = None
        inside[0] = True
        try:
            got = sweep(state, f, bx, start, dx, dy, dth, table)
        finally:
            inside[0] = False
        if table is not None:
            want = movement_ref.sweep(None, f, bx, start, dx, dy, dth, table)
            assert got == want, (f.id, start, dx, dy, dth, got, want)
            seen["sweep"] += 1
            seen["sweep_met"] += got[1] is not None
            seen["sweep_turn"] += dth != 0 and got[1] is not None
        return got

    # a turning sweep's overlap tests (first_overlap_axes): each pose, bit for bit, the one
    # _pose_axes gave at main bbc4149 for its fraction of the move, a sampled step's or (in
    # the order the 6.1 bisection takes them) a bisection's middle, followed through its
    # eight halvings by the answers given
    inside: list[bool] = [False]
    bisecting: list[Any] = [None]  # [lo, hi, halvings left] of the bisection under way
    first_overlap_axes = FewSeparation.first_overlap_axes

    def check_overlap(self: Any, *args: Any, **kw: Any) -> int | None:
        got = first_overlap_axes(self, *args, **kw)
        if not inside[0]:
            return got
        bx, start, dx, dy, dth = current[0]
        pose = (*args[:4], *args[4])

        def old_at(t: float) -> tuple[float, ...]:
            return movement_ref.pose_axes(
                bx, start[0] + dx * t, start[1] + dy * t, start[2] + dth * t
            )

        state = bisecting[0]
        if state is None:
            length = mv.max_corner_displacement(bx, start[2], dth, (dx, dy))
            n = max(1, math.ceil(length / mv.SWEEP_STEP_M))
            ts = [k / n for k in range(1, n + 1)]
            step = [i for i, t in enumerate(ts) if _same_bits(pose, old_at(t))]
            if step:  # a sampled step: a bisection follows if it is overlapped
                seen["clash"] += 1
                i = step[0]
                state = [ts[i - 1] if i else 0.0, ts[i], 8]
                bisecting[0] = state if got is not None else None
                return got
            # else the first middle of a step found overlapped from its gaps
            mids = [
                i
                for i, t in enumerate(ts)
                if _same_bits(pose, old_at(((ts[i - 1] if i else 0.0) + t) / 2.0))
            ]
            assert mids, (bx, start, dx, dy, dth, pose)
            i = mids[0]
            state = bisecting[0] = [ts[i - 1] if i else 0.0, ts[i], 8]
            seen["bisect_first"] += 1
        lo, hi, left = state
        mid = (lo + hi) / 2.0
        assert _same_bits(pose, old_at(mid)), (bx, start, dx, dy, dth, mid, pose)
        seen["bisect"] += 1
        state[0:2] = (mid, hi) if got is None else (lo, mid)
        state[2] = left - 1
        if state[2] == 0:
            bisecting[0] = None
        return got

    first_step = mv._first_overlapping_step

    def check_first_step(
        few: Any,
        spans: Any,
        travel: float,
        ts: list[float],
        first: int,
        last: int,
        gaps_at: Any,
        found: Any = None,
    ) -> int | None:
        # a turning sweep's steps: the gaps the sweep measures at each step (its pose written
        # out) are _gaps_at's, bit for bit, and the rectangle it takes as met at the step found
        # (from those gaps) is the one _overlap_at (first_overlap) names there
        bx, start, dx, dy, dth = current[0]

        def pose(t: float) -> tuple[Any, float, float, float]:
            return bx, start[0] + dx * t, start[1] + dy * t, start[2] + dth * t

        def checked_gaps(t: float) -> list[float]:
            got = gaps_at(t)
            assert _same_bits(tuple(got), tuple(mv._gaps_at(few, *pose(t)))), (start, t)
            seen["step_gaps"] += 1
            return got

        got = first_step(few, spans, travel, ts, first, last, checked_gaps, found)
        if got is not None and found is not None:
            inside[0] = False  # (this check's own question, not one of the sweep's)
            want = mv._overlap_at(few, *pose(ts[got]))
            inside[0] = True
            assert mv._most_overlapped(found[-1]) == want, (start, ts[got])
            seen["step_met"] += 1
            seen["step_met_several"] += sum(g < -1e-6 for g in found[-1]) > 1
        return got

    upto = FewSeparation.of_boxes_upto.__func__  # type: ignore[attr-defined]

    def check_upto(cls: Any, boxes: Any, a: Any, limit: float) -> Any:
        # the sweep's rows and gaps at the start in one pass: of_boxes then gaps_upto (main
        # d8a34b8), bit for bit, and the extents kept for a's facing, those _rb_along gives
        few, gaps = upto(cls, boxes, a, limit)
        old = FewSeparation.of_boxes(boxes)
        old_gaps = old.gaps_upto(a, limit)
        assert few._rows == old._rows and _same_bits(tuple(gaps), tuple(old_gaps)), a
        assert few._along == old._along, a
        seen["upto"] += 1
        return few, gaps

    first_contact = FewSeparation.first_contact

    def check_contact(self: Any, a: Any, dx: float, dy: float, tol: float = 1e-6) -> Any:
        # the exact time of impact of a straight move (6.1) as main d8a34b8 gave it, bit for bit
        got = first_contact(self, a, dx, dy, tol)
        want = geometry_ref.first_contact(self, a, dx, dy, tol)
        assert (got is None) == (want is None), (a, dx, dy)
        if got is not None and want is not None:
            assert got[1] == want[1] and _same_bits((got[0],), (want[0],)), (a, dx, dy)
            seen["contact_met"] += 1
        seen["contact"] += 1
        return got

    subset = FewSeparation.subset

    def check_subset(self: Any, keep: list[bool], facing: float | None = None) -> Any:
        got = subset(self, keep, facing)
        assert got._rows == [r for r, k in zip(self._rows, keep, strict=True) if k]
        if facing is not None and facing in got._along:
            # the extents kept are those worked out afresh for the rows kept
            fresh = FewSeparation.__new__(FewSeparation)
            fresh._rows, fresh._along = got._rows, {}
            assert got._along[facing] == fresh._rb_along(facing, *_scalar_axes(facing))
            seen["subset_along"] += 1
        return got

    def check_disp(bx: Any, th: float, dth: float) -> list[tuple[float, float]]:
        last = mv._LAST_DISP[0]
        kept = bx is last[0] and th is last[1] and dth is last[2]  # the last turn's, kept
        got = disp(bx, th, dth)
        assert got == movement_ref.disp_vectors(bx, th, dth), (bx, th, dth)
        seen["disp"] += 1
        seen["disp_kept"] += kept
        return got

    def check_frame(f: Formation) -> Any:
        got = frame_cls(f)
        ba, bl, ca, col, nb, reach = movement_ref.frame(f)
        assert (*got.base_frame(), got._ca, got._col, got.nb) == (ba, bl, ca, col, nb), f.id
        # the reach is now a bound from the rectangle (no base read): never nearer than what
        # the bases one by one gave (a nearer one could call a mixed footprint uniform), and
        # at most a few metres further (a missing corner base, the millimetre's slack)
        assert reach <= got.reach <= reach + 10.0, (f.id, reach, got.reach)
        # the box the move takes from its frame instead of asking _local_box (6.1)
        assert got.box == movement_ref.local_box(f), f.id
        seen["box"] += 1
        seen["frame"] += 1
        seen["frame_loose"] += got.reach > reach + 0.01
        return got

    def check_box(f: Formation) -> tuple[float, float, float, float]:
        got = box(f)
        assert got == movement_ref.local_box(f), f.id
        seen["box"] += 1
        return got

    move_length = mv._move_length

    def check_length(bx: Any, th: float, dth: float, dx: float, dy: float) -> float:
        got = move_length(bx, th, dth, dx, dy)
        assert _same_bits((got,), (movement_ref.move_length(bx, th, dth, dx, dy),)), (
            th,
            dth,
            dx,
            dy,
        )
        seen["length"] += 1
        seen["length_turn"] += th + dth != th
        return got

    place = Formation.place

    def check_place(f: Formation) -> None:
        want = movement_ref.formation_place(f)
        place(f)
        got = [(b.x, b.y, b.facing) for b in f.bases if b.status is not BaseStatus.DEAD]
        assert _same_bits(tuple(v for p in got for v in p), tuple(v for p in want for v in p))
        seen["place"] += 1
        # the rectangle kept by place() for the new revision is the one obb() would work out
        kept = f._obb
        if kept is not None and kept[0] == f.revision:
            assert _same_bits(kept[1], movement_ref.formation_obb(f)), f.id
            seen["place_obb"] += 1

    sync = FormationTable.sync

    def check_sync(t: FormationTable) -> FormationTable:
        before = t.revision
        dropped = len(t.forms)
        # one change since the last sync (a move): FormationTable.sync's shortcut
        one = CLOCK.base + len(CLOCK.log) - t._cursor == 1
        out = sync(t)
        if t.revision != before:
            # the table as a rebuild from the state's formations makes it, bit for bit
            fresh = FormationTable(t.state)
            fresh._rebuild()
            assert t.forms == fresh.forms and all(map(operator.is_, t.forms, fresh.forms))
            assert t.rows == fresh.rows
            assert t.arr.dtype == fresh.arr.dtype and t.arr.tobytes() == fresh.arr.tobytes()
            assert t.sides.dtype == fresh.sides.dtype and t.sides.tolist() == fresh.sides.tolist()
            seen["sync"] += 1
            seen["sync_one"] += one
            seen["sync_dropped"] += len(t.forms) < dropped
        return out

    steps_blocked = ph._steps_blocked

    def check_steps(state: Any, f: Any, moved: list[Any], before: Any) -> bool:
        got = steps_blocked(state, f, moved, before)
        assert got == movement_ref.steps_blocked(state, f, moved, before), f.id
        seen["steps"] += 1
        seen["steps_blocked"] += got
        return got

    allowance_for = mv.allowance_for

    def check_allowance(f: Any, classes: list[int], rules: Any) -> float | None:
        got = allowance_for(f, classes, rules)
        assert got == movement_ref.allowance_for(f, classes, rules), (f.id, classes)
        seen["allowance"] += 1
        seen["allowance_classes"] += len(classes) > 0
        return got

    contacts_of = ph.update_contacts

    def check_contacts(state: Any) -> Any:
        got = contacts_of(state)
        want, want_pairs = movement_ref.contacts(state)
        # the same formations in the same order, each with the same enemies; the same base
        # pairs, formation pairs in the same order (the melee reads them in that order)
        assert list(state.contacts.items()) == list(want.items())
        assert list(got.items()) == list(want_pairs.items())
        seen["contacts"] += 1
        seen["contacts_pairs"] += len(got)
        return got

    mark = ph._mark_new_contacts

    def check_mark(ctx: Any) -> None:
        mark(ctx)
        want = movement_ref.new_contact_sides(ctx)
        assert {f.id: f.new_contact_sides for f in ctx.state.active()} == want
        seen["marked"] += sum(1 for v in want.values() if v)
        seen["mark"] += 1

    monkeypatch.setattr(ph, "_mark_new_contacts", check_mark)
    monkeypatch.setattr(mv, "allowance_for", check_allowance)
    monkeypatch.setattr(ph, "update_contacts", check_contacts)
    monkeypatch.setattr(ph, "_steps_blocked", check_steps)
    monkeypatch.setattr(FormationTable, "sync", check_sync)
    monkeypatch.setattr(mv, "_move_length", check_length)
    monkeypatch.setattr(Formation, "place", check_place)
    monkeypatch.setattr(FewSeparation, "of_boxes_upto", classmethod(check_upto))
    monkeypatch.setattr(FewSeparation, "subset", check_subset)
    monkeypatch.setattr(FewSeparation, "first_contact", check_contact)
    monkeypatch.setattr(FewSeparation, "first_overlap_axes", check_overlap)
    monkeypatch.setattr(mv, "_sweep", check_sweep)
    monkeypatch.setattr(mv, "_first_overlapping_step", check_first_step)
    monkeypatch.setattr(mv, "_reachable", check_reachable)
    monkeypatch.setattr(mv, "_pose_toward", check_pose)
    monkeypatch.setattr(ph, "_touching_enemy", check_touching)
    monkeypatch.setattr(mv, "_disp_vectors", check_disp)
    monkeypatch.setattr(mv, "_footprint_local", check_frame)
    monkeypatch.setattr(mv, "_local_box", check_box)
    yield seen


def _fight(battle: Any, bounds: int) -> None:
    for _ in range(bounds):
        if battle.finished:
            break
        battle.step()


def _assert_busy(seen: dict[str, int], least: Callable[[str], int]) -> None:
    for key, n in seen.items():
        assert n >= least(key), (key, seen)


def test_6_1_moves_equal_the_old_code_in_the_benchmark_battle(
    built_minden: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bench_engine import last_stand, scenario

    from engine.battle import Battle
    from engine.dice import Dice
    from engine.orders import InstantDelivery

    bf = built_minden.battlefield
    with _checked(monkeypatch) as seen:
        b = Battle(bf, last_stand(scenario(bf, 60)), Dice(3), delivery=InstantDelivery())
        # 13 bounds: with 11.1's injured falling out of one-rank lines and 10.2's all-seen row
        # needing two friends the battle runs differently and 12 no longer gave enough gaps
        _fight(b, 13)
    # many moves of each kind: straight and turning, into contact and clear
    _assert_busy(
        seen,
        lambda k: {
            "sweep_met": 300,
            "sweep_turn": 200,
            "step_met": 200,
            "step_met_several": 5,
            "subset_along": 20,
            "contact": 300,
            "contact_met": 150,
            "disp_kept": 200,
            "touch_near": 10,
            "frame_loose": 0,
            "length_turn": 200,
            "sync_dropped": 10,
            "steps": 10,
            "steps_blocked": 10,
            "contacts": 20,
            "contacts_pairs": 100,
            "mark": 10,
            "marked": 10,
            "allowance_classes": 0,
            "clash": 30,
            "bisect_first": 200,
            "bisect": 2000,
        }.get(k, 800),
    )


def test_6_1_moves_equal_the_old_code_at_flodden(monkeypatch: pytest.MonkeyPatch) -> None:
    from engine.scenario import load_scenario
    from scenario_builder.battle import build_battlefield, fight

    sc = load_scenario("flodden_1513")
    built = build_battlefield(sc)
    with _checked(monkeypatch) as seen:
        for seed in (1, 2):  # as the CLI and the known answers fight it; two, for the turns
            fight(sc, built, seed, snapshots=False)
    _assert_busy(
        seen,
        lambda k: {
            "sweep_met": 20,
            "sweep_turn": 20,
            "step_gaps": 20,
            "step_met": 5,
            "step_met_several": 0,
            "subset_along": 0,
            "upto": 30,
            "contact": 5,
            "contact_met": 2,
            "disp_kept": 10,
            "touch_near": 0,
            "frame_loose": 0,
            "length_turn": 20,
            "sync_dropped": 2,
            "steps": 0,
            "steps_blocked": 0,
            "contacts": 10,
            "contacts_pairs": 4,
            "mark": 10,
            "marked": 2,
            "allowance_classes": 10,
            "clash": 0,
            "bisect_first": 10,
            "bisect": 100,
        }.get(k, 100),
    )


class _Spy(FewSeparation):
    """FewSeparation that keeps what each first_overlap_axes call was given."""

    __slots__ = ("asked",)
    asked: list[tuple[Any, ...]]

    def first_overlap_axes(self, *args: Any, **kw: Any) -> int | None:
        self.asked.append(args)
        return super().first_overlap_axes(*args, **kw)


def test_6_1_overlap_and_gaps_at_a_pose_equal_those_of_obb_at() -> None:
    # the turning sweep's poses: one sine and cosine for both the pose and its axes, for
    # facings inside (0, 360); 0, 360 and beyond, and negative turns, go through _scalar_axes
    import numpy as np

    rng = np.random.default_rng(7)
    met = 0
    for i in range(4000):
        box = tuple(float(v) for v in rng.uniform([-5, -5, 5, 5], [5, 5, 60, 20]))
        rows = [
            [*rng.uniform(-80, 80, 2).tolist(), *rng.uniform(5, 40, 2).tolist(), f]
            for f in rng.uniform(0, 360, int(rng.integers(1, 5))).tolist()
        ]
        few = cast(_Spy, _Spy.of_boxes(rows))
        few.asked = []
        th = [0.0, -0.0, 360.0, 720.5, -30.25, float(rng.uniform(-400, 800))][i % 6]
        x, y = (float(v) for v in rng.uniform(-60, 60, 2))
        got = mv._overlap_at(few, box, x, y, th)  # type: ignore[arg-type]
        o = mv.obb_at(box, x, y, th)  # type: ignore[arg-type]
        # the very rectangle and axes first_overlap(obb_at(...)) works with, bit for bit
        assert few.asked == [(o.cx, o.cy, o.hw, o.hd, _scalar_axes(o.facing))], (i, th)
        assert got == FewSeparation.of_boxes(rows).first_overlap(o), (i, th)
        # and the gaps there, every value bit for bit
        assert mv._gaps_at(few, box, x, y, th) == few.gaps(o), (i, th)  # type: ignore[arg-type]
        met += got is not None
    assert met > 1000


def test_6_1_rows_and_gaps_in_one_pass_equal_of_boxes_then_gaps_upto() -> None:
    # FewSeparation.of_boxes_upto (the sweep's rows and gaps at the start) against of_boxes
    # then gaps_upto, bit for bit, over random rectangles near and far, at random limits
    import numpy as np

    rng = np.random.default_rng(11)
    cut = 0
    for i in range(3000):
        rows = [
            [*rng.uniform(-150, 150, 2).tolist(), *rng.uniform(1, 60, 2).tolist(), f]
            for f in rng.uniform(-30, 400, int(rng.integers(1, 7))).tolist()
        ]
        a = OBB(
            *rng.uniform(-40, 40, 2).tolist(),
            *rng.uniform(1, 60, 2).tolist(),
            [0.0, 90.0, 359.5, float(rng.uniform(0, 360))][i % 4],
        )
        limit = float(rng.uniform(-5, 120))
        few, gaps = FewSeparation.of_boxes_upto(rows, a, limit)
        old = FewSeparation.of_boxes(rows)
        want = old.gaps_upto(a, limit)
        assert few._rows == old._rows and _same_bits(tuple(gaps), tuple(want)), i
        assert few._along == old._along, i
        cut += sum(g > limit for g in want)
        keep = [bool(v) for v in rng.integers(0, 2, len(rows))]
        sub = few.subset(keep, a.facing)
        assert sub._along[a.facing] == [r for r, k in zip(old._along[a.facing], keep) if k], i
    assert cut > 1000  # many gaps cut short above the limit


def test_6_1_first_contact_equals_the_loop_over_axes() -> None:
    # FewSeparation.first_contact with its four axes written out against main d8a34b8's loop,
    # bit for bit: random rectangles and straight moves; moves along the x or y axis with the
    # mover and / or the others square to it (v == 0 on some axes: apart for good, or not),
    # touching and apart, several met at once
    import numpy as np

    rng = np.random.default_rng(5)
    met = parallel = 0

    def turn(square: bool) -> float:
        return float(rng.choice([0.0, 90.0, 180.0])) if square else float(rng.uniform(0, 360))

    for i in range(6000):
        along = i % 2 == 0  # a move along the x or y axis
        others_square, mover_square = bool(rng.integers(0, 2)), bool(rng.integers(0, 2))
        rows = [
            [
                *rng.uniform(-120, 120, 2).tolist(),
                *rng.uniform(2, 40, 2).tolist(),
                turn(others_square),
            ]
            for _ in range(int(rng.integers(1, 6)))
        ]
        few = FewSeparation.of_boxes(rows)
        a = OBB(
            *rng.uniform(-30, 30, 2).tolist(), *rng.uniform(2, 40, 2).tolist(), turn(mover_square)
        )
        d = rng.uniform(-200, 200, 2).tolist()
        if along:
            d[int(rng.integers(0, 2))] = 0.0
            parallel += others_square or mover_square
        got = few.first_contact(a, d[0], d[1])
        want = geometry_ref.first_contact(few, a, d[0], d[1])
        assert (got is None) == (want is None), i
        if got is not None and want is not None:
            assert got[1] == want[1] and _same_bits((got[0],), (want[0],)), (i, got, want)
            met += 1
    assert met > 1000 and parallel > 2000


def test_3_2_contact_candidates_of_two_sides_equal_the_whole_matrix(built_minden: Any) -> None:
    # update_contacts' candidate pairs (3.2 contact): one side's boxes against the other's,
    # put back in row order, are the whole matrix's pairs of two sides above its diagonal,
    # in the same order; with three sides (or one) the whole matrix is asked
    import numpy as np
    from bench_engine import last_stand, scenario

    from engine.battle import Battle
    from engine.dice import Dice
    from engine.orders import InstantDelivery
    from engine.spatial import rect_boxes

    bf = built_minden.battlefield
    b = Battle(bf, last_stand(scenario(bf, 60)), Dice(3), delivery=InstantDelivery())
    found = 0
    rng = np.random.default_rng(32)
    for _ in range(8):  # the lines close, touch, break and pursue
        b.step()
        t = b.state.table()
        boxes = rect_boxes(t.arr)
        for sides in (
            t.sides,
            np.array([("a", "b", "c")[k % 3] for k in range(len(t.sides))]),
            np.array(["a"] * len(t.sides)),
            t.sides[::-1].copy(),  # the first row of the other side
            rng.permutation(t.sides),  # the two sides' rows interleaved (as after a split)
        ):
            ii, jj = mv._two_side_pairs(boxes, sides)
            assert (ii.tolist(), jj.tolist()) == movement_ref.two_side_pairs(boxes, sides)
            found += len(ii)
    assert found > 300
    e = np.zeros(0)
    assert [v.tolist() for v in mv._two_side_pairs(np.zeros((0, 4)), e)] == [[], []]
