"""Scenario special rules: named procedures a scenario switches on, as scenario books have them.

A rulebook is a game for any battle; a scenario book adds what one battle had that the book
lacks: a supply of arrows that ran out, a fog that lay for a morning. DESIGN.md ("Scenario
special rules"): each is a named, documented procedure, off unless a scenario names it in its
``special_rules:`` list with its parameters and a ``source:`` for them, logged as events that
name the rule, never part of a ruleset's book and never tuned to a result.

>>> sorted(str(n) for n in SPECIAL_RULES)
['crews_flee', 'exhaustion', 'fog', 'limited_missile_supply', 'shock_of_charge', 'surrender']
>>> spec = parse_rule({"rule": "fog", "visibility_m": 150, "source": "Hall, Chronicle"})
>>> spec.visibility_m, spec.bounds
(150.0, None)
>>> try:
...     parse_rule({"rule": "fgo", "source": "x"})
... except LocatedError as exc:
...     print(exc)
rule: expected a special rule, got 'fgo' (did you mean 'fog'?)

The core (this module) keeps each rule's state and its ruleset-neutral procedure; a ruleset
plays it at its own seam (2mm Earth's shooting phases ask :meth:`SpecialRules.may_shoot`, the
medieval d10 game its firing), and says which rules it plays in ``Ruleset.special_rules``. A
scenario naming a rule the ruleset does not play is refused with one line naming the file and
the rule (:func:`unplayable_rules`): a rule silently ignored would replay a different battle
from the one the scenario describes (docs/special-rules.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

from engine.dice import DiceResult
from engine.log import Draw, Event, rolled

if TYPE_CHECKING:
    from engine.context import BoundContext
    from engine.state import Formation

__all__ = [
    "SPECIAL_RULES",
    "CrewsFled",
    "CrewsFlee",
    "CrewsTest",
    "Exhausted",
    "Exhaustion",
    "Fog",
    "FogChanged",
    "LimitedMissileSupply",
    "MissilesResupplied",
    "OutOfMissiles",
    "Recovered",
    "Resupply",
    "RuleParams",
    "ShockOfCharge",
    "SpecialRuleName",
    "SpecialRuleSpec",
    "SpecialRules",
    "Surrender",
    "Surrendered",
    "describe_special_rules",
    "parse_rule",
    "special_rule_events",
    "unplayable_rules",
]

_STRICT = ConfigDict(extra="forbid")
Loc = tuple[str | int, ...]


class SpecialRuleName(StrEnum):
    """Every special rule a scenario may name (``special_rules: - rule: NAME``)."""

    LIMITED_MISSILE_SUPPLY = "limited_missile_supply"
    FOG = "fog"
    SURRENDER = "surrender"
    SHOCK_OF_CHARGE = "shock_of_charge"
    EXHAUSTION = "exhaustion"
    CREWS_FLEE = "crews_flee"


class LocatedError(ValueError):
    """A problem at a key path inside one ``special_rules`` entry (engine.yamlio names the
    line); the same shape as engine.scenario's, kept here so this module needs no scenario."""

    def __init__(self, loc: Loc, problem: str) -> None:
        self.loc = loc
        self.problem = problem
        super().__init__(f"{'.'.join(str(x) for x in loc)}: {problem}")


class RuleParams(BaseModel):
    """A special rule's parameters as a scenario names them: ``rule`` and a required
    ``source`` (where its numbers come from), beside the rule's own."""

    model_config = _STRICT
    name: ClassVar[SpecialRuleName]
    source: str = Field(min_length=1, description="where the rule's numbers come from")

    def name_problems(self, formations: list[str], sides: list[str]) -> Iterator[tuple[Loc, str]]:
        """Each formation or side id the rule names that the scenario does not define."""
        return iter(())


class Resupply(BaseModel):
    """Missiles brought up to the line during the battle."""

    model_config = _STRICT
    every_bounds: int = Field(ge=1, le=500, description="bounds between two resupplies")
    volleys: int = Field(ge=1, le=1000, description="volleys each resupply brings")
    source: str = Field(min_length=1, description="where the resupply is told")


class LimitedMissileSupply(RuleParams):
    """Limited missile supply.

    Procedure: each shooting formation (every formation with missiles, or those of ``sides``)
    starts with ``volleys`` volleys (``formations`` gives some their own). Every bound a
    formation shoots spends one volley, whatever its mode (2mm Earth: normal, volley or
    Ordnance, 8.1-8.2; medieval d10: one fire of the FIRING CHART). A formation with none left
    does not shoot (it is logged ``out_of_missiles`` once, as its last volley goes) and acts as
    troops without missiles would: a formation told to attack closes instead of standing to
    shoot. With ``resupply``, every ``every_bounds`` bounds each formation of the rule not in
    contact with an enemy gets ``volleys`` more, never beyond what it started with.

    Motivation: the rulebooks let archers shoot without end, so 1,400 archers destroy a shield
    wall in twenty minutes; the sources describe hours of shooting and volleys that ran out
    (Towton 1461 as Hall tells it: the Lancastrians, shooting into the wind, spent their arrows
    short and the Yorkists shot them back; Homildon Hill 1402).
    """

    name: ClassVar[SpecialRuleName] = SpecialRuleName.LIMITED_MISSILE_SUPPLY
    rule: Literal["limited_missile_supply"]
    volleys: int = Field(ge=0, le=1000, description="volleys each shooting formation carries")
    formations: dict[str, int] = Field(
        default_factory=dict, description="formation id -> its own volleys"
    )
    sides: list[str] = Field(
        default_factory=list, description="only these sides' formations (empty: every side)"
    )
    resupply: Resupply | None = Field(
        default=None, description="missiles brought up in the battle (none: never)"
    )

    def name_problems(self, formations: list[str], sides: list[str]) -> Iterator[tuple[Loc, str]]:
        from engine.scenario import unknown_name

        for fid in self.formations:
            if fid not in formations:
                yield ("formations", fid), unknown_name("a formation", fid, formations)
        for k, sid in enumerate(self.sides):
            if sid not in sides:
                yield ("sides", k), unknown_name("a side", sid, sides)


class Fog(RuleParams):
    """Fog.

    Procedure: no formation sees an enemy farther than ``visibility_m`` (nearest points of the
    two formations), troops who know the ground (6.3) included: the fog hides what the ground
    would show. The limit is the lower of it and the ruleset's own (2mm Earth 6.3: weather and
    light). With ``bounds``, the fog lies for the first ``bounds`` bounds and lifts as the next
    begins (logged ``fog``, as it comes down before bound 1 and as it lifts).

    Motivation: a scenario's ``weather: fog`` gives only the book's general sight limit (2mm
    Earth 6.3: 1500 m by day for strangers, none for troops who know the ground; medieval-d10
    none), where sources give visibility in paces and say when the fog lifted (Barnet 1471,
    fought in a thick morning mist).
    """

    name: ClassVar[SpecialRuleName] = SpecialRuleName.FOG
    rule: Literal["fog"]
    visibility_m: float = Field(gt=0, le=100_000, description="farthest an enemy is seen, metres")
    bounds: int | None = Field(
        default=None, ge=1, le=1000, description="bounds the fog lies (none: all battle)"
    )


class Surrender(RuleParams):
    """Surrender.

    Procedure: a broken formation (retreating or routing) of ``sides`` that tried to flee this
    bound and could not get away (it moved less than the book's least move: enemy bases,
    impractical ground or walls in the way) while an enemy formation is in contact with it
    surrenders at once: every living base is captured, taken off the table and counted
    ``captured`` in the casualties (not killed), logged ``surrendered`` with the captor. A
    broken formation that can still flee, or that no enemy touches, does not surrender.

    Motivation: the books kill a beaten army pinned against walls or a river, base by base in
    the melee; none is ever captured, where the sources count prisoners (Homildon Hill 1402:
    Douglas, Murdoch Stewart and many knights taken).
    """

    name: ClassVar[SpecialRuleName] = SpecialRuleName.SURRENDER
    rule: Literal["surrender"]
    sides: list[str] = Field(
        default_factory=list, description="only these sides' troops surrender (empty: any side)"
    )

    def name_problems(self, formations: list[str], sides: list[str]) -> Iterator[tuple[Loc, str]]:
        from engine.scenario import unknown_name

        for k, sid in enumerate(self.sides):
            if sid not in sides:
                yield ("sides", k), unknown_name("a side", sid, sides)


class ShockOfCharge(RuleParams):
    """Shock of the charge.

    Procedure: a steady formation the scenario marks raw (``formations``), or, with
    ``unready``, one still caught unready (engine.readiness: in camp, asleep, on the march or
    forming up), takes the ruleset's morale test the moment an enemy formation charges into
    contact with it (a move that ends in contact, whatever side it strikes), once a bound, as
    if a trigger of the book's table said "panic test" (2mm Earth v0.9 10.5, v0.7 5.2: the
    test and its results are the book's, with its own modifiers, the -1R of troops caught
    unready included; War & Conquest's morale tests it in its Resolution, 2d6 against MV).
    Logged as the book's test with the trigger ``shock_of_charge``.

    Motivation: the books' triggers test troops charged in the flank or rear, never in front;
    raw levies and men caught in camp never waver before a charge, where the sources have
    them break at the sight of it (Stamford Bridge 1066: the Norwegians caught without their
    mail, left at the ships).
    """

    name: ClassVar[SpecialRuleName] = SpecialRuleName.SHOCK_OF_CHARGE
    rule: Literal["shock_of_charge"]
    formations: list[str] = Field(
        default_factory=list, description="formations of raw troops (they test when charged)"
    )
    unready: bool = Field(
        default=False, description="formations caught unready (engine.readiness) test too"
    )

    def name_problems(self, formations: list[str], sides: list[str]) -> Iterator[tuple[Loc, str]]:
        from engine.scenario import unknown_name

        for k, fid in enumerate(self.formations):
            if fid not in formations:
                yield ("formations", k), unknown_name("a formation", fid, formations)

    def tests(self, fid: str, unready: bool) -> bool:
        """Whether formation ``fid`` (``unready``: still caught unready) tests when charged."""
        return fid in self.formations or (self.unready and unready)


class Exhaustion(RuleParams):
    """Exhaustion.

    Procedure: troops come to the field spent by a forced march: the formations named
    (``formations``) and every formation of ``sides`` are exhausted for ``bounds`` bounds,
    counted from the first bound each is on the table (bound 1, or the bound a reinforcement
    comes on). An exhausted formation moves at ``speed_factor`` of its speed (2mm Earth: the
    book's own halving of 1.1 / 2.4 by default, applied on top of it) and rolls every die of
    its attacks, shooting and melee, at ``dice_modifier`` (2mm Earth: the size of 1.1 / 2.2's
    -1 a die for troops that move and shoot); with ``resilience_modifier``, the R an enemy
    must beat to hit it is lowered too. It is logged ``exhausted`` as it starts and
    ``recovered`` as the bound after its last begins. A formation with a base from an
    exhausted formation is exhausted while that base's bounds last (5.1: a formation goes at
    its slowest and strikes with its lowest).

    Motivation: the books field every body fresh, where the sources have men who ran or
    marched to the fight fail in it (Stamford Bridge 1066: Eystein Orri's men ran from the
    ships at Riccall in their mail, "so exhausted that they were almost unfit to fight",
    Snorri, Haralds saga ch. 94).
    """

    name: ClassVar[SpecialRuleName] = SpecialRuleName.EXHAUSTION
    rule: Literal["exhaustion"]
    formations: list[str] = Field(
        default_factory=list, description="formations exhausted (besides those of sides)"
    )
    sides: list[str] = Field(default_factory=list, description="every formation of these sides")
    bounds: int = Field(ge=1, le=1000, description="bounds exhausted, from its first on the table")
    speed_factor: float = Field(
        default=0.5, gt=0, le=1, description="share of its speed an exhausted formation moves"
    )
    dice_modifier: int = Field(
        default=-1, ge=-5, le=0, description="added to each die it rolls to hit (shoot, melee)"
    )
    resilience_modifier: int = Field(
        default=0, ge=-5, le=0, description="added to the R an enemy must beat to hit it"
    )

    @model_validator(mode="after")
    def _someone(self) -> Exhaustion:
        if not self.formations and not self.sides:
            raise ValueError("expected formations or sides to name who is exhausted, got none")
        return self

    def name_problems(self, formations: list[str], sides: list[str]) -> Iterator[tuple[Loc, str]]:
        from engine.scenario import unknown_name

        for k, fid in enumerate(self.formations):
            if fid not in formations:
                yield ("formations", k), unknown_name("a formation", fid, formations)
        for k, sid in enumerate(self.sides):
            if sid not in sides:
                yield ("sides", k), unknown_name("a side", sid, sides)


class CrewsFlee(RuleParams):
    """Crews flee.

    Procedure: the gun crews and drivers of the artillery formations named (``formations``)
    may run before they fire. As each bound begins, each of them still on the table and not
    in contact with an enemy whose trigger has come tests: with ``enemy_within_m``, an enemy
    formation is within that distance of it (nearest points, seen or not); with
    ``when_shot_at``, it was shot at in an earlier bound (a routing enemy sets off neither).
    The test is one die (2mm Earth's
    d6): on ``flee_on`` or less the crews flee. Then every living base is taken off the table
    and its pieces are counted abandoned (not killed; ``guns_abandoned`` in the result), and
    the formation shoots no more. It is logged ``crews_test`` (the trigger, the die) and, when
    they flee, ``guns_abandoned`` with the bases. With ``retest: false`` only the first test
    is taken; otherwise they test again each bound the trigger holds.

    Motivation: the books' guns serve until they are killed or overrun; the sources have
    crews who left their pieces before the enemy reached them (Chacabuco 1817: the royalist
    guns taken as the line broke; Flodden 1513: the Scottish gunners beaten from their
    ordnance).
    """

    name: ClassVar[SpecialRuleName] = SpecialRuleName.CREWS_FLEE
    rule: Literal["crews_flee"]
    formations: list[str] = Field(
        min_length=1, description="artillery formations whose crews may flee"
    )
    enemy_within_m: float | None = Field(
        default=None, gt=0, le=100_000, description="they test once an enemy is this near, metres"
    )
    when_shot_at: bool = Field(default=False, description="they test once shot at")
    flee_on: int = Field(ge=1, le=6, description="they flee on this score or less of one d6")
    retest: bool = Field(default=True, description="test again each bound (false: once only)")

    @model_validator(mode="after")
    def _trigger(self) -> CrewsFlee:
        if self.enemy_within_m is None and not self.when_shot_at:
            raise ValueError("expected enemy_within_m or when_shot_at: true, got neither")
        return self

    def name_problems(self, formations: list[str], sides: list[str]) -> Iterator[tuple[Loc, str]]:
        from engine.scenario import unknown_name

        for k, fid in enumerate(self.formations):
            if fid not in formations:
                yield ("formations", k), unknown_name("a formation", fid, formations)


#: name -> the rule's parameters and procedure (its docstring), like rulesets are registered
SPECIAL_RULES: dict[SpecialRuleName, type[RuleParams]] = {
    cls.name: cls
    for cls in (LimitedMissileSupply, Fog, Surrender, ShockOfCharge, Exhaustion, CrewsFlee)
}

AnyRule = LimitedMissileSupply | Fog | Surrender | ShockOfCharge | Exhaustion | CrewsFlee
SpecialRuleSpec = Annotated[AnyRule, Field(discriminator="rule")]
_ADAPTER: TypeAdapter[AnyRule] = TypeAdapter(SpecialRuleSpec)


def parse_rule(data: Any) -> AnyRule:
    """One ``special_rules`` entry as its rule's parameters; an unknown rule or parameter is a
    :class:`LocatedError` with the nearest valid name."""
    from engine.scenario import unknown_name

    if not isinstance(data, dict):
        raise LocatedError((), f"expected a mapping with rule: NAME, got {data!r}")
    names = [str(n) for n in SPECIAL_RULES]
    got = data.get("rule")
    if got is None:
        raise LocatedError(("rule",), f"expected a rule name ({', '.join(names)}), got none")
    if str(got) not in names:
        raise LocatedError(("rule",), unknown_name("a special rule", str(got), names))
    model = SPECIAL_RULES[SpecialRuleName(str(got))]
    known = list(model.model_fields)
    for key in data:
        if key not in known:
            raise LocatedError((str(key),), unknown_name(f"a parameter of {got}", key, known))
    try:
        return _ADAPTER.validate_python(data)
    except ValidationError as exc:
        errors = exc.errors()
        # a mistyped key first: it is the cause of the "missing" error of the key meant
        err = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
        loc = tuple(x for x in err["loc"])[1:]  # the union's tag first
        msg = err["msg"]
        if err["type"] == "value_error":  # a rule's own check (who or what sets it off)
            msg = str(err.get("ctx", {}).get("error", msg))
        got_value = err.get("input")
        if err["type"] not in ("missing", "extra_forbidden") and not isinstance(
            got_value, dict | list
        ):
            msg = f"{msg}, got {got_value!r}"
        if err["type"] == "extra_forbidden":  # a nested block's (resupply's) unknown key
            inner: Any = model
            for key in loc[:-1]:
                ann = inner.model_fields[str(key)].annotation
                inner = next(
                    (
                        a
                        for a in (ann, *getattr(ann, "__args__", ()))
                        if isinstance(a, type) and issubclass(a, BaseModel)
                    ),
                    None,
                )
                if inner is None:
                    break
            if inner is not None:
                where = ".".join(str(x) for x in loc[:-1])
                msg = unknown_name(
                    f"a parameter of {got} {where}", str(loc[-1]), inner.model_fields
                )
        raise LocatedError(loc, msg) from None


def describe_special_rules(
    rulesets: Mapping[str, frozenset[SpecialRuleName]],
) -> list[dict[str, Any]]:
    """What ``scenario-builder rulesets --special`` shows: each rule, its procedure, its
    parameters (type, default, meaning) and the rulesets that play it."""
    out = []
    for name, model in SPECIAL_RULES.items():
        schema = model.model_json_schema()
        props = schema.get("properties", {})
        required = set(schema.get("required", []))
        params: list[dict[str, Any]] = []
        _params(props, required, schema, "", params)
        doc = (model.__doc__ or "").strip()
        out.append(
            {
                "rule": str(name),
                "title": doc.splitlines()[0].rstrip("."),
                "doc": doc,
                "parameters": params,
                "rulesets": sorted(r for r, names in rulesets.items() if name in names),
            }
        )
    return out


def _params(
    props: dict[str, Any],
    required: set[str],
    schema: dict[str, Any],
    prefix: str,
    out: list[dict[str, Any]],
) -> None:
    """Each parameter's row; a nested model's own parameters follow it as ``parent.name``."""
    for key, prop in props.items():
        if key == "rule":
            continue
        out.append(
            {
                "name": prefix + key,
                "type": _type_text(prop, schema),
                "required": key in required,
                "default": prop.get("default"),
                "description": prop.get("description", ""),
            }
        )
        refs = [prop, *prop.get("anyOf", [])]
        for ref in refs:
            if "$ref" in ref:
                sub = schema["$defs"][ref["$ref"].rsplit("/", 1)[-1]]
                inner = set(sub.get("required", []))
                _params(sub.get("properties", {}), inner, schema, f"{prefix}{key}.", out)


def _type_text(prop: dict[str, Any], schema: dict[str, Any]) -> str:
    if "$ref" in prop:
        return prop["$ref"].rsplit("/", 1)[-1]
    if "anyOf" in prop:
        return " | ".join(_type_text(p, schema) for p in prop["anyOf"])
    kind = prop.get("type", "any")
    if kind == "object" and "additionalProperties" in prop:
        return f"map of {_type_text(prop['additionalProperties'], schema)}"
    if kind == "array" and "items" in prop:
        return f"list of {_type_text(prop['items'], schema)}"
    return str(kind)


def unplayable_rules(
    specs: list[AnyRule],
    plays: frozenset[SpecialRuleName],
    why: Mapping[SpecialRuleName, str] | None = None,
) -> list[tuple[Loc, str]]:
    """The scenario's special rules a ruleset has no seam for: refused at load, one line each
    (docs/special-rules.md, "Rulesets"), never silently ignored. ``why``: the ruleset's reason
    for a rule, where it has one.

    >>> fog = parse_rule({"rule": "fog", "visibility_m": 100, "source": "s"})
    >>> unplayable_rules([fog], frozenset({SpecialRuleName.SURRENDER}))
    [(('special_rules', 0, 'rule'), 'does not play special rule fog (plays: surrender)')]
    """
    played = ", ".join(sorted(plays)) or "none"
    reasons = why or {}
    return [
        (
            ("special_rules", i, "rule"),
            f"does not play special rule {spec.rule} "
            f"({reasons.get(spec.name) or f'plays: {played}'})",
        )
        for i, spec in enumerate(specs)
        if spec.name not in plays
    ]


# -- events ------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class OutOfMissiles(Event):
    """limited_missile_supply: ``formation`` shot its last volley (``shot`` in all) and shoots
    no more until resupplied."""

    type: ClassVar[str] = "out_of_missiles"
    rule: str
    formation: str
    shot: int

    def describe(self, names: Callable[[str], str] = str) -> str | None:
        return f"{names(self.formation)} has shot its last volley ({self.rule})"


@dataclass(frozen=True, slots=True)
class MissilesResupplied(Event):
    """limited_missile_supply: ``formation`` got missiles brought up; ``left`` volleys now."""

    type: ClassVar[str] = "missiles_resupplied"
    rule: str
    formation: str
    left: int

    def describe(self, names: Callable[[str], str] = str) -> str | None:
        return f"{names(self.formation)} resupplied: {self.left} volleys ({self.rule})"


@dataclass(frozen=True, slots=True)
class FogChanged(Event):
    """fog: the fog came down (``visibility_m``) or lifted (None)."""

    type: ClassVar[str] = "fog"
    rule: str
    visibility_m: float | None

    def describe(self, names: Callable[[str], str] = str) -> str | None:
        if self.visibility_m is None:
            return f"the fog lifts ({self.rule})"
        return f"fog: nothing seen beyond {self.visibility_m:g} m ({self.rule})"


@dataclass(frozen=True, slots=True)
class Surrendered(Event):
    """surrender: ``formation``, broken and unable to flee with ``captor`` upon it, yielded;
    its ``bases`` are captured."""

    type: ClassVar[str] = "surrendered"
    rule: str
    formation: str
    captor: str
    bases: tuple[str, ...]

    def describe(self, names: Callable[[str], str] = str) -> str | None:
        n = len(self.bases)
        return (
            f"{names(self.formation)}, cut off, surrenders to {names(self.captor)}: "
            f"{n} base{'s' if n != 1 else ''} captured ({self.rule})"
        )


@dataclass(frozen=True, slots=True)
class Exhausted(Event):
    """exhaustion: ``formation`` comes to the fight spent, exhausted to bound ``until``."""

    type: ClassVar[str] = "exhausted"
    rule: str
    formation: str
    until: int

    def actor_id(self) -> str | None:
        return self.formation

    def describe(self, names: Callable[[str], str] = str) -> str | None:
        return f"{names(self.formation)} is exhausted until bound {self.until} ({self.rule})"


@dataclass(frozen=True, slots=True)
class Recovered(Event):
    """exhaustion: ``formation``'s bounds of exhaustion are over; it moves and fights as the
    book has it again."""

    type: ClassVar[str] = "recovered"
    rule: str
    formation: str

    def actor_id(self) -> str | None:
        return self.formation

    def describe(self, names: Callable[[str], str] = str) -> str | None:
        return f"{names(self.formation)} has its breath back ({self.rule})"


@dataclass(frozen=True, slots=True)
class CrewsTest(Event):
    """crews_flee: ``formation``'s crews tested (``trigger``: ``enemy_within_m`` or
    ``shot_at``); they flee on ``flee_on`` or less (``fled``)."""

    type: ClassVar[str] = "crews_test"
    draw: ClassVar[Draw] = Draw.MARK
    mark: ClassVar[str | None] = "panic_test"  # a test, drawn as 2mm Earth's panic test is
    rule: str
    formation: str
    trigger: str
    flee_on: int
    fled: bool
    dice: DiceResult | None = None

    def actor_id(self) -> str | None:
        return self.formation

    def describe(self, names: Callable[[str], str] = str) -> str | None:
        what = "they flee" if self.fled else "they stand to their guns"
        why = "an enemy near" if self.trigger == "enemy_within_m" else "shot at"
        dice = rolled(self.dice) if self.dice is not None else "no dice"
        return (
            f"{names(self.formation)}'s crews test ({why}): {dice}, "
            f"fleeing on {self.flee_on} or less: {what} ({self.rule})"
        )


@dataclass(frozen=True, slots=True)
class CrewsFled(Event):
    """crews_flee: ``formation``'s crews and drivers ran; its ``bases`` (the pieces) are
    abandoned, counted as guns lost, not men killed."""

    type: ClassVar[str] = "guns_abandoned"
    draw: ClassVar[Draw] = Draw.MARK
    mark: ClassVar[str | None] = "rout"  # the crews run, drawn as a rout is
    rule: str
    formation: str
    bases: tuple[str, ...]

    def actor_id(self) -> str | None:
        return self.formation

    def describe(self, names: Callable[[str], str] = str) -> str | None:
        n = len(self.bases)
        return (
            f"{names(self.formation)}'s crews flee: {n} gun base{'s' if n != 1 else ''} "
            f"abandoned ({self.rule})"
        )


def special_rule_events() -> dict[str, type[Event]]:
    """Each special rule event's ``type`` -> its class (a log is read back through these)."""
    kinds = (OutOfMissiles, MissilesResupplied, FogChanged, Surrendered)
    return {c.type: c for c in (*kinds, Exhausted, Recovered, CrewsTest, CrewsFled)}


# -- the rules in a battle -----------------------------------------------------------------------
@dataclass
class _Supply:
    start: int
    left: int
    shot: int = 0


@dataclass
class SpecialRules:
    """The special rules in force in one battle and their state (``BoundContext.special``).

    With none named every question answers as the book would (:meth:`may_shoot` True), so a
    ruleset asks without first checking."""

    missiles: LimitedMissileSupply | None = None
    fog: Fog | None = None
    surrender: Surrender | None = None
    shock: ShockOfCharge | None = None
    #: formation id -> its missile supply (only formations of the rule with missiles)
    supply: dict[str, _Supply] = field(default_factory=dict)
    #: base ids special rule surrender captured (``Ruleset.casualties`` counts them)
    captured: set[str] = field(default_factory=set)
    #: the fog's visibility now (None: none lies), for a ruleset with sight of its own
    fog_m: float | None = None
    #: whether a formation is in contact with an enemy, for a ruleset whose contacts are its
    #: own (None: the core's ``state.contacts``)
    engaged: Callable[[str], bool] | None = None
    exhaustion: Exhaustion | None = None
    crews: CrewsFlee | None = None
    #: base id -> the last bound it is exhausted (rule exhaustion; a base counted once)
    tired: dict[str, int] = field(default_factory=dict)
    #: formation id -> the last bound of its exhaustion, till its recovery is logged
    tired_formations: dict[str, int] = field(default_factory=dict)
    #: formations of rule crews_flee shot at so far (the ruleset notes it: :meth:`shot_at`)
    fired_on: set[str] = field(default_factory=set)
    #: formations of rule crews_flee done testing (fled, or tested once without ``retest``)
    crews_done: set[str] = field(default_factory=set)
    #: base ids rule crews_flee abandoned (guns lost, not men killed): side -> base ids
    abandoned: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def from_specs(cls, specs: list[AnyRule]) -> SpecialRules:
        rules = cls()
        for spec in specs:
            if isinstance(spec, LimitedMissileSupply):
                rules.missiles = spec
            elif isinstance(spec, Surrender):
                rules.surrender = spec
            elif isinstance(spec, ShockOfCharge):
                rules.shock = spec
            elif isinstance(spec, Exhaustion):
                rules.exhaustion = spec
            elif isinstance(spec, CrewsFlee):
                rules.crews = spec
            else:
                rules.fog = spec
                rules.fog_m = spec.visibility_m  # lying as the armies deploy
        return rules

    @property
    def any(self) -> bool:
        rules = (self.missiles, self.fog, self.surrender, self.shock)
        return any(r is not None for r in (*rules, self.exhaustion, self.crews))

    def surrenders(self, side: str) -> bool:
        """Whether broken troops of ``side`` that cannot flee surrender (rule ``surrender``)."""
        spec = self.surrender
        return spec is not None and (not spec.sides or side in spec.sides)

    def _supply(self, fid: str, side: str) -> _Supply | None:
        """``fid``'s supply, counted from its first question (a reinforcement's as it comes
        on); None when the rule does not count it. Only formations with missiles are asked."""
        spec = self.missiles
        if spec is None:
            return None
        got = self.supply.get(fid)
        if got is None and (not spec.sides or side in spec.sides):
            n = spec.formations.get(fid, spec.volleys)
            got = self.supply[fid] = _Supply(n, n)
        return got

    def may_shoot(self, fid: str, side: str) -> bool:
        """Whether formation ``fid`` (of ``side``) has a volley left (True when not counted)."""
        s = self._supply(fid, side)
        return s is None or s.left > 0

    def spend_volley(self, fid: str, side: str, phase: str) -> OutOfMissiles | None:
        """``fid`` shot (in ``phase``): one volley spent; the event to log when it was the
        last (the ruleset logs it its own way)."""
        s = self._supply(fid, side)
        if s is None or self.missiles is None:
            return None
        s.left -= 1
        s.shot += 1
        if s.left == 0:
            return OutOfMissiles(phase, self.missiles.rule, fid, s.shot)
        return None

    def exhausted(self, f: Formation, bound: int) -> Exhaustion | None:
        """The rule when ``f`` is exhausted in ``bound`` (a living base's bounds not over:
        5.1, a formation goes at its slowest), else None."""
        spec = self.exhaustion
        if spec is None or not self.tired:
            return None
        tired = self.tired
        return spec if any(tired.get(b.id, 0) >= bound for b in f.alive_bases) else None

    def dice_modifier(self, f: Formation, bound: int) -> int:
        """What rule exhaustion adds to each die ``f`` rolls to hit (0 when fresh)."""
        spec = self.exhausted(f, bound)
        return spec.dice_modifier if spec is not None else 0

    def resilience_modifier(self, f: Formation, bound: int) -> int:
        """What rule exhaustion adds to the R an enemy must beat to hit ``f``."""
        spec = self.exhausted(f, bound)
        return spec.resilience_modifier if spec is not None else 0

    def shot_at(self, fid: str) -> None:
        """The ruleset notes ``fid`` was shot at (rule crews_flee's ``when_shot_at``)."""
        if self.crews is not None and fid in self.crews.formations:
            self.fired_on.add(fid)

    def _exhaust(self, ctx: BoundContext) -> None:
        """Rule exhaustion as a bound begins: formations first on the table are exhausted
        for the rule's bounds (each base counted once: a split group is not exhausted anew);
        those whose bounds are over recover."""
        spec = self.exhaustion
        assert spec is not None
        n = ctx.state.bound
        for fid, last in list(self.tired_formations.items()):
            if n > last:
                del self.tired_formations[fid]
                f = ctx.state.formations.get(fid)
                if f is not None and not f.removed:
                    ctx.emit(Recovered("orders", spec.rule, fid))
        for f in ctx.state.formations.values():
            if f.removed or (f.id not in spec.formations and f.side not in spec.sides):
                continue
            if any(b.id in self.tired for b in f.bases):
                continue  # counted already (the same troops under a new id)
            last = n + spec.bounds - 1
            for b in f.bases:
                self.tired[b.id] = last
            self.tired_formations[f.id] = last
            ctx.emit(Exhausted("orders", spec.rule, f.id, last))

    def _crews_test(self, ctx: BoundContext) -> None:
        """Rule crews_flee as a bound begins: each named gun formation whose trigger has come
        tests (one d6, flee on ``flee_on`` or less); if its crews flee its living bases are
        taken off the table as guns abandoned."""
        from engine.geometry import distance, obb_array
        from engine.state import BaseStatus, Morale

        spec = self.crews
        assert spec is not None
        state = ctx.state
        contacts = state.contacts
        engaged = self.engaged or (lambda fid: bool(contacts.get(fid)))
        for fid in spec.formations:
            f = state.formations.get(fid)
            if f is None or f.removed or fid in self.crews_done or engaged(fid):
                continue
            trigger = None
            if spec.when_shot_at and fid in self.fired_on:
                trigger = "shot_at"
            elif spec.enemy_within_m is not None:
                # an enemy coming on, not one in flight past the guns
                enemies = [
                    g.obb()
                    for g in state.active()
                    if g.side != f.side and g.morale is not Morale.ROUTING
                ]
                near = float(distance(f.obb(), obb_array(enemies)).min()) if enemies else None
                if near is not None and near <= spec.enemy_within_m:
                    trigger = "enemy_within_m"
            if trigger is None:
                continue
            roll = ctx.dice.roll(1, f"crews_flee {fid}", 6)
            fled = roll.faces[0] <= spec.flee_on
            ctx.emit(CrewsTest("orders", spec.rule, fid, trigger, spec.flee_on, fled, roll))
            if not fled:
                if not spec.retest:
                    self.crews_done.add(fid)
                continue
            self.crews_done.add(fid)
            bases = tuple(b.id for b in f.alive_bases)
            for b in f.alive_bases:
                b.status = BaseStatus.DEAD  # off the table: the pieces left where they stood
                ch = b.character
                if ch is not None and ch in state.characters:
                    state.characters[ch].alive = False  # gone with his crews
            self.abandoned.setdefault(f.side, []).extend(bases)
            f.morale = Morale.DESTROYED
            f.changed_bound = state.bound
            ctx.emit(CrewsFled("orders", spec.rule, fid, bases))

    def __call__(self, ctx: BoundContext) -> None:
        """As a bound begins (``BoundContext.on_bound_start``): the fog comes down or lifts,
        troops come on exhausted or recover, crews test, missiles come up (resupply) to
        formations not in contact with an enemy."""
        n = ctx.state.bound
        if self.exhaustion is not None:
            self._exhaust(ctx)
        if self.crews is not None:
            self._crews_test(ctx)
        fog = self.fog
        if fog is not None:
            want = fog.visibility_m if fog.bounds is None or n <= fog.bounds else None
            if n == 1 or want != self.fog_m:  # logged as it lies at the start, and lifting
                self.fog_m = want
                if ctx.sight.fog_m != want:
                    ctx.sight.fog_m = want
                    ctx.sight._version = -1  # the cached answers were for the old sight
                ctx.emit(FogChanged("orders", fog.rule, want))
        spec = self.missiles
        due = spec is not None and spec.resupply is not None and n > 1
        if due and spec is not None and spec.resupply is not None:
            if (n - 1) % spec.resupply.every_bounds != 0:
                return
            contacts = ctx.state.contacts
            engaged = self.engaged or (lambda fid: bool(contacts.get(fid)))
            for fid, s in self.supply.items():
                f = ctx.state.formations.get(fid)
                if f is None or f.removed or s.left >= s.start or engaged(fid):
                    continue
                s.left = min(s.start, s.left + spec.resupply.volleys)
                ctx.emit(MissilesResupplied("orders", spec.rule, fid, s.left))
