"""medieval-d10 GAME TURN SEQUENCE phase 2, "Weather, Wind Strength and Wind Direction": the
states a battle's weather and wind may take, and their change every twelfth Game Turn (the table
is ours, not the book's: docs/rules-interpretations.md, "Weather table: ours").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.rulesets.medieval_d10.game import MedievalBattle

WEATHER_STATES = ("dry", "light_rain", "heavy_rain")
WIND_STRENGTHS = ("calm", "breeze", "strong", "gale")
WIND_POINTS = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")  # where the wind blows from


def _step(i: int, face: int, n: int) -> int:
    """One step along a scale of ``n`` states: up on 1-3, down on 8-10, else stay.

    >>> _step(0, 2, 3), _step(0, 9, 3), _step(2, 1, 3), _step(1, 5, 3)
    (1, 0, 2, 1)
    """
    if face <= 3:
        return min(i + 1, n - 1)
    if face >= 8:
        return max(i - 1, 0)
    return i


def phase_weather(game: MedievalBattle) -> None:
    """ "Weather, Wind Strength and Wind Direction: at the start of every twelfth Game Turn,
    roll dice to determine any changes." The quick reference prints no table (read again: its
    only weather lines are the FIRING CHART's rain / snow modifiers), so this table is OURS,
    not the book's (docs/rules-interpretations.md, "Weather table: ours"): a d10 each;
    rain and wind strength go one step worse on 1-3 and ease on 8-10; the wind backs a point
    on 1-2 and veers on 9-10 (docs/rules-interpretations.md)."""
    if game.turn % 12 != 0:
        return
    face, strength, direction = game.dice.roll(
        3, f"turn {game.turn} weather, wind strength, wind direction", 10
    ).faces
    game.weather = WEATHER_STATES[
        _step(WEATHER_STATES.index(game.weather), face, len(WEATHER_STATES))
    ]
    game.wind_strength = WIND_STRENGTHS[
        _step(WIND_STRENGTHS.index(game.wind_strength), strength, len(WIND_STRENGTHS))
    ]
    # the wind backs (1-2) or veers (9-10) one point of eight
    turn = -1 if direction <= 2 else (1 if direction >= 9 else 0)
    i = (WIND_POINTS.index(game.wind_from) + turn) % len(WIND_POINTS)
    game.wind_from = WIND_POINTS[i]
    game.log(
        "weather",
        None,
        dice=[face, strength, direction],
        weather=game.weather,
        wind_strength=game.wind_strength,
        wind_from=game.wind_from,
    )
