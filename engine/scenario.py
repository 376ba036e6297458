"""Scenario files (``data/scenarios/<id>.yaml``): armies placed on a battlefield (pydantic).

The schema is in docs/architecture.md ("Scenario"). Every model forbids unknown fields, so a typo
is an error naming the file, the line and the field. ``Scenario.to_yaml()`` round-trips.

>>> s = Scenario.model_validate({"id": "t", "name": "T", "battlefield": {"slug": "flodden"},
...   "sides": [{"id": "a", "name": "A", "army": "x", "home_edge": "south", "formations": [
...       {"id": "f", "profile": "p", "bases": 4, "frontage": 2, "position": {"xy": [0, 0]}}]},
...     {"id": "b", "name": "B", "army": "y", "home_edge": [10.0, 20.0], "formations": []}]})
>>> s.formation("f").ranks, s.side_of("f").id
(2, 'a')
>>> Scenario.from_yaml(s.to_yaml()) == s
True
"""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Iterable, Iterator
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationInfo,
    field_validator,
    model_validator,
)

from engine.special_rules import SpecialRuleSpec, parse_rule
from engine.yamlio import line_for, load_yaml_with_lines, read_yaml, validate
from scenario_builder.errors import DataSourceError, ScenarioFileError

if TYPE_CHECKING:
    from engine.seam import Ruleset
from scenario_builder.paths import data_dir

__all__ = [
    "BAND_KINDS",
    "EDGES",
    "Arrival",
    "BattlefieldRef",
    "CharacterPlacement",
    "CountUnit",
    "Feint",
    "FormationPlan",
    "FormationSpec",
    "HistoricalOutcome",
    "HoldFire",
    "Plan",
    "PlanStep",
    "Position",
    "Scenario",
    "SideLosses",
    "SideSpec",
    "StepEnd",
    "Victory",
    "load_scenario",
    "scenario_path",
]

_STRICT = ConfigDict(extra="forbid")
_ID = r"^[A-Za-z0-9_\-]+$"
Loc = tuple[str | int, ...]


class LocatedError(ValueError):
    """A validation problem at a known place in the file (``loc``: the key path), so that
    :func:`engine.yamlio.validate` can name its line although a whole-model check found it."""

    def __init__(self, loc: Loc, problem: str) -> None:
        self.loc = loc
        self.problem = problem
        super().__init__(f"{'.'.join(str(x) for x in loc)}: {problem}")


def unknown_name(kind: str, got: str, valid: Iterable[str]) -> str:
    """The problem with an unknown name, suggesting the nearest valid one (difflib).

    >>> unknown_name("a formation of side romans", "rm_leg_xvi", ["rm_leg_xvii", "rm_alae"])
    "expected a formation of side romans, got 'rm_leg_xvi' (did you mean 'rm_leg_xvii'?)"
    >>> unknown_name("an objective of side germans", "nowhere", ["hold_the_wall"])
    "expected an objective of side germans (hold_the_wall), got 'nowhere'"
    """
    names = sorted(set(valid))
    near = difflib.get_close_matches(got, names, n=1, cutoff=0.6)
    if near:
        return f"expected {kind}, got {got!r} (did you mean {near[0]!r}?)"
    shown = ", ".join(names[:8]) + (", ..." if len(names) > 8 else "")
    return f"expected {kind} ({shown or 'none defined'}), got {got!r}"


class Position(BaseModel):
    """A point: ``lonlat`` (WGS84 degrees) or ``xy`` (metres in the battlefield CRS)."""

    model_config = _STRICT
    lonlat: tuple[float, float] | None = None
    xy: tuple[float, float] | None = None

    @model_validator(mode="after")
    def _one(self) -> Position:
        if (self.lonlat is None) == (self.xy is None):
            raise ValueError("expected exactly one of lonlat or xy")
        if self.lonlat is not None:
            lon, lat = self.lonlat
            if not (-180 <= lon <= 180 and -90 <= lat <= 90):
                raise ValueError(f"expected lonlat [lon, lat] in degrees, got {list(self.lonlat)}")
        return self

    def resolve(self, to_xy: Any) -> tuple[float, float]:
        """Metres in the battlefield CRS; ``to_xy`` is ``Battlefield.to_xy``."""
        if self.xy is not None:
            return (float(self.xy[0]), float(self.xy[1]))
        x, y = to_xy(*self.lonlat)  # type: ignore[misc]
        return (float(x), float(y))


class BattlefieldRef(BaseModel):
    """Which ground: a shipped ``slug``, a built battlefield ``path``, or inputs to build."""

    model_config = _STRICT
    slug: str | None = None
    path: str | None = None
    dem: str | None = None
    landcover: str | None = None
    overlays: list[str] = Field(default_factory=list)
    bbox: tuple[float, float, float, float] | None = None
    # 6.2 height levels of this battle's build: step and gaussian smoothing in metres (None: the
    # site's site.json ``levels``, else the build defaults)
    step_m: float | None = Field(default=None, gt=0)
    smooth_m: float | None = Field(default=None, ge=0)
    # 7.2: OSM streams named here are significant (wet); other streams stay plain brooks
    significant_streams: list[str] | None = None

    @model_validator(mode="after")
    def _one(self) -> BattlefieldRef:
        given = [k for k in ("slug", "path", "dem") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(f"expected exactly one of slug, path or dem, got {given or 'none'}")
        build_only = (self.step_m, self.smooth_m, self.significant_streams)
        if self.path is not None and any(v is not None for v in build_only):
            raise ValueError(
                "expected step_m, smooth_m, significant_streams only with slug or dem "
                "(a path is already built)"
            )
        return self


class CharacterPlacement(BaseModel):
    """A character from the troop list: with a formation (5.1) or alone at a position."""

    model_config = _STRICT
    id: str = Field(pattern=_ID)
    position: Position | None = None
    formation: str | None = None
    facing: float = 0.0

    @model_validator(mode="after")
    def _where(self) -> CharacterPlacement:
        if self.position is None and self.formation is None:
            raise ValueError("expected a position or a formation")
        return self


def _order_word(kind: str) -> str:
    """An order word of a registered ruleset (2mm Earth: attack, hold, advance, retreat)."""
    from engine.orders import ORDER_WORDS
    from engine.rulesets import available_rulesets

    available_rulesets()  # the shipped rulesets register their words on import
    if kind not in ORDER_WORDS:
        raise ValueError(f"expected an order, one of {', '.join(sorted(ORDER_WORDS))}")
    return kind


#: an order as a scenario writes it; the ruleset named by the scenario decides what it does
OrderWord = Annotated[str, AfterValidator(_order_word)]


class ReadinessEnd(BaseModel):
    """What ends a readiness state (engine.readiness): the first that happens."""

    model_config = _STRICT
    bound: int | None = Field(default=None, ge=1)  # as this bound begins
    enemy_within_m: float | None = Field(default=None, gt=0)  # an enemy this close
    attacked: bool = True  # hit, or an enemy in contact
    order: bool = False  # an order reaches it after bound 1 (a messenger, 9.1-9.2)
    #: the alarm spreads: a friendly formation this close (centre to centre) is attacked
    friend_attacked_within_m: float | None = Field(default=None, gt=0)


class ReadinessSpec(BaseModel):
    """A side's or a formation's state as the battle begins (engine.readiness)."""

    model_config = _STRICT
    state: Literal["ready", "unready", "asleep", "on_the_march"] = "ready"
    until: ReadinessEnd = Field(default_factory=ReadinessEnd)


class FormationSpec(BaseModel):
    """One formation as deployed: ``bases`` of ``profile`` in ranks of ``frontage`` (3.1)."""

    model_config = _STRICT
    id: str = Field(pattern=_ID)
    name: str = ""
    profile: str
    bases: int = Field(ge=1, le=400)
    frontage: int = Field(ge=1, le=100)
    position: Position
    facing: float = 0.0
    order: OrderWord = "hold"
    target: Position | None = None  # advance/attack toward this point
    target_formation: str | None = None  # attack this enemy formation
    loose: bool = False  # 4.1 skirmishers in Loose Formation
    brigade: str | None = None  # 5.1 deployed merged into this formation's brigade
    rear_profile: str | None = None  # 11.3 mixed formation: rear ranks of another profile
    rear_ranks: int = Field(default=0, ge=0)
    flank_profile: str | None = None  # 11.3 Pike & Shot: the outer files of another profile
    flank_files: int = Field(default=0, ge=0)  # files of flank_profile at each end
    readiness: ReadinessSpec | None = None  # overrides the side's (engine.readiness)
    #: representation of this formation, over its side's and the scenario's: men one base
    #: stands for (foot and horse; never a base of guns)
    men_per_base: float | None = Field(default=None, gt=0)
    #: guns one base of this formation stands for, in pieces (a war-machine profile only):
    #: guns are counted as pieces, never as men (docs/scenarios.md, "Representation")
    pieces_per_base: float | None = Field(default=None, gt=0)
    #: the formation at its book's own figure scale, for a ruleset whose base is one figure
    #: (``Ruleset.counts_figures``: medieval-d10): ``figures`` deploy in ranks of
    #: ``figure_frontage`` in place of ``bases``/``frontage``, which stay for the other rulesets
    #: (docs/scenarios.md, "Figures")
    figures: int | None = Field(default=None, ge=1, le=2000)
    figure_frontage: int | None = Field(default=None, ge=1, le=500)

    @field_validator("frontage")
    @classmethod
    def _frontage_fits(cls, frontage: int, info: ValidationInfo) -> int:
        # a front wider than the formation has bases would deploy a one-rank line of
        # ``bases`` and report it as ``frontage`` wide
        bases = info.data.get("bases")
        if bases is not None and frontage > bases:
            raise LocatedError((), f"expected at most its {bases} bases, got {frontage}")
        return frontage

    @field_validator("figure_frontage")
    @classmethod
    def _figure_frontage_fits(cls, frontage: int | None, info: ValidationInfo) -> int | None:
        figures = info.data.get("figures")
        if frontage is not None and figures is None:
            raise LocatedError((), "expected figures beside figure_frontage (the figures it ranks)")
        if frontage is not None and figures is not None and frontage > figures:
            raise LocatedError((), f"expected at most its {figures} figures, got {frontage}")
        return frontage

    @model_validator(mode="after")
    def _figures_ranked(self) -> FormationSpec:
        if self.figures is not None and self.figure_frontage is None:
            raise LocatedError(
                ("figures",), "expected figure_frontage beside figures (figures abreast)"
            )
        return self

    @property
    def ranks(self) -> int:
        return math.ceil(self.bases / self.frontage)

    def deployed(self, counts_figures: bool) -> tuple[int, int]:
        """(bases, frontage) as deployed: its ``figures`` in ranks of ``figure_frontage``
        under a ruleset that counts figures, when given; else its ``bases`` and ``frontage``."""
        if counts_figures and self.figures is not None and self.figure_frontage is not None:
            return self.figures, self.figure_frontage
        return self.bases, self.frontage


class Objective(BaseModel):
    """A place the automatic commander should take or hold."""

    model_config = _STRICT
    id: str
    point: Position
    formations: list[str] = Field(default_factory=list)
    kind: Literal["take", "hold", "screen"] = "take"


class TriggerCondition(BaseModel):
    """All given conditions must hold (the 2mm Earth plan commanders): an enemy within
    ``enemy_within_m`` of ``formation`` (else of the trigger's formations); from bound ``bound``
    on; ``formation`` has lost ``losses_fraction`` of its bases; friendly formation ``routs`` is
    routing or destroyed; formation ``attacked`` has been attacked (an enemy in contact with it,
    or one of its bases hit); objective ``objective_taken`` is taken."""

    model_config = _STRICT
    enemy_within_m: float | None = None
    formation: str | None = None
    bound: int | None = None
    losses_fraction: float | None = None
    routs: str | None = None
    attacked: str | None = None
    objective_taken: str | None = None
    #: the trigger of this plan with this ``id`` has fired (conditions chain)
    trigger_fired: str | None = None


class Trigger(BaseModel):
    """When ``when`` holds, give ``order`` to ``formations``."""

    model_config = _STRICT
    id: str | None = Field(default=None, pattern=_ID)  # named by ``trigger_fired``
    when: TriggerCondition
    order: OrderWord
    formations: list[str] = Field(default_factory=list)
    target: Position | None = None
    target_formation: str | None = None


#: the map edges a side's home or a reinforcement's entry may name
EDGES: tuple[str, ...] = ("north", "south", "east", "west")

#: a place in a plan: a name from the plan's ``points`` or a position
Place = str | Position


class StepEnd(BaseModel):
    """What ends a step of a formation's plan: the first that happens. With none given, a step
    on an objective of kind ``take`` ends when it is taken, an attack on an enemy formation when
    that is broken, an advance when its point is reached; a hold, or an attack on whatever enemy
    is near, goes on (the plan's last word)."""

    model_config = _STRICT
    reached: bool = False  # the formation is within the commander's REACHED_M of the point
    taken: bool = False  # the step's objective is taken (PlanCommander's TAKEN_M rule)
    bound: int | None = Field(default=None, ge=1)  # as this bound begins
    #: a trigger's conditions (all of them), judged for the formation as a trigger's are: "hold
    #: until the wing beside it is attacked, then go on with the plan"
    when: TriggerCondition | None = None

    def given(self) -> bool:
        return self.reached or self.taken or self.bound is not None or self.when is not None


class PlanStep(BaseModel):
    """One step of a formation's sequential objectives: go to (or attack, or hold at) an
    objective of the plan, a named point or a position, until ``until``."""

    model_config = _STRICT
    order: OrderWord = "advance"
    objective: str | None = None  # an objective id of this plan: its point and its taken state
    point: Place | None = None
    target_formation: str | None = None  # an attack step's enemy formation
    until: StepEnd = Field(default_factory=StepEnd)

    @model_validator(mode="after")
    def _where(self) -> PlanStep:
        given = [k for k in ("objective", "point", "target_formation") if getattr(self, k)]
        if len(given) > 1:
            raise ValueError(
                f"expected at most one of objective, point, target_formation, got {given}"
            )
        if not given and str(self.order) != "hold":
            raise ValueError("expected an objective, a point or a target_formation")
        return self


class HoldFire(BaseModel):
    """9.1 "Hold means to Hold Fire for ranged troops": the formation is kept on Hold, and the
    commander does not send it to shoot at enemies in range, until ``until`` holds (all the
    given conditions, as a trigger's)."""

    model_config = _STRICT
    until: TriggerCondition


class Feint(BaseModel):
    """A deliberate feint: advance to ``point``, then (on reaching it, or as soon as an enemy is
    within ``enemy_within_m``) fall back under a Retreat order (9.1, 10.2) for
    ``fall_back_bounds`` bounds, then Hold to rally (11.2)."""

    model_config = _STRICT
    point: Place
    enemy_within_m: float | None = Field(default=None, gt=0)
    fall_back_bounds: int = Field(default=2, ge=1, le=50)


class Arrival(BaseModel):
    """A timed reinforcement: the formation is off the table until bound ``bound`` begins, then
    enters at map edge ``edge`` (at the place on that edge nearest ``point``, or its deployed
    position) or, without an edge, at ``point``."""

    model_config = _STRICT
    bound: int = Field(ge=2)
    edge: str | None = None
    point: Place | None = None

    @model_validator(mode="after")
    def _where(self) -> Arrival:
        if self.edge is None and self.point is None:
            raise ValueError("expected an edge or a point (or both)")
        return self


class FormationPlan(BaseModel):
    """The plan for one formation: when it arrives, the route it takes, the steps it
    carries out in order, whether it holds its fire, a feint. The side's automatic commander
    runs it; the formations a plan does not name are the commander's own."""

    model_config = _STRICT
    formation: str
    arrives: Arrival | None = None
    waypoints: list[Place] = Field(default_factory=list)
    steps: list[PlanStep] = Field(default_factory=list)
    hold_fire: HoldFire | None = None
    feint: Feint | None = None

    @model_validator(mode="after")
    def _one(self) -> FormationPlan:
        if self.feint is not None and (self.steps or self.waypoints):
            raise ValueError("expected a feint, or waypoints and steps, not both")
        return self


class Plan(BaseModel):
    """A side's plan for the automatic commander: inline in the scenario or a plan file
    (``plan: plans/x.yaml``, ``scenario-builder schema --kind plan``)."""

    model_config = _STRICT
    points: dict[str, Position] = Field(default_factory=dict)  # named places the plan uses
    objectives: list[Objective] = Field(default_factory=list)
    triggers: list[Trigger] = Field(default_factory=list)
    stance: Literal["aggressive", "defensive", "balanced"] = "balanced"
    formations: list[FormationPlan] = Field(default_factory=list)

    def place(self, p: Place, to_xy: Any) -> tuple[float, float]:
        """A place as metres in the battlefield CRS (names were checked at load time)."""
        return (self.points[p] if isinstance(p, str) else p).resolve(to_xy)

    def for_formation(self, fid: str) -> FormationPlan | None:
        return next((fp for fp in self.formations if fp.formation == fid), None)

    @classmethod
    def load(cls, path: Path) -> tuple[Plan, dict[Any, int]]:
        """A plan file, validated (errors name the plan file, the line and the field)."""
        if not path.exists():
            raise DataSourceError(path, "no such plan file")
        data, lines = read_yaml(path)
        return validate(cls, data, path, lines), lines


class CommandFormationSpec(BaseModel):
    """Units of one command deployed in base contact as one command formation (Dark Age 5.5:
    ``battle_line`` or ``march_column``; read by rulesets that have them, ``dark-age``)."""

    model_config = _STRICT
    id: str = Field(pattern=_ID)
    kind: Literal["battle_line", "march_column"]
    units: list[str] = Field(min_length=2)


def _command_formation_problems(side: Any, at: Loc, own: list[str]) -> Iterator[tuple[Loc, str]]:
    """Dark Age 5.5: a command formation's units are formations of its own side, each in at
    most one command formation."""
    taken: dict[str, str] = {}
    for ci, cf in enumerate(side.command_formations):
        for k, fid in enumerate(cf.units):
            loc: Loc = (*at, "command_formations", ci, "units", k)
            if fid not in own:
                yield loc, unknown_name(f"a formation of side {side.id}", fid, own)
            elif fid in taken:
                yield (
                    loc,
                    f"expected a unit in one command formation, got {fid!r} in {taken[fid]!r} too",
                )
            else:
                taken[fid] = cf.id
    for mi, m in enumerate(side.manoeuvres):
        for k, fid in enumerate(m.formations):
            if fid not in own:
                loc = (*at, "manoeuvres", mi, "formations", k)
                yield loc, unknown_name(f"a formation of side {side.id}", fid, own)


class ManoeuvreSpec(BaseModel):
    """At bound ``bound`` the ``formations`` make ``manoeuvre`` (Dark Age 5.17-5.28;
    engine/rulesets/dark_age/manoeuvres.py; read by ``dark-age``); ``degrees``: how far a
    wheel turns (5.17; default 45, as far as the roll allows)."""

    model_config = _STRICT
    bound: int = Field(ge=1)
    formations: list[str] = Field(min_length=1)
    manoeuvre: Literal[
        "form_column",
        "form_shieldwall",
        "form_cuneus",
        "double_ranks",
        "halve_ranks",
        "side_step_left",
        "side_step_right",
        "step_back",
        "about_face",
        "wheel_left",
        "wheel_right",
        "incline_left",
        "incline_right",
        "slow_walk",
        "pass_gap",
        "dismount",
        "mount",
    ]
    degrees: float | None = Field(default=None, gt=0, le=90)
    #: 5.25 ``dismount``: the side's troop profile the riders fight as on foot
    profile: str | None = None

    @model_validator(mode="after")
    def _degrees_for_wheels(self) -> ManoeuvreSpec:
        if self.degrees is not None and not self.manoeuvre.startswith("wheel_"):
            raise ValueError(f"degrees is for wheel_left and wheel_right, not {self.manoeuvre}")
        if (self.profile is not None) != (self.manoeuvre == "dismount"):
            raise ValueError(
                f"profile is for dismount (the troops on foot), and dismount needs one; "
                f"got {self.manoeuvre} with profile {self.profile!r}"
            )
        return self


class SideSpec(BaseModel):
    """One army on the field."""

    model_config = _STRICT
    id: str = Field(pattern=_ID)
    name: str
    army: str
    colour: str = Field(default="#808080", pattern=r"^#[0-9A-Fa-f]{6}$")
    home_edge: Literal["north", "south", "east", "west"] | tuple[float, float] = "south"
    general: str | None = None
    characters: list[CharacterPlacement] = Field(default_factory=list)
    formations: list[FormationSpec] = Field(default_factory=list)
    #: the automatic commander's plan, inline or a plan file relative to the scenario's folder
    plan: Plan | str | None = None
    holds_walls: bool = False  # 8.3: the side inside the walls uses the stairs, not ladders
    readiness: ReadinessSpec | None = None  # every formation's state at the start, unless its own
    men_per_base: float | None = Field(default=None, gt=0)  # overrides the scenario's
    command_formations: list[CommandFormationSpec] = Field(default_factory=list)  # Dark Age 5.5
    manoeuvres: list[ManoeuvreSpec] = Field(default_factory=list)  # Dark Age 5.17-5.29
    #: 9.2 the age of this side's communications, when it differs from the scenario's ``age``
    #: (an army with the telegraph against one without)
    age: Literal["prehistoric", "ancients", "modern"] | None = None


class WeatherChange(BaseModel):
    """From bound ``bound`` on the weather is ``weather`` (6.3)."""

    model_config = _STRICT
    bound: int = Field(ge=1)
    weather: Literal["clear", "fog", "rain", "bright"]


class Victory(BaseModel):
    """When a side has lost (``rout_fraction`` of its bases dead or broken) and how long the
    winner's pursuit runs on after that (the ruleset's own pursuit, 11.1 in 2mm
    Earth, for at most ``pursuit_bounds`` bounds or until no broken troops are left on the
    field; 0: the battle stops at the break)."""

    model_config = _STRICT
    rout_fraction: float = Field(default=0.5, gt=0, le=1)
    pursuit_bounds: int = Field(default=0, ge=0, le=500)


def _band(v: tuple[float, float] | None) -> tuple[float, float] | None:
    if v is not None and not 0 <= v[0] <= v[1]:
        raise ValueError(f"expected [low, high] with 0 <= low <= high, got {list(v)}")
    return v


#: a range of men, [low, high] (a point estimate is [n, n])
Band = Annotated[tuple[float, float] | None, AfterValidator(_band)]

#: the loss categories of men a historical band may give (a source's "missing" is in its
#: total: the engine's dispersed bases count against a total only); the engine's own kinds
#: are engine.casualties.LOSS_KINDS
BAND_KINDS: tuple[str, ...] = ("killed", "wounded", "captured")


class SideLosses(BaseModel):
    """One side's losses as the sources give them: ranges of men per category, or a total;
    guns lost in pieces; with sources. A category the sources do not give is left out (null),
    not guessed."""

    model_config = _STRICT
    killed: Band = None
    wounded: Band = None
    captured: Band = None
    #: killed, wounded and missing together, where the sources give only the sum
    total: Band = None
    #: guns lost (taken, destroyed or abandoned), in pieces, where the sources count them;
    #: set against the side's lost bases of guns times their ``pieces_per_base``
    guns: Band = None
    note: str = ""
    sources: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _some(self) -> SideLosses:
        if all(getattr(self, k) is None for k in (*BAND_KINDS, "total", "guns")):
            raise ValueError(
                "expected at least one of killed, wounded, captured, total, guns as [low, high]"
            )
        if self.total is not None and any(getattr(self, k) is not None for k in BAND_KINDS):
            raise ValueError(
                "expected total (killed, wounded and missing together) or the categories, not both"
            )
        return self

    def given(self) -> tuple[str, ...]:
        """The categories of men the band covers: all three when the sources give a total;
        none when they give only guns."""
        if self.total is not None:
            return BAND_KINDS
        return tuple(k for k in BAND_KINDS if getattr(self, k) is not None)

    def band(self) -> tuple[float, float]:
        """The band of men lost in the given categories together."""
        if self.total is not None:
            return self.total
        bands = [getattr(self, k) for k in self.given()]
        return (sum(b[0] for b in bands), sum(b[1] for b in bands))

    def bands(self) -> dict[str, tuple[float, float]]:
        """Each category of men the sources give on its own -> its band (a total is one band
        of all kinds together, not split)."""
        return {k: b for k in BAND_KINDS if (b := getattr(self, k)) is not None}


class HistoricalDuration(BaseModel):
    """How long the fighting lasted as the sources give it: a range of hours, with sources;
    ``validate`` sets the replays' game time (bounds x the ruleset's ``bound_minutes``)
    against it."""

    model_config = _STRICT
    hours: Annotated[tuple[float, float], AfterValidator(_band)]
    note: str = ""
    sources: list[str] = Field(default_factory=list)


class CDB90Ref(BaseModel):
    """The battle's row in CDB90, the CAA database of battles 1600-1973
    (``data/history/cdb90_battles.csv``, by its ``isqno``). CDB90 records each battle by
    attacker and defender; ``attacker`` names the scenario's side it counts as the attacker,
    so the row's two strengths and losses can be set beside the sides'. The row may cover
    more than the scenario (Gettysburg's is all three days): say so in ``note``."""

    model_config = _STRICT
    isqno: int = Field(ge=1)
    attacker: str
    note: str = ""


class HistoricalOutcome(BaseModel):
    """What happened (outcomes as data): the winner (a side id, or null for a draw)
    and each side's losses as ranges of men, with sources; how long the fighting lasted; the
    battle's CDB90 row, if it has one. ``montecarlo`` and ``validate`` compare replays with it
    (scenario_builder.montecarlo, scenario_builder.validation)."""

    model_config = _STRICT
    winner: str | None
    losses: dict[str, SideLosses] = Field(default_factory=dict)
    duration: HistoricalDuration | None = None
    cdb90: CDB90Ref | None = None
    sources: list[str] = Field(default_factory=list)
    summary: str = ""

    def get(self, key: str, default: Any = None) -> Any:
        """Dict-style read (``hist.get("winner")``), as callers of the free-text form did."""
        return self.model_dump(mode="json").get(key, default)


#: a date written as a calendar day (checked as one)
_ISO_DATE = re.compile(r"\d{1,4}-\d{1,2}-\d{1,2}")


class Scenario(BaseModel):
    """A battle to fight: ground, armies, deployment, weather, ruleset, victory."""

    model_config = _STRICT
    id: str = Field(pattern=_ID)
    name: str
    ruleset: str = "2mm-earth-v0.9"
    battlefield: BattlefieldRef
    age: Literal["prehistoric", "ancients", "modern"] = "ancients"
    date: str | None = None
    #: with an ISO ``date``: the local mean solar time the battle starts, HH:MM (engine.light);
    #: the light then follows the sun bound by bound and ``time`` is not used
    start_time: str | None = Field(default=None, pattern=r"^[0-2][0-9]:[0-5][0-9]$")
    #: the calendar ``date`` is written in; default Julian before 15 October 1582
    calendar: Literal["julian", "gregorian"] | None = None
    time: Literal["day", "night"] = "day"
    weather: Literal["clear", "fog", "rain", "bright"] = "clear"
    weather_changes: list[WeatherChange] = Field(default_factory=list)
    locality: str | None = None  # 6.3: troops of this locality know the ground
    max_bounds: int = Field(default=60, ge=1, le=1000)
    sides: list[SideSpec] = Field(min_length=2)
    victory: Victory = Field(default_factory=Victory)
    historical_outcome: HistoricalOutcome | None = None
    #: representation: men one base stands for (data/scenarios/README.md); a side may differ
    men_per_base: float | None = Field(default=None, gt=0)
    #: men one figure stands for where formations give ``figures`` (a ruleset that counts
    #: figures deploys them: docs/scenarios.md, "Figures"); None: its bases' men_per_base
    men_per_figure: float | None = Field(default=None, gt=0)
    sources: list[str] = Field(default_factory=list)
    #: scenario special rules (engine.special_rules, docs/special-rules.md): procedures no book
    #: has, each with its parameters and their source; none: the book alone
    special_rules: list[SpecialRuleSpec] = Field(default_factory=list)

    _path: Path | None = PrivateAttr(default=None)
    _armies: dict[str, Any] = PrivateAttr(default_factory=dict)
    _lines: dict[Any, int] = PrivateAttr(default_factory=dict)
    _plans: dict[str, Plan] = PrivateAttr(default_factory=dict)  # plan files, once read

    @field_validator("special_rules", mode="before")
    @classmethod
    def _special_rules(cls, value: Any) -> Any:
        """Each entry's rule and parameters by name first, so a mistyped one is named with the
        nearest valid name (not pydantic's union error)."""
        if not isinstance(value, list):
            return value
        out = []
        seen: set[str] = set()
        for i, entry in enumerate(value):
            if not isinstance(entry, BaseModel):
                try:
                    entry = parse_rule(entry)
                except ValueError as exc:
                    loc = getattr(exc, "loc", ())
                    raise LocatedError((i, *loc), getattr(exc, "problem", str(exc))) from None
            name = str(getattr(entry, "rule", ""))
            if name in seen:
                raise LocatedError((i, "rule"), f"special rule {name} named twice")
            seen.add(name)
            out.append(entry)
        return out

    @model_validator(mode="after")
    def _ids(self) -> Scenario:
        seen: set[str] = set()
        for side in self.sides:
            if side.id in seen:
                raise ValueError(f"duplicate side id {side.id!r}")
            seen.add(side.id)
        fids: set[str] = set()
        for side in self.sides:
            for f in side.formations:
                if f.id in fids or f.id in seen:
                    raise ValueError(f"duplicate formation id {f.id!r}")
                fids.add(f.id)
        for loc, problem in self.name_problems():
            raise LocatedError(loc, problem)
        if self.date is not None and _ISO_DATE.fullmatch(self.date.strip()):
            # a date written as YYYY-MM-DD is a day of its calendar (free text, "AD 9,
            # September", stays a description)
            from engine.light import gregorian_date

            try:
                gregorian_date(self.date, self.calendar)
            except ValueError as exc:
                said = str(exc)
                if not said.startswith("expected"):  # datetime's own words ("month must be")
                    said = f"expected a real day, got {self.date!r} ({said})"
                raise LocatedError(("date",), said) from None
        if self.start_time is not None:
            from engine.light import parse_start

            if self.date is None:
                raise LocatedError(("start_time",), "expected a date YYYY-MM-DD with it, got none")
            try:
                parse_start(self.date, self.start_time, self.calendar)
            except ValueError as exc:
                raise LocatedError(("date",), str(exc)) from None
        return self

    def name_problems(self) -> Iterator[tuple[Loc, str]]:
        """Every name a scenario's deployment and plans refer to, checked against what the
        scenario defines: characters' and triggers' formations, objectives' formations,
        ``target_formation`` (an enemy), trigger conditions (``formation``, ``routs``,
        ``objective_taken``). Yields (key path, "expected ..., got ... (did you mean ...?)")."""
        everyone = [f.id for s in self.sides for f in s.formations]
        for si, side in enumerate(self.sides):
            own = [f.id for f in side.formations]
            enemy = [f.id for s in self.sides if s.id != side.id for f in s.formations]
            mine = f"a formation of side {side.id}"
            theirs = f"an enemy formation of side {side.id}"
            at: Loc = ("sides", si)
            for ci, c in enumerate(side.characters):
                if c.formation is not None and c.formation not in own:
                    yield (*at, "characters", ci, "formation"), unknown_name(mine, c.formation, own)
            for fi, f in enumerate(side.formations):
                loc = (*at, "formations", fi, "target_formation")
                if f.target_formation is None:
                    pass
                elif str(f.order) == "advance":
                    # 2mm Earth 5.1 / 4.2 / 11.2: advancing on a friendly formation joins it
                    others = [x for x in everyone if x != f.id]
                    if f.target_formation not in others:
                        yield loc, unknown_name("another formation", f.target_formation, others)
                elif f.target_formation not in enemy:
                    yield loc, unknown_name(theirs, f.target_formation, enemy)
                if f.brigade is not None and (f.brigade not in own or f.brigade == f.id):
                    yield (
                        (*at, "formations", fi, "brigade"),
                        unknown_name(f"another {mine}", f.brigade, own),
                    )
            yield from _command_formation_problems(side, at, own)
            if isinstance(side.plan, Plan):
                yield from (
                    ((*at, "plan", *loc), problem)
                    for loc, problem in self.plan_problems(side.id, side.plan)
                )

        side_ids = [s.id for s in self.sides]
        for ri, rule in enumerate(self.special_rules):
            for loc, problem in rule.name_problems(everyone, side_ids):
                yield ("special_rules", ri, *loc), problem

        hist = self.historical_outcome
        if hist is not None:
            ids = [s.id for s in self.sides]
            if hist.winner is not None and hist.winner not in ids:
                loc = ("historical_outcome", "winner")
                yield loc, unknown_name("a side", hist.winner, ids)
            for side_id in hist.losses:
                if side_id not in ids:
                    loc = ("historical_outcome", "losses", side_id)
                    yield loc, unknown_name("a side", side_id, ids)
            if hist.cdb90 is not None and hist.cdb90.attacker not in ids:
                loc = ("historical_outcome", "cdb90", "attacker")
                yield loc, unknown_name("a side", hist.cdb90.attacker, ids)

    def plan_problems(self, side_id: str, plan: Plan) -> Iterator[tuple[Loc, str]]:
        """Every name in ``plan`` (side ``side_id``'s, inline or a plan file) checked against
        what the scenario and the plan define: formations (own, or enemy for targets),
        objectives, triggers, named points, map edges. Key paths are from the plan's root."""
        everyone = [f.id for s in self.sides for f in s.formations]
        own = [f.id for f in self.side(side_id).formations]
        brigade_of = {f.id: f.brigade for f in self.side(side_id).formations if f.brigade}
        enemy = [f.id for s in self.sides if s.id != side_id for f in s.formations]
        mine = f"a formation of side {side_id}"
        theirs = f"an enemy formation of side {side_id}"
        obj_ids = [o.id for o in plan.objectives]
        trig_ids = [t.id for t in plan.triggers if t.id is not None]
        points = list(plan.points)

        def cond(w: TriggerCondition, loc: Loc, pool: list[str], kind: str) -> Iterator[Any]:
            if w.formation is not None and w.formation not in pool:
                yield (*loc, "formation"), unknown_name(kind, w.formation, pool)
            if w.routs is not None and w.routs not in everyone:
                yield (*loc, "routs"), unknown_name("a formation", w.routs, everyone)
            if w.attacked is not None and w.attacked not in everyone:
                yield (*loc, "attacked"), unknown_name("a formation", w.attacked, everyone)
            if w.objective_taken is not None and w.objective_taken not in obj_ids:
                kind_o = f"an objective of side {side_id}"
                yield (*loc, "objective_taken"), unknown_name(kind_o, w.objective_taken, obj_ids)
            if w.trigger_fired is not None and w.trigger_fired not in trig_ids:
                kind_t = f"a trigger id of side {side_id}'s plan"
                yield (*loc, "trigger_fired"), unknown_name(kind_t, w.trigger_fired, trig_ids)

        def place(p: Place | None, loc: Loc) -> Iterator[Any]:
            if isinstance(p, str) and p not in points:
                yield loc, unknown_name(f"a point of side {side_id}'s plan", p, points)

        for oi, ob in enumerate(plan.objectives):
            if ob.id in obj_ids[:oi]:
                yield ("objectives", oi, "id"), f"duplicate objective id {ob.id!r}"
            for k, fid in enumerate(ob.formations):
                if fid not in own:
                    yield ("objectives", oi, "formations", k), unknown_name(mine, fid, own)
        seen_trig: set[str] = set()
        for ti, trig in enumerate(plan.triggers):
            tl: Loc = ("triggers", ti)
            if trig.id is not None:
                if trig.id in seen_trig:
                    yield (*tl, "id"), f"duplicate trigger id {trig.id!r}"
                seen_trig.add(trig.id)
            for k, fid in enumerate(trig.formations):
                if fid not in own:
                    yield (*tl, "formations", k), unknown_name(mine, fid, own)
            if trig.target_formation is not None and trig.target_formation not in enemy:
                yield (*tl, "target_formation"), unknown_name(theirs, trig.target_formation, enemy)
            # with no formations listed the condition's formation is the one ordered: own
            pool, kind = (everyone, "a formation") if trig.formations else (own, mine)
            yield from cond(trig.when, (*tl, "when"), pool, kind)
        planned: list[str] = []
        for pi, fp in enumerate(plan.formations):
            fl: Loc = ("formations", pi)
            if fp.formation not in own:
                yield (*fl, "formation"), unknown_name(mine, fp.formation, own)
            elif fp.formation in planned:
                yield (*fl, "formation"), f"duplicate plan for formation {fp.formation!r}"
            planned.append(fp.formation)
            if fp.arrives is not None:
                merged = brigade_of.get(fp.formation)
                if merged is not None:
                    # 5.1: merged at deployment, it is placed with its brigade; holding it back
                    # alone would split the brigade, so the arrival belongs to the brigade.
                    yield (
                        (*fl, "arrives"),
                        (
                            f"formation {fp.formation!r} deploys merged into {merged!r}'s brigade "
                            f"(5.1); give the arrival to {merged!r}"
                        ),
                    )
                edge = fp.arrives.edge
                if edge is not None and edge not in EDGES:
                    yield (*fl, "arrives", "edge"), unknown_name("a map edge", edge, EDGES)
                yield from place(fp.arrives.point, (*fl, "arrives", "point"))
            for k, wp in enumerate(fp.waypoints):
                yield from place(wp, (*fl, "waypoints", k))
            for k, step in enumerate(fp.steps):
                sl: Loc = (*fl, "steps", k)
                if step.objective is not None and step.objective not in obj_ids:
                    kind_o = f"an objective of side {side_id}"
                    yield (*sl, "objective"), unknown_name(kind_o, step.objective, obj_ids)
                yield from place(step.point, (*sl, "point"))
                tf = step.target_formation
                if tf is not None and tf not in enemy:
                    yield (*sl, "target_formation"), unknown_name(theirs, tf, enemy)
                if step.until.when is not None:
                    yield from cond(
                        step.until.when, (*sl, "until", "when"), everyone, "a formation"
                    )
            if fp.hold_fire is not None:
                yield from cond(
                    fp.hold_fire.until, (*fl, "hold_fire", "until"), everyone, "a formation"
                )
            if fp.feint is not None:
                yield from place(fp.feint.point, (*fl, "feint", "point"))

    def plan_of(self, side_id: str) -> Plan | None:
        """A side's plan: inline, or its plan file (read and checked once, relative to the
        scenario's folder; errors name the plan file and the line)."""
        side = self.side(side_id)
        if not isinstance(side.plan, str):
            return side.plan
        if side_id not in self._plans:
            self._plans[side_id] = self._load_plan(side_id, side.plan)
        return self._plans[side_id]

    def order_words(self) -> Iterator[tuple[tuple[str | int, ...], str]]:
        """Every order word the scenario gives, with its field's place: each formation's
        initial order, each plan trigger's and each formation plan step's (a ruleset checks
        them against its own words, ``Ruleset.unplayable``)."""
        for si, side in enumerate(self.sides):
            for fi, fs in enumerate(side.formations):
                yield ("sides", si, "formations", fi, "order"), str(fs.order)
            plan = self.plan_of(side.id)
            if plan is None:
                continue
            at: tuple[str | int, ...] = ("sides", si, "plan")
            for ti, trig in enumerate(plan.triggers):
                yield (*at, "triggers", ti, "order"), str(trig.order)
            for pi, fp in enumerate(plan.formations):
                for k, step in enumerate(fp.steps):
                    yield (*at, "formations", pi, "steps", k, "order"), str(step.order)

    def plan_file(self, side_id: str) -> Path | None:
        """The path of a side's plan file (None: inline or none)."""
        plan = self.side(side_id).plan
        if not isinstance(plan, str):
            return None
        p = Path(plan)
        if not p.is_absolute() and self._path is not None:
            p = self._path.parent / p
        return p

    def _load_plan(self, side_id: str, text: str) -> Plan:
        path = self.plan_file(side_id)
        assert path is not None
        if not path.exists():
            si = [s.id for s in self.sides].index(side_id)
            self._fail(
                ("sides", si, "plan"),
                self._lines,
                f"expected a plan file, got {text!r} (no such file: {path})",
            )
        plan, lines = Plan.load(path)
        for loc, problem in self.plan_problems(side_id, plan):
            line = line_for(lines, loc)
            where = f"line {line}: " if line else ""
            raise ScenarioFileError(path, f"{where}{'.'.join(str(x) for x in loc)}: {problem}")
        return plan

    def use_plan_files(self, plans: Iterable[tuple[str, str | Path]]) -> None:
        """Give sides the plan files named (``--plan SIDE=FILE`` of ``run`` and ``montecarlo``),
        in place of their own plans; each is read and its names checked now."""
        ids = [s.id for s in self.sides]
        for side_id, file in plans:
            if side_id not in ids:
                raise ScenarioFileError(
                    f"--plan {side_id}={file}", unknown_name(f"a side of {self.id}", side_id, ids)
                )
            path = Path(file).resolve()
            if not path.is_file():
                raise DataSourceError(file, "no such plan file")
            self.side(side_id).plan = str(path)
            self._plans.pop(side_id, None)
            self.plan_of(side_id)

    def load_plans(self) -> None:
        """Read and check every side's plan file now (load time), not when the battle asks."""
        for side in self.sides:
            self.plan_of(side.id)

    def representation(self, side_id: str, figures: bool = False) -> float | None:
        """Men per base of a side (its own, else the scenario's; None: not stated); with
        ``figures`` (a ruleset that counts figures) the scenario's ``men_per_figure`` when
        stated."""
        if figures and self.men_per_figure is not None:
            return self.men_per_figure
        own = self.side(side_id).men_per_base
        return own if own is not None else self.men_per_base

    def is_guns(self, formation_id: str) -> bool:
        """Whether a formation is of guns (a war-machine profile), counted in pieces."""
        spec = self.formation(formation_id)
        army = self.army(self.side_of(formation_id).id)
        return any(p.id == spec.profile and _is_guns(p) for p in army.profiles)

    def counted_as(
        self, formation_id: str, figures: bool = False
    ) -> tuple[CountUnit, float | None]:
        """What one base of a formation stands for: guns in pieces (its ``pieces_per_base``),
        foot and horse in men (its own ``men_per_base``, else its side's, else the
        scenario's); None: not stated. With ``figures`` (a ruleset that counts figures) a
        formation that gives ``figures`` is counted in the scenario's ``men_per_figure``."""
        spec = self.formation(formation_id)
        if self.is_guns(formation_id):
            return CountUnit.PIECES, spec.pieces_per_base
        if figures and spec.figures is not None:
            return CountUnit.MEN, self.men_per_figure
        if spec.men_per_base is not None:
            return CountUnit.MEN, spec.men_per_base
        return CountUnit.MEN, self.representation(self.side_of(formation_id).id)

    def __eq__(self, other: object) -> bool:  # private caches (lines, armies) do not count
        if not isinstance(other, Scenario):
            return NotImplemented
        return self._identity() == other._identity()

    def _identity(self) -> dict[str, Any]:
        """The fields, with plan files as the files they name (a scenario saved elsewhere
        refers to the same plan file by another relative path)."""
        data = self.model_dump()
        for side, spec in zip(data["sides"], self.sides, strict=True):
            path = self.plan_file(spec.id)
            if path is not None:
                side["plan"] = str(path.resolve())
        return data

    __hash__ = None  # type: ignore[assignment]

    # -- lookups ---------------------------------------------------------------------------
    @property
    def path(self) -> Path | None:
        return self._path

    def side(self, side_id: str) -> SideSpec:
        for s in self.sides:
            if s.id == side_id:
                return s
        raise KeyError(side_id)

    def formation(self, formation_id: str) -> FormationSpec:
        for s in self.sides:
            for f in s.formations:
                if f.id == formation_id:
                    return f
        raise KeyError(formation_id)

    def side_of(self, formation_id: str) -> SideSpec:
        for s in self.sides:
            if any(f.id == formation_id for f in s.formations):
                return s
        raise KeyError(formation_id)

    def army(self, side_id: str, ruleset: Ruleset | None = None) -> Any:
        """The troop list of a side in ``ruleset``'s unit model (default: the scenario's
        ruleset), loaded once; relative paths from the scenario's folder."""
        from engine.rulesets import get_ruleset

        rs = ruleset if ruleset is not None else get_ruleset(self.ruleset)
        own = type(rs) is type(get_ruleset(self.ruleset))
        key = side_id if own else f"{side_id}@{type(rs).__qualname__}@{id(type(rs))}"
        if key not in self._armies:
            name = self.side(side_id).army
            p = Path(name)
            if self._path is not None and p.suffix in (".yaml", ".yml") and not p.is_absolute():
                p = self._path.parent / p
                name = str(p)
            self._armies[key] = rs.load_army(name)
        return self._armies[key]

    def check_armies(self) -> None:
        """Check profiles and characters against the troop lists (errors name the line)."""
        from engine.rulesets import get_ruleset
        from scenario_builder.errors import RulesetError

        lines = self._lines
        try:
            get_ruleset(self.ruleset)
        except RulesetError as exc:  # the scenario's line, not a bare "unknown ruleset"
            self._fail(("ruleset",), lines, str(exc.problem))
        for si, side in enumerate(self.sides):
            try:
                army = self.army(side.id)
            except DataSourceError as exc:  # no such troop list: the scenario's line names it
                problem = f"expected a troop list, got {side.army!r} ({exc})"
                self._fail(("sides", si, "army"), lines, problem)
            pids = {p.id for p in army.profiles}
            cids = {c.id for c in army.characters}
            for fi, f in enumerate(side.formations):
                for key in ("profile", "rear_profile", "flank_profile"):
                    val = getattr(f, key)
                    if val is not None and val not in pids:
                        self._fail(
                            ("sides", si, "formations", fi, key),
                            lines,
                            f"expected a profile of army {army.army}, got {val!r}",
                        )
                misfit = _representation_problem(f, army)
                if misfit is not None:
                    self._fail(("sides", si, "formations", fi, misfit[0]), lines, misfit[1])
            for ci, c in enumerate(side.characters):
                if c.id not in cids:
                    self._fail(
                        ("sides", si, "characters", ci, "id"),
                        lines,
                        f"expected a character of army {army.army}, got {c.id!r}",
                    )
            if side.general is not None and side.general not in cids:
                self._fail(
                    ("sides", si, "general"),
                    lines,
                    f"expected a character of army {army.army}, got {side.general!r}",
                )
            # a ruleset's own cross-file checks (medieval-d10: Inspirational Figures' formations)
            check_side = getattr(army, "check_side", None)
            if check_side is not None:
                check_side(self, side)

    def line_of(self, loc: tuple[str | int, ...]) -> int | None:
        """The line in the scenario file of the field at ``loc`` (or of its nearest parent)."""
        return line_for(self._lines, loc) if self._lines else None

    def _fail(self, loc: tuple[str | int, ...], lines: dict, problem: str) -> None:
        line = line_for(lines, loc)
        field = ".".join(str(x) for x in loc)
        where = f"line {line}: " if line else ""
        raise ScenarioFileError(self._path or self.id, f"{where}{field}: {problem}")

    # -- text ------------------------------------------------------------------------------
    def to_yaml(self) -> str:
        """The scenario as YAML (fields in schema order, defaults left out)."""
        data = self.model_dump(mode="json", exclude_defaults=True)
        data = json.loads(json.dumps(data))  # tuples -> lists for safe_dump
        return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)

    @classmethod
    def from_yaml(cls, text: str, source: str | Path = "<string>") -> Scenario:
        try:
            data, lines = load_yaml_with_lines(text)
        except yaml.YAMLError as exc:
            raise ScenarioFileError(source, f"invalid YAML: {exc}") from None
        scen = validate(cls, data, Path(source), lines)
        scen._lines = lines
        if source != "<string>":
            scen._path = Path(source)
        scen.load_plans()
        return scen

    def save(self, path: str | Path) -> None:
        """Write the scenario as YAML, atomically; relative plan files are written relative to
        the new file's folder, so they still name the same files."""
        import os

        from scenario_builder.atomic import atomic_path

        out = self
        rebased = {}
        for spec in self.sides:
            plan = self.plan_file(spec.id)
            if plan is not None and not Path(str(spec.plan)).is_absolute():
                rel = os.path.relpath(plan.resolve(), Path(path).resolve().parent)
                rebased[spec.id] = Path(rel).as_posix()
        if rebased:
            out = self.model_copy(deep=True)
            for spec in out.sides:
                if spec.id in rebased:
                    spec.plan = rebased[spec.id]
        with atomic_path(path) as tmp:
            tmp.write_text(out.to_yaml(), encoding="utf-8")

    @classmethod
    def json_schema(cls) -> dict[str, Any]:
        """The JSON Schema of scenario files (``scenario-builder schema``)."""
        return cls.model_json_schema()


class CountUnit(StrEnum):
    """What the sources count a formation's losses in: men (foot, horse) or pieces (guns)."""

    MEN = "men"
    PIECES = "pieces"


#: the unit types of guns, in the rulesets' unit models (2mm Earth's war machines,
#: medieval-d10's artillery)
_GUN_TYPES = frozenset({"war_machine", "artillery"})


def _is_guns(profile: Any) -> bool:
    return str(getattr(profile, "unit_type", "")) in _GUN_TYPES


def _representation_problem(f: FormationSpec, army: Any) -> tuple[str, str] | None:
    """(field, problem) when a formation's representation does not fit its troops: pieces
    for guns, men for the rest."""
    profile = next((p for p in army.profiles if p.id == f.profile), None)
    guns = profile is not None and _is_guns(profile)
    if f.pieces_per_base is not None and not guns:
        kind = getattr(profile, "unit_type", "?")
        return "pieces_per_base", (
            f"expected a formation of guns (a war-machine profile), got profile {f.profile!r} "
            f"({kind}): its bases are men (men_per_base)"
        )
    if f.men_per_base is not None and guns:
        return "men_per_base", (
            f"a base of guns ({f.profile!r}) is counted in pieces (pieces_per_base), never men"
        )
    return None


def scenario_path(name_or_path: str | Path) -> Path:
    """A path as given, or a shipped scenario id -> ``data/scenarios/<id>.yaml``."""
    p = Path(name_or_path)
    if p.exists() or p.suffix in (".yaml", ".yml") or p.parent != Path("."):
        return p
    return data_dir() / "scenarios" / f"{p}.yaml"


def shipped_scenario_ids() -> list[str]:
    """The ids of the shipped scenarios (``scenario-builder scenarios`` lists them)."""
    return sorted(p.stem for p in (data_dir() / "scenarios").glob("*.yaml"))


def _not_found(name_or_path: str | Path) -> str:
    """ "scenario not found", with the closest shipped ids when a bare id was given."""
    from scenario_builder.suggest import did_you_mean

    p = Path(name_or_path)
    if p.parent != Path(".") or p.suffix in (".yaml", ".yml"):
        return "scenario not found"
    hint = did_you_mean(p.stem, shipped_scenario_ids())
    hint = f"; {hint}" if hint else ""
    return f"no such scenario file or shipped id{hint} (`scenario-builder scenarios` lists them)"


def load_scenario(name_or_path: str | Path, *, check_armies: bool = True) -> Scenario:
    """Load and validate a scenario file (a path or a shipped scenario id).

    Errors name the file, the line and the field (:class:`ScenarioFileError`); with
    ``check_armies`` the troop lists are loaded and profiles/characters checked against them.
    """
    path = scenario_path(name_or_path)
    if not path.exists():
        shown = path if Path(name_or_path).parent != Path(".") else name_or_path
        raise DataSourceError(shown, _not_found(name_or_path))
    data, lines = read_yaml(path)
    scen = validate(Scenario, data, path, lines)
    scen._path = path
    scen._lines = lines
    scen.load_plans()
    if check_armies:
        scen.check_armies()
    return scen
