"""Messenger routing over the battlefield (9.1–9.2): graph, smoothing, routes.

>>> from scenario_builder.routing import RouteGraph, Route, arrival_bound
>>> arrival_bound(1200.0, 500.0, sent_bound=1)
3
"""

from scenario_builder.routing.costs import TRIPLE, CostGrid, triple_mask, triple_mask_of
from scenario_builder.routing.graph import RouteGraph, routes_geojson
from scenario_builder.routing.route import Route, arrival_bound

__all__ = [
    "TRIPLE",
    "CostGrid",
    "Route",
    "RouteGraph",
    "arrival_bound",
    "routes_geojson",
    "triple_mask",
    "triple_mask_of",
]
