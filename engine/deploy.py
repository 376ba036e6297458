"""Deployment (3.1, 5.1): a Scenario's formations and characters placed on a Battlefield.

Positions in lon/lat go through ``bf.to_xy``; a formation any of whose bases lies off the map is
an :class:`~scenario_builder.errors.OffMapError`, and one deployed on impractical ground (7.1: the
class applies to its footprint; sea, a river, a cliff) a
:class:`~scenario_builder.errors.ScenarioFileError`; both name the scenario file, the line, the
formation and the position as the user wrote it (lon/lat or x/y). Garrisons of walls and towers
(8.3) stand on impractical cells by design and are allowed.
A character given a formation rides with its front-centre base (which takes the character's
profile: 5.1 "the base the character rides/stands with"); a character with only a position is a
formation of one base.

A ruleset's ``prepare`` then applies its own deployment rules (2mm Earth: only skirmishers
``loose`` (4.1), ``brigade:`` formations merged into their brigade (5.1)).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from engine.geometry import obb_array, overlaps
from engine.movement import _lattice, footprint_classes
from engine.scenario import Position, Scenario
from engine.state import BattleState, Character, Formation, SideState
from engine.terrain import Ground
from scenario_builder.errors import OffMapError, ScenarioFileError

if TYPE_CHECKING:
    from engine.seam import Ruleset

__all__ = ["check_overlaps", "deploy"]


def _front_centre(f: Formation) -> Any:
    front = f.front_rank()
    mid = (len(front) - 1) / 2.0
    return min(front, key=lambda b: (abs(b.file - mid), b.file))


def _as_written(pos: Position | None) -> str:
    """The position in the user's own coordinates, for error messages."""
    if pos is None:
        return ""
    if pos.lonlat is not None:
        return f" at lonlat [{pos.lonlat[0]}, {pos.lonlat[1]}]"
    assert pos.xy is not None
    return f" at xy [{pos.xy[0]}, {pos.xy[1]}]"


def _where(scenario: Scenario, source: str, loc: tuple[str | int, ...]) -> str:
    line = scenario.line_of(loc)
    return f"{source}: line {line}" if line else source


def _check_on_map(
    bf: Ground,
    f: Formation,
    scenario: Scenario,
    source: str,
    loc: tuple[str | int, ...],
    pos: Position | None = None,
) -> None:
    xs = np.array([b.x for b in f.bases])
    ys = np.array([b.y for b in f.bases])
    inside = np.atleast_1d(bf.contains(xs, ys))
    if not inside.all():
        minx, miny, maxx, maxy = bf.bounds
        raise OffMapError(
            _where(scenario, source, loc),
            f"formation {f.id}: expected its bases inside the battlefield "
            f"[{minx:.0f}, {miny:.0f}, {maxx:.0f}, {maxy:.0f}], got centre "
            f"({f.cx:.0f}, {f.cy:.0f}){_as_written(pos)}",
        )


def _check_ground(
    bf: Ground,
    f: Formation,
    scenario: Scenario,
    source: str,
    loc: tuple[str | int, ...],
    pos: Position | None,
    ruleset: Ruleset,
) -> None:
    """7.1: impractical ground must not apply to a deployed formation's footprint (the sea, a
    river, a cliff); a wall or tower garrison (8.3) is the exception. The ruleset's movement
    class called impractical or impassable is the one checked (none: nothing to check)."""
    names = ruleset.terrain.class_names().get("move", [])
    code = next((i for i, n in enumerate(names) if n in ("impractical", "impassable")), None)
    if code is None:
        return
    classes, _off = footprint_classes(bf, f, "move")
    if code not in classes:
        return
    pts = _lattice(f)
    on = np.atleast_1d(bf.contains(pts[:, 0], pts[:, 1]))
    feats = np.atleast_1d(bf.feature_at(pts[on, 0], pts[on, 1]))
    if np.isin(feats, ("wall", "tower")).sum() * 2 >= len(pts):
        return  # a garrison on its walls or in its tower (8.3: wall features, as 7.1 applies)
    codes, inside = bf.codes_on_map("move", pts[:, 0], pts[:, 1])
    bad = inside & (codes == code)
    under = np.atleast_1d(bf.feature_at(pts[bad, 0], pts[bad, 1]))
    kinds, counts = np.unique(under, return_counts=True)
    order = np.argsort(-counts, kind="stable")
    what = ", ".join(f"{kinds[i]} {100.0 * counts[i] / len(pts):.0f} %" for i in order)
    raise ScenarioFileError(
        _where(scenario, source, loc),
        f"formation {f.id}: expected ground its troops can stand on, got impractical terrain "
        f"(7.2) under its footprint ({what}){_as_written(pos)}",
    )


def deploy(scenario: Scenario, bf: Ground, ruleset: Ruleset) -> BattleState:
    """The BattleState at bound 0: troops from ``ruleset``'s troop lists, bases sized by its
    ``scales``."""
    scales = ruleset.scales
    bw, bd, gap = scales.base_w_m, scales.base_d_m, scales.loose_gap_m
    source = str(scenario.path or scenario.id)
    sides: dict[str, SideState] = {}
    formations: dict[str, Formation] = {}
    characters: dict[str, Character] = {}
    for si, side in enumerate(scenario.sides):
        army = scenario.army(side.id, ruleset)
        general = side.general or (army.general.id if army.general else None)
        ss = SideState(side.id, side.name, side.colour, side.home_edge, army.locality, general)
        sides[side.id] = ss
        for fi, fs in enumerate(side.formations):
            x, y = fs.position.resolve(bf.to_xy)
            rear = army.profile(fs.rear_profile) if fs.rear_profile else None
            n_bases, frontage = fs.deployed(ruleset.counts_figures)
            f = Formation.build(
                fs.id,
                side.id,
                fs.name or fs.id,
                army.profile(fs.profile),
                n_bases=n_bases,
                frontage=frontage,
                cx=x,
                cy=y,
                facing=fs.facing % 360.0,
                loose=fs.loose,
                rear_profile=rear,
                rear_ranks=fs.rear_ranks,
                base_w=bw,
                base_d=bd,
                loose_gap=gap,
            )
            loc = ("sides", si, "formations", fi, "position")
            _check_on_map(bf, f, scenario, source, loc, fs.position)
            _check_ground(bf, f, scenario, source, loc, fs.position, ruleset)
            formations[f.id] = f
        for ci, cp in enumerate(side.characters):
            ch = army.character(cp.id)
            prof = army.profile(ch.profile)
            if cp.formation is not None:
                base = _front_centre(formations[cp.formation])
                base.character = ch.id
                base.profile = prof
            else:
                x, y = cp.position.resolve(bf.to_xy)  # type: ignore[union-attr]
                if ch.id in formations:
                    raise ScenarioFileError(
                        source, f"character {ch.id}: id clashes with a formation"
                    )
                f = Formation.build(
                    ch.id,
                    side.id,
                    ch.name,
                    prof,
                    n_bases=1,
                    frontage=1,
                    cx=x,
                    cy=y,
                    facing=cp.facing % 360.0,
                    base_w=bw,
                    base_d=bd,
                    loose_gap=gap,
                )
                loc = ("sides", si, "characters", ci, "position")
                _check_on_map(bf, f, scenario, source, loc, cp.position)
                _check_ground(bf, f, scenario, source, loc, cp.position, ruleset)
                f.bases[0].character = ch.id
                formations[f.id] = f
                base = f.bases[0]
            characters[ch.id] = Character(
                ch.id, ch.name, side.id, ch.leadership, ch.id == general, base.id
            )
    minx, miny, maxx, maxy = bf.bounds
    state = BattleState(sides, formations, characters, bounds_xy=(minx, miny, maxx, maxy))
    for s in sides.values():
        s.start_bases = sum(len(f.bases) for f in state.side_formations(s.id))
    check_overlaps(state, source)
    return state


def check_overlaps(state: BattleState, source: str) -> None:
    forms = list(state.formations.values())
    arr = obb_array([f.obb() for f in forms])
    for i, f in enumerate(forms):
        hit = np.flatnonzero(overlaps(f.obb(), arr[i + 1 :], tol=0.5))
        if hit.size:
            g = forms[i + 1 + int(hit[0])]
            raise ScenarioFileError(
                source, f"formations {f.id} and {g.id} overlap at deployment; expected bases apart"
            )
