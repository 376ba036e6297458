"""Deployment (3.1, 5.1): a Scenario's formations and characters placed on a Battlefield.

Positions in lon/lat go through ``bf.to_xy``; a formation any of whose bases lies off the map is
an :class:`~scenario_builder.errors.OffMapError` naming the scenario file and the formation.
A character given a formation rides with its front-centre base (which takes the character's
profile: 5.1 "the base the character rides/stands with"); a character with only a position is a
formation of one base.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.geometry import obb_array, overlaps
from engine.scenario import Scenario
from engine.state import BattleState, Character, Formation, SideState
from scenario_builder.errors import OffMapError, ScenarioFileError

__all__ = ["deploy"]


def _front_centre(f: Formation) -> Any:
    front = f.front_rank()
    mid = (len(front) - 1) / 2.0
    return min(front, key=lambda b: (abs(b.file - mid), b.file))


def _check_on_map(
    bf: Any, f: Formation, source: str, position: Any = None, where: str = ""
) -> None:
    """Every base on the ground; the error gives the position as the scenario wrote it (lonlat
    or xy, with the battlefield's extent in the same terms) and ``where`` (``"line N: "``)."""
    xs = np.array([b.x for b in f.bases])
    ys = np.array([b.y for b in f.bases])
    inside = np.atleast_1d(bf.contains(xs, ys))
    if not inside.all():
        if position is not None and position.lonlat is not None:
            w, s, e, n = bf.bounds_lonlat()
            lon, lat = position.lonlat
            extent = f"lon {w:.4f}..{e:.4f}, lat {s:.4f}..{n:.4f}"
            given = f"lonlat [{lon:g}, {lat:g}]"
        else:
            minx, miny, maxx, maxy = bf.bounds
            extent = f"x {minx:.0f}..{maxx:.0f}, y {miny:.0f}..{maxy:.0f} m"
            given = f"xy [{f.cx:.0f}, {f.cy:.0f}]"
        raise OffMapError(
            source,
            f"{where}formation {f.id}: expected its bases inside the battlefield ({extent}), "
            f"got {given}",
        )


def deploy(scenario: Scenario, bf: Any) -> BattleState:
    """The BattleState at bound 0."""
    source = str(scenario.path or scenario.id)
    sides: dict[str, SideState] = {}
    formations: dict[str, Formation] = {}
    characters: dict[str, Character] = {}
    for side in scenario.sides:
        army = scenario.army(side.id)
        general = side.general or (army.general.id if army.general else None)
        ss = SideState(side.id, side.name, side.colour, side.home_edge, army.locality, general)
        sides[side.id] = ss
        for fs in side.formations:
            x, y = fs.position.resolve(bf.to_xy)
            rear = army.profile(fs.rear_profile) if fs.rear_profile else None
            f = Formation.build(
                fs.id,
                side.id,
                fs.name or fs.id,
                army.profile(fs.profile),
                n_bases=fs.bases,
                frontage=fs.frontage,
                cx=x,
                cy=y,
                facing=fs.facing % 360.0,
                loose=fs.loose,
                rear_profile=rear,
                rear_ranks=fs.rear_ranks,
            )
            _check_on_map(bf, f, source, fs.position, scenario.line_of(side.id, fs.id))
            formations[f.id] = f
        for cp in side.characters:
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
                )
                _check_on_map(bf, f, source, cp.position, scenario.line_of(side.id, ch.id))
                f.bases[0].character = ch.id
                formations[f.id] = f
                base = f.bases[0]
            characters[ch.id] = Character(
                ch.id, ch.name, side.id, ch.leadership, ch.id == general, base.id
            )
    state = BattleState(sides, formations, characters, bounds_xy=tuple(bf.bounds))
    for s in sides.values():
        s.start_bases = sum(len(f.bases) for f in state.side_formations(s.id))
    _check_overlaps(state, source)
    return state


def _check_overlaps(state: BattleState, source: str) -> None:
    forms = list(state.formations.values())
    arr = obb_array([f.obb() for f in forms])
    for i, f in enumerate(forms):
        hit = np.flatnonzero(overlaps(f.obb(), arr[i + 1 :], tol=0.5))
        if hit.size:
            g = forms[i + 1 + int(hit[0])]
            raise ScenarioFileError(
                source, f"formations {f.id} and {g.id} overlap at deployment; expected bases apart"
            )
