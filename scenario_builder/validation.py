"""A scenario's replays set against history: the figures ``scenario-builder validate`` reports.

Four comparisons, each with the sources' own figure beside the replays' (docs/validation.md):

- **winner**: the share of replays the historical winner wins, with its Wilson 95 % interval
  (:func:`scenario_builder.montecarlo.wilson_interval`);
- **losses**: each side's losses in men (lost bases x their formation's ``men_per_base``;
  median and quartiles) and its guns in pieces (x ``pieces_per_base``) against the sources'
  bands (``historical_outcome.losses``), with the share of replays inside. Bases lost are
  counted by kind (killed, wounded, captured, dispersed: docs/rules-interpretations.md
  "Killed, wounded, captured and dispersed") and compared kind by kind
  (:mod:`scenario_builder.losses`);
- **duration**: the replays' game time (bounds x the ruleset's ``bound_minutes``) against the
  hours the sources give (``historical_outcome.duration``);
- **CDB90**: the loss shares of winner and loser (all kinds lost over the strength at the start,
  as CDB90 counts casualties: killed, wounded and missing) against the envelope of the CAA
  database's battles 1600-1863 (:func:`envelope`), and against the battle's own row when the
  scenario names its ``historical_outcome.cdb90.isqno``.

Quartiles here are of one definition throughout, the (n + 1) p order statistic (Weibull's;
R's type 6, SPSS and Minitab): :data:`QUANTILE_METHOD`.

CDB90 (``data/history/cdb90_battles.csv``, derived from the CAA database; provenance and licence
in data/SOURCES.md): "CDB90 Battle Dataset, Jeffrey B. Arnold (after US Army CAA CDB90), odc-by".

>>> q = Quartiles.of([1, 2, 3, 4, 5, 6, 7])
>>> q.q1, q.median, q.q3
(2.0, 4.0, 6.0)
"""

from __future__ import annotations

import csv
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from engine.casualties import LossKind
from scenario_builder.errors import DataSourceError, ScenarioFileError
from scenario_builder.losses import compared_kinds, lost_in, men_by_kind, pieces_lost
from scenario_builder.montecarlo import comparable_bases, wilson_interval

if TYPE_CHECKING:
    from engine.scenario import Scenario

#: numpy's name for the (n + 1) p quantile (R type 6), the one the CDB90 figures are quoted in
QUANTILE_METHOD: Final = "weibull"
#: the shipped CDB90 table, under the data folder
CDB90_TABLE = Path("history") / "cdb90_battles.csv"
#: the envelope's battles: CDB90's first 200, 1600 to 1863 (the database numbers its battles
#: by war; 169 and 170, Sadowa and Custozza 1866, are among them, Chattanooga, November 1863,
#: is 201), before the rifled, breech-loading and entrenched battles of 1864 on
ENVELOPE_LAST_ISQNO = 200


class CDB90Winner(StrEnum):
    """Who won a CDB90 battle (its ``wina``)."""

    ATTACKER = "attacker"
    DEFENDER = "defender"
    DRAW = "draw"


@dataclass(frozen=True)
class Quartiles:
    """Median and quartiles of a sample (:data:`QUANTILE_METHOD`); ``n`` values."""

    q1: float
    median: float
    q3: float
    n: int

    @classmethod
    def of(cls, values: Sequence[float] | np.ndarray) -> Quartiles:
        arr = np.asarray(values, dtype=float)
        if arr.size == 0:
            return cls(math.nan, math.nan, math.nan, 0)
        q1, med, q3 = np.percentile(arr, [25, 50, 75], method=QUANTILE_METHOD)
        return cls(float(q1), float(med), float(q3), int(arr.size))

    def json(self, digits: int = 4) -> dict[str, float | int | None]:
        def r(v: float) -> float | None:
            return None if math.isnan(v) else round(v, digits)

        return {"q1": r(self.q1), "median": r(self.median), "q3": r(self.q3), "n": self.n}


@dataclass(frozen=True)
class CDB90Battle:
    """One CDB90 battle as shipped: strengths and casualties (men) of attacker and defender."""

    isqno: int
    name: str
    war: str
    start: str
    end: str
    winner: CDB90Winner
    #: whether ``wina`` was written in the table (a blank is read as the attacker's defeat)
    winner_recorded: bool
    #: the ``isqno`` this row duplicates (CDB90's ``parent``), else None
    duplicate_of: int | None
    attacker_strength: float | None
    attacker_casualties: float | None
    defender_strength: float | None
    defender_casualties: float | None

    def share(self, attacker: bool) -> float | None:
        """The attacker's (or defender's) casualties over its strength, if both are known."""
        s, c = (
            (self.attacker_strength, self.attacker_casualties)
            if attacker
            else (self.defender_strength, self.defender_casualties)
        )
        return None if s is None or c is None or s <= 0 else c / s

    def winner_loser_shares(self) -> tuple[float, float] | None:
        """(winner's loss share, loser's) of a decided battle with all four figures."""
        if self.winner is CDB90Winner.DRAW:
            return None
        a, d = self.share(True), self.share(False)
        if a is None or d is None:
            return None
        return (a, d) if self.winner is CDB90Winner.ATTACKER else (d, a)


def _number(text: str) -> float | None:
    return float(text) if text.strip() else None


def load_cdb90(path: Path | None = None) -> dict[int, CDB90Battle]:
    """The shipped CDB90 table (``data/history/cdb90_battles.csv``) by ``isqno``.

    ``wina`` is 1 (the attacker won), 0 (a draw) or blank. The codebook's third value, -1 (the
    attacker lost), never appears in this edition, while 219 rows are blank; those are read as
    the attacker's defeat: in 96 % of them CDB90's own mission-accomplishment score (``ach``)
    is higher for the defender (in none of the attacker's wins), and they are the battles the
    attacker lost (Nieuport 1600, Chancellorsville, Gettysburg)."""
    from scenario_builder.paths import data_dir

    path = path or data_dir() / CDB90_TABLE
    try:
        with path.open(encoding="utf-8", newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as exc:
        raise DataSourceError(path, f"cannot read the CDB90 table ({exc.strerror})") from None
    out: dict[int, CDB90Battle] = {}
    try:
        for r in rows:
            wina = r["wina"].strip()
            winner = {"1": CDB90Winner.ATTACKER, "0": CDB90Winner.DRAW, "-1": None}.get(
                wina, CDB90Winner.DEFENDER
            )
            q = int(r["isqno"])
            out[q] = CDB90Battle(
                isqno=q,
                name=r["name"],
                war=r["war"],
                start=r["start"],
                end=r["end"],
                winner=winner or CDB90Winner.DEFENDER,
                winner_recorded=bool(wina),
                duplicate_of=int(r["parent"]) if r["parent"].strip() else None,
                attacker_strength=_number(r["attacker_str"]),
                attacker_casualties=_number(r["attacker_cas"]),
                defender_strength=_number(r["defender_str"]),
                defender_casualties=_number(r["defender_cas"]),
            )
    except (KeyError, ValueError) as exc:
        raise DataSourceError(path, f"not the CDB90 table this version ships ({exc})") from None
    return out


@dataclass(frozen=True)
class Envelope:
    """Loss shares of winners and losers over a set of CDB90 battles."""

    battles: int
    winner: Quartiles
    loser: Quartiles
    #: share of the battles in which the loser lost the larger share of its strength
    loser_larger: float
    #: (winner's share, loser's) of each battle, for the plot
    points: tuple[tuple[float, float], ...]
    selection: str

    def json(self) -> dict[str, Any]:
        return {
            "selection": self.selection,
            "battles": self.battles,
            "winner_loss_share": self.winner.json(),
            "loser_loss_share": self.loser.json(),
            "loser_lost_larger_share": round(self.loser_larger, 4),
        }


def envelope(
    table: Mapping[int, CDB90Battle],
    *,
    last_isqno: int = ENVELOPE_LAST_ISQNO,
    recorded_winner_only: bool = False,
) -> Envelope:
    """The envelope of CDB90 battles ``1 .. last_isqno``: decided, not a duplicate row, both
    sides' strength and casualties known. ``recorded_winner_only`` keeps only the rows whose
    ``wina`` is written, which in this edition are all the attacker's wins (:func:`load_cdb90`)."""
    pts: list[tuple[float, float]] = []
    for q in sorted(table):
        b = table[q]
        if q > last_isqno or b.duplicate_of is not None:
            continue
        if recorded_winner_only and not b.winner_recorded:
            continue
        wl = b.winner_loser_shares()
        if wl is not None:
            pts.append(wl)
    arr = np.array(pts, dtype=float).reshape(-1, 2)
    kept = "battles with a recorded winner" if recorded_winner_only else "decided battles"
    period = " (1600-1863)" if last_isqno == ENVELOPE_LAST_ISQNO else ""
    return Envelope(
        battles=len(pts),
        winner=Quartiles.of(arr[:, 0]),
        loser=Quartiles.of(arr[:, 1]),
        loser_larger=float((arr[:, 1] > arr[:, 0]).mean()) if len(pts) else math.nan,
        points=tuple(pts),
        selection=f"CDB90 isqno 1-{last_isqno}{period}: {kept} with both sides' "
        "strength and casualties, duplicates left out",
    )


def _rank(sample: Sequence[float] | np.ndarray, x: float) -> float:
    """The share of ``sample`` at or below ``x`` (where ``x`` stands among them)."""
    arr = np.asarray(sample, dtype=float)
    return float((arr <= x).mean()) if arr.size and not math.isnan(x) else math.nan


@dataclass(frozen=True)
class Replay:
    """One replay's result as the validation reads it: bases lost by kind per side."""

    seed: int
    winner: str | None
    stalled: bool
    bounds: int
    strength: dict[str, int]
    #: side -> kind -> bases lost (a mapping, so a new kind is a new key, not a new field)
    lost: dict[str, dict[LossKind, int]]
    men_per_base: dict[str, float | None]
    result: dict[str, Any]

    @classmethod
    def of(cls, result: dict[str, Any], sides: Sequence[str]) -> Replay:
        cas = result.get("casualties") or {}
        lost: dict[str, dict[LossKind, int]] = {}
        for side in sides:
            by = cas.get(side)
            if by is None:  # a result from before the split: dead bases are all it has
                lost[side] = {LossKind.KILLED: int(result["losses"].get(side, 0))}
            else:
                lost[side] = {k: int(by.get(k.value, 0)) for k in LossKind}
        return cls(
            seed=int(result["seed"]),
            winner=result.get("winner"),
            stalled=bool(result.get("stall")),
            bounds=int(result["bounds"]),
            strength={s: int(result.get("strength", {}).get(s, 0)) for s in sides},
            lost=lost,
            men_per_base={s: (result.get("men_per_base") or {}).get(s) for s in sides},
            result=result,
        )

    def bases(self, side: str, kinds: Sequence[str]) -> int:
        """Bases lost in the kinds a comparison covers (montecarlo's one rule for it)."""
        return comparable_bases(self.result, side, kinds)

    def share(self, side: str) -> float:
        """Every base lost (all kinds, as CDB90's casualties) over the side's bases."""
        n = self.strength.get(side, 0)
        return self.bases(side, [k.value for k in LossKind]) / n if n else math.nan


def validate(
    scenario: Scenario,
    results: Sequence[dict[str, Any]],
    *,
    ruleset: str,
    bound_minutes: float | None,
    table: Mapping[int, CDB90Battle] | None = None,
) -> dict[str, Any]:
    """The validation of ``scenario`` from its replays' ``results`` (as
    :func:`scenario_builder.montecarlo.run_replays` returns them): the content of
    ``validation.json``. ``bound_minutes`` is the ruleset's bound duration (None: unstated)."""
    from engine.rulesets import get_ruleset

    table = load_cdb90() if table is None else table
    sides = [s.id for s in scenario.sides]
    replays = [Replay.of(r, sides) for r in results]
    n = len(replays)
    hist = scenario.historical_outcome
    out: dict[str, Any] = {
        "scenario": scenario.id,
        "name": scenario.name,
        "ruleset": ruleset,
        "runs": n,
        "seeds": [replays[0].seed, replays[-1].seed] if replays else [],
        "sides": sides,
        "quantiles": f"(n + 1) p order statistic (numpy method {QUANTILE_METHOD!r}, R type 6)",
    }
    out["winner"] = _winner(replays, sides, None if hist is None else hist.winner, hist)
    out["losses"] = _losses(replays, sides, scenario, get_ruleset(ruleset).counts_figures)
    out["duration"] = _duration(replays, scenario, bound_minutes)
    out["cdb90"] = _cdb90(replays, sides, scenario, table)
    out["replays"] = [
        {
            "seed": r.seed,
            "winner": r.winner,
            "stalled": r.stalled,
            "bounds": r.bounds,
            "game_minutes": None if bound_minutes is None else r.bounds * bound_minutes,
            "strength_bases": r.strength,
            "lost_bases": {s: {k.value: v for k, v in r.lost[s].items()} for s in sides},
            "lost_men": {s: men_by_kind(r.result, s) for s in sides},
            "lost_pieces": {s: (r.result.get("lost_pieces") or {}).get(s) for s in sides},
            "loss_share": {s: _round(r.share(s)) for s in sides},
        }
        for r in replays
    ]
    return out


def _round(v: float, digits: int = 4) -> float | None:
    return None if v is None or math.isnan(v) else round(v, digits)


def _winner(
    replays: Sequence[Replay], sides: Sequence[str], winner: str | None, hist: Any
) -> dict[str, Any]:
    n = len(replays)
    counts = {s: sum(1 for r in replays if r.winner == s) for s in sides}
    counts["stalled"] = sum(1 for r in replays if r.stalled)
    counts["draw"] = sum(1 for r in replays if r.winner is None and not r.stalled)
    if hist is None:
        return {"historical": None, "counts": counts, "note": "the scenario states no outcome"}
    k = counts["draw"] if winner is None else counts[winner]
    lo, hi = wilson_interval(k, n)
    return {
        "historical": winner,
        "wins": k,
        "share": _round(k / n if n else math.nan),
        "ci95": [round(lo, 4), round(hi, 4)],
        "interval": "Wilson score, 95 %",
        "counts": counts,
    }


def _losses(
    replays: Sequence[Replay], sides: Sequence[str], scenario: Scenario, figures: bool
) -> dict[str, Any]:
    hist = scenario.historical_outcome
    out: dict[str, Any] = {}
    for side in sides:
        men_rows = [men_by_kind(r.result, side) for r in replays]
        piece_rows = [(r.result.get("lost_pieces") or {}).get(side) for r in replays]
        row: dict[str, Any] = {
            "men_per_base": scenario.representation(side, figures),
            "strength_bases": replays[0].strength[side] if replays else 0,
            "strength_men": _strength_men(scenario, side, figures),
            "lost_bases_by_kind": {
                k.value: Quartiles.of([r.lost[side].get(k, 0) for r in replays]).json()
                for k in LossKind
            },
            "lost_men_by_kind": _by_kind(men_rows),
            "lost_pieces_by_kind": _by_kind(piece_rows),
        }
        band = None if hist is None else hist.losses.get(side)
        if band is None:
            row["sources"] = None
            row["note"] = "the sources give no figure"
            out[side] = row
            continue
        row["sources"] = {
            "band_men": list(band.band()) if band.given() else None,
            "kinds": list(band.given()),
            "band_pieces": None if band.guns is None else list(band.guns),
            "note": band.note,
        }
        if band.given() and any(m is None for m in men_rows):
            row["note"] = "no men_per_base stated: no losses in men"
        elif band.given():
            kinds = compared_kinds(band)
            men = np.array([lost_in(m, kinds) for m in men_rows if m is not None], dtype=float)
            row["compared_kinds"] = list(kinds)
            row["total_kinds"] = band.total is not None
            row["lost_men"] = Quartiles.of(men).json(1)
            row["share_in_band"] = _share_inside(men, band.band())
            row["by_kind"] = {
                kind: {
                    "band_men": list(b),
                    "lost_men": Quartiles.of(
                        k_men := np.array([m.get(kind, 0.0) for m in men_rows if m])
                    ).json(1),
                    "share_in_band": _share_inside(k_men, b),
                }
                for kind, b in band.bands().items()
            }
        if band.guns is not None:
            pieces = [pieces_lost(r.result, side) for r in replays]
            if any(v is None for v in pieces):
                row["guns"] = {"band_pieces": list(band.guns), "note": "no pieces_per_base stated"}
            else:
                arr = np.array(pieces, dtype=float)
                row["guns"] = {
                    "band_pieces": list(band.guns),
                    "lost_pieces": Quartiles.of(arr).json(1),
                    "share_in_band": _share_inside(arr, band.guns),
                }
        out[side] = row
    return out


def _share_inside(values: np.ndarray, band: Sequence[float]) -> float | None:
    lo, hi = band
    return _round(float(((values >= lo) & (values <= hi)).mean())) if values.size else None


def _by_kind(rows: Sequence[Mapping[str, float] | None]) -> dict[str, Any] | None:
    """Each kind's quartiles over the replays (None: a replay has no count in this unit)."""
    if not rows or any(r is None for r in rows):
        return None
    return {
        k.value: Quartiles.of([r.get(k.value, 0.0) for r in rows if r]).json(1) for k in LossKind
    }


def _strength_men(scenario: Scenario, side: str, figures: bool = False) -> float | None:
    """The side's men at the start: its foot and horse bases (or, under a ruleset that
    counts figures, figures) times their men per base (guns are not men); None when a
    formation of men states none."""
    from engine.scenario import CountUnit

    total = 0.0
    for f in scenario.side(side).formations:
        unit, per_base = scenario.counted_as(f.id, figures)
        if unit is CountUnit.MEN:
            if per_base is None:
                return None
            total += f.deployed(figures)[0] * per_base
    return total


def _duration(
    replays: Sequence[Replay], scenario: Scenario, bound_minutes: float | None
) -> dict[str, Any]:
    bounds = np.array([r.bounds for r in replays], dtype=float)
    # a replay stopped by max_bounds undecided is a lower bound on its duration, not a length
    capped = sum(1 for r in replays if r.winner is None and r.bounds >= scenario.max_bounds)
    out: dict[str, Any] = {
        "bounds": Quartiles.of(bounds).json(1),
        "max_bounds": scenario.max_bounds,
        "stopped_at_max_bounds": capped,
        "bound_minutes": bound_minutes,
    }
    hist = scenario.historical_outcome
    dur = None if hist is None else hist.duration
    out["sources"] = None if dur is None else {"hours": list(dur.hours), "note": dur.note}
    if bound_minutes is None:
        out["note"] = "the ruleset states no bound duration: no game time"
        return out
    minutes = bounds * bound_minutes
    out["game_minutes"] = Quartiles.of(minutes).json(1)
    if dur is not None:
        lo, hi = dur.hours[0] * 60, dur.hours[1] * 60
        out["share_in_band"] = _round(float(((minutes >= lo) & (minutes <= hi)).mean()))
    return out


def _cdb90(
    replays: Sequence[Replay],
    sides: Sequence[str],
    scenario: Scenario,
    table: Mapping[int, CDB90Battle],
) -> dict[str, Any]:
    env = envelope(table)
    env_w = [p[0] for p in env.points]
    env_l = [p[1] for p in env.points]
    decided = [r for r in replays if r.winner in sides and len(sides) == 2]
    pairs = [
        (r.share(str(r.winner)), r.share(next(s for s in sides if s != r.winner))) for r in decided
    ]
    w = Quartiles.of([p[0] for p in pairs])
    lo = Quartiles.of([p[1] for p in pairs])
    inside = sum(
        1
        for a, b in pairs
        if env.winner.q1 <= a <= env.winner.q3 and env.loser.q1 <= b <= env.loser.q3
    )
    out: dict[str, Any] = {
        "envelope": env.json(),
        "replays": {
            "decided": len(pairs),
            "winner_loss_share": w.json(),
            "loser_loss_share": lo.json(),
            "loser_lost_larger_share": _round(
                sum(1 for a, b in pairs if b > a) / len(pairs) if pairs else math.nan
            ),
            "inside_quartile_box": _round(inside / len(pairs) if pairs else math.nan),
            # where the replays' medians stand among the envelope's battles
            "winner_median_rank": _round(_rank(env_w, w.median)),
            "loser_median_rank": _round(_rank(env_l, lo.median)),
        },
        "battle": None,
    }
    b = cdb90_row(scenario, table)
    hist = scenario.historical_outcome
    ref = None if hist is None else hist.cdb90
    if b is None or ref is None:
        return out
    per_side: dict[str, Any] = {}
    for side in sides:
        attacker = side == ref.attacker
        shares = [r.share(side) for r in replays]
        row_share = b.share(attacker)
        per_side[side] = {
            "role": "attacker" if attacker else "defender",
            "strength": b.attacker_strength if attacker else b.defender_strength,
            "casualties": b.attacker_casualties if attacker else b.defender_casualties,
            "loss_share": _round(row_share) if row_share is not None else None,
            "replays_loss_share": Quartiles.of(shares).json(),
            "rank_among_replays": None if row_share is None else _round(_rank(shares, row_share)),
        }
    winner_side = None
    if b.winner is CDB90Winner.ATTACKER:
        winner_side = ref.attacker
    elif b.winner is CDB90Winner.DEFENDER:
        winner_side = next((s for s in sides if s != ref.attacker), None)
    out["battle"] = {
        "isqno": b.isqno,
        "name": b.name,
        "war": b.war,
        "start": b.start,
        "end": b.end,
        "winner": winner_side,
        "winner_recorded": b.winner_recorded,
        "note": ref.note,
        "sides": per_side,
    }
    return out


def cdb90_row(scenario: Scenario, table: Mapping[int, CDB90Battle]) -> CDB90Battle | None:
    """The CDB90 row the scenario names (``historical_outcome.cdb90.isqno``), None if it names
    none; a number not in the table is the scenario file's error."""
    hist = scenario.historical_outcome
    ref = None if hist is None else hist.cdb90
    if ref is None:
        return None
    if ref.isqno not in table:
        raise ScenarioFileError(
            scenario.path or scenario.id,
            f"historical_outcome.cdb90.isqno: expected a battle of the CDB90 table "
            f"({min(table)}-{max(table)}), got {ref.isqno}",
        )
    return table[ref.isqno]


def plot(report: Mapping[str, Any], env: Envelope, path: str | Path) -> None:
    """The figure for a paper: each decided replay's winner and loser loss shares (all kinds
    lost over the bases at the start) against CDB90's battles 1600-1863, their quartile box
    and medians; the sources' bands as a shaded box (the historical winner's on x, the
    loser's on y, in men over the scenario's strength in men); y = x, above which the loser
    lost the larger share."""
    from matplotlib.figure import Figure

    sides = list(report["sides"])
    rows = report["replays"]
    hist_w = report["winner"].get("historical")
    fig = Figure(figsize=(7.2, 7.6))
    # the legend goes under the axes: inside, it would hide replays near 100 % lost
    fig.subplots_adjust(left=0.11, right=0.97, bottom=0.25, top=0.92)
    ax = fig.subplots()
    ex = [100 * p[0] for p in env.points]
    ey = [100 * p[1] for p in env.points]
    ax.scatter(ex, ey, s=10, color="#b0b0b0", label=f"CDB90 battles 1600-1863 (n = {env.battles})")
    box_x = (100 * env.winner.q1, 100 * env.winner.q3)
    box_y = (100 * env.loser.q1, 100 * env.loser.q3)
    ax.add_patch(_rect(box_x, box_y, edge="#555555", fill=None, ls="--"))
    ax.plot(
        [100 * env.winner.median],
        [100 * env.loser.median],
        marker="+",
        ms=14,
        mew=2,
        color="#333333",
        ls="none",
        label="CDB90 medians, quartile box (dashed)",
    )
    # the sources' bands as shares of the scenario's strength in men
    losses = report["losses"]
    losers = [s for s in sides if s != hist_w]
    if hist_w in losses and len(losers) == 1:
        bx = _band_share(losses[hist_w])
        by = _band_share(losses[losers[0]])
        if bx is not None and by is not None:
            given = losses[hist_w]["sources"]["kinds"]
            kinds = ", ".join(k.value for k in LossKind if k.value in given)
            label = f"sources' losses ({kinds}) over the scenario's strength"
            if bx[1] - bx[0] < 1 and by[1] - by[0] < 1:  # point estimates: a marker
                ax.plot(
                    [sum(bx) / 2],
                    [sum(by) / 2],
                    "s",
                    color="#c0392b",
                    ms=9,
                    ls="none",
                    label=label,
                    zorder=4,
                )
            else:
                ax.add_patch(_rect(bx, by, edge="#c0392b", fill="#c0392b", alpha=0.25, label=label))
    battle = report["cdb90"].get("battle")
    if battle is not None and battle["winner"] in battle["sides"]:
        bw = battle["sides"][battle["winner"]]["loss_share"]
        bl = battle["sides"][_other(sides, battle["winner"])]["loss_share"]
        if bw is not None and bl is not None:
            ax.plot(
                [100 * bw],
                [100 * bl],
                "*",
                color="#27ae60",
                ms=15,
                mec="black",
                mew=0.6,
                ls="none",
                label=f"CDB90 {battle['isqno']} {battle['name'].title()} "
                f"({battle['start'][:10]} to {battle['end'][:10]})",
                zorder=4,
            )
    marks = {hist_w: ("o", "#1f4e9c", f"replay won by {hist_w} (historical winner)")}
    for side in sides:
        if side not in marks:
            marks[side] = ("^", "#e67e22", f"replay won by {side}")
    for side, (m, colour, label) in marks.items():
        pts = [
            (100 * r["loss_share"][side], 100 * r["loss_share"][_other(sides, side)])
            for r in rows
            if r["winner"] == side and r["loss_share"][side] is not None
        ]
        if pts:
            px, py = zip(*pts, strict=True)
            ax.scatter(
                px,
                py,
                marker=m,
                s=36,
                color=colour,
                edgecolor="white",
                linewidth=0.5,
                label=f"{label} ({len(pts)})",
                zorder=3,
            )
    ax.plot([0, 100], [0, 100], color="#999999", lw=0.8)
    # the winners' shares set the x range; a little room past 100 % keeps a whole army lost
    # (a pursuit that caught everyone) on the plot, not on its frame
    xs = [
        100 * r["loss_share"][r["winner"]]
        for r in rows
        if r["winner"] in r["loss_share"] and r["loss_share"][r["winner"]] is not None
    ]
    top_x = min(100.0, 5 * math.ceil(max([40.0, *ex, *xs]) / 5 + 0.5))
    ax.set_xlim(-0.01 * top_x, 1.01 * top_x)
    ax.set_ylim(-1, 102)
    ax.set_xlabel(
        "winner's losses, % of its strength at the start (killed, wounded, captured, dispersed)"
    )
    ax.set_ylabel("loser's losses, % of its strength at the start")
    n = report["runs"]
    ax.set_title(f"{report['name']}\n{n} replays ({report['ruleset']}) against CDB90", fontsize=10)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=1, fontsize=7.5)
    fig.text(
        0.01,
        0.005,
        "CDB90 Battle Dataset, Jeffrey B. Arnold (after US Army CAA CDB90), odc-by",
        fontsize=6.5,
        color="#666666",
    )
    fig.savefig(path, dpi=130)


def _other(sides: Sequence[str], side: str) -> str:
    return next(s for s in sides if s != side)


def _band_share(row: Mapping[str, Any]) -> tuple[float, float] | None:
    src = row.get("sources")
    men = row.get("strength_men")
    if not src or src.get("band_men") is None or not men:
        return None
    lo, hi = src["band_men"]
    return (100 * lo / men, 100 * hi / men)


def _rect(
    xs: tuple[float, float],
    ys: tuple[float, float],
    *,
    edge: str,
    fill: str | None,
    ls: str = "-",
    alpha: float = 1.0,
    label: str = "",
) -> Any:
    from matplotlib.patches import Rectangle

    return Rectangle(
        (xs[0], ys[0]),
        max(xs[1] - xs[0], 0.4),  # a point estimate ([n, n]) still shows
        max(ys[1] - ys[0], 0.4),
        edgecolor=edge,
        facecolor=fill if fill is not None else "none",
        linestyle=ls,
        alpha=alpha,
        label=label or None,
        lw=1.2,
    )
