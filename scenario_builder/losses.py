"""A battle's lost bases as the sources count losses: men of foot and horse, pieces of guns,
kind by kind (killed, wounded, captured, dispersed: engine.casualties).

Each formation's lost bases by kind (the result's ``casualties_by_formation``) times what one of
its bases stands for (``Scenario.counted_as``: a formation of guns in pieces, its
``pieces_per_base``; foot and horse in men, its own ``men_per_base`` else its side's else the
scenario's), summed by side. A side's men (or pieces) are None when a lost base of it has no
stated representation: a sum that leaves some out is not the side's loss.

Against a historical band (``historical_outcome.losses``) the comparison is kind by kind: the
replay's killed against the sources' killed, captured against captured, wounded against
wounded; a band of several kinds against the same kinds summed; a total (killed, wounded and
missing) against every kind, the dispersed among them (the sources' missing); guns in pieces
(killed, captured or dispersed: an injured gun base has lost no gun) against the sources' guns
lost (docs/rules-interpretations.md, "Killed, wounded, captured and
dispersed").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from engine.casualties import LOSS_KINDS, LossKind

if TYPE_CHECKING:
    from engine.scenario import Scenario, SideLosses

__all__ = ["compared_kinds", "counted", "lost_in", "men_by_kind", "pieces_lost"]

#: a kind -> a count of it
Counts = dict[str, float]


def counted(result: Mapping[str, Any], scenario: Scenario, figures: bool = False) -> dict[str, Any]:
    """``{"lost_men": {side: {kind: men} | None}, "lost_pieces": {side: {kind: pieces} |
    None}}`` for one battle's ``result`` (engine.battle); ``figures``: fought under a ruleset
    that counts figures (a formation's ``figures`` in ``men_per_figure``)."""
    from engine.scenario import CountUnit

    sides = [s.id for s in scenario.sides]
    by_formation: Mapping[str, Mapping[str, int]] = result.get("casualties_by_formation") or {}
    totals: dict[CountUnit, dict[str, Counts | None]] = {
        unit: {s: {k.value: 0.0 for k in LOSS_KINDS} for s in sides} for unit in CountUnit
    }
    deployed = {f.id: s.id for s in scenario.sides for f in s.formations}
    alone = {c.id: s.id for s in scenario.sides for c in s.characters}
    for fid, row in by_formation.items():
        if fid in deployed:
            side = deployed[fid]
            unit, per_base = scenario.counted_as(fid, figures)
        else:  # a character placed alone (engine.deploy): his escort, men of his side
            side = alone[fid]
            unit, per_base = CountUnit.MEN, scenario.representation(side, figures)
        into = totals[unit][side]
        if into is None:
            continue
        if per_base is None:
            if any(row.values()):
                totals[unit][side] = None  # lost bases with no stated representation
            continue
        for kind, n in row.items():
            into[kind] = into.get(kind, 0.0) + n * per_base
    return {
        "lost_men": totals[CountUnit.MEN],
        "lost_pieces": totals[CountUnit.PIECES],
    }


def men_by_kind(run: Mapping[str, Any], side: str) -> Counts | None:
    """A replay's men lost by kind for ``side`` (None: no representation stated). A result
    without ``lost_men`` (written before it) counts its side's bases by kind times its
    side's ``men_per_base``."""
    if "lost_men" in run:
        got = run["lost_men"].get(side)
        return None if got is None else dict(got)
    rep = (run.get("men_per_base") or {}).get(side)
    cas = (run.get("casualties") or {}).get(side)
    if rep is None:
        return None
    if cas is None:  # a result from before the split: dead bases are all it has
        return {"killed": float(run["losses"].get(side, 0)) * rep}
    return {k: float(n) * rep for k, n in cas.items()}


def pieces_lost(run: Mapping[str, Any], side: str) -> float | None:
    """A replay's guns lost by ``side``, in pieces: killed, captured and dispersed (taken,
    destroyed or abandoned); an injured base of guns still on the table has lost no gun (None:
    a lost base of guns with no ``pieces_per_base``)."""
    got = (run.get("lost_pieces") or {}).get(side, {})
    if got is None:
        return None
    return float(sum(n for kind, n in got.items() if kind != LossKind.WOUNDED.value))


def compared_kinds(band: SideLosses) -> tuple[str, ...]:
    """The replay's kinds a band of men is set against: the kinds it gives, or every kind
    (the dispersed as the sources' missing) for a total."""
    if band.total is not None:
        return tuple(k.value for k in LOSS_KINDS)
    return band.given()


def lost_in(by_kind: Mapping[str, float], kinds: Sequence[str]) -> float:
    """The losses of ``kinds`` together."""
    return float(sum(by_kind.get(k, 0.0) for k in kinds))
