"""Imported for its effect: every registered ruleset's modules its hooks import on first use.

A process that will fight many battles (the Monte Carlo fork server, ``SERVER_MODULES`` in
:mod:`scenario_builder.montecarlo`) names this module in its preload list, so its workers start
with what a ruleset keeps lazy for the CLI's sake (each class's ``lazy_modules``) already loaded,
without the caller naming a ruleset's folder.
"""

from __future__ import annotations

import importlib

from engine.rulesets import _REGISTRY

__all__ = ["PRELOADED"]


def _preload() -> tuple[str, ...]:
    names = dict.fromkeys(m for cls in _REGISTRY.values() for m in cls.lazy_modules)
    for name in names:
        importlib.import_module(name)
    return tuple(names)


#: the modules imported, in the order first declared
PRELOADED = _preload()
