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

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.geometry import right
from engine.log import BrigadeBreakUp, BrigadeMerge, Event, Rally, WingSplit
from engine.state import BattleState, Formation
from scenario_builder.errors import IllegalOrderError

if TYPE_CHECKING:
    from engine.rulesets.two_mm_earth.context import TwoMmContext

__all__ = [
    "BreakUpOrder",
    "LooseOrder",
    "auto_split",
    "break_up_brigade",
    "brigade_limit",
    "close_up",
    "go_loose",
    "join_formation",
    "merge_formations",
    "merge_problem",
    "split_into_wings",
    "split_off",
    "troop_types",
]


def troop_types(f: Formation) -> frozenset[str]:
    """The "formation type" of a formation: the set of its profiles (5.1)."""
    return frozenset(b.profile.id for b in f.alive_bases)


def brigade_limit(leadership: int) -> int:
    """5.1: how many troop types a brigade under a character of this leadership may hold."""
    return max(1, min(3, leadership))


#: 4.2: "A formation can split into unlimited Wings, providing each Wing is at least 2 bases"
WING_MIN_BASES = 2


def split_into_wings(
    state: BattleState,
    fid: str,
    files: list[int],
    *,
    phase: str = "plan_moves",
    linked: bool = False,
) -> list[Event]:
    """Split formation ``fid`` into wings of ``files`` files each, left to right (4.2).
    ``linked``: 11.3's automatic Pike & Shot split (no character needed, the wings tested for
    morale together); every wing, linked or not, holds at least 2 living bases (4.2)."""
    f = state.formations[fid]
    if f.loose or f.skirmisher:
        raise IllegalOrderError(None, f"{fid}: skirmishers go Loose (4.1), they do not form wings")
    if f.brigade:
        raise IllegalOrderError(None, f"{fid}: brigades cannot split into wings (5.1)")
    allowed = bool(f.character_ids()) or f.has_flag("wings") or linked
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
        if sum(1 for b in members if b.alive) < WING_MIN_BASES:
            raise IllegalOrderError(None, f"{fid}: each wing needs at least 2 bases (4.2)")
        groups.append((start, n, members))
        start += n
    # dead bases kept beyond the last file (a line parted under 11.1) stay with the first wing,
    # beyond its last file too, for the casualty count
    groups[0][2].extend(b for b in f.bases if b.file >= f.frontage)
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
            linked=linked,
            changed_bound=f.changed_bound,
            routed_bound=f.routed_bound,
            held=f.held,
        )
        w.alive_at_start = w.n_alive
        w.contacts_prev = f.contacts_prev
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
    why = merge_problem(state, into, other)
    if why is not None:
        raise IllegalOrderError(None, why)
    a, b = state.formations[into], state.formations[other]
    rejoin = (a.wing_of or a.id) == (b.wing_of or b.id) and (
        a.wing_of is not None or b.wing_of is not None
    )
    ranks = a.ranks
    moved = [x for x in b.bases if x.alive]
    b.brigaded = tuple(x.id for x in moved)  # 5.1: to break up into again
    for i, base in enumerate(moved):
        base.rank = ranks + i // a.frontage
        base.file = i % a.frontage
        base.formation = a.id
    a.bases.extend(moved)
    b.bases = [x for x in b.bases if not x.alive]
    if not rejoin:
        a.brigade = (*a.brigade, b.id)
        a.units[b.id] = b
    a.start_bases += len(moved)
    from engine.state import Morale

    b.morale = Morale.DESTROYED  # gone from the table as a formation of its own
    b.changed_bound = state.bound
    a.place()
    state.version += 1
    return [BrigadeMerge(phase, a.id, b.id)]


@dataclass(frozen=True, slots=True)
class LooseOrder:
    """4.1: "Skirmisher formations can choose to turn their normal formation into a Loose
    Formation ... simply by planning to move out of base-to-base contact": ``loose <formation>``;
    ``close <formation>`` brings them back into base contact (one rank). Carried like any order
    (a messenger if out of reach, 9.1) and applied when it arrives.

    >>> str(LooseOrder.from_text("loose skirm_1")), LooseOrder.from_text("close s").kind
    ('loose skirm_1', 'close')
    """

    kind: str
    formation: str
    target_point: None = None
    target_formation: None = None

    def __post_init__(self) -> None:
        if self.kind not in ("loose", "close"):
            raise IllegalOrderError(
                None, f"expected 'loose <formation>' or 'close <formation>', got {self.kind!r}"
            )

    def __str__(self) -> str:
        return f"{self.kind} {self.formation}"

    @classmethod
    def from_text(cls, text: str) -> LooseOrder:
        words = text.split()
        if len(words) != 2:
            raise IllegalOrderError(
                None, f"expected 'loose <formation>' or 'close <formation>', got {text!r}"
            )
        return cls(words[0], words[1])


@dataclass(frozen=True, slots=True)
class BreakUpOrder:
    """5.1: "at any time, a Brigade can break up into its original constituent units":
    ``break <brigade>``. Carried like any order (a messenger if out of reach, 9.1) and carried
    out when it arrives (:func:`break_up_brigade`).

    >>> str(BreakUpOrder.from_text("break en_surrey"))
    'break en_surrey'
    """

    formation: str
    kind: str = "break"
    target_point: None = None
    target_formation: None = None

    def __str__(self) -> str:
        return f"break {self.formation}"

    @classmethod
    def from_text(cls, text: str) -> BreakUpOrder:
        words = text.split()
        if len(words) != 2 or words[0] != "break":
            raise IllegalOrderError(None, f"expected 'break <brigade>', got {text!r}")
        return cls(words[1])


def _form_up(f: Formation, alive: list[Any], dead: list[Any]) -> None:
    """Lay ``f`` out anew with ``alive`` in (rank, file) order, ``frontage`` at most their
    number; ``dead`` stay with it for the casualty count beyond its last file (no slot)."""
    alive = sorted(alive, key=lambda b: (b.rank, b.file, b.id))
    f.frontage = max(1, min(f.frontage, len(alive)))
    for i, b in enumerate(alive):
        b.rank, b.file, b.formation = (*divmod(i, f.frontage), f.id)
    for i, b in enumerate(dead):
        b.rank, b.file, b.formation = 0, f.frontage + i, f.id
    f.bases = [*alive, *dead]


def break_up_brigade(state: BattleState, f: Formation, phase: str) -> list[Event]:
    """5.1: brigade ``f`` breaks up into its original constituent units. Each unit merged into
    it (``f.brigade``) takes its own bases back, living and dead, and stands again as itself
    (its id, name and temperament; the brigade's morale and orders), in its own frontage
    centred where its bases stood, facing as the brigade faced; the brigade's own bases keep
    their places (the front where it stood). A unit with no living base left stays off the
    table. Re-forming where they stand is not charged against the bound's move (the book:
    "planned and executed" as normal, with no distance given for it). Raises
    :class:`IllegalOrderError` for a formation that is not a brigade."""
    if not f.brigade:
        raise IllegalOrderError(None, f"{f.id}: not a brigade, nothing to break up (5.1)")
    units: list[str] = []
    theirs = {x for uid in f.brigade if (u := f.units.get(uid)) is not None for x in u.brigaded}
    own = sorted((b for b in f.alive_bases if b.id not in theirs), key=lambda b: (b.rank, b.file))
    anchor = own[0] if own else None
    anchor_xy = (anchor.x, anchor.y) if anchor is not None else (f.cx, f.cy)
    for uid in f.brigade:
        u = f.units.get(uid) or state.formations.get(uid)
        if u is None:
            continue
        if u.id not in state.formations:
            state.formations[u.id] = u  # merged at deployment: gone from the table till now
        ids = set(u.brigaded)
        back = [b for b in f.bases if b.id in ids]
        alive = [b for b in back if b.alive]
        f.bases = [b for b in f.bases if b.id not in ids]
        f.start_bases = max(1, f.start_bases - len(ids))
        u.brigaded = ()
        if not alive:
            u.bases.extend(back)
            for b in back:
                b.formation = u.id
            continue
        cx = sum(b.x for b in alive) / len(alive)
        cy = sum(b.y for b in alive) / len(alive)
        dead = [b for b in (*u.bases, *back) if not b.alive]
        u.cx, u.cy, u.facing = cx, cy, f.facing
        _form_up(u, alive, dead)
        u.morale, u.changed_bound = f.morale, state.bound
        u.order, u.target_point, u.target_formation = f.order, f.target_point, f.target_formation
        u.hold_fire, u.held, u.retreat_from = f.hold_fire, f.held, f.retreat_from
        u.alive_at_start = u.n_alive
        u.place()
        units.append(u.id)
    f.brigade, f.units = (), {}
    # the brigade's own bases keep their ranks and files; it is re-centred so that its front
    # stays where it stood (the units came in as its rear ranks and leave from there)
    f.place()
    if anchor is not None and anchor.alive:
        f.cx += anchor_xy[0] - anchor.x
        f.cy += anchor_xy[1] - anchor.y
        f.place()
    f.alive_at_start = f.n_alive
    state.version += 1
    return [BrigadeBreakUp(phase, f.id, tuple(units))]


def close_up(f: Formation) -> None:
    """Skirmishers in a Loose Formation close back into base contact, in one rank."""
    f.loose = False
    f.place()


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


#: the morale-test trigger of a character joining a routing formation (10.4; v0.7 5.5)
RALLY_TRIGGER = "character_joined_routing"


def merge_problem(state: BattleState, into: str, other: str) -> str | None:
    """Why ``other`` may not merge into ``into`` (None when it may): 5.1, 4.1, 4.2.

    - wings of one original always re-join (4.2, even with the character dead);
    - otherwise a living character must be in one of the two ("only Characters can merge
      formations", 4.2; 5.1 "merge any formation into any other formation which includes a
      Character");
    - a character joining alone (every living base of ``other`` carries a character) may join
      any ordinary formation "regardless of its type" (5.1); otherwise the brigade must stay
      within the troop-type limit of the best leadership in it (L1 one type, L2 two, L3 three);
    - nobody joins a Loose Formation except a Skirmisher hero (5.1), nor merges into one.
    """
    a, b = state.formations[into], state.formations[other]
    if a.side != b.side:
        return f"cannot merge {other} into enemy formation {into}"
    if a.removed or b.removed:
        return f"cannot merge {other} into {into}: one has left the field"
    origin_a, origin_b = a.wing_of or a.id, b.wing_of or b.id
    if origin_a == origin_b and (a.wing_of is not None or b.wing_of is not None):
        return None  # 4.2: wings re-join their comrades
    chars = [
        state.characters[c]
        for c in a.character_ids() + b.character_ids()
        if c in state.characters and state.characters[c].alive
    ]
    if not chars:
        return f"merging {other} into {into}: only characters merge formations (5.1)"
    alone = all(x.character for x in b.alive_bases)
    if a.loose and not (alone and b.skirmisher):
        return f"merging {other} into {into}: only a Skirmisher hero joins a Loose Formation (5.1)"
    if b.loose and not alone:
        return f"merging {other} into {into}: a Loose Formation does not merge (4.1)"
    if alone:
        return None  # 5.1: a character joins any ordinary formation, regardless of its type
    limit = brigade_limit(max(c.leadership for c in chars))
    types = {troop_types(a), troop_types(b)} | {
        troop_types(state.formations[x]) for x in a.brigade if x in state.formations
    }
    if len(types) > limit:
        return (
            f"merging {other} into {into}: a brigade under L{limit} holds at most {limit} "
            f"troop type(s), got {len(types)}"
        )
    return None


def join_formation(
    ctx: TwoMmContext, mover: Formation, target: Formation, phase: str
) -> list[Event]:
    """``mover`` planned to move into base contact with friendly ``target`` and touches it: it
    merges into ``target`` (5.1 brigade, 4.2 wings re-joining, a character joining), then:

    - 10.4: a character joining a *routing* formation makes it take the rally test (the joining
      character's L; one already with them does not count); passing stops the rout: retreat;
    - 11.2: retreating troops merged with a character's formation (either way round) are rallied
      at once, "due to the leader's no doubt inspiring presence".

    Refused merges (5.1 type limit, Loose formations) give ``order_refused`` and the mover holds.
    """
    from engine.log import OrderRefused, PanicTest
    from engine.rulesets.two_mm_earth.morale import leadership, set_morale
    from engine.state import Morale

    state = ctx.state
    why = merge_problem(state, target.id, mover.id)
    if why is not None:
        mover.order, mover.target_formation = "hold", None
        return [
            OrderRefused(phase, mover.side, mover.id, f"advance {mover.id} on {target.id}", why)
        ]
    joining_l = leadership(mover, state.characters)
    brings_character = bool(mover.character_ids())
    target_had_character = bool(target.character_ids())
    mover_broken = mover.morale is Morale.RETREATING
    events = merge_formations(state, target.id, mover.id, phase=phase)
    mover.pursuing = None
    if (
        target.morale is Morale.ROUTING
        and brings_character
        and callable(getattr(ctx.ruleset, "morale_test", None))
    ):
        from engine.rulesets.two_mm_earth.morale import _resilience_pair
        from engine.rulesets.two_mm_earth.triggers import MoraleSituation

        melee_r, ranged_r = _resilience_pair(target)
        # the ruleset's morale test, asked for the 10.4 rally (v0.7: its 5.5)
        situation = MoraleSituation(
            melee_r, ranged_r, leadership=joining_l, state="routing", triggers=(RALLY_TRIGGER,)
        )
        res = ctx.rs.morale_test(ctx.dice, situation, purpose=f"rally {target.id}")
        events.append(
            PanicTest(
                phase,
                target.id,
                (RALLY_TRIGGER,),
                res.effective_r,
                res.score,
                res.outcome,
                res.dice,
            )
        )
        if res.outcome != "rout":
            events += set_morale(
                ctx, target, Morale.RETREATING, "10.4 a character joined: stopped routing", phase
            )
            target.retreat_from = None
    elif target.morale is Morale.RETREATING and brings_character:
        events += set_morale(ctx, target, Morale.STEADY, "11.2 merged with a character", phase)
        target.retreat_from = None
        if target.order in ("none", "retreat"):
            target.order = "hold"
    elif mover_broken and target_had_character and target.morale is Morale.STEADY:
        # 11.2: the retreating troops are now part of the character's steady formation
        events.append(Rally(phase, mover.id, "11.2 merged with a character's formation"))
    return events


def split_off(state: BattleState, f: Formation, members: list[Any], tag: str) -> Formation:
    """Take ``members`` (living bases of ``f``) out as a formation of their own, one rank where
    they stand (centred on them, same facing), id ``<root>_<tag>`` (numbered if taken), a wing of
    ``f``'s original (4.2) with ``f``'s morale and orders. Returns the new formation."""
    root = f.wing_of or f.id
    gid, k = f"{root}_{tag}", 2
    while gid in state.formations:
        gid, k = f"{root}_{tag}{k}", k + 1
    ids = {b.id for b in members}
    xs = [b.x for b in members]
    ys = [b.y for b in members]
    cx, cy = sum(xs) / len(xs), sum(ys) / len(ys)
    rx, ry = right(f.facing)
    # left to right across the facing, as they stood
    members = sorted(members, key=lambda b: ((b.x - cx) * rx + (b.y - cy) * ry, b.id))
    for i, b in enumerate(members):
        b.rank, b.file, b.formation = 0, i, gid
    f.bases = [b for b in f.bases if b.id not in ids]
    g = Formation(
        gid,
        f.side,
        f"{f.name} ({tag})",
        cx,
        cy,
        f.facing,
        len(members),
        members,
        morale=f.morale,
        order=f.order,
        target_point=f.target_point,
        target_formation=f.target_formation,
        hold_fire=f.hold_fire,
        held=f.held,
        wing_of=root,
        temperament=f.temperament,
        random_troops=f.random_troops,
        start_bases=len(members),
        changed_bound=f.changed_bound,
        routed_bound=f.routed_bound,
        retreat_from=f.retreat_from,
        base_w=f.base_w,
        base_d=f.base_d,
        loose_gap=f.loose_gap,
    )
    g.alive_at_start = len(members)
    g.tested = f.tested
    f.start_bases = max(1, f.start_bases - len(members))
    g.place()
    f.place()
    state.formations[gid] = g
    state.version += 1
    return g


def auto_split(state: BattleState, f: Formation, phase: str) -> list[Event]:
    """11.3: "If a formation such as Pike & Shot has different bases to the left and right,
    rather than different ranks, these formations will always split into wings automatically
    when getting into combat": runs of files of one profile (read down each file) become wings
    (``linked``: "they take panic tests and test for retreating/routing as if they were still in
    a brigaded formation"). Files mixed within themselves (rear ranks of another profile) are
    the ranks kind of mixed formation and do not split."""
    if f.loose or f.brigade or f.linked:
        return []
    by_file: dict[int, set[str]] = {}
    for b in f.alive_bases:
        if not b.character:  # a character's own base does not make a file of another kind
            by_file.setdefault(b.file, set()).add(b.profile.id)
    if (
        any(len(p) > 1 for p in by_file.values())
        or len({next(iter(p)) for p in by_file.values()}) < 2
    ):
        return []
    runs: list[int] = []
    last = None
    for file in range(f.frontage):
        kind = next(iter(by_file.get(file, {last})), last)
        if runs and kind == last:
            runs[-1] += 1
        else:
            runs.append(1)
        last = kind
    runs = _wings_of_two(runs, _alive_by_file(f))
    if len(runs) < 2:
        return []
    return split_into_wings(state, f.id, runs, phase=phase, linked=True)


def _alive_by_file(f: Formation) -> list[int]:
    """The living bases in each file of ``f``, left to right."""
    out = [0] * f.frontage
    for b in f.alive_bases:
        if 0 <= b.file < f.frontage:
            out[b.file] += 1
    return out


def _wings_of_two(runs: list[int], alive: list[int]) -> list[int]:
    """11.3's runs of files made wings that obey 4.2 ("each Wing is at least 2 bases in size"):
    a run with fewer living bases is too small to be a wing and stays with its neighbour (the
    one on its left; the first run joins the one on its right), the neighbour then holding
    both kinds as a mixed wing (11.3: fought at the mean R). Widths in files, left to right.

    >>> _wings_of_two([1, 2, 1], [1, 1, 1, 1])      # a one-rank line, one-base sleeves
    [4]
    >>> _wings_of_two([2, 2, 2], [1, 1, 1, 1, 1, 1])
    [2, 2, 2]
    >>> _wings_of_two([1, 2, 1], [2, 2, 2, 2])      # two ranks: one-file wings of 2 bases
    [1, 2, 1]
    """
    runs = list(runs)
    while len(runs) > 1:
        starts = [sum(runs[:k]) for k in range(len(runs))]
        sizes = [sum(alive[s : s + n]) for s, n in zip(starts, runs, strict=True)]
        small = next((k for k, n in enumerate(sizes) if n < WING_MIN_BASES), None)
        if small is None:
            break
        into = small - 1 if small > 0 else 1
        runs[min(small, into)] += runs[max(small, into)]
        del runs[max(small, into)]
    return runs
