"""medieval-d10 GAME TURN SEQUENCE phase 1, Initiative: each side's most senior commander rolls
(:func:`~.commanders.initiative_commander`) and the winner chooses to be side A, to declare
charges first and move first. On the battle's first turn each unit first looks at the enemy it
sees as the battle opens (MORALE reason 7, :func:`~.morale.look`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.rulesets.medieval_d10.commanders import initiative_commander
from engine.rulesets.medieval_d10.morale import look
from engine.rulesets.medieval_d10.procedures import roll_initiative

if TYPE_CHECKING:
    from engine.rulesets.medieval_d10.game import MedievalBattle


def phase_initiative(game: MedievalBattle) -> None:
    """GAME TURN SEQUENCE phase 1, Initiative: a d10 each plus the most senior commander's
    modifier (ties re-roll); the winner is side A."""
    first, second = game.sides
    if any(u.seen is None for u in game.alive()):
        look(game)  # what each unit sees as the battle opens (MORALE reason 7)
    kinds = {s: initiative_commander(game, s) for s in game.sides}
    init = roll_initiative(game.dice, kinds[first], kinds[second], purpose=f"turn {game.turn}")
    winner = game.sides[init.winner]
    # the winner chooses to be side A: to declare charges first and move first
    game.side_a, game.side_b = winner, game.enemy_of(winner)
    game.log(
        "initiative",
        None,
        sides=list(game.sides),
        rolls=[list(r) for r in init.rolls],
        totals=list(init.totals),
        side_a=game.side_a,
        side_b=game.side_b,
        commanders={s: None if k is None else k.value for s, k in kinds.items()},
    )
