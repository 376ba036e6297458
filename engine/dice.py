"""The one random generator of a battle, recording every roll with its purpose.

Every die in a battle goes through one :class:`Dice`, which wraps one ``random.Random(seed)``.
Faces come from ``random()`` (``int(random() * sides) + 1``) because ``random()`` is the one
method Python guarantees to give the same sequence for the same seed across versions; the integer
helpers (``randint``, ``choice``) carry no such promise. It is also the fastest portable draw
(PERFORMANCE.md: ~1 M rolls/s).

>>> dice = Dice(7)
>>> r = dice.roll(2, "panic sc_pikes")
>>> r.faces, str(r)
((2, 1), '2d6[2,1] panic sc_pikes')
>>> DiceResult.from_text(str(r)) == r
True
>>> [str(x) for x in dice.history]
['2d6[2,1] panic sc_pikes']
>>> Dice(7).roll(2, "again").faces      # same seed, same faces
(2, 1)

A die whose faces are not 1..n (the average die, AvD: 2,3,3,4,4,5) is a :class:`Die`: it rolls
an ordinary die of as many sides as it has faces through the same :class:`Dice` (so the record
and the replay are the d6 rolls), and reads each face off its table:

>>> d = Dice(7)
>>> AVERAGE_DIE.roll(d, 2, "move"), str(d.history[-1])
((3, 2), '2d6[2,1] move (AvD)')

Tests script exact outcomes:

>>> s = ScriptedDice([6, 1, 3])
>>> s.roll(2, "shoot").faces, s.roll(1, "panic").faces
((6, 1), (3,))
>>> s.roll(1, "more")
Traceback (most recent call last):
...
engine.dice.DiceExhaustedError: scripted dice exhausted: expected 1 more face(s) for 'more', got 0
"""

from __future__ import annotations

import os
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from scenario_builder.errors import ScenarioError, ScenarioFileError

T = TypeVar("T")

# random() is a multiple of 2**-53, so int(random() * 2**53) is exact: lets random() be recorded
# as a die with 2**53 sides and replayed bit for bit.
_UNIT_SIDES = 2**53

_TEXT = re.compile(r"^(\d+)d(\d+)\[([0-9,]*)\](?: (.*))?$", re.DOTALL)


class DiceExhaustedError(ScenarioError, IndexError):
    """A :class:`ScriptedDice` was asked for more faces than it was given."""


@dataclass(frozen=True, slots=True)
class DiceResult:
    """One roll: the faces in the order rolled, what they were for, and the die size.

    >>> str(DiceResult((3, 5), "panic sc_pikes"))
    '2d6[3,5] panic sc_pikes'
    >>> DiceResult.from_text("1d10[7]")
    DiceResult(faces=(7,), purpose='', sides=10)
    >>> DiceResult.from_text("2d6[3] x")
    Traceback (most recent call last):
    ...
    scenario_builder.errors.ScenarioFileError: expected 2 faces in '2d6[3] x', got 1
    """

    faces: tuple[int, ...]
    purpose: str = ""
    sides: int = 6

    def __str__(self) -> str:
        text = f"{len(self.faces)}d{self.sides}[{','.join(map(str, self.faces))}]"
        return f"{text} {self.purpose}" if self.purpose else text

    @property
    def total(self) -> int:
        return sum(self.faces)

    def to_dict(self) -> dict[str, Any]:
        """The BattleLog form: ``{"purpose": ..., "faces": [...]}`` (plus ``sides`` if not 6)."""
        out: dict[str, Any] = {"purpose": self.purpose, "faces": list(self.faces)}
        if self.sides != 6:
            out["sides"] = self.sides
        return out

    @classmethod
    def from_text(cls, text: str) -> DiceResult:
        """Parse ``"2d6[3,5] panic sc_pikes"`` (the ``str()`` form) back into a result."""
        m = _TEXT.match(text)
        if m is None:
            raise ScenarioFileError(
                None, f"expected dice text like '2d6[3,5] purpose', got {text!r}"
            )
        n, sides = int(m.group(1)), int(m.group(2))
        faces = tuple(int(f) for f in m.group(3).split(",")) if m.group(3) else ()
        if len(faces) != n:
            raise ScenarioFileError(None, f"expected {n} faces in {text!r}, got {len(faces)}")
        if sides < 1 or any(not 1 <= f <= sides for f in faces):
            raise ScenarioFileError(None, f"expected faces 1..{sides} in {text!r}, got {faces}")
        return cls(faces, m.group(4) or "", sides)


_set_faces = DiceResult.__dict__["faces"].__set__
_set_purpose = DiceResult.__dict__["purpose"].__set__
_set_sides = DiceResult.__dict__["sides"].__set__


def _new_result(faces: tuple[int, ...], purpose: str, sides: int) -> DiceResult:
    """A DiceResult without the frozen ``__init__``'s three ``object.__setattr__`` calls (the
    faces come from the generator, already valid): a third faster, on the hottest path."""
    result = object.__new__(DiceResult)
    _set_faces(result, faces)
    _set_purpose(result, purpose)
    _set_sides(result, sides)
    return result


class Dice:
    """The seeded, recording generator: one per battle, passed to every rule that rolls.

    ``seed=None`` draws a fresh seed from the operating system and keeps it in :attr:`seed`, so
    even an unseeded battle can be replayed.

    >>> d = Dice(3)
    >>> state = d.getstate()
    >>> first = d.roll(3, "shoot")
    >>> d.setstate(state)                 # rewind: the same faces again, history trimmed
    >>> d.roll(3, "shoot") == first, len(d.history)
    (True, 1)
    >>> d.choice(["left", "right"], "wing")
    'right'
    >>> str(d.history[-1])
    '1d2[2] wing'
    """

    def __init__(self, seed: int | None = None) -> None:
        if seed is None:
            seed = int.from_bytes(os.urandom(8), "big") >> 1
        self.seed: int | None = seed
        self._rng = random.Random(seed)
        self._random = self._rng.random
        self.history: list[DiceResult] = []

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed!r}, rolls={len(self.history)})"

    def _faces(self, n: int, sides: int, purpose: str) -> tuple[int, ...]:
        r = self._random
        # one and two dice are most rolls (a shot, a panic test): skip the comprehension
        if n == 1:
            return (int(r() * sides) + 1,)
        if n == 2:
            return (int(r() * sides) + 1, int(r() * sides) + 1)
        return tuple([int(r() * sides) + 1 for _ in range(n)])

    def roll(self, n: int, purpose: str = "", sides: int = 6) -> DiceResult:
        """Roll ``n`` dice of ``sides`` faces for ``purpose``; record and return the result."""
        if n < 0 or sides < 1:
            raise ValueError(f"expected n >= 0 dice of sides >= 1, got {n}d{sides}")
        result = _new_result(self._faces(n, sides, purpose), purpose, sides)
        self.history.append(result)
        return result

    def random(self, purpose: str = "") -> float:
        """A float in [0, 1) for the rare non-dice choice; recorded as a 2**53-sided die."""
        (face,) = self._faces(1, _UNIT_SIDES, purpose)
        self.history.append(DiceResult((face,), purpose, _UNIT_SIDES))
        return (face - 1) / _UNIT_SIDES

    def choice(self, seq: Sequence[T], purpose: str = "") -> T:
        """One element of ``seq``, drawn as a ``len(seq)``-sided die (recorded)."""
        if not seq:
            raise ValueError(f"cannot choose from an empty sequence ({purpose})")
        return seq[self.roll(1, purpose, len(seq)).faces[0] - 1]

    def getstate(self) -> tuple[Any, int]:
        """The generator state and the history length, for :meth:`setstate` (replay from here)."""
        return self._rng.getstate(), len(self.history)

    def setstate(self, state: tuple[Any, int]) -> None:
        """Rewind to a :meth:`getstate` point; rolls recorded after it are dropped."""
        rng_state, n_rolls = state
        self._rng.setstate(rng_state)
        del self.history[n_rolls:]


class ScriptedDice(Dice):
    """Dice that yield the given faces in order: tests script exact outcomes with it.

    A face must fit the die asked for (a 6 cannot come up on a 2-sided choice). ``random()``
    takes the next scripted value as a face of a 2**53-sided die, so script
    ``1 + int(x * 2**53)`` to get ``x``.
    """

    def __init__(self, faces: Sequence[int]) -> None:
        super().__init__(0)
        self.seed = None
        self._script = [int(f) for f in faces]
        self._pos = 0

    @property
    def remaining(self) -> int:
        return len(self._script) - self._pos

    def _faces(self, n: int, sides: int, purpose: str) -> tuple[int, ...]:
        if self.remaining < n:
            raise DiceExhaustedError(
                None,
                f"scripted dice exhausted: expected {n} more face(s) for {purpose!r}, "
                f"got {self.remaining}",
            )
        faces = tuple(self._script[self._pos : self._pos + n])
        if any(not 1 <= f <= sides for f in faces):
            raise ValueError(f"scripted faces {faces} do not fit a d{sides} ({purpose!r})")
        self._pos += n
        return faces

    def getstate(self) -> tuple[Any, int]:
        return self._pos, len(self.history)

    def setstate(self, state: tuple[Any, int]) -> None:
        self._pos, n_rolls = state
        del self.history[n_rolls:]


@dataclass(frozen=True, slots=True)
class Die:
    """A die with printed faces: ``faces[k - 1]`` is read when side ``k`` comes up.

    The roll goes through :meth:`Dice.roll` as ``len(faces)`` sides, so the history, the
    replay and :class:`ScriptedDice` scripts hold the side numbers (1..6 for the AvD), not the
    printed values; a plain d6 (:data:`D6`) reads exactly the faces ``Dice.roll`` gives.

    >>> D6.roll(ScriptedDice([4]), 1, "x"), AVERAGE_DIE.roll(ScriptedDice([1, 6]), 2, "x")
    ((4,), (2, 5))
    >>> AVERAGE_DIE.value(6), AVERAGE_DIE.sides
    (5, 6)
    """

    name: str
    faces: tuple[int, ...]

    def __post_init__(self) -> None:
        if not self.faces:
            raise ValueError(f"die {self.name!r} needs at least one face")

    @property
    def sides(self) -> int:
        return len(self.faces)

    def value(self, side: int) -> int:
        """The printed face on ``side`` (1-based)."""
        return self.faces[side - 1]

    def roll(self, dice: Dice, n: int, purpose: str = "") -> tuple[int, ...]:
        """Roll ``n`` of this die through ``dice``; the printed faces, in the order rolled."""
        label = f"{purpose} ({self.name})" if purpose else self.name
        result = dice.roll(n, label, self.sides)
        return tuple(self.faces[f - 1] for f in result.faces)


#: the ordinary six-sided die
D6 = Die("d6", (1, 2, 3, 4, 5, 6))
#: the average die (Dark Age 5.9: "AvD for A Grade"): a d6 printed 2, 3, 3, 4, 4, 5
AVERAGE_DIE = Die("AvD", (2, 3, 3, 4, 4, 5))
