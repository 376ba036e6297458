"""References for the rulesets' culled neighbour searches: stand-ins that rule nothing out, so
a battle fought with them is the battle as the loops over every formation or unit fought it.
Each is patched over the cut it undoes; the culled battle's log must equal the uncut one's.
See ``tests/reference/__init__.py`` for the rule they follow."""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.rulesets.medieval_d10.game import MedievalBattle


def every_row(box: Any, x0: float, y0: float, x1: float, y1: float, arr: np.ndarray) -> np.ndarray:
    """Undoes ``engine.movement.swept_rows`` (Dark Age 5.27 interpenetration and a move's halt; War
    & Conquest's flight through friends): every row of the table is a candidate of the move from
    (x0, y0) to (x1, y1)."""
    return np.arange(arr.shape[0])


def every_foe(arr: np.ndarray, foes: Any, fx: float, fy: float, way: Any) -> Any:
    """Undoes the numpy cut of the Dark Age ``range_halts`` (5.8 "enemy to their front"): every
    enemy is a candidate."""
    return foes


class Everyone:
    """Undoes ``engine.rulesets.medieval_d10.nearby.UnitTable`` (the charts' "within 150yds",
    contact, "Insecure" flanks, the nearest enemy and the nearest within long range): a stand-in
    table that rules nothing out, every living unit of the side a candidate (the loops before the
    table).
    """

    def __init__(self, game: MedievalBattle) -> None:
        self.units = list(game.units.values())

    def near(self, u: Any, reach: float, side: str | None = None) -> list[Any]:
        return [o for o in self.units if o.alive and (side is None or o.side == side)]

    def nearest_rows(self, u: Any, side: str, *, routing_ok: bool) -> np.ndarray:
        return np.array(
            [
                i
                for i, o in enumerate(self.units)
                if o.alive and o.side == side and (routing_ok or not o.routing)
            ],
            dtype=np.intp,
        )


def never_beyond_inches(me: Any, g: Any, scale: Any, inches: float) -> bool:
    """Undoes ``engine.rulesets.war_and_conquest.battle._beyond_inches`` (Morale Tests'
    "Fleeing Friends within 5\""): no fleeing friend is left out as beyond the trigger's
    reach, so every one is measured."""
    return False


def every_formation(state: Any) -> list[Any]:
    """Undoes ``engine.rulesets.war_and_conquest.battle._not_steady`` (the friend triggers come
    from the fleeing and destroyed formations alone): every formation of the state is a
    candidate."""
    return list(state.formations.values())
