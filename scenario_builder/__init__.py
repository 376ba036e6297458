"""GIS half of the battle scenario builder: real DEM + land cover -> a rule-classified Battlefield.

The engine (``engine``) reads a :class:`~scenario_builder.battlefield.Battlefield` through its
queries; maps (``maps``) draw it. See ``docs/architecture.md`` for the objects between the parts.
"""

__version__ = "0.1.0"
