"""Play audit: is each shipped battle *played* as a table plays it?

Fights every shipped scenario under its own ruleset (and Flodden under every registered
ruleset) for seeds 1..N, exactly as ``scenario-builder run`` fights them, and prints per battle:

- ``melee``: melee events (mean per replay, and in how many replays there was any);
- ``never acted``: formations that never moved more than 1 m, shot or fought in a replay
  (counted over replays; the names of the most frequent);
- ``idle max``: the longest streak of bounds a steady formation with an intent to move or
  attack (its order ``advance``/``attack``, not at the place its advance was to) neither
  moved more than 1 m, shot nor fought;
- ``idle named``: idle events the engine logged (``idle``: the stall watcher naming a cause);
- ``unnamed``: idle-with-intent streaks of 6 bounds with no idle event for that formation
  since the streak began (the target: none);
- ``undecided``: replays that ended with no winner, and their reasons.

It reads only the battle logs (``BattleLog.to_dict()``), so it sees what a reader of
``battle_log.json`` sees::

    python benchmarks/play_audit.py --seeds 10
    python benchmarks/play_audit.py --only gettysburg_1863_day2 --seeds 4

Not a test: a measurement of play (the figures go into the closing notes and docs/).
"""

from __future__ import annotations

import argparse
import collections
import sys
from dataclasses import dataclass, field
from typing import Any

#: a formation "moved" in a bound when a move of more than this was logged (issue: a turn in
#: place or a creep of centimetres is not a move)
MOVED_M = 1.0


@dataclass
class Replay:
    melee: int = 0
    never_acted: list[str] = field(default_factory=list)
    idle_max: int = 0
    idle_who: str = ""
    idle_named: int = 0
    #: idle-with-intent streaks of IDLE_BOUNDS + 1 bounds with no idle event for the formation
    unnamed: int = 0
    winner: str | None = None
    reason: str = ""
    bounds: int = 0


def _acts(e: dict[str, Any]) -> list[str]:
    """The formations (or units) an event shows acting: moving, shooting or fighting."""
    t = e.get("type")
    if t == "moved":
        return [e["formation"]] if float(e.get("distance_m", 0.0)) > MOVED_M else []
    if t in ("shot", "melee"):
        return (
            [x for x in (e.get("formation"), e.get("target")) if x]
            if t == "melee"
            else [e["formation"]]
        )
    # medieval-d10's own events (engine/rulesets/medieval_d10/events.py)
    if t in ("d10_advance", "d10_charge", "d10_fall_back", "d10_rout_move"):
        return [e["unit"]] if float(e.get("metres", 0.0)) > MOVED_M else []
    if t == "d10_fire":
        return [e["unit"]]
    if t == "d10_melee":
        return [e["a"], e["b"]]
    return []


def _is_melee(e: dict[str, Any]) -> bool:
    return e.get("type") in ("melee", "d10_melee")


def audit_log(log: dict[str, Any]) -> Replay:
    r = Replay()
    forms = [f["id"] for f in log.get("formations", [])]
    acted: set[str] = set()
    streak: dict[str, int] = collections.defaultdict(int)
    arrived: dict[str, str] = {}  # formation -> the order it reached its goal under
    orders: dict[str, str] = {}
    effective: dict[str, str] = {}  # the order each formation carries out (its last taken up)
    named_at: dict[str, int] = {}  # formation -> bound of its last idle event
    for b in log["bounds"]:
        now: set[str] = set()
        for e in b["events"]:
            if e.get("type") == "moved" and e.get("halted") == "goal":
                arrived[e["formation"]] = effective.get(e["formation"], "")
            if e.get("type") == "order_received":
                orders[e["formation"]] = e.get("order", "")
            now.update(x for x in _acts(e) if x)
            if _is_melee(e):
                r.melee += 1
            if e.get("type") == "idle":
                r.idle_named += 1
                named_at[e["formation"]] = b["bound"]
        acted |= now
        snap = (b.get("snapshot") or {}).get("formations") or {}
        for fid, s in snap.items():
            # the order it carries out: one received that its order word does not show was not
            # taken up (9.1: melee-only troops told to Hold keep their Advance)
            if orders.get(fid, " ").split(" ", 1)[0] == s.get("order"):
                effective[fid] = orders[fid]
            intent = s.get("morale") == "steady" and s.get("order") in ("advance", "attack")
            if intent and fid in arrived and arrived[fid] == effective.get(fid, ""):
                intent = False  # at the place its advance was to, standing there by order
            if intent and fid not in now:
                streak[fid] += 1
                if streak[fid] > r.idle_max:
                    r.idle_max, r.idle_who = streak[fid], f"{fid}@{b['bound']}"
                # the engine names a streak after 5 bounds: one bound's slack for its reading
                began = b["bound"] - streak[fid] + 1
                if streak[fid] == 6 and named_at.get(fid, -1) < began:
                    r.unnamed += 1
            else:
                streak[fid] = 0
    r.never_acted = [f for f in forms if f not in acted]
    res = log.get("result") or {}
    r.winner, r.reason, r.bounds = res.get("winner"), res.get("reason", ""), res.get("bounds", 0)
    return r


def _fight(scenario_id: str, seed: int, ruleset: str | None) -> dict[str, Any]:
    from engine.log import expanded
    from engine.scenario import load_scenario
    from scenario_builder.battle import fight

    sc = load_scenario(scenario_id)
    log, _ = fight(sc, _built(scenario_id), seed, ruleset=ruleset)
    return expanded(log.to_dict())  # every bound's whole snapshot, as the file's readers get it


_GROUND: dict[str, Any] = {}


def _built(scenario_id: str) -> Any:
    from engine.scenario import load_scenario
    from scenario_builder.battle import build_battlefield

    if scenario_id not in _GROUND:
        _GROUND[scenario_id] = build_battlefield(load_scenario(scenario_id))
    return _GROUND[scenario_id]


def _cases(only: list[str]) -> list[tuple[str, str | None]]:
    from engine.rulesets import available_rulesets
    from engine.scenario import shipped_scenario_ids

    cases: list[tuple[str, str | None]] = [(s, None) for s in shipped_scenario_ids()]
    cases += [("flodden_1513", rs) for rs in available_rulesets() if rs != "2mm-earth-v0.9"]
    if only:
        cases = [c for c in cases if c[0] in only or f"{c[0]}:{c[1]}" in only]
    return cases


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--only", nargs="*", default=[], help="scenario ids (or id:ruleset)")
    args = ap.parse_args(argv)
    print(
        f"{'battle':40} {'melee':>11} {'never acted':>26} {'idle max':>22} {'named':>5} "
        f"{'unnamed':>7} undecided"
    )
    for sid, rs in _cases(args.only):
        reps = []
        for seed in range(1, args.seeds + 1):
            try:
                reps.append(audit_log(_fight(sid, seed, rs)))
            except Exception as exc:  # an audit reports a battle that cannot be fought
                print(f"{sid} {rs or ''} seed {seed}: {type(exc).__name__}: {exc}")
                break
        if not reps:
            continue
        n = len(reps)
        melee = sum(r.melee for r in reps) / n
        with_melee = sum(1 for r in reps if r.melee)
        never = collections.Counter(f for r in reps for f in r.never_acted)
        worst = max(reps, key=lambda r: r.idle_max)
        undecided = [r.reason for r in reps if r.winner is None]
        never_txt = ",".join(f"{f}x{c}" for f, c in never.most_common(2)) or "-"
        print(
            f"{sid + (':' + rs if rs else ''):40} {melee:6.1f} {with_melee:2}/{n:<2} "
            f"{never_txt[:26]:>26} {worst.idle_max:3} {worst.idle_who[:18]:>18} "
            f"{sum(r.idle_named for r in reps):5} {sum(r.unnamed for r in reps):7} "
            f"{len(undecided)}"
            + (f" ({collections.Counter(undecided).most_common(1)[0][0]})" if undecided else "")
        )
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
