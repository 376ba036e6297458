"""The rules of *Battle for 2mm Earth*: dice, charts, rulesets, odds and the battle engine.

Import the submodules directly (``from engine.dice import Dice``); this package imports nothing
so ``import engine`` stays cheap.
"""
