"""Closest valid names for a mistyped one (``run flodden`` -> ``flodden_1513``).

:func:`difflib.get_close_matches` scores whole strings, so a bare prefix such as ``flodden`` of
``flodden_1513`` is also offered: users type the place and forget the year.

>>> did_you_mean("flodden", ["flodden_1513", "teutoburg_ad9", "gettysburg_1863_day2"])
'did you mean flodden_1513?'
>>> did_you_mean("gettysbrug", ["gettysburg", "jena"])
'did you mean gettysburg?'
>>> did_you_mean("zzz", ["gettysburg", "jena"])
''
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def closest(name: str, choices: Iterable[str], n: int = 3) -> list[str]:
    """Up to ``n`` valid names nearest to ``name``: prefix and substring matches first."""
    pool = sorted(set(choices))
    low = name.lower()
    partial = [c for c in pool if low and (c.lower().startswith(low) or low in c.lower())]
    fuzzy = difflib.get_close_matches(name, pool, n=n, cutoff=0.6)
    return list(dict.fromkeys(partial + fuzzy))[:n]


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """``"did you mean a, b?"``, or ``""`` when nothing is close."""
    best = closest(name, choices)
    return f"did you mean {' or '.join(best)}?" if best else ""
