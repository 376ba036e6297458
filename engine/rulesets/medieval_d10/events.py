"""The medieval-d10 game's events: one class per thing the game turn does, each with the units,
dice, scores and results the playback draws and a :meth:`describe` in a player's words.

The game (:class:`~.game.MedievalBattle`) keeps its own journal of records (``kind``, unit and
the values of the moment); as each phase ends the ruleset turns every new record into its event
here (:func:`from_record`), which refuses a record whose kind or keys no class declares. Charts
and phases are cited by the quick reference's own names (there are no section numbers): "GAME
TURN SEQUENCE phase 12", FIRING CHART, MELEE CHART, THE MORALE TEST CHART, THE CONTROL TEST
CHART, MORALE TEST RESULT.

>>> e = from_record("12 Normal Movement and Firing", {"turn": 3, "type": "fire", "unit": "a",
...     "target": "b", "band": "long", "need": 8, "faces": [3], "kills": 0, "reaction": False})
>>> e.type, e.band
('d10_fire', <RangeBand.LONG: 'long'>)
>>> e.describe()
'a shoot at b (long range): need 8, rolled 3, no kills'
>>> Fire.from_dict(e.to_dict()) == e
True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from engine.log import Draw, Event, in_words
from engine.rulesets.medieval_d10.charts import MoraleColumn, MoraleResult, RangeBand

__all__ = ["EVENTS", "MedievalEvent", "from_record"]

Names = Callable[[str], str]
#: the prefix of every type: the core's "melee", "rout" or "destroyed" are 2mm Earth's events,
#: with other fields; a reader of the log (maps, GeoPackage, audits) must not mistake them
PREFIX = "d10_"


def _same(text: str) -> str:
    return text


def _faces(faces: tuple[int, ...]) -> str:
    """Dice in words, the last joined by "and" so a count after them reads apart.

    >>> _faces((3,)), _faces((10, 9)), _faces((3, 7, 9))
    ('3', '10 and 9', '3, 7 and 9')
    """
    return in_words(faces) if faces else "no dice"


def _kills(n: int) -> str:
    return "no kills" if n == 0 else f"{n} kill" + ("" if n == 1 else "s")


def _signed(n: int) -> str:
    return f"{n:+d}"


def _factor(face: int) -> int:
    """THE MORALE / CONTROL TEST CHART: "1 or 2 = +1 factor ... 9 or 10 = +5 factor"."""
    return (face + 1) // 2


def _factors(factors: Mapping[str, int]) -> str:
    """The chart lines a test counted (how many times each: "insecure flank x2"), not their
    values, which the modifier sums with the troop class the event leaves implied.

    >>> _factors({"commander_with": 1, "insecure_flank": 2})
    ' (commander with, insecure flank x2)'
    """
    shown = [
        k.replace("_", " ") + (f" x{v}" if v > 1 else "") for k, v in sorted(factors.items()) if v
    ]
    return f" ({', '.join(shown)})" if shown else ""


@dataclass(frozen=True, slots=True)
class MedievalEvent(Event):
    """Base of the game's events: ``unit`` is the unit that acts (None: both sides, as in
    initiative or weather). The playback finds units by id in the bound's snapshot."""

    type: ClassVar[str] = PREFIX + "event"
    unit: str | None

    def actor_id(self) -> str | None:
        return self.unit

    def describe(self, names: Names = _same) -> str | None:
        raise NotImplementedError(type(self).__name__)

    def _who(self, names: Names) -> str:
        return names(self.unit) if self.unit is not None else "?"


# -- phases 1 and 2 ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Initiative(MedievalEvent):
    """GAME TURN SEQUENCE phase 1: each side rolls one die and adds its (most senior)
    Commander's modifier (Cautious +2, Bold +4, Rash +4, Exceptional +6); equal totals roll
    again; the winner chooses to be side A. ``rolls`` and ``totals`` are in ``sides`` order."""

    type: ClassVar[str] = PREFIX + "initiative"
    sides: tuple[str, ...]
    rolls: tuple[tuple[int, ...], ...]
    totals: tuple[int, ...]
    side_a: str
    side_b: str
    commanders: dict[str, str | None]

    def describe(self, names: Names = _same) -> str:
        last = self.rolls[-1]
        parts = []
        for side, face, total in zip(self.sides, last, self.totals, strict=True):
            kind = self.commanders.get(side)
            parts.append(
                f"{names(side)} rolled {face} {_signed(total - face)}"
                + (f" ({kind})" if kind else " (no commander)")
                + f" = {total}"
            )
        # "If both sides have the same Initiative score, both sides roll their dice again"
        ties = "; ".join(_faces(r) for r in self.rolls[:-1])
        again = f" (tied first on {ties}, rolled again)" if ties else ""
        return f"initiative: {'; '.join(parts)}{again}; {names(self.side_a)} are side A"


@dataclass(frozen=True, slots=True)
class Weather(MedievalEvent):
    """GAME TURN SEQUENCE phase 2: every twelfth game turn, dice for the weather, the wind's
    strength and its direction (d10 each)."""

    type: ClassVar[str] = PREFIX + "weather"
    dice: tuple[int, ...]
    weather: str
    wind_strength: str
    wind_from: str

    def describe(self, names: Names = _same) -> str:
        return (
            f"weather: rolled {_faces(self.dice)} \u2192 {self.weather.replace('_', ' ')}, "
            f"wind {self.wind_strength.replace('_', ' ')} from {self.wind_from}"
        )


# -- phase 3: compulsory movement ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RoutMove(MedievalEvent):
    """MORALE TEST RESULT, Rout: "move back at the equivalent of its March Rate, plus d10
    rolls (with backs to the enemy)" in phase 3; ``die`` is the d10 (chart cm)."""

    type: ClassVar[str] = PREFIX + "rout_move"
    metres: float
    die: int

    def describe(self, names: Names = _same) -> str:
        return f"{self._who(names)} rout {self.metres:g} m back (march rate + d10 {self.die})"


@dataclass(frozen=True, slots=True)
class FallBack(MedievalEvent):
    """MORALE TEST RESULT, Fall back: infantry 5 cm, cavalry 10 cm, facing the enemy; a
    battery manhandles or limbers its guns back (``guns``)."""

    type: ClassVar[str] = PREFIX + "fall_back"
    draw: ClassVar[Draw] = Draw.MARK
    mark: ClassVar[str | None] = "retreat"
    metres: float
    guns: str | None = None

    def describe(self, names: Names = _same) -> str:
        guns = f", guns {self.guns}" if self.guns else ""
        return f"{self._who(names)} fall back {self.metres:g} m facing the enemy{guns}"


@dataclass(frozen=True, slots=True)
class Pursue(MedievalEvent):
    """GAME TURN SEQUENCE phase 3: a unit that failed its Control Test pursues (or follows
    up) the unit it beat; ``contact``: it caught it."""

    type: ClassVar[str] = PREFIX + "pursue"
    draw: ClassVar[Draw] = Draw.MELEE
    target: str
    metres: float
    contact: bool

    def target_id(self) -> str | None:
        return self.target

    def describe(self, names: Names = _same) -> str:
        caught = ", into contact" if self.contact else ""
        return f"{self._who(names)} pursue {names(self.target)} {self.metres:g} m{caught}"


@dataclass(frozen=True, slots=True)
class PushBack(MedievalEvent):
    """GAME TURN SEQUENCE phase 3: a unit beaten in an on-going melee is "Pushed-back" by
    the unit ``by`` that beat it (the fall-back distance, facing it, in its order)."""

    type: ClassVar[str] = PREFIX + "push_back"
    draw: ClassVar[Draw] = Draw.MARK
    mark: ClassVar[str | None] = "retreat"
    by: str
    metres: float

    def target_id(self) -> str | None:
        return self.by

    def describe(self, names: Names = _same) -> str:
        return f"{self._who(names)} pushed back {self.metres:g} m by {names(self.by)}"


@dataclass(frozen=True, slots=True)
class FollowUp(MedievalEvent):
    """GAME TURN SEQUENCE phase 3: the winner of a round of melee is "Following-up" the unit
    it pushed back; ``contact``: it closed with it again."""

    type: ClassVar[str] = PREFIX + "follow_up"
    draw: ClassVar[Draw] = Draw.MELEE
    target: str
    metres: float
    contact: bool

    def target_id(self) -> str | None:
        return self.target

    def describe(self, names: Names = _same) -> str:
        caught = ", into contact" if self.contact else ""
        return f"{self._who(names)} follow up {names(self.target)} {self.metres:g} m{caught}"


@dataclass(frozen=True, slots=True)
class Loot(MedievalEvent):
    """GAME TURN SEQUENCE phase 3: mercenaries that failed THE CONTROL TEST reason 7 run at
    the enemy's settlement (``x``, ``y``: the point of it they make for) and, ``arrived``,
    plunder it, out of their player's orders."""

    type: ClassVar[str] = PREFIX + "loot"
    x: float
    y: float
    metres: float
    arrived: bool

    def describe(self, names: Names = _same) -> str:
        there = ", plundering it" if self.arrived else ""
        return f"{self._who(names)} run {self.metres:g} m at the enemy's settlement{there}"


@dataclass(frozen=True, slots=True)
class AbandonGuns(MedievalEvent):
    """MORALE TEST RESULT, Fall back in disorder, Artillery: "one d10; a score of 1 to 5
    means that the battery will immediately abandon its guns"."""

    type: ClassVar[str] = PREFIX + "abandon_guns"
    draw: ClassVar[Draw] = Draw.MARK
    mark: ClassVar[str | None] = "destroyed"
    die: int

    def describe(self, names: Names = _same) -> str:
        return f"{self._who(names)} abandon their guns: d10 rolled {self.die} (1-5 abandons)"


# -- phases 4-9: charges and reactions ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ChargeDeclared(MedievalEvent):
    """GAME TURN SEQUENCE phases 4-5: a charge (or counter-charge, at a unit charging
    ``charging_at``) declared after its morale test allowed it."""

    type: ClassVar[str] = PREFIX + "charge_declared"
    target: str
    counter_charge: bool = False
    charging_at: str | None = None

    def target_id(self) -> str | None:
        return self.target

    def describe(self, names: Names = _same) -> str:
        if self.counter_charge:
            at = f" (charging {names(self.charging_at)})" if self.charging_at else ""
            return f"{self._who(names)} declare a counter-charge at {names(self.target)}{at}"
        return f"{self._who(names)} declare a charge at {names(self.target)}"


@dataclass(frozen=True, slots=True)
class Reaction(MedievalEvent):
    """GAME TURN SEQUENCE phases 6-7: a charged unit's reaction, the MORALE TEST RESULT of its
    "Receiving a Charge" or "Evading a Charge" test."""

    type: ClassVar[str] = PREFIX + "reaction"
    result: MoraleResult
    chargers: tuple[str, ...]

    def describe(self, names: Names = _same) -> str:
        by = ", ".join(names(c) for c in self.chargers)
        return f"{self._who(names)}, charged by {by}: {self.result.value}"


@dataclass(frozen=True, slots=True)
class Evade(MedievalEvent):
    """GAME TURN SEQUENCE phases 8-9: a unit evades ``charger``'s charge."""

    type: ClassVar[str] = PREFIX + "evade"
    charger: str
    metres: float

    def describe(self, names: Names = _same) -> str:
        return f"{self._who(names)} evade the charge of {names(self.charger)}, {self.metres:g} m"


@dataclass(frozen=True, slots=True)
class Charge(MedievalEvent):
    """GAME TURN SEQUENCE phases 8-9: a declared charger moves at its charge rate; ``met_by``:
    a counter-charging unit met it on the way."""

    type: ClassVar[str] = PREFIX + "charge"
    draw: ClassVar[Draw] = Draw.MELEE
    target: str | None
    metres: float
    contact: bool
    met_by: str | None = None

    def target_id(self) -> str | None:
        return self.met_by or self.target

    def describe(self, names: Names = _same) -> str:
        whom = names(self.target) if self.target else "the enemy"
        end = ", into contact" if self.contact else ", short of contact"
        met = f", met by {names(self.met_by)}" if self.met_by else ""
        return f"{self._who(names)} charge {whom} {self.metres:g} m{end}{met}"


@dataclass(frozen=True, slots=True)
class CounterCharge(MedievalEvent):
    """GAME TURN SEQUENCE phases 8-9: "simultaneously move ... units that are reacting": a
    counter-charger goes in at ``target`` (which had come on ``charger_metres``)."""

    type: ClassVar[str] = PREFIX + "counter_charge"
    draw: ClassVar[Draw] = Draw.MELEE
    target: str
    metres: float
    contact: bool
    charger_metres: float

    def target_id(self) -> str | None:
        return self.target

    def describe(self, names: Names = _same) -> str:
        end = ", meeting it" if self.contact else ", not meeting it"
        return f"{self._who(names)} counter-charge {names(self.target)} {self.metres:g} m{end}"


# -- phases 11-12: normal movement and firing --------------------------------------------------


@dataclass(frozen=True, slots=True)
class Advance(MedievalEvent):
    """GAME TURN SEQUENCE phases 11-12: a move that does not bring the unit into contact,
    toward an enemy (its id) or the place its orders name (``"place"``)."""

    type: ClassVar[str] = PREFIX + "advance"
    toward: str
    metres: float

    def target_id(self) -> str | None:
        return None if self.toward == "place" else self.toward

    def describe(self, names: Names = _same) -> str:
        whither = "its objective" if self.toward == "place" else names(self.toward)
        return f"{self._who(names)} advance {self.metres:g} m toward {whither}"


@dataclass(frozen=True, slots=True)
class RoadMarch(MedievalEvent):
    """MOVEMENT CHART "March on a Road or Track": the unit's whole move this turn is on road or
    track, so it marches ``bonus_m`` metres further."""

    type: ClassVar[str] = PREFIX + "road_march"
    bonus_m: float

    def describe(self, names: Names = _same) -> str:
        return f"{self._who(names)} march by the road (+{self.bonus_m:g} m)"


@dataclass(frozen=True, slots=True)
class Detour(MedievalEvent):
    """GAME TURN SEQUENCE phases 11-12: the straight way to where the unit is going crosses
    ground the TERRAIN CHART forbids it (``by``: that terrain), so it goes around, by a way
    of ``way_m`` metres against ``straight_m`` straight; when the place itself cannot be
    reached (``reaches`` false) the way ends on the ground nearest it that can. Logged as the
    going around begins (docs/rules-interpretations.md, "Ways around forbidden ground")."""

    type: ClassVar[str] = PREFIX + "detour"
    by: str
    way_m: float
    straight_m: float
    reaches: bool

    def describe(self, names: Names = _same) -> str:
        end = "" if self.reaches else ", to the nearest ground they may reach"
        return (
            f"{self._who(names)} go around the {self.by} in their way "
            f"({self.way_m:g} m round{end}; {self.straight_m:g} m straight)"
        )


@dataclass(frozen=True, slots=True)
class Blocked(MedievalEvent):
    """GAME TURN SEQUENCE phases 11-12: the straight way crosses ground the TERRAIN CHART
    forbids the unit (``by``) and no way around it is found: it goes no further than the
    edge. Logged as the stop begins."""

    type: ClassVar[str] = PREFIX + "blocked"
    by: str

    def describe(self, names: Names = _same) -> str:
        return f"{self._who(names)} are stopped by the {self.by}: no way around it"


@dataclass(frozen=True, slots=True)
class Manhandle(Advance):
    """MOVEMENT CHART, Artillery "Manhandled March Rate": a battery pushes its guns forward."""

    type: ClassVar[str] = PREFIX + "manhandle"

    def describe(self, names: Names = _same) -> str:
        return (
            f"{self._who(names)} manhandle their guns {self.metres:g} m toward {names(self.toward)}"
        )


@dataclass(frozen=True, slots=True)
class Limber(MedievalEvent):
    """MOVEMENT CHART, "Limber or Unlimber": 1 or 0.5 Game Turn (``game_turns``)."""

    type: ClassVar[str] = PREFIX + "limber"
    game_turns: str

    def describe(self, names: Names = _same) -> str:
        return f"{self._who(names)} limber their guns ({self.game_turns} game turn)"


@dataclass(frozen=True, slots=True)
class Unlimber(Limber):
    """MOVEMENT CHART, "Limber or Unlimber"."""

    type: ClassVar[str] = PREFIX + "unlimber"

    def describe(self, names: Names = _same) -> str:
        return f"{self._who(names)} unlimber their guns ({self.game_turns} game turn)"


@dataclass(frozen=True, slots=True)
class Reformed(MedievalEvent):
    """A disordered unit that spends its movement halted re-forms (docs/rules-interpretations
    .md, "medieval-d10")."""

    type: ClassVar[str] = PREFIX + "reformed"

    def describe(self, names: Names = _same) -> str:
        return f"{self._who(names)} re-form: no longer disordered"


@dataclass(frozen=True, slots=True)
class Disordered(MedievalEvent):
    """TERRAIN CHART: crossing ground marked "Disordered" for the unit's troop type (``by``)."""

    type: ClassVar[str] = PREFIX + "disordered"
    by: str

    def describe(self, names: Names = _same) -> str:
        return f"{self._who(names)} disordered by {self.by.replace('_', ' ')}"


@dataclass(frozen=True, slots=True)
class Fire(MedievalEvent):
    """FIRING CHART: one d10 per five figures (rounded up), or per gun model; each scoring
    ``need`` (the chart's score for the weapon, range band and target armour, with its
    modifiers, clamped 2-10) or more kills a figure. ``reaction``: firing at chargers."""

    type: ClassVar[str] = PREFIX + "fire"
    draw: ClassVar[Draw] = Draw.SHOT
    target: str
    band: RangeBand
    need: int
    faces: tuple[int, ...]
    kills: int
    reaction: bool

    def target_id(self) -> str | None:
        return self.target

    def describe(self, names: Names = _same) -> str:
        at = f"{self.band.value} range" + (", at chargers" if self.reaction else "")
        return (
            f"{self._who(names)} shoot at {names(self.target)} ({at}): need {self.need}, "
            f"rolled {_faces(self.faces)}, {_kills(self.kills)}"
        )


@dataclass(frozen=True, slots=True)
class GunExploded(MedievalEvent):
    """Firing Ranges Chart "*": a misfire re-rolled 1-3, the gun explodes (its model lost)."""

    type: ClassVar[str] = PREFIX + "gun_exploded"
    draw: ClassVar[Draw] = Draw.MARK
    mark: ClassVar[str | None] = "killed"
    guns: int

    def describe(self, names: Names = _same) -> str:
        return f"{self._who(names)}: {self.guns} gun(s) explode on a misfire and are lost"


# -- phase 13: melee ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Melee(MedievalEvent):
    """MELEE CHART, GAME TURN SEQUENCE phase 13: ``a`` (side A's unit) and ``b`` in contact
    strike at once, one d10 per five figures each, ``need`` or more kills (clamped 2-10);
    ``need_a``/``faces_a`` are None when ``a`` did not strike (routing, or guns)."""

    type: ClassVar[str] = PREFIX + "melee"
    draw: ClassVar[Draw] = Draw.MELEE
    a: str
    b: str
    kills_by_a: int
    kills_by_b: int
    need_a: int | None = None
    faces_a: tuple[int, ...] | None = None
    need_b: int | None = None
    faces_b: tuple[int, ...] | None = None

    def actor_id(self) -> str | None:
        return self.a

    def target_id(self) -> str | None:
        return self.b

    def describe(self, names: Names = _same) -> str:
        def side(u: str, need: int | None, faces: tuple[int, ...] | None, kills: int) -> str:
            if need is None or faces is None:
                return f"{names(u)} do not strike"
            return f"{names(u)} need {need}, rolled {_faces(faces)}, {_kills(kills)}"

        a = side(self.a, self.need_a, self.faces_a, self.kills_by_a)
        b = side(self.b, self.need_b, self.faces_b, self.kills_by_b)
        return f"melee, {names(self.a)} v {names(self.b)}: {a}; {b}"


@dataclass(frozen=True, slots=True)
class FigureKilled(MedievalEvent):
    """A Commander or Inspirational Figure with ``unit`` falls: its unit lost all its figures,
    or (reading) a d10 at or under the figures the unit just lost."""

    type: ClassVar[str] = PREFIX + "figure_killed"
    draw: ClassVar[Draw] = Draw.MARK
    mark: ClassVar[str | None] = "killed"
    figure: str
    role: str
    commander_kind: str | None
    general: bool
    reason: str

    def describe(self, names: Names = _same) -> str:
        what = "Inspirational Figure" if self.role == "inspirational" else "Commander figure"
        kind = f", {self.commander_kind}" if self.commander_kind else ""
        gen = ", the army's general" if self.general else ""
        return (
            f"{what} {names(self.figure)}{kind}{gen}, with {self._who(names)}, falls: "
            f"{names(self.reason)}"
        )


@dataclass(frozen=True, slots=True)
class FigureMoves(MedievalEvent):
    """An Inspirational Figure placed alone walks (at the skirmish infantry rate) to the unit
    ``unit`` it goes to; ``joined``: it reached it."""

    type: ClassVar[str] = PREFIX + "figure_moves"
    figure: str
    metres: float
    joined: bool

    def describe(self, names: Names = _same) -> str:
        end = ", joining it" if self.joined else ""
        return f"{names(self.figure)} walks {self.metres:g} m toward {self._who(names)}{end}"


@dataclass(frozen=True, slots=True)
class Destroyed(MedievalEvent):
    """A unit out of the battle: all its figures lost, or its guns abandoned."""

    type: ClassVar[str] = PREFIX + "destroyed"
    draw: ClassVar[Draw] = Draw.MARK
    mark: ClassVar[str | None] = "destroyed"
    reason: str
    figures_left: int

    def describe(self, names: Names = _same) -> str:
        return (
            f"{self._who(names)} destroyed: {names(self.reason)} ({self.figures_left} figures left)"
        )


# -- phases 15-16: morale and control -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Morale(MedievalEvent):
    """THE MORALE TEST CHART: one d10 gives a +1..+5 factor, plus the chart's modifiers
    (``factors``, summed in ``modifier``); the MORALE TEST RESULT column of the reason
    (``column``) reads the total. ``reason``: which of the REASONS TO TAKE A MORALE TEST."""

    type: ClassVar[str] = PREFIX + "morale"
    draw: ClassVar[Draw] = Draw.MARK
    mark: ClassVar[str | None] = "panic_test"
    reason: str
    column: MoraleColumn
    face: int
    modifier: int
    total: int
    result: MoraleResult
    factors: dict[str, int]

    def describe(self, names: Names = _same) -> str:
        return (
            f"{self._who(names)} morale test, {names(self.reason)}: rolled {self.face} "
            f"({_signed(_factor(self.face))}), modifiers {_signed(self.modifier)}"
            f"{_factors(self.factors)}, total {_signed(self.total)} \u2192 {self.result.value}"
        )


@dataclass(frozen=True, slots=True)
class Control(MedievalEvent):
    """THE CONTROL TEST CHART: one d10 factor plus modifiers; 3 or lower passes, 4 or higher
    fails (the unit must follow up or charge impetuously)."""

    type: ClassVar[str] = PREFIX + "control"
    draw: ClassVar[Draw] = Draw.MARK
    mark: ClassVar[str | None] = "order_roll"
    reason: str
    face: int
    modifier: int
    total: int
    passed: bool
    factors: dict[str, int]

    def describe(self, names: Names = _same) -> str:
        outcome = "passed" if self.passed else "failed: follows up or pursues"
        return (
            f"{self._who(names)} control test, {names(self.reason)}: rolled {self.face} "
            f"({_signed(_factor(self.face))}), modifiers {_signed(self.modifier)}"
            f"{_factors(self.factors)}, total {_signed(self.total)} (3 or lower passes) "
            f"\u2192 {outcome}"
        )


@dataclass(frozen=True, slots=True)
class Rout(MedievalEvent):
    """MORALE TEST RESULT, Rout: the unit becomes disordered and runs in the next phase 3."""

    type: ClassVar[str] = PREFIX + "rout"
    draw: ClassVar[Draw] = Draw.MARK
    mark: ClassVar[str | None] = "rout"
    reason: str

    def describe(self, names: Names = _same) -> str:
        return f"{self._who(names)} rout: {names(self.reason)}"


@dataclass(frozen=True, slots=True)
class Rallied(MedievalEvent):
    """MORALE TEST RESULT, "Rally from A Rout": no advance (back under orders) or fall back
    in disorder (``falling_back``)."""

    type: ClassVar[str] = PREFIX + "rallied"
    draw: ClassVar[Draw] = Draw.MARK
    mark: ClassVar[str | None] = "rally"
    falling_back: bool = False

    def describe(self, names: Names = _same) -> str:
        how = ", falling back in disorder" if self.falling_back else ", no advance this turn"
        return f"{self._who(names)} rally from their rout{how}"


@dataclass(frozen=True, slots=True)
class End(MedievalEvent):
    """The battle's end: a side broke (its figures lost or routing reached the scenario's
    break fraction), or the turn limit; ``losses``: figures lost per side."""

    type: ClassVar[str] = PREFIX + "end"
    winner: str | None
    turns: int
    reason: str
    losses: dict[str, int]

    def describe(self, names: Names = _same) -> str:
        who = f"{names(self.winner)} win" if self.winner else "no winner"
        lost = ", ".join(f"{names(s)} {n}" for s, n in sorted(self.losses.items()))
        return (
            f"the battle ends after turn {self.turns}: {who} ({self.reason}); figures lost: {lost}"
        )


#: every event class the game emits, in the order of the game turn
EVENTS: tuple[type[MedievalEvent], ...] = (
    Initiative,
    Weather,
    RoutMove,
    FallBack,
    Pursue,
    PushBack,
    FollowUp,
    Loot,
    AbandonGuns,
    ChargeDeclared,
    Reaction,
    Evade,
    Charge,
    CounterCharge,
    RoadMarch,
    Detour,
    Blocked,
    Advance,
    Manhandle,
    Limber,
    Unlimber,
    Reformed,
    Disordered,
    Fire,
    GunExploded,
    Melee,
    FigureKilled,
    FigureMoves,
    Destroyed,
    Morale,
    Control,
    Rout,
    Rallied,
    End,
)
#: the game's record kinds -> their classes
BY_KIND: dict[str, type[MedievalEvent]] = {c.type.removeprefix(PREFIX): c for c in EVENTS}


def from_record(phase: str, record: Mapping[str, Any]) -> MedievalEvent:
    """The event of one record of the game's journal (its ``turn`` and book phase dropped: the
    log's bound and ``phase`` say them). An unknown kind is a KeyError, a key its class does
    not declare a TypeError: a record never reaches the log as a free dict."""
    cls = BY_KIND[str(record["type"])]
    fields = {k: v for k, v in record.items() if k not in ("turn", "phase", "type")}
    fields.setdefault("unit", None)
    return cls.from_dict({"phase": phase, **fields})
