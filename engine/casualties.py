"""Lost bases by kind, as the sources count losses: killed, wounded, captured and dispersed.

A base is *lost* when it is not on the table fit to fight at the end: dead, injured (where the
book has injured bases, 2mm Earth 2.4), or in a unit that left the field alive (fled off the
table, dispersed). Each lost base is counted once, under one kind:

- **captured**: a dead base in ``captured`` (2mm Earth 11.1's routers run down by the enemy;
  special rule surrender's prisoners);
- **dispersed**: a dead base in ``dispersed`` (War & Conquest's units dispersed or fled off the
  table, which the book removes), or a living base of a unit gone from the table
  (``Morale.DESTROYED`` with bases alive: 2mm Earth 11.1 routers who fled the field,
  medieval-d10 units routed off the battlefield);
- **killed**: every other dead base;
- **wounded**: an injured base still on the table (only where ``wounded`` is asked: the book
  tells injured bases apart).

So killed + wounded + captured + dispersed = bases lost, per formation and per side
(docs/rules-interpretations.md, "Killed, wounded, captured and dispersed").

>>> LossKind.DISPERSED.value, [k.value for k in LossKind][:3]
('dispersed', ['killed', 'wounded', 'captured'])
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from enum import StrEnum
from typing import TYPE_CHECKING

from engine.state import BaseStatus, BattleState, Morale

if TYPE_CHECKING:
    from engine.context import BoundContext

__all__ = ["LOSS_KINDS", "LossKind", "deployed_in", "dispersed", "lost_bases", "per_side"]


class LossKind(StrEnum):
    """A lost base's fate (module docstring)."""

    KILLED = "killed"
    WOUNDED = "wounded"
    CAPTURED = "captured"
    DISPERSED = "dispersed"


#: every kind, in the order reports show them
LOSS_KINDS: tuple[LossKind, ...] = tuple(LossKind)


def dispersed(ctx: BoundContext) -> set[str]:
    """The dead bases to count dispersed: those the book removed as dispersed or fled
    (``ctx.dispersed``) and the guns special rule crews_flee abandoned, whose crews fled
    (``ctx.special.abandoned``; the guns are lost as pieces, engine.special_rules)."""
    return set(ctx.dispersed).union(*ctx.special.abandoned.values())


def lost_bases(
    state: BattleState,
    *,
    captured: Collection[str] = (),
    dispersed: Collection[str] = (),
    wounded: bool = False,
) -> dict[str, dict[str, int]]:
    """Each formation of the scenario that lost a base -> its lost bases by kind (all four,
    zeros included); ``captured`` and ``dispersed`` are base ids of dead bases counted so,
    ``wounded`` counts injured bases still on the table. A base is counted under the formation
    it was deployed in (its id's prefix, engine.state), wherever a brigade (5.1) or a wing has
    taken it since, so each formation's own representation applies to it."""
    out: dict[str, dict[str, int]] = {}
    for f in state.formations.values():
        gone = f.morale is Morale.DESTROYED
        for b in f.bases:
            if b.status is BaseStatus.DEAD:
                if b.id in captured:
                    kind = LossKind.CAPTURED
                elif b.id in dispersed:
                    kind = LossKind.DISPERSED
                else:
                    kind = LossKind.KILLED
            elif gone:
                kind = LossKind.DISPERSED
            elif wounded and b.status is BaseStatus.INJURED:
                kind = LossKind.WOUNDED
            else:
                continue
            row = out.setdefault(deployed_in(b.id), {k.value: 0 for k in LOSS_KINDS})
            row[kind.value] += 1
    return out


def deployed_in(base_id: str) -> str:
    """The formation a base was deployed in: its id is ``<formation>.<n>`` (engine.state).

    >>> deployed_in("sc_home.12")
    'sc_home'
    """
    return base_id.rsplit(".", 1)[0]


def per_side(
    by_formation: Mapping[str, Mapping[str, int]], state: BattleState
) -> dict[str, dict[str, int]]:
    """The formations' lost bases summed by side (every side, every kind)."""
    side_of = {deployed_in(b.id): f.side for f in state.formations.values() for b in f.bases}
    out = {s: {k.value: 0 for k in LOSS_KINDS} for s in state.sides}
    for fid, row in by_formation.items():
        side = out[side_of[fid]]
        for kind, n in row.items():
            side[kind] = side.get(kind, 0) + int(n)
    return out
