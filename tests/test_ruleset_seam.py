"""The ruleset seam is real: a ruleset defined only here plays on a shipped battlefield.

"Skirmish d10" is a made-up game with nothing in common with 2mm Earth but the engine's core:
a d10, four phases of its own (command, march, clash, nerve), its own terrain classes (going:
open / rough / difficult / impassable; shelter: none / light / heavy) read through its own code
table over the battlefield's neutral feature layer (steep slopes are rough going), its own unit
model (foot or mounted, read from the same troop-list files), its own order words (charge,
stand) and a declared event class of its own. Nothing under ``engine/`` is edited for it.

Also here: no core module imports a ruleset's folder (an ``ast`` check).
"""

from __future__ import annotations

import ast
import contextlib
import csv
import io
import json
import math
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from enum import IntEnum
from pathlib import Path
from types import SimpleNamespace
from typing import Any, ClassVar

import numpy as np
import pytest
import yaml

from engine.battle import Battle
from engine.context import BoundContext
from engine.dice import Dice, DiceResult
from engine.geometry import bearing
from engine.log import Destroyed, Event, Moved, OrderIssued, Rout
from engine.movement import MovePlan, MoveRules, execute_move, update_contacts
from engine.orders import CommanderView, InstantDelivery, check_order
from engine.rulesets import Phase, Ruleset, Scales, get_ruleset, register, unregister
from engine.sight import SightRules
from engine.state import BaseStatus, Formation, Morale
from engine.terrain import TerrainTable
from engine.testing import check_hooks, check_ruleset, make_scenario
from scenario_builder.paths import data_dir

ROOT = Path(__file__).resolve().parents[1]
ARMIES = (
    str(ROOT / "tests/data/troops/rules_red.yaml"),
    str(ROOT / "tests/data/troops/rules_blue.yaml"),
)
NAME = "skirmish-d10-v1"


class Going(IntEnum):
    OPEN = 0
    ROUGH = 1
    DIFFICULT = 2
    IMPASSABLE = 3


class Shelter(IntEnum):
    NONE = 0
    LIGHT = 1
    HEAVY = 2


#: the game's code table: every feature of data/codes/features.csv -> (going, shelter, blocks)
_TABLE: dict[str, tuple[str, str, bool]] = {
    "forest": ("difficult", "heavy", True),
    "orchard": ("rough", "light", False),
    "marsh": ("difficult", "none", False),
    "ford": ("rough", "none", False),
    "stream": ("rough", "none", False),
    "hedge": ("rough", "light", False),
    "village": ("rough", "heavy", False),
    "built_up": ("impassable", "heavy", True),
    "castle": ("impassable", "heavy", True),
    "tower": ("impassable", "heavy", True),
    "river": ("impassable", "none", False),
    "water": ("impassable", "none", False),
    "cliff": ("impassable", "none", False),
    "pit": ("difficult", "light", False),
}
_SPEED: dict[str, dict[Going, float | None]] = {
    "foot": {Going.OPEN: 120.0, Going.ROUGH: 60.0, Going.DIFFICULT: 30.0, Going.IMPASSABLE: None},
    "mounted": {
        Going.OPEN: 240.0,
        Going.ROUGH: 80.0,
        Going.DIFFICULT: 20.0,
        Going.IMPASSABLE: None,
    },
}
STEEP_DEG = 8.0  # steeper than this is rough going at least


@pytest.fixture(scope="module")
def table_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("codes") / "skirmish-d10.csv"
    with (data_dir() / "codes" / "features.csv").open(encoding="utf-8") as fh:
        features = [r["feature"] for r in csv.DictReader(fh)]
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["feature", "move", "cover", "blocks_sight"])
        for name in features:
            going, shelter, blocks = _TABLE.get(name, ("open", "none", False))
            w.writerow([name, going, shelter, str(blocks).lower()])
    return path


# -- the game's unit model -------------------------------------------------------------------
@dataclass(frozen=True)
class Warband:
    id: str
    unit_type: str  # "foot" or "mounted"
    initiative: int
    temperament: str = "steady"

    def has(self, flag: str) -> bool:
        return False


@dataclass(frozen=True)
class Leader:
    id: str
    name: str
    profile: str
    leadership: int
    general: bool = False


@dataclass(frozen=True)
class Roster:
    army: str
    locality: str
    profiles: list[Warband]
    characters: list[Leader]

    @property
    def general(self) -> Leader | None:
        return next((c for c in self.characters if c.general), None)

    def profile(self, pid: str) -> Warband:
        return next(p for p in self.profiles if p.id == pid)

    def character(self, cid: str) -> Leader:
        return next(c for c in self.characters if c.id == cid)


@dataclass(frozen=True, slots=True)
class ClashEvent(Event):
    """One side of a clash: the dice it threw and the bases it felled."""

    type: ClassVar[str] = "clash"
    formation: str
    target: str
    killed: int
    dice: DiceResult | None = None


# -- the game's phases -----------------------------------------------------------------------
def _command(ctx: BoundContext) -> None:
    state = ctx.state
    assert ctx.delivery is not None
    for side, commander in ctx.commanders.items():
        view = CommanderView(side, state.bound, state, ctx.bf, ctx.scenario, ctx.sight.sees)
        for order in commander.orders(view, state.bound):
            check_order(state, side, order)
            ctx.emit(OrderIssued("command", side, order.formation, str(order)))
            ctx.emit(ctx.delivery.send(state, side, order, state.bound))
    arrived, events = ctx.delivery.arrivals(state, state.bound)
    ctx.emit(events)
    for order in arrived:
        state.formations[order.formation].order = order.kind


def _nearest_enemy(ctx: BoundContext, f: Formation) -> Formation | None:
    fx, fy = f.centre()
    foes = ctx.state.enemies_of(f.side)
    return min(foes, key=lambda g: math.hypot(g.cx - fx, g.cy - fy), default=None)


def _march(ctx: BoundContext) -> None:
    state = ctx.state
    rules = ctx.ruleset.move_rules
    for f in sorted(state.active(), key=lambda f: (-f.initiative, f.id)):
        if state.contacts.get(f.id):
            continue
        if f.morale is Morale.ROUTING:
            fx, fy = f.centre()
            plan = MovePlan(f.id, "flee", state.sides[f.side].home_bearing(fx, fy))
        elif f.order == "charge":
            g = _nearest_enemy(ctx, f)
            if g is None:
                continue
            fx, fy = f.centre()
            gx, gy = g.centre()
            b = bearing(fx, fy, gx, gy)
            plan = MovePlan(
                f.id, "charge", b, goal=(gx + f.cx - fx, gy + f.cy - fy), facing=b, target=g.id
            )
        else:
            continue
        res = execute_move(ctx.bf, state, f, plan, rules=rules)
        if res.distance_m > 0:
            ctx.emit(
                Moved(
                    "march",
                    f.id,
                    res.start[:2],
                    res.end[:2],
                    res.end[2],
                    res.distance_m,
                    res.allowance_m,
                    res.halted,
                )
            )
        if f.morale is Morale.ROUTING and res.off_map:
            f.morale = Morale.DESTROYED
            ctx.emit(Destroyed("march", f.id, "fled the field", ()))
    update_contacts(state)


def _clash(ctx: BoundContext) -> None:
    state = ctx.state
    done: set[tuple[str, str]] = set()
    for f in state.active():
        for gid in state.contacts.get(f.id, ()):
            for a, b in ((f.id, gid), (gid, f.id)):
                if (a, b) in done:
                    continue
                done.add((a, b))
                att, tgt = state.formations[a], state.formations[b]
                roll = ctx.ruleset.roll(ctx.dice, min(3, att.n_alive), f"clash {a} on {b}")
                killed = 0
                for face in roll.faces:
                    if face >= 8 and tgt.alive_bases:  # 8+ on the d10 fells a base
                        tgt.alive_bases[0].status = BaseStatus.DEAD
                        killed += 1
                ctx.emit(ClashEvent("clash", a, b, killed, roll))
    for f in state.formations.values():
        if f.morale is not Morale.DESTROYED and f.n_alive == 0:
            f.morale = Morale.DESTROYED
            ctx.emit(Destroyed("clash", f.id, "every base fell", ()))
    update_contacts(state)


def _nerve(ctx: BoundContext) -> None:
    for f in ctx.state.active():
        if f.morale is Morale.STEADY and f.n_alive * 2 <= len(f.bases):
            f.morale = Morale.ROUTING
            ctx.emit(Rout("nerve", f.id, "half the band has fallen"))


class SkirmishD10(Ruleset):
    name = NAME
    title = "Skirmish d10 (a test game)"
    family = "skirmish-d10"
    version = "1"
    die_sides = 10
    phases = (
        Phase("command", _command),
        Phase("march", _march),
        Phase("clash", _clash),
        Phase("nerve", _nerve),
    )
    scales = Scales(
        ground_m_per_mm={"15mm": 10.0},
        base_w_m=60.0,
        base_d_m=30.0,
        rules_m={"steep_deg": STEEP_DEG},
    )
    morale_states: ClassVar[Mapping[Morale, str]] = {
        Morale.STEADY: "in good order",
        Morale.ROUTING: "broken",
        Morale.DESTROYED: "gone",
    }
    order_kinds = ("stand", "charge")
    terrain: ClassVar[TerrainTable]
    hook_checks: ClassVar[dict[str, Any]] = {
        "unit_speed_m": lambda v: None if v is None else v / 3.0,
        "formation_speed_m": lambda fn: lambda c: None if fn(c) is None else fn(c) / 3.0,
    }

    def __init__(self) -> None:
        self.move_rules = MoveRules(
            speed_m=self.formation_speed_m, min_move_m=10.0, max_turn_deg=180.0
        )
        self.sight_rules = SightRules(
            sees_over=lambda o, b: False, sight_limit_m=lambda w, t, loc: 2000.0
        )

    def classify_slope(
        self, layers: dict[str, np.ndarray], slope: np.ndarray
    ) -> dict[str, np.ndarray]:
        move = layers["move"].copy()
        steep = (slope > STEEP_DEG) & (move < Going.ROUGH)
        move[steep] = Going.ROUGH
        return {**layers, "move": move}

    def load_army(self, name_or_path: str | Path) -> Roster:
        data = yaml.safe_load(Path(name_or_path).read_text(encoding="utf-8"))
        bands = [
            Warband(
                p["id"], "mounted" if "cavalry" in p["unit_type"] else "foot", int(p["initiative"])
            )
            for p in data["profiles"]
        ]
        leaders = [
            Leader(c["id"], c["name"], c["profile"], c["leadership"], bool(c.get("general")))
            for c in data.get("characters", [])
        ]
        return Roster(data["army"], data.get("locality", ""), bands, leaders)

    def unit_speed_m(self, profile: Any, move_class: int) -> float | None:
        return _SPEED[profile.unit_type][Going(move_class)]

    def formation_speed_m(self, f: Formation) -> Any:
        profiles = f.profiles

        def speed(move_class: int) -> float | None:
            speeds = [self.unit_speed_m(p, move_class) for p in profiles]
            return None if None in speeds else min(s for s in speeds if s is not None)

        return speed


@pytest.fixture(scope="module")
def skirmish(table_path: Path) -> Iterator[type[SkirmishD10]]:
    SkirmishD10.terrain = TerrainTable(table_path, {"move": Going, "cover": Shelter})
    register(SkirmishD10)
    yield SkirmishD10
    unregister(NAME)


@pytest.fixture(scope="module")
def minden(built_minden) -> Any:
    return built_minden.battlefield


def _scenario(bf: Any, order: str = "charge", **fields: Any) -> Any:
    minx, miny, maxx, maxy = bf.bounds
    origin = ((minx + maxx) / 2.0, (miny + maxy) / 2.0)
    red = [
        {
            "id": f"r{i}",
            "profile": ("inf", "cav")[i % 2],
            "bases": 4,
            "frontage": 2,
            "at": (-600.0 + 300.0 * i, -300.0),
            "order": order,
        }
        for i in range(5)
    ]
    blue = [
        {
            "id": f"b{i}",
            "profile": ("inf", "cav")[i % 2],
            "bases": 4,
            "frontage": 2,
            "at": (-600.0 + 300.0 * i, 300.0),
            "facing": 180.0,
            "order": order,
        }
        for i in range(5)
    ]
    return make_scenario(
        red, blue, armies=ARMIES, origin=origin, ruleset=NAME, max_bounds=40, **fields
    )


def test_seam_toy_ruleset_fights_on_a_shipped_battlefield(skirmish, minden) -> None:
    sc = _scenario(minden)
    b = Battle(minden, sc, Dice(5), delivery=InstantDelivery())
    assert b.ruleset is get_ruleset(NAME)
    log = b.run()
    # its own phases, in its order, and its own die on every roll
    assert [list(dict.fromkeys(e.phase for e in rec.events)) for rec in log.bounds[1:2]] == [
        ["command", "march"]
    ]
    rolls = [e.dice for e in log.events() if e.type == "clash"]
    assert rolls and all(r.sides == 10 for r in rolls)
    assert max(f for r in rolls for f in r.faces) > 6  # a d6 never shows 7-10
    assert log.result is not None and log.result["winner"] in ("red", "blue")
    # its bases (60 x 30 m) and its unit model
    base = next(iter(b.state.formations.values())).bases[0]
    assert (base.w, base.d) == (60.0, 30.0) and base.profile.unit_type in ("foot", "mounted")


def test_seam_toy_ruleset_passes_the_engine_checks(skirmish, minden) -> None:
    report = check_ruleset(NAME, _scenario(minden), seed=3, battlefield=minden)
    assert report.bounds >= 2 and report.events.get("clash", 0) > 0
    # every hook it defines is consulted: the set-up ones called, the rest change the battle
    assert report.hooks == {
        "classify_slope": "called",
        "load_army": "called",
        "formation_speed_m": "changes bound 1",
        "unit_speed_m": "changes bound 1",
    }


def test_seam_check_hooks_finds_a_silent_hook(skirmish, minden) -> None:
    class Deaf(SkirmishD10):
        name = "skirmish-d10-deaf"
        hook_checks: ClassVar[dict[str, Any]] = {
            **SkirmishD10.hook_checks,
            "war_cry": lambda v: v + 1,
        }

        def war_cry(self) -> int:  # a hook nothing in the game asks for
            return 1

    class Unchecked(SkirmishD10):
        name = "skirmish-d10-unchecked"

        def war_cry(self) -> int:
            return 1

    for cls, message in (
        (Deaf, "overriding hook war_cry changed nothing"),
        (Unchecked, r"no check in hook_checks: \['war_cry'\]"),
    ):
        register(cls)
        try:
            with pytest.raises(AssertionError, match=message):
                check_hooks(cls.name, _scenario(minden), minden, seed=3, bounds=4)
        finally:
            unregister(cls.name)


def test_seam_one_battlefield_two_terrain_vocabularies(skirmish, built_teutoburg) -> None:
    kalkriese = built_teutoburg.battlefield  # forest, marsh, slopes (SRTM)
    mine = get_ruleset(NAME).ground(kalkriese)
    theirs = get_ruleset("2mm-earth").ground(kalkriese)
    feature = kalkriese.layer("feature")
    slope = kalkriese.layer("slope")
    legend = {v: int(k) for k, v in kalkriese.meta["legend"]["feature"].items()}
    forest, marsh = feature == legend["forest"], feature == legend["marsh"]
    assert forest.sum() > 1000 and marsh.sum() > 1000
    # the same cells: woods (3) and wet (1) to 2mm Earth 7.3, difficult (2) to this game
    assert set(np.unique(theirs.layer("move")[forest]).tolist()) == {3}
    assert set(np.unique(theirs.layer("move")[marsh]).tolist()) == {1}
    assert set(np.unique(mine.layer("move")[forest | marsh]).tolist()) == {Going.DIFFICULT}
    assert set(np.unique(mine.layer("cover")[forest]).tolist()) == {Shelter.HEAVY}
    # slope is the game's own business: steep open ground is rough to it, plain to 2mm Earth
    steep_open = (feature == legend["open"]) & (slope > STEEP_DEG)
    assert steep_open.any()
    assert set(np.unique(mine.layer("move")[steep_open]).tolist()) == {Going.ROUGH}
    assert set(np.unique(theirs.layer("move")[steep_open]).tolist()) == {0}
    # 2mm Earth's view is the battlefield as built (the build used its table): same classes
    for layer in ("move", "cover", "blocks_sight"):
        assert np.array_equal(theirs.layer(layer), kalkriese.layer(layer))
    assert mine.meta["legend"]["move"] == {0: "open", 1: "rough", 2: "difficult", 3: "impassable"}
    assert kalkriese.meta["legend"]["move"][3] == "woods"  # the built battlefield is untouched
    # neutral layers are shared, not copied; one view per ruleset and battlefield
    assert mine.layer("elevation") is kalkriese.layer("elevation")
    assert get_ruleset(NAME).ground(kalkriese) is mine


def test_seam_order_words_and_describe(skirmish, minden) -> None:
    d = get_ruleset(NAME).describe()
    assert d["die"] == "d10"
    assert d["phases"] == ["command", "march", "clash", "nerve"]
    assert d["terrain_classes"] == {
        "move": ["open", "rough", "difficult", "impassable"],
        "cover": ["none", "light", "heavy"],
    }
    assert d["scales"]["base_m"] == [60.0, 30.0]
    assert "charge" in d["orders"]
    with pytest.raises(ValueError, match="expected an order"):
        _scenario(minden, order="gallop")


def test_seam_registry_refuses_a_ruleset_without_phases() -> None:
    class NoTurn(Ruleset):
        name = "no-turn"

    with pytest.raises(ValueError, match="declares no phases"):
        register(NoTurn)


# -- the core never imports a ruleset ----------------------------------------------------------
# the core: engine/*.py and the command layer every ruleset shares (engine/command/)
CORE = sorted([*(ROOT / "engine").glob("*.py"), *(ROOT / "engine" / "command").glob("*.py")])
RULESET_DIRS = sorted(
    p.name
    for p in (ROOT / "engine" / "rulesets").iterdir()
    if p.is_dir() and not p.name.startswith("__")
)


def _ruleset_folder_imports(path: Path) -> list[str]:
    """Each import (or module named in a string, as a preload list names them) of a ruleset's
    folder in ``path``: ``line N: engine.rulesets.<folder>...``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bad = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and node.value.startswith("engine.rulesets.")
            and " " not in node.value
        ):
            names = [node.value]
        for n in names:
            parts = n.split(".")
            if parts[:2] == ["engine", "rulesets"] and len(parts) > 2 and parts[2] in RULESET_DIRS:
                bad.append(f"line {node.lineno}: {n}")
    return bad


@pytest.mark.parametrize("path", CORE, ids=lambda p: str(p.relative_to(ROOT / "engine")))
def test_seam_no_core_module_imports_a_ruleset_folder(path: Path) -> None:
    assert "two_mm_earth" in RULESET_DIRS
    bad = _ruleset_folder_imports(path)
    assert not bad, f"{path.name} imports a ruleset folder: {bad}"


#: what the registry (engine.rulesets) offers besides the seam's types: its lookups
REGISTRY_NAMES = {
    "DEFAULT_RULESET",
    "PLUGIN_GROUP",
    "available_rulesets",
    "get_ruleset",
    "load_plugins",
    "odds_rulesets",
}


def test_seam_types_load_no_ruleset_folder() -> None:
    """engine.seam (Ruleset, Phase, Scales, register) imports no rulebook: a core module that
    needs the types no longer loads every ruleset folder (and, through them, the core)."""
    code = (
        "import sys, engine.seam; "
        "print(sorted(m for m in sys.modules if m.startswith('engine.rulesets')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", done.stdout


@pytest.mark.parametrize(
    "path",
    [*CORE, *sorted(p for pkg in ("scenario_builder", "maps") for p in (ROOT / pkg).rglob("*.py"))],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_seam_types_come_from_the_seam_module(path: Path) -> None:
    """Outside engine/rulesets/, ``from engine.rulesets import X`` asks the registry only for
    its lookups; the seam's types come from engine.seam."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bad = [
        f"line {node.lineno}: {a.name}"
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "engine.rulesets"
        for a in node.names
        if a.name not in REGISTRY_NAMES
    ]
    assert not bad, f"{path.relative_to(ROOT)} takes seam types from the registry: {bad}"


# Outside the engine the Ruleset object is asked (its hooks and helpers), never a ruleset's
# folder: a new ruleset then needs no change to the CLI, the Monte Carlo or the maps.
OUTSIDE = sorted(p for pkg in ("scenario_builder", "maps") for p in (ROOT / pkg).rglob("*.py"))


@pytest.mark.parametrize("path", OUTSIDE, ids=lambda p: str(p.relative_to(ROOT)))
def test_seam_nothing_outside_the_engine_imports_a_ruleset_folder(path: Path) -> None:
    rel = path.relative_to(ROOT).as_posix()
    bad = _ruleset_folder_imports(path)
    assert not bad, f"{rel} imports a ruleset folder (ask the Ruleset object): {bad}"


def test_seam_every_odds_question_has_a_ruleset_to_answer_it() -> None:
    from engine.rulesets import odds_rulesets

    answered = {
        q: sorted(r.name for r in odds_rulesets() if q in r.odds_questions)
        for q in (
            "attack",
            "panic",
            "wc_mv",
            "flee_pursuit",
            "da_troop",
            "morale",
            "control",
            "initiative",
        )
    }
    assert answered["attack"] == ["2mm-earth-v0.7", "2mm-earth-v0.9", "medieval-d10"]
    assert answered["wc_mv"] == answered["flee_pursuit"] == ["2mm-earth-v0.9+wc-morale"]
    assert answered["da_troop"] == ["dark-age"] and answered["initiative"] == ["medieval-d10"]
    assert all(answered.values())
    # only a book with options of its own lists them: the command refuses them elsewhere
    assert [r.name for r in odds_rulesets() if r.odds_options] == ["medieval-d10"]


# -- the CLI: `rulesets` and --ruleset ---------------------------------------------------------
def _cli(*args: str) -> SimpleNamespace:
    """``scenario-builder ARGS`` in this process (the d10 game is registered only here)."""
    from scenario_builder.cli import main

    out, err = io.StringIO(), io.StringIO()
    code: int | str | None = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(list(args))
        except SystemExit as exc:
            code = exc.code
    return SimpleNamespace(
        exit_code=code, output=out.getvalue() + err.getvalue(), stdout=out.getvalue()
    )


def test_cli_rulesets_json_lists_every_ruleset_with_its_declarations(skirmish) -> None:
    res = _cli("rulesets", "--json")
    assert res.exit_code == 0, res.output
    data = {d["name"]: d for d in json.loads(res.stdout)}
    assert set(data) == {
        "2mm-earth-v0.7",
        "2mm-earth-v0.9",
        "2mm-earth-v0.9+wc-morale",
        "dark-age",
        "medieval-d10",
        NAME,
    }
    v09 = data["2mm-earth-v0.9"]
    assert v09["die"] == "d6" and v09["family"] == "2mm-earth" and v09["version"] == "0.9"
    assert v09["phases"][0] == "orders" and v09["phases"][-1] == "rally"  # 1.1
    assert v09["terrain_classes"]["move"] == ["plain", "wet", "debris", "woods", "impractical"]
    assert v09["scales"]["ground_m_per_mm"]["2mm"] == 1.0 and v09["scales"]["base_m"] == [40, 20]
    assert data["2mm-earth-v0.7"]["morale_states"]["retreating"] == "fleeing"  # v0.7 5.1
    assert data[NAME]["die"] == "d10" and data[NAME]["phases"] == [
        "command",
        "march",
        "clash",
        "nerve",
    ]
    table = _cli("rulesets")
    assert table.exit_code == 0 and "(default)" in table.output and "d10" in table.output


@pytest.mark.parametrize(
    "command",
    [
        ["odds", "--panic", "-r", "4"],
        ["print", "nowhere", "--out", "x.pdf"],
        ["montecarlo", "flodden_1513", "--out", "mc"],
        ["map", "flodden_1513", "--out", "x.html"],
    ],
)
def test_cli_unknown_ruleset_is_one_line(command: list[str], tmp_path: Path) -> None:
    res = _cli(*command, "--ruleset", "nonesuch")
    assert res.exit_code == 1
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "Error: unknown ruleset 'nonesuch'; expected one of 2mm-earth-v0.7, 2mm-earth-v0.9"
    )


def test_cli_odds_and_maps_refuse_a_ruleset_without_their_charts(skirmish) -> None:
    res = _cli("odds", "--panic", "-r", "4", "--ruleset", NAME)
    assert res.exit_code == 1 and "has no 2mm Earth odds" in res.output
    assert len(res.output.strip().splitlines()) == 1


def test_cli_run_under_another_ruleset(tmp_path: Path) -> None:
    res = _cli(
        "run",
        "flodden_1513",
        "--ruleset",
        "2mm-earth-v0.7",
        "--max-bounds",
        "2",
        "--out",
        str(tmp_path / "run"),
        "--json",
    )
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout.strip().splitlines()[-1])["ruleset"] == "2mm-earth-v0.7"
    log = json.loads((tmp_path / "run" / "battle_log.json").read_text(encoding="utf-8"))
    assert log["ruleset"] == "2mm-earth-v0.7"
    bad = _cli(
        "map",
        str(tmp_path / "run"),
        "--out",
        str(tmp_path / "m.html"),
        "--ruleset",
        "2mm-earth-v0.9",
    )
    assert bad.exit_code == 1 and "fought under 2mm-earth-v0.7" in bad.output
