"""Scripted orders: a human plan read from a file replaces the automatic commander.

The file maps a bound to the orders given in it (9.1), in the text form of
:class:`engine.orders.Order` or :class:`engine.rulesets.two_mm_earth.wings.WingOrder`; a position
is map metres or lon,lat, whichever lies on the battlefield (:meth:`OrdersScript.place`)::

    1: ["advance sc_home to 551200,6163400"]
    2: ["advance sc_king to -2.181,55.626"]
    3: ["attack sc_home on en_edmund", "split sc_king into 2 wings"]
    5: ["hold sc_king_w2"]

Formations not ordered in bound 1 keep the scenario's initial orders. An order to a formation that
is not on the field when its bound comes (a wing never split, a formation destroyed) is skipped and
kept in ``ScriptedCommander.skipped``. Bad files raise :class:`ScenarioFileError` naming the file
and the line.

>>> s = OrdersScript.from_text('2: ["attack a on b"]\\n4: ["split a into 2 wings"]\\n')
>>> [str(o) for o in s.orders[2]], [str(o) for o in s.orders[4]]
(['attack a on b'], ['split a into 2 wings'])
>>> OrdersScript.from_text('2: ["charge a"]\\n', "plan.yaml")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
scenario_builder.errors.ScenarioFileError: plan.yaml: line 1: expected an order like ...
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from engine.orders import CommanderView, Order
from engine.rulesets.two_mm_earth.formations import BreakUpOrder, LooseOrder
from engine.rulesets.two_mm_earth.wings import WingOrder
from engine.scenario import Scenario
from engine.state import Morale
from engine.yamlio import load_yaml_with_lines
from scenario_builder.errors import (
    DataSourceError,
    IllegalOrderError,
    ScenarioError,
    ScenarioFileError,
)

__all__ = [
    "OrdersScript",
    "ScriptedCommander",
    "parse_order",
    "scripted_commanders",
    "scripted_sides",
]

AnyOrder = Order | WingOrder | LooseOrder | BreakUpOrder
_WING_ID = re.compile(r"^(?P<base>.+)_w\d+$")


def _root(fid: str, owner: dict[str, str]) -> str:
    """The scenario formation a wing id ``<formation>_w<n>`` belongs to (4.2)."""
    return fid if fid in owner else _WING_ID.sub(r"\g<base>", fid)


def parse_order(text: str) -> AnyOrder:
    """An order or a wing order from its text form."""
    if text.split()[:1] == ["split"]:
        return WingOrder.from_text(text)
    if text.split()[:1] in (["loose"], ["close"]):
        return LooseOrder.from_text(text)
    if text.split()[:1] == ["break"]:
        return BreakUpOrder.from_text(text)  # 5.1
    return Order.from_text(text)


@dataclass(slots=True)
class OrdersScript:
    """The parsed file: bound -> orders, with each order's line for later errors."""

    source: str
    orders: dict[int, list[AnyOrder]]
    lines: dict[tuple[int, int], int] = field(default_factory=dict)
    #: how :meth:`place` read the positions: ``{"lon,lat": 2, "metres in EPSG:32630": 1}``
    read_as: dict[str, int] = field(default_factory=dict)
    _placed: bool = False

    @classmethod
    def from_text(cls, text: str, source: str | Path = "<orders>") -> OrdersScript:
        src = str(source)
        try:
            data, lines = load_yaml_with_lines(text)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            at = f"line {mark.line + 1}: " if mark is not None else ""
            problem = getattr(exc, "problem", None) or "not YAML"
            raise ScenarioFileError(src, f"{at}invalid YAML: {problem}") from None
        if not isinstance(data, dict) or not data:
            got = type(data).__name__ if data is not None else "an empty file"
            raise ScenarioFileError(
                src, f"line 1: expected a mapping of bound -> list of orders, got {got}"
            )
        out: dict[int, list[AnyOrder]] = {}
        where: dict[tuple[int, int], int] = {}
        for key, items in data.items():
            line = lines.get((str(key),), 1)
            if isinstance(key, bool) or not isinstance(key, int) or key < 1:
                raise ScenarioFileError(
                    src, f"line {line}: expected a bound number >= 1, got {key!r}"
                )
            if isinstance(items, str):
                items = [items]
            if not isinstance(items, list):
                raise ScenarioFileError(
                    src,
                    f"line {line}: expected a list of orders for bound "
                    f"{key}, got {type(items).__name__}",
                )
            parsed = []
            for i, item in enumerate(items):
                iline = lines.get((str(key), i), line)
                if not isinstance(item, str):
                    raise ScenarioFileError(
                        src, f"line {iline}: expected an order text, got {item!r}"
                    )
                try:
                    parsed.append(parse_order(item))
                except IllegalOrderError as exc:
                    raise ScenarioFileError(src, f"line {iline}: {exc.problem}") from None
                where[key, len(parsed) - 1] = iline
            out[key] = parsed
        return cls(src, dict(sorted(out.items())), where)

    @classmethod
    def load(cls, path: str | Path) -> OrdersScript:
        p = Path(path)
        try:
            text = p.read_text(encoding="utf-8")
        except OSError as exc:
            raise DataSourceError(p, f"cannot read orders file: {exc.strerror or exc}") from None
        except UnicodeDecodeError:
            raise ScenarioFileError(p, "line 1: expected a UTF-8 text file") from None
        return cls.from_text(text, p)

    def check(self, scenario: Scenario, sides: list[str] | None = None) -> dict[str, str]:
        """Check every order's formations against ``scenario``; return formation -> side.

        Wings (``<formation>_w<n>``, 4.2) count as their formation. With ``sides``, orders to
        other sides' formations are errors.
        """
        owner: dict[str, str] = {}
        for s in scenario.sides:
            for f in s.formations:
                owner[f.id] = s.id
        for bound, orders in self.orders.items():
            for i, o in enumerate(orders):
                line = self.lines.get((bound, i), 1)
                for fid in (o.formation, o.target_formation):
                    if fid is None:
                        continue
                    m = _WING_ID.match(fid)
                    base = fid if fid in owner else (m.group("base") if m else fid)
                    if base not in owner:
                        problem = f"line {line}: expected a formation of {scenario.id}, got {fid!r}"
                        raise ScenarioFileError(self.source, problem)
                side = owner[_root(o.formation, owner)]
                if sides is not None and side not in sides:
                    raise ScenarioFileError(
                        self.source,
                        f"line {line}: expected an order to a "
                        f"formation of {', '.join(sides)}, got "
                        f"{o.formation!r} of {side}",
                    )
        return owner

    def place(self, ground: Any) -> None:
        """Read every ``to X,Y`` position on ``ground`` (a Battlefield): map metres if it lies on
        the battlefield in metres, lon,lat if it does as degrees (``scenario_builder.coords``,
        as ``route`` reads --from/--to); the orders then hold metres and :attr:`read_as` counts
        which was read. A position off the battlefield either way is a ScenarioFileError naming
        the file, the line, the order and the position as written. Placing twice is a no-op."""
        from scenario_builder.coords import describe, guess_crs, transformer

        if self._placed:
            return
        for bound, orders in self.orders.items():
            for i, o in enumerate(orders):
                if not isinstance(o, Order) or o.target_point is None:
                    continue
                line = self.lines.get((bound, i), 1)
                try:
                    crs = guess_crs(
                        ground,
                        {"": o.target_point},
                        hint="an orders file's positions are lon,lat or these metres",
                    )
                except ScenarioError as exc:
                    raise ScenarioFileError(
                        self.source, f"line {line}: order {str(o)!r}: {exc.problem}"
                    ) from None
                how = describe(crs, ground.crs)
                self.read_as[how] = self.read_as.get(how, 0) + 1
                x, y = transformer(crs, ground.crs)(*o.target_point)
                orders[i] = replace(o, target_point=(float(x), float(y)))
        self._placed = True

    def sides_used(self, owner: dict[str, str]) -> list[str]:
        used = set()
        for orders in self.orders.values():
            for o in orders:
                used.add(owner[_root(o.formation, owner)])
        return sorted(used)


@dataclass(slots=True)
class ScriptedCommander:
    """Gives ``side``'s scripted orders in their bounds; bound 1 adds the scenario's orders."""

    side: str
    script: OrdersScript
    initial: dict[str, Order] = field(default_factory=dict)
    skipped: list[tuple[int, str]] = field(default_factory=list)

    @classmethod
    def from_scenario(
        cls, scenario: Scenario, side: str, script: OrdersScript, to_xy: Any
    ) -> ScriptedCommander:
        initial: dict[str, Order] = {}
        for f in scenario.side(side).formations:
            point = f.target.resolve(to_xy) if f.target is not None else None
            initial[f.id] = Order(f.order, f.id, point, f.target_formation)
        return cls(side, script, initial)

    def orders(self, view: CommanderView, bound: int) -> list[AnyOrder]:
        state = view.state
        out: list[AnyOrder] = []
        given = self.script.orders.get(bound, [])
        if bound == 1:
            scripted = {o.formation for o in given}
            out += [o for fid, o in self.initial.items() if fid not in scripted]
        out += given
        keep: list[AnyOrder] = []
        for o in out:
            f = state.formations.get(o.formation)
            if f is None or f.side != self.side:
                if f is None and self._mine(o.formation):
                    self.skipped.append((bound, str(o)))
                continue
            if f.removed or f.morale is Morale.ROUTING:
                self.skipped.append((bound, str(o)))
                continue
            if o.target_formation is not None and o.target_formation not in state.formations:
                self.skipped.append((bound, str(o)))
                continue
            keep.append(o)
        return keep

    def _mine(self, fid: str) -> bool:
        base = _WING_ID.sub(r"\g<base>", fid)
        return base in self.initial or fid in self.initial


def scripted_sides(scenario: Scenario, script: OrdersScript, side: str | None = None) -> list[str]:
    """The sides ``script`` commands (``side``, or every side it gives orders to), after checking
    its formations and sides against ``scenario`` (no ground needed)."""
    if side is not None and side not in {s.id for s in scenario.sides}:
        sides = ", ".join(s.id for s in scenario.sides)
        raise ScenarioFileError(
            script.source, f"expected --orders-side one of {sides}, got {side!r}"
        )
    owner = script.check(scenario, [side] if side is not None else None)
    return [side] if side is not None else script.sides_used(owner)


def scripted_commanders(
    scenario: Scenario, script: OrdersScript, to_xy: Any, side: str | None = None
) -> dict[str, ScriptedCommander]:
    """Scripted commanders for ``side`` (or every side the file gives orders to)."""
    sides_ = scripted_sides(scenario, script, side)
    return {s: ScriptedCommander.from_scenario(scenario, s, script, to_xy) for s in sides_}
