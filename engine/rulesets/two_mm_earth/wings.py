"""Wings (4.2): the order to split one formation into wings of at least 2 bases.

"[Ordinary formations] can usually ONLY do this when a Character is present in the formation OR
if ordered to by their General. ... A General can order one formation to split into Wings per
turn ... the General must be within 200m and have a line of sight to their troops."
:func:`split_into_wings` checks that and does the split: a formation with a living character in it
splits on its own (no General's reach, sight or one-a-turn limit); otherwise it is the General's
order. An order that breaks the rule raises :class:`IllegalOrderError` (the delivery logs it as
refused, docs/rules-interpretations.md 4.2). Wings re-join by advancing on each other (4.2; the
merge is :func:`engine.rulesets.two_mm_earth.formations.join_formation`).

The formation splits by files, left to right, into wings of as equal a width as possible; the
first wing keeps the formation's id, the others are ``<id>_w2``, ``<id>_w3`` ... with
``wing_of`` set to the original formation. Bases keep their places (they "walk out" of the
formation), their ids and their ``origin``.

>>> w = WingOrder.from_text("split sc_king into 3 wings")
>>> w.formation, w.wings, str(w)
('sc_king', 3, 'split sc_king into 3 wings')
>>> str(WingOrder.from_text("split sc_king"))
'split sc_king into 2 wings'
>>> WingOrder.from_text("split sc_king into 1 wings")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
scenario_builder.errors.IllegalOrderError: expected a wing order like ... got 'split ...'
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.geometry import forward, right
from engine.log import Event, WingSplit
from engine.state import BattleState, Character, Formation
from scenario_builder.errors import IllegalOrderError

if TYPE_CHECKING:
    from engine.terrain import Ground


__all__ = ["GENERAL_WING_REACH_M", "WingOrder", "general_of", "split_into_wings"]

#: 4.2: the General must be within 200 m of the troops he orders to split
GENERAL_WING_REACH_M = 200.0

_USAGE = "expected a wing order like 'split <formation> [into <n> wings]' with n >= 2"


@dataclass(frozen=True, slots=True)
class WingOrder:
    """The General's order to split ``formation`` into ``wings`` wings (4.2).

    It looks enough like :class:`engine.orders.Order` (``kind``, ``formation``, no targets) to
    pass through the engine's order phase; the delivery carries it out at once.
    """

    formation: str
    wings: int = 2
    kind: str = "split"
    target_point: None = None
    target_formation: None = None

    def __post_init__(self) -> None:
        if self.wings < 2 or self.kind != "split":
            raise IllegalOrderError(None, f"{_USAGE}, got {str(self)!r}")

    def __str__(self) -> str:
        return f"split {self.formation} into {self.wings} wings"

    @classmethod
    def from_text(cls, text: str) -> WingOrder:
        words = text.split()
        try:
            if len(words) == 2 and words[0] == "split":
                return cls(words[1])
            if (
                len(words) == 5
                and words[0] == "split"
                and words[2] == "into"
                and words[4] in ("wings", "wing")
            ):
                return cls(words[1], int(words[3]))
        except (IllegalOrderError, ValueError):
            pass
        raise IllegalOrderError(None, f"{_USAGE}, got {text!r}")


def general_of(state: BattleState, side: str) -> Character | None:
    """The side's living General (5.1), or ``None``."""
    gid = state.sides[side].general
    c = state.characters.get(gid or "")
    return c if c is not None and c.alive else None


def character_xy(state: BattleState, c: Character) -> tuple[float, float] | None:
    """Where a character is: the centre of the base that carries them."""
    for f in state.formations.values():
        for b in f.bases:
            if b.id == c.base:
                return (b.x, b.y) if b.alive else None
    return None


def _check(
    state: BattleState,
    side: str,
    order: WingOrder,
    bf: Ground,
    bound: int,
    done: dict[tuple[str, int], str],
) -> tuple[Formation, list[list[int]]]:
    f = state.formations.get(order.formation)
    if f is None or f.side != side or f.removed:
        raise IllegalOrderError(
            None, f"'{order}': expected a formation of {side} on the field, got {order.formation!r}"
        )
    led = _led_by_character(state, f)
    if not led and (side, bound) in done:
        first = done[side, bound]
        raise IllegalOrderError(
            None,
            f"'{order}': the General already split {first} this "
            "bound (4.2: one formation per turn)",
        )
    if f.loose:
        raise IllegalOrderError(
            None,
            f"'{order}': {f.id} is a Loose Formation (4.2: only "
            "ordinary formations split into wings)",
        )
    if f.brigade:
        raise IllegalOrderError(
            None, f"'{order}': {f.id} is a brigade (5.1: brigades cannot split into wings)"
        )
    alive = f.alive_bases
    if not led:
        _check_general(state, side, order, bf, f)
    files = sorted({b.file for b in f.bases})
    if len(files) < order.wings:
        raise IllegalOrderError(
            None, f"'{order}': expected at least {order.wings} files in {f.id}, got {len(files)}"
        )
    groups = [list(g) for g in _split_even(files, order.wings)]
    for g in groups:
        n = sum(1 for b in alive if b.file in g)
        if n < 2:
            raise IllegalOrderError(
                None, f"'{order}': expected wings of at least 2 bases, got a wing of {n} (4.2)"
            )
    return f, groups


def _led_by_character(state: BattleState, f: Formation) -> bool:
    """4.2: a living character is present in the formation (it may split without the General)."""
    return any(c in state.characters and state.characters[c].alive for c in f.character_ids())


def _check_general(
    state: BattleState, side: str, order: WingOrder, bf: Ground, f: Formation
) -> None:
    """4.2: the General within 200 m of the troops, with a line of sight to them."""
    gen = general_of(state, side)
    gxy = character_xy(state, gen) if gen is not None else None
    if gen is None or gxy is None:
        raise IllegalOrderError(None, f"'{order}': {side} has no living General (4.2)")
    alive = f.alive_bases
    dist = min(math.hypot(b.x - gxy[0], b.y - gxy[1]) for b in alive)
    if dist > GENERAL_WING_REACH_M:
        raise IllegalOrderError(
            None,
            f"'{order}': expected the General within "
            f"{GENERAL_WING_REACH_M:.0f} m of {f.id}, got {dist:.0f} m "
            "(4.2)",
        )
    own = any(b.character == gen.id for b in alive)
    if not own and not any(bf.line_of_sight(gxy, (b.x, b.y)) for b in alive):
        raise IllegalOrderError(
            None,
            f"'{order}': the General cannot see {f.id} (4.2: he must "
            "have a line of sight to the troops)",
        )


def _split_even(items: list[int], n: int) -> list[list[int]]:
    q, r = divmod(len(items), n)
    out, i = [], 0
    for k in range(n):
        size = q + (1 if k < r else 0)
        out.append(items[i : i + size])
        i += size
    return out


def split_into_wings(
    state: BattleState,
    side: str,
    order: WingOrder,
    bf: Ground,
    bound: int,
    done: dict[tuple[str, int], str] | None = None,
) -> list[Event]:
    """Carry out a General's wing order (4.2), or raise :class:`IllegalOrderError`.

    ``done`` remembers which formation each side's General split in which bound (one a turn).
    """
    done = {} if done is None else done
    f, groups = _check(state, side, order, bf, bound, done)
    led = _led_by_character(state, f)  # 4.2: a character's own split is not the General's one
    ranks = f.ranks
    width = max(b.file for b in f.bases) + 1
    pitch = f.pitch_w
    fx, fy = forward(f.facing)
    rx, ry = right(f.facing)
    root = f.wing_of or f.id
    all_bases = list(f.bases)
    ocx, ocy = f.cx, f.cy  # the first wing keeps the formation object: remember its centre
    new: list[Formation] = []
    ids: list[str] = []
    for k, files in enumerate(groups):
        members = [b for b in all_bases if b.file in files]
        rmin = min(b.rank for b in members)
        rmax = max(b.rank for b in members)
        across = ((files[0] + files[-1]) / 2.0 - (width - 1) / 2.0) * pitch
        along = ((ranks - 1) / 2.0 - (rmin + rmax) / 2.0) * f.base_d
        cx = ocx + across * rx + along * fx
        cy = ocy + across * ry + along * fy
        for b in members:
            b.file -= files[0]
            b.rank -= rmin
        if k == 0:
            wing = f
            f.bases = members
            f.frontage = len(files)
            f.cx, f.cy = cx, cy
            f.start_bases = len(members)
        else:
            wid = _free_id(state, f"{root}_w", k + 1)
            wing = Formation(
                wid,
                f.side,
                f"{f.name} (wing {k + 1})",
                cx,
                cy,
                f.facing,
                len(files),
                members,
                morale=f.morale,
                order=f.order,
                target_point=f.target_point,
                target_formation=f.target_formation,
                hold_fire=f.hold_fire,
                wing_of=root,
                temperament=f.temperament,
                random_troops=f.random_troops,
                start_bases=len(members),
                changed_bound=f.changed_bound,
                routed_bound=f.routed_bound,
                base_w=f.base_w,
                base_d=f.base_d,
                loose_gap=f.loose_gap,
            )
            wing.alive_at_start = wing.n_alive
            for b in members:
                b.formation = wid
            new.append(wing)
        wing.place()
        ids.append(wing.id)
    f.alive_at_start = f.n_alive
    for w in new:
        state.formations[w.id] = w
    state.version += 1
    if not led:
        done[side, bound] = f.id
    return [WingSplit("orders", f.id, tuple(ids))]


def _free_id(state: BattleState, stem: str, k: int) -> str:
    while f"{stem}{k}" in state.formations:
        k += 1
    return f"{stem}{k}"
