"""Changing formations: wings (4.2), brigades and merging (5.1), Loose Formation (4.1).

- :func:`split_into_wings`: an ordinary formation splits into wings of at least 2 bases when a
  character is with it or the list allows it (``wings`` flag). Brigades cannot split. Each wing
  is a formation of its own (``wing_of`` names the original). The General's order to split a
  formation (within 200 m and in sight) is :func:`wings.split_into_wings`.
- :func:`merge_formations`: a formation joins one with a character (a Brigade) if the brigade
  stays within the character's troop-type limit (L1: one type, L2: two, L3: three; a formation of
  several types counts as one "formation type"); wings of the same original always re-join.
- :func:`go_loose`: skirmishers open into a Loose Formation (one rank, bases apart, 4.1).
"""

from __future__ import annotations

from engine.geometry import right
from engine.log import BrigadeMerge, Event, WingSplit
from engine.state import BattleState, Formation
from scenario_builder.errors import IllegalOrderError

__all__ = ["brigade_limit", "go_loose", "merge_formations", "split_into_wings", "troop_types"]


def troop_types(f: Formation) -> frozenset[str]:
    """The "formation type" of a formation: the set of its profiles (5.1)."""
    return frozenset(b.profile.id for b in f.alive_bases)


def brigade_limit(leadership: int) -> int:
    """5.1: how many troop types a brigade under a character of this leadership may hold."""
    return max(1, min(3, leadership))


def split_into_wings(
    state: BattleState,
    fid: str,
    files: list[int],
    *,
    phase: str = "plan_moves",
) -> list[Event]:
    """Split formation ``fid`` into wings of ``files`` files each, left to right (4.2)."""
    f = state.formations[fid]
    if f.loose or f.skirmisher:
        raise IllegalOrderError(None, f"{fid}: skirmishers go Loose (4.1), they do not form wings")
    if f.brigade:
        raise IllegalOrderError(None, f"{fid}: brigades cannot split into wings (5.1)")
    allowed = bool(f.character_ids()) or f.has_flag("wings")
    if not allowed:
        raise IllegalOrderError(
            None, f"{fid}: wings need a character present or the General's order (4.2)"
        )
    if sum(files) != f.frontage or any(n < 1 for n in files) or len(files) < 2:
        raise IllegalOrderError(None, f"{fid}: expected files summing to {f.frontage}, got {files}")
    groups = []
    start = 0
    for n in files:
        members = [b for b in f.bases if start <= b.file < start + n]
        if sum(1 for b in members if b.alive) < 2:
            raise IllegalOrderError(None, f"{fid}: each wing needs at least 2 bases (4.2)")
        groups.append((start, n, members))
        start += n
    rx, ry = right(f.facing)
    wings = []
    pitch = f.pitch_w
    for k, (first, n, members) in enumerate(groups):
        offset = (first + (n - 1) / 2.0 - (f.frontage - 1) / 2.0) * pitch
        wid = fid if k == 0 else f"{fid}.w{k + 1}"
        for b in members:
            b.file -= first
            b.formation = wid
        w = Formation(
            wid,
            f.side,
            f"{f.name} (wing {k + 1})",
            f.cx + offset * rx,
            f.cy + offset * ry,
            f.facing,
            n,
            members,
            morale=f.morale,
            order=f.order,
            target_point=f.target_point,
            target_formation=f.target_formation,
            hold_fire=f.hold_fire,
            wing_of=f.wing_of or fid,
            temperament=f.temperament,
            random_troops=f.random_troops,
            start_bases=len(members),
            base_w=f.base_w,
            base_d=f.base_d,
            loose_gap=f.loose_gap,
        )
        w.place()
        wings.append(w)
    for w in wings:
        state.formations[w.id] = w
    state.version += 1
    return [WingSplit(phase, fid, tuple(w.id for w in wings))]


def merge_formations(
    state: BattleState, into: str, other: str, *, phase: str = "execute_moves"
) -> list[Event]:
    """Merge ``other`` into ``into`` (5.1 brigade, or wings re-joining, 4.2)."""
    a, b = state.formations[into], state.formations[other]
    if a.side != b.side:
        raise IllegalOrderError(None, f"cannot merge {other} into enemy formation {into}")
    origin_a = a.wing_of or a.id
    origin_b = b.wing_of or b.id
    rejoin = origin_a == origin_b and (a.wing_of is not None or b.wing_of is not None)
    if not rejoin:
        chars = [
            state.characters[c]
            for c in a.character_ids() + b.character_ids()
            if c in state.characters
        ]
        if not chars:
            raise IllegalOrderError(
                None, f"merging {other} into {into}: only characters merge formations (5.1)"
            )
        limit = brigade_limit(max(c.leadership for c in chars))
        types = {troop_types(a), troop_types(b)} | {
            troop_types(state.formations[x]) for x in a.brigade if x in state.formations
        }
        if len(types) > limit:
            raise IllegalOrderError(
                None,
                f"merging {other} into {into}: a brigade under L{limit}"
                f" holds at most {limit} troop type(s), got "
                f"{len(types)}",
            )
    ranks = a.ranks
    moved = [x for x in b.bases if x.alive]
    for i, base in enumerate(moved):
        base.rank = ranks + i // a.frontage
        base.file = i % a.frontage
        base.formation = a.id
    a.bases.extend(moved)
    b.bases = [x for x in b.bases if not x.alive]
    if not rejoin:
        a.brigade = (*a.brigade, b.id)
    a.start_bases += len(moved)
    from engine.state import Morale

    b.morale = Morale.DESTROYED if not b.bases else b.morale
    b.changed_bound = state.bound
    a.place()
    state.version += 1
    return [BrigadeMerge(phase, a.id, b.id)]


def go_loose(f: Formation) -> None:
    """4.1: skirmishers open out into one rank with gaps (bases within 50 m of each other)."""
    if not f.skirmisher:
        raise IllegalOrderError(None, f"{f.id}: only skirmishers form a Loose Formation (4.1)")
    alive = sorted(f.alive_bases, key=lambda b: (b.rank, b.file))
    for i, b in enumerate(alive):
        b.rank, b.file = 0, i
    f.loose = True
    f.frontage = max(1, len(alive))
    f.place()
