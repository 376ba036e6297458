"""A battle: deploy a scenario on a battlefield and fight it bound by bound.

```python
battle = Battle(bf, load_scenario("flodden_1513"), Dice(7))
log = battle.run()      # until a side breaks (victory.rout_fraction) or max_bounds
log.result["winner"]
```

``battle.phases()`` plays one bound and yields after each phase (for side-by-side determinism
tests); ``battle.step()`` plays one bound and returns its :class:`~engine.log.BoundRecord`.

The loop is the ruleset's (:mod:`engine.rulesets`): the battle reads the ground through the
ruleset's terrain table, deploys with its unit model, and each bound runs ``ruleset.phases`` in
order, the state's ``phase`` set to each phase's name (every event carries it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from engine.casualties import per_side
from engine.context import BoundContext
from engine.deploy import deploy
from engine.dice import Dice
from engine.idle import IdleWatch
from engine.light import sky_for, twilight_sight_limit
from engine.log import PLAIN_MAX, BattleLog, BoundRecord, Event, round_for_log, snapshot_changes
from engine.orders import Commander, Delivery
from engine.readiness import readiness_for
from engine.reinforcements import arrivals_for
from engine.rulesets import get_ruleset
from engine.scenario import Scenario
from engine.seam import Ruleset, check_playable
from engine.sight import Sight
from engine.special_rules import SpecialRules
from engine.state import BaseStatus, BattleState, Formation, Morale
from engine.terrain import Ground

__all__ = ["Battle", "recorded_snapshot", "run_bound", "snapshot"]


def run_bound(ctx: BoundContext) -> Iterator[str]:
    """Play one bound: the ruleset's phases in order, yielding each phase's name once done."""
    state = ctx.state
    state.bound += 1
    ctx.events = []
    early = [h for h in ctx.on_bound_start if getattr(h, "before_start", False)]
    for hook in early:  # reinforcements come on before the bound's notes are taken
        hook(ctx)
    ctx.ruleset.start_bound(ctx)
    for hook in ctx.on_bound_start:  # light and weather (engine.light), readiness
        if hook not in early:
            hook(ctx)
    for phase in ctx.ruleset.phases:
        state.phase = phase.name
        phase.run(ctx)
        yield phase.name
    state.phase = "end"


def seen_by_side(state: BattleState, sight: Sight) -> dict[str, list[str]]:
    """6.2: the enemy formations each side sees at the end of a bound (any formation of the
    side on the table sees them, troops and terrain in the way as in the bound): the one fog of
    war, recorded so the playback shows what the battle used, not a recomputation."""
    # asked of the battle's own Sight, as a phase would ask it: an answer is the state's own
    # (the same whoever asks and whatever is cached), and Sight's caches hold only answers of
    # the position state and light as they are now (engine.state's revision clock, a change of
    # light resets them: engine.light), so the record reuses what the phases worked out and
    # the next bound what the record did, while nothing moves (a copy's look, Sight.fresh_copy,
    # threw those away and rebuilt the arrays)
    return sight.seen_by_sides(list(state.sides))  # the sides' looks in step (the same records)


#: each enum member's value, as the log stores it (a dict lookup: an enum's ``.value`` is a
#: descriptor call, and the record reads one per base and formation every bound)
_STATUS_VALUE: dict[BaseStatus, str] = {s: s.value for s in BaseStatus}
_MORALE_VALUE: dict[Morale, str] = {m: m.value for m in Morale}


def snapshot(
    state: BattleState,
    delivery: Delivery | None = None,
    sight: Sight | None = None,
    record: Callable[[Formation], dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Every base, formation state, messengers in flight and losses, as the log stores them;
    with ``sight``, also what each side sees (``seen``: side -> enemy formation ids); with
    ``record``, what the ruleset adds to each formation's entry (``Ruleset.formation_record``).
    Floats are rounded as the log writes them (0.01 m, facings 0.1 degree), when recorded."""
    return recorded_snapshot(state, delivery, sight, record)[0]


def recorded_snapshot(
    state: BattleState,
    delivery: Delivery | None = None,
    sight: Sight | None = None,
    record: Callable[[Formation], dict[str, Any]] | None = None,
    memo: dict[str, tuple[float, float, float, float, float, float]] | None = None,
    prev: dict[str, Any] | None = None,
    changed: dict[str, dict[str, Any]] | None = None,
) -> tuple[dict[str, Any], bool]:
    """:func:`snapshot` and whether orjson writes it as ``json`` does (``BoundRecord.plain``).

    Rounding here, once per value as the entry is built, costs a fraction of what rounding the
    whole record in a walk at write time did; the record in memory then holds what
    the log file holds. ``memo`` (one per battle: base id -> its x, y, facing and their rounded
    values) spares the rounding of a base that has not moved since the last record. ``prev``
    (the last record's snapshot): an entry of a base or formation that has not changed since is
    that record's own dict, so the bound's changes (engine.log.snapshot_changes) pass it by
    identity; ``changed`` (with ``prev``) is given the entries of ``bases`` and ``formations``
    that differ from ``prev``'s, found as they are built (that function's ``known``)."""
    bases: dict[str, Any] = {}
    forms: dict[str, Any] = {}
    status, morale = _STATUS_VALUE, _MORALE_VALUE
    top = PLAIN_MAX
    plain = True
    seen_xy = memo if memo is not None else {}
    old_bases: dict[str, Any] = prev["bases"] if prev else {}
    old_forms: dict[str, Any] = prev["formations"] if prev else {}
    new_bases: dict[str, Any] = {}
    new_forms: dict[str, Any] = {}
    for f in state.formations.values():
        for b in f.bases:
            bx, by, bf = b.x, b.y, b.facing
            m = seen_xy.get(b.id)
            st = status[b.status]
            # the same float objects, not equal values: -0.0 == 0.0, but they round apart
            if m is not None and m[0] is bx and m[1] is by and m[2] is bf:
                x, y, facing = m[3], m[4], m[5]
                old = old_bases.get(b.id)
                # the last record's entry, if built of these very rounded values (a base's
                # entry is its position, formation and state, nothing else)
                if (
                    old is not None
                    and old["x"] is x
                    and old["y"] is y
                    and old["facing"] is facing
                    and old["state"] is st
                    and old["formation"] == b.formation
                ):
                    bases[b.id] = old
                    continue
            else:
                x, y, facing = round(bx, 2), round(by, 2), round(bf, 1)
                # NaN and infinity fail the comparisons too: json would refuse them, so the
                # writer must take its path (engine.log.BattleLog.to_bytes); not kept either
                if -top < x < top and -top < y < top and -top < facing < top:
                    seen_xy[b.id] = (bx, by, bf, x, y, facing)
                else:
                    plain = False
            entry = {"x": x, "y": y, "facing": facing, "formation": b.formation, "state": st}
            old = old_bases.get(b.id)
            if old is not None and old == entry:  # moved and back, or rounded the same
                bases[b.id] = old
            else:
                bases[b.id] = new_bases[b.id] = entry
        entry = {"morale": morale[f.morale], "order": f.order, "wing_of": f.wing_of}
        extra = record(f) if record is not None else None
        if extra:  # most rulesets add nothing: no walk for them
            rounded, ok = round_for_log(extra)
            entry.update(rounded)
            plain = plain and ok
        was = old_forms.get(f.id)
        if was is not None and was == entry:
            forms[f.id] = was
        else:
            forms[f.id] = new_forms[f.id] = entry
    messengers, ok_messengers = round_for_log(delivery.snapshot() if delivery is not None else [])
    losses, ok_losses = round_for_log(state.losses())
    out = {
        "bases": bases,
        "formations": forms,
        "messengers": messengers,
        "losses": losses,
        **({"seen": seen_by_side(state, sight)} if sight is not None else {}),
    }
    if changed is not None and prev:
        changed["bases"], changed["formations"] = new_bases, new_forms
    return out, plain and ok_messengers and ok_losses


class Battle:
    """One fight of ``scenario`` on ``battlefield`` with the one ``dice``."""

    def __init__(
        self,
        battlefield: Ground,
        scenario: Scenario,
        dice: Dice,
        ruleset: Ruleset | str | None = None,
        commanders: dict[str, Commander] | None = None,
        delivery: Delivery | None = None,
        snapshots: bool = True,
    ) -> None:
        # False: each bound keeps its events but no snapshot (bases, formations, messengers,
        # what each side sees), which is only ever written to the log: a Monte Carlo replay
        # keeps only the result, and the result is the same (tests/test_montecarlo_replay.py)
        self.snapshots = snapshots
        #: each base's last position and its rounded values, for the next record
        #: (recorded_snapshot: a base that has not moved is not rounded again)
        self._rounded: dict[str, tuple[float, float, float, float, float, float]] = {}
        #: the last record's snapshot: the next one records what changed since
        self._last_snapshot: dict[str, Any] | None = None
        if ruleset is None or isinstance(ruleset, str):
            ruleset = get_ruleset(ruleset or scenario.ruleset)
        self.ruleset = ruleset
        check_playable(scenario, ruleset)  # a mechanism it cannot play: refused, not ignored
        # the ground as this ruleset reads it: its classes from its own terrain table
        self.bf = ground = ruleset.ground(battlefield)
        self.scenario = scenario
        self.dice = dice
        self.state = deploy(scenario, ground, ruleset)
        ruleset.prepare(self.state, scenario)
        # 6.3 with twilight read in (engine.light): the ruleset's day and night, and between them
        rules = replace(
            ruleset.sight_rules,
            sight_limit_m=twilight_sight_limit(ruleset.sight_rules.sight_limit_m),
        )
        self.sight = Sight(
            ground,
            self.state,
            rules=rules,
            weather=scenario.weather,
            time=scenario.time,
            locality=scenario.locality,
        )
        # light and weather bound by bound (engine.light): None when they never change
        self.sky = sky_for(scenario, ground, ruleset)
        if commanders is None:
            commanders = {s.id: ruleset.commander(scenario, s.id, ground) for s in scenario.sides}
        if delivery is None:  # the ruleset's (2mm Earth 9.1-9.2: messengers)
            delivery = ruleset.delivery(ground, scenario)
        self.delivery = delivery
        self.ctx = ruleset.new_context(
            bf=ground,
            state=self.state,
            dice=dice,
            ruleset=ruleset,
            sight=self.sight,
            scenario=scenario,
            commanders=dict(commanders),
            delivery=self.delivery,
        )
        if self.sky is not None:
            self.ctx.on_bound_start.append(self.sky)
        # the scenario's special rules (engine.special_rules): after the light (a fog's limit
        # is the lower of its own and the light's), before readiness
        self.ctx.special = special = SpecialRules.from_specs(list(scenario.special_rules))
        if special.any:
            self.ctx.on_bound_start.append(special)
            if special.fog is not None:  # lying as the armies deploy (the bound-0 record)
                self.sight.fog_m = special.fog.visibility_m
        # troops caught in camp, asleep or on the march (engine.readiness)
        self.ctx.readiness = readiness_for(scenario, self.state)
        if self.ctx.readiness is not None:
            self.ctx.on_bound_start.append(self.ctx.readiness)
        self.log = BattleLog(self._header())
        if self.ctx.readiness is not None:
            self.ctx.readiness.log = self.log
        # timed reinforcements leave the table until their bound (engine.reinforcements)
        # after the header, which lists every formation and base of the battle
        self.arrivals = arrivals_for(scenario, self.state, ground, ruleset)
        if self.arrivals is not None:
            self.ctx.on_bound_start.insert(0, self.arrivals)
            # off the table in the bound-0 snapshot: the header says when and where they come
            self.log.header["arrivals"] = self.arrivals.schedule(self.state.bounds_xy)
        self.log.bounds.append(self._record(0, []))
        self.idle = IdleWatch()
        self.ctx.idle = self.idle  # the commanders answer its reports (engine.command)
        self.result: dict[str, Any] | None = None
        #: (winner, reason, bound, losses then) once an army broke; the pursuit runs on after it
        self.decision: tuple[str | None, str, int, dict[str, int]] | None = None

    def _record(self, bound: int, events: list[Event]) -> BoundRecord:
        """The bound's record: its events and, unless snapshots are off, its snapshot."""
        if not self.snapshots:
            return BoundRecord(bound, events, {}, plain=True)
        ctx, rs = self.ctx, self.ruleset
        last = self._last_snapshot
        known: dict[str, dict[str, Any]] = {}
        snap, plain = recorded_snapshot(
            self.state,
            self.delivery,
            self.sight,
            lambda f: rs.formation_record(ctx, f),
            self._rounded,
            last,
            known,
        )
        self._last_snapshot = snap
        # the file keeps bound 0 whole and of each later bound what changed (docs/battle-log.md)
        changes = None if last is None else snapshot_changes(last, snap, known)
        return BoundRecord(bound, events, snap, plain=plain, changes=changes)

    # -- the log header ---------------------------------------------------------------------
    def _header(self) -> dict[str, Any]:
        sc = self.scenario
        st = self.state
        crs = self.bf.crs
        epsg = crs.to_epsg()
        return {
            "ruleset": self.ruleset.name,
            "scenario": sc.id,
            "seed": self.dice.seed,
            "crs": f"EPSG:{epsg}" if epsg else crs.to_string(),
            "battlefield": sc.battlefield.model_dump(exclude_defaults=True, mode="json"),
            # 6.3: what limits each side's sight (maps draw fog of war from these)
            "weather": sc.weather,
            "time": sc.time,
            **self._clock_header(),
            "locality": sc.locality,
            # only when named: a battle under the book alone keeps its log byte for byte
            **(
                {"special_rules": [r.model_dump(mode="json") for r in sc.special_rules]}
                if sc.special_rules
                else {}
            ),
            "sides": [
                {
                    "id": s.id,
                    "name": s.name,
                    "colour": s.colour,
                    "locality": st.sides[s.id].locality,
                }
                for s in sc.sides
            ],
            "formations": [
                {"id": f.id, "side": f.side, "name": f.name, "profile": f.profile.id}
                for f in st.formations.values()
            ],
            "bases": [
                {
                    "id": b.id,
                    "side": b.side,
                    "formation": b.formation,
                    "profile": b.profile.id,
                    "unit_type": str(b.profile.unit_type),
                    "character": b.character,
                    "w": b.w,
                    "d": b.d,
                }
                for f in st.formations.values()
                for b in f.bases
            ],
        }

    def _clock_header(self) -> dict[str, Any]:
        """The start, bound duration and the day's sun (only for a scenario that has them)."""
        clock = self.sky.clock if self.sky is not None else None
        if clock is None:
            return {}
        times = {
            k: (v.strftime("%H:%M") if v is not None else None)
            for k, v in clock.sun_times().items()
        }
        return {
            "clock": {
                "start": clock.start.isoformat(timespec="minutes"),
                "bound_minutes": clock.bound_minutes,
                "lonlat": [round(clock.lon, 5), round(clock.lat, 5)],
                "sun_local_mean_time": times,
            }
        }

    # -- playing ----------------------------------------------------------------------------
    @property
    def finished(self) -> bool:
        return self.result is not None

    def phases(self) -> Iterator[str]:
        """Play one bound, yielding each phase name after it is done; then record the bound."""
        if self.finished:
            return
        yield from run_bound(self.ctx)
        events = list(self.ctx.events)
        events += self.idle.observe(self.ctx, events)  # engine.idle: intents not carried out
        record = self._record(self.state.bound, events)
        self.log.bounds.append(record)
        self._check_end()

    def step(self) -> BoundRecord:
        for _ in self.phases():
            pass
        return self.log.bounds[-1]

    def run(
        self,
        max_bounds: int | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> BattleLog:
        """Fight to a decision or ``max_bounds`` (default the scenario's); ``progress(bound,
        limit)`` is told after every bound (a command's bar)."""
        limit = max_bounds if max_bounds is not None else self.scenario.max_bounds
        # a decided battle's pursuit runs on past the limit (at most victory.pursuit_bounds)
        while not self.finished and (self.state.bound < limit or self.decision is not None):
            self.step()
            if progress is not None:
                progress(min(self.state.bound, limit), limit)
        if not self.finished:
            self._finish(None, self._undecided())
        return self.log

    def _undecided(self) -> str:
        """The result's reason when the bounds ran out: why, as engine.idle saw the last bound
        ("no decision" by choice only when both sides hold)."""
        return f"no decision after {self.state.bound} bounds: {self.idle.undecided(self.state)}"

    def _check_end(self) -> None:
        if self.decision is not None:  # the pursuit after the break
            winner, reason, at, _ = self.decision
            chase = self.scenario.victory.pursuit_bounds
            if self.state.bound - at >= chase or self.ruleset.pursuit_over(self.ctx):
                self._finish(winner, reason)
            return
        frac = self.scenario.victory.rout_fraction
        broken = {s: self.state.broken_fraction(s) for s in self.state.sides}
        lost = sorted(s for s, v in broken.items() if v >= frac or not self.state.active(s))
        if not lost:
            if self.state.bound >= self.scenario.max_bounds:
                self._finish(None, self._undecided())
            return
        standing = [s for s in self.state.sides if s not in lost]
        if len(standing) == 1:
            names = " and ".join(f"{s} army" for s in lost)
            self._decide(standing[0], f"{names} routed")
        elif not standing:
            best = min(broken.values())
            winners = [s for s, v in broken.items() if v == best]
            self._decide(winners[0] if len(winners) == 1 else None, "both armies broke")

    def _decide(self, winner: str | None, reason: str) -> None:
        """An army broke: finish now, or let the ruleset's pursuit run on (victory.pursuit_bounds)
        while the broken sides' troops are still on the field."""
        if self.scenario.victory.pursuit_bounds == 0:
            self._finish(winner, reason)
            return
        broken = frozenset(s for s in self.state.sides if s != winner)
        self.decision = (winner, reason, self.state.bound, self.state.losses())
        self.ctx.aftermath = broken
        self.log.bounds[-1].events.extend(self.ruleset.begin_aftermath(self.ctx))
        if self.ruleset.pursuit_over(self.ctx):
            self._finish(winner, reason)

    def _finish(self, winner: str | None, reason: str) -> None:
        self.result = {
            "winner": winner,
            "bounds": self.state.bound,
            "reason": reason,
            "losses": self.state.losses(),
            "broken": {s: round(self.state.broken_fraction(s), 3) for s in self.state.sides},
        }
        # the losses split as the book tells them apart, and what the pursuit added
        # (engine.casualties): per formation, and summed by side
        by_formation = self.ruleset.casualties(self.ctx)
        self.result["casualties"] = per_side(by_formation, self.state)
        self.result["casualties_by_formation"] = dict(sorted(by_formation.items()))
        abandoned = self.ctx.special.abandoned
        if abandoned:  # special rule crews_flee: the guns' bases left, counted dispersed too
            self.result["guns_abandoned"] = {s: len(ids) for s, ids in sorted(abandoned.items())}
        if self.decision is not None:
            _, _, at, then = self.decision
            self.result["decided_bound"] = at
            self.result["pursuit_bounds"] = self.state.bound - at
            self.result["losses_at_break"] = then
        self.result["idle"] = self.idle.reported  # engine.idle: idle events logged
        stall = self.ctx.jams.stalled
        if stall is not None:  # engine.jams: the same formations stuck by each other
            self.result["stall"] = str(stall)
        self.log.result = self.result
