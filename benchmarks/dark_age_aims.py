"""How often a ``dark-age`` commander re-aims and wheels its formed units, and what it costs.

Fights a shipped battle (default Maldon 991) under ``dark-age`` for seeds 1..N exactly as
``scenario-builder run`` does, reads only the battle logs, and prints per seed, then in total:

- ``moves``: moves (``moved`` events over 1 m) by formed units (shieldwall or cuneus);
- ``re-aims``: a formed unit's target not the one it went for last time (its planned move's,
  or the one it kept instead, ``aim_kept``);
- ``wheels``: formed units' moves that ended facing another way than the bound's start
  (5.17: every turn of a formed unit is a wheel);
- ``wheel DP``: DPs logged for a wheel in shieldwall (5.17);
- ``DP``: all DPs taken, by fatigue, wheels, interpenetration and everything else, and their
  rate per bound fought.

Not a test: the figures go into the report and docs/rules-interpretations.md::

    python benchmarks/dark_age_aims.py --seeds 8
"""

from __future__ import annotations

import argparse
import collections
from dataclasses import dataclass, field
from typing import Any

from benchmarks.play_audit import _fight

FORMED = ("shieldwall", "cuneus")
#: a move this long or longer is a move (a turn in place or a creep of centimetres is not)
MOVED_M = 1.0


@dataclass
class Count:
    bounds: int = 0
    moves: int = 0
    reaims: int = 0
    wheels: int = 0
    dps: collections.Counter[str] = field(default_factory=collections.Counter)
    winner: str = ""

    def add(self, o: Count) -> None:
        self.bounds += o.bounds
        self.moves += o.moves
        self.reaims += o.reaims
        self.wheels += o.wheels
        self.dps.update(o.dps)


def _causes(text: str, dps: int) -> collections.Counter[str]:
    """A ``disorder`` event's DPs by cause, in the four groups the report prints: its reason
    lists each cause (``move die 5, wheel in shieldwall``), one DP each, the rest other."""
    out: collections.Counter[str] = collections.Counter()
    for part in text.split(", "):
        if "wheel" in part:
            out["wheel"] += 1
        elif "move die" in part:
            out["fatigue"] += 1
        elif "interpenetration" in part:
            out["interpenetration"] += 1
    out["other"] += dps - sum(out.values())
    return +out if out["other"] >= 0 else collections.Counter(other=dps)


def count(log: dict[str, Any]) -> Count:
    c = Count(bounds=len(log["bounds"]), winner=str(log["result"].get("winner")))
    last_target: dict[str, str] = {}
    kind: dict[str, str] = {}
    facing: dict[str, float] = {}
    for b in log["bounds"]:
        kept = {e["formation"]: e["target"] for e in b["events"] if e["type"] == "aim_kept"}
        for e in b["events"]:
            t = e["type"]
            fid = e.get("formation", "")
            if t == "planned_move" and kind.get(fid) in FORMED and e.get("target"):
                target = kept.get(fid, e["target"])
                if fid in last_target and last_target[fid] != target:
                    c.reaims += 1
                last_target[fid] = target
            elif t == "moved" and kind.get(fid) in FORMED and e["distance_m"] > MOVED_M:
                c.moves += 1
                before = facing.get(fid)
                if (
                    before is not None
                    and abs((e["facing"] - before + 180.0) % 360.0 - 180.0) > 0.05
                ):
                    c.wheels += 1
            elif t == "disorder":
                c.dps.update(_causes(e["reason"], int(e["dps"])))
        # the bound's snapshot: each formation's chapter formation and facing at its end
        snap = b["snapshot"]["formations"]
        kind = {fid: str(s.get("formation_type")) for fid, s in snap.items()}
        facing = {}
        for base in b["snapshot"]["bases"].values():
            facing.setdefault(base["formation"], float(base["facing"]))
    return c


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--scenario", default="maldon_991")
    args = ap.parse_args(argv)
    total = Count()
    print(
        f"{'seed':>4} {'bounds':>6} {'moves':>5} {'re-aims':>7} {'wheels':>6} {'wheel DP':>8} "
        f"{'DP':>4} {'DP/bound':>8} winner"
    )
    for seed in range(1, args.seeds + 1):
        c = count(_fight(args.scenario, seed, "dark-age"))
        total.add(c)
        dp = sum(c.dps.values())
        print(
            f"{seed:4} {c.bounds:6} {c.moves:5} {c.reaims:7} {c.wheels:6} {c.dps['wheel']:8} "
            f"{dp:4} {dp / max(c.bounds, 1):8.2f} {c.winner}"
        )
    dp = sum(total.dps.values())
    print(
        f"{'all':>4} {total.bounds:6} {total.moves:5} {total.reaims:7} {total.wheels:6} "
        f"{total.dps['wheel']:8} {dp:4} {dp / max(total.bounds, 1):8.2f}"
    )
    print("DPs by cause:", dict(sorted(total.dps.items())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
