"""medieval-d10 GAME TURN SEQUENCE phase 1, Initiative: each side's most senior commander rolls
(:func:`~.commanders.initiative_commander`) and the winner chooses to be side A or B
(:func:`chooses_side_a`). On the battle's first turn each unit first looks at the enemy it
sees as the battle opens (MORALE reason 7, :func:`~.morale.look`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.rulesets.medieval_d10.commanders import initiative_commander
from engine.rulesets.medieval_d10.morale import look
from engine.rulesets.medieval_d10.procedures import roll_initiative
from engine.rulesets.medieval_d10.state import Command

if TYPE_CHECKING:
    from engine.rulesets.medieval_d10.game import MedievalBattle


def phase_initiative(game: MedievalBattle) -> None:
    """GAME TURN SEQUENCE phase 1, Initiative: a d10 each plus the most senior commander's
    modifier (ties re-roll); the winner chooses to be side A or B (:func:`chooses_side_a`)."""
    first, second = game.sides
    if any(u.seen is None for u in game.alive()):
        look(game)  # what each unit sees as the battle opens (MORALE reason 7)
    kinds = {s: initiative_commander(game, s) for s in game.sides}
    init = roll_initiative(game.dice, kinds[first], kinds[second], purpose=f"turn {game.turn}")
    winner = game.sides[init.winner]
    # "The side with the highest total score may choose to be side A or B"
    chosen = winner if chooses_side_a(game, winner) else game.enemy_of(winner)
    game.side_a, game.side_b = chosen, game.enemy_of(chosen)
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


def chooses_side_a(game: MedievalBattle, side: str) -> bool:
    """The automatic player's choice on winning the initiative ("may choose to be side A or
    B"): side A declares its charges first (phase 4) and moves first (8, 11); side B sees
    them before it declares its own charges, counter-charges and reactions (5-7) and moves
    after. A side with a unit ordered to attack this turn (ready, not routing) takes A, to
    charge and move first; a side standing on the defensive takes B, to answer the enemy's
    charges (docs/rules-interpretations.md, "Initiative: the winner's choice")."""
    return any(
        u.order == Command.ATTACK
        and game.turn >= u.from_turn
        and not u.routing
        and not game.held(u.id)
        for u in game.alive(side)
    )
