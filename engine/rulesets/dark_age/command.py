"""Dark Age 5.5-5.9 command formations in battle: a Battle Line or March Column of units of one
command in base contact, rolling one move die (5.9) and breaking up when it no longer is one.

Readings (docs/rules-interpretations.md, "Dark Age command formations"):

- 5.5's "as long as their commander spent 1 CP" is in the absent command chapter: a command
  formation is formed at deployment only (the scenario's ``command_formations`` of a side) and
  costs nothing; once broken up it is not re-formed in battle.
- facing the same or the opposite way: within 5.15's 22.5 degrees (:data:`FACING_TOLERANCE_DEG`).
- base contact: each member within :data:`CONTACT_M` of another member, all of them one
  connected chain (the engine's moves leave a metre or two of play between bodies that move
  together).
- it breaks up (:class:`CommandFormationBroken`) when a member is gone or not steady, is no longer
  in the chapter's formation for it (5.5: Battle Line shieldwall or cuneus; March Column
  column), faces off the line, or the chain of contact is broken; its units then move and roll
  individually.
- 5.9: the members that move this bound with the same kind of move, none with any footprint
  in difficult ground ("all but rough terrain"), use one roll: the pace setter's die (slowest,
  then highest grade); each member takes that roll's fatigue DPs as its own formation does
  (5.11: a cuneus only on a 5).
- 5.8 "Troops in March Column may not approach closer than bow range to enemy": its members'
  closing moves halt at bow range in the tactical phase too (:func:`march_column_halts`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from engine.log import Event, Names, in_words, keep_ids
from engine.rulesets.dark_age.formations import (
    CommandFormation,
    LineUnit,
    valid_battle_line,
    valid_march_column,
)
from engine.state import Morale

__all__ = [
    "CONTACT_M",
    "CommandFormationBroken",
    "CommandFormationFormed",
    "Standing",
    "break_up",
    "form_at_deployment",
]

#: "base to base contact" on the engine's table: the gap between two members' rectangles
CONTACT_M = 2.0


@dataclass(slots=True)
class Standing:
    """One command formation in play: its kind and members (scenario order)."""

    id: str
    kind: CommandFormation
    units: tuple[str, ...]
    broken: bool = False


@dataclass(frozen=True, slots=True)
class CommandFormationFormed(Event):
    """Dark Age 5.5: ``units`` stand as one Battle Line or March Column."""

    type: ClassVar[str] = "command_formation"
    command_formation: str
    kind: str
    units: tuple[str, ...]
    section: str = "5.5"

    def describe(self, names: Names = keep_ids) -> str:
        """
        >>> CommandFormationFormed("plan", "line", "battle_line", ("a", "b")).describe()
        'a and b stand as one battle line, line (5.5)'
        """
        said = in_words(names(u) for u in self.units)
        kind = self.kind.replace("_", " ")
        return f"{said} stand as one {kind}, {names(self.command_formation)} ({self.section})"


@dataclass(frozen=True, slots=True)
class CommandFormationBroken(Event):
    """Dark Age 5.5: the command formation is one no longer (``reason``); its units move
    individually from now on."""

    type: ClassVar[str] = "command_formation_broken"
    command_formation: str
    kind: str
    reason: str
    section: str = "5.5"

    def describe(self, names: Names = keep_ids) -> str:
        """
        >>> CommandFormationBroken("plan", "line", "battle_line", "a unit routed").describe()
        'line is a battle line no longer (5.5): a unit routed; its units move on their own'
        """
        kind = self.kind.replace("_", " ")
        return (
            f"{names(self.command_formation)} is a {kind} no longer ({self.section}): "
            f"{names(self.reason)}; its units move on their own"
        )


#: "facing the same, or opposite direction": within 5.15's 22.5 degree deviation of the first
#: unit's facing (or its reverse); the engine's moves turn bodies by a few degrees
FACING_TOLERANCE_DEG = 22.5


def _line_units(fs: list[Any], view: Any) -> list[LineUnit]:
    ref = fs[0].facing
    out = []
    for f in fs:
        off = (f.facing - ref + 180.0) % 360.0 - 180.0
        facing = f.facing
        for snap in (0.0, 180.0, -180.0):
            if abs(off - snap) <= FACING_TOLERANCE_DEG:
                facing = ref + snap
        out.append(LineUnit(view(f)[2], facing, 0, f.frontage))
    return out


def problem(cf: Standing, fs: list[Any], view: Any) -> str | None:
    """Why these formations are not the command formation ``cf`` (None: they are)."""
    # networkx imported here: it is slow to import, and every command imports the shipped
    # rulesets (the registry), most never to check a command formation
    import networkx as nx

    from engine.geometry import distance, obb_array

    for f in fs:
        if f.removed:
            return f"{f.id} is gone"
        if f.morale is not Morale.STEADY:
            return f"{f.id} is {f.morale.value}"
    units = _line_units(fs, view)
    if cf.kind is CommandFormation.BATTLE_LINE:
        if not valid_battle_line(units):
            return "expected every unit in shieldwall or cuneus facing the line's way (5.5)"
    elif not valid_march_column(units):
        return "expected every unit in column, one stand wide, facing one way (5.5)"
    graph = nx.Graph()
    graph.add_nodes_from(range(len(fs)))
    arr = obb_array([f.obb() for f in fs])
    for i, f in enumerate(fs):
        gaps = distance(f.obb(), arr)
        for j in range(i + 1, len(fs)):
            if float(gaps[j]) <= CONTACT_M:
                graph.add_edge(i, j)
    if not nx.is_connected(graph):
        parts = sorted(sorted(fs[i].id for i in c) for c in nx.connected_components(graph))
        return "expected its units in base contact, got " + " | ".join(" ".join(p) for p in parts)
    return None


def form_at_deployment(state: Any, scenario: Any, view: Any) -> list[Standing]:
    """The scenario's command formations, checked as deployed (a broken one is a
    ScenarioFileError naming the file and line)."""
    from scenario_builder.errors import ScenarioFileError

    out: list[Standing] = []
    for si, side in enumerate(scenario.sides):
        for ci, spec in enumerate(side.command_formations):
            kind = CommandFormation(spec.kind.replace("_", " "))
            cf = Standing(spec.id, kind, tuple(spec.units))
            why = problem(cf, [state.formations[u] for u in cf.units], view)
            if why is not None:
                loc = ("sides", si, "command_formations", ci)
                line = scenario.line_of(loc)
                where = f"line {line}: " if line else ""
                field = ".".join(str(x) for x in loc)
                raise ScenarioFileError(
                    str(scenario.path or scenario.id), f"{where}{field}: {spec.id}: {why}"
                )
            out.append(cf)
    return out


def break_up(ctx: Any, view: Any, phase: str) -> list[Event]:
    """Command formations that are one no longer break up (:func:`problem`)."""
    events: list[Event] = []
    for cf in ctx.command_formations:
        if cf.broken:
            continue
        why = problem(cf, [ctx.state.formations[u] for u in cf.units], view)
        if why is not None:
            cf.broken = True
            events.append(CommandFormationBroken(phase, cf.id, cf.kind.value, why))
    return events


def member_of(ctx: Any, fid: str) -> Standing | None:
    """The standing command formation ``fid`` is in, if any."""
    for cf in ctx.command_formations:
        if not cf.broken and fid in cf.units:
            return cf
    return None
