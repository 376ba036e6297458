"""Feature codes + slope -> the ruleset's movement, cover and sight layers (7.1–7.3, 6.2).

Every cell holds exactly one feature code; the ruleset table (``2mm-earth.csv``) maps each
feature to one movement class (chart 7.3), one cover class (chart 7.2) and a blocks-sight flag
(6.2), so every cell gets exactly one class of each by table lookup.

>>> import numpy as np
>>> from scenario_builder.codetables import CodeTables
>>> t = CodeTables.load()
>>> feat = np.array([[t.vocab.code("forest"), t.vocab.code("water")]], dtype=np.uint8)
>>> layers = classify(feat, t)
>>> layers["move"].tolist(), layers["cover"].tolist(), layers["blocks_sight"].tolist()
([[3, 4]], [[3, 0]], [[True, False]])
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage

from scenario_builder.build_defaults import CLIFF_DEG
from scenario_builder.codetables import CodeTables, FeatureVocabulary

DENSE_WINDOW_M = 100.0
DENSE_FRACTION = 0.5


def slope_degrees(elevation: np.ndarray, res: float) -> np.ndarray:
    """Slope in degrees from central differences (float32).

    >>> import numpy as np
    >>> ramp = np.tile(np.arange(4, dtype=np.float32) * 10.0, (3, 1))   # 10 m rise per 10 m cell
    >>> float(slope_degrees(ramp, 10.0)[1, 1])
    45.0
    """
    dzdy, dzdx = np.gradient(elevation.astype(np.float64), res)
    return np.degrees(np.arctan(np.hypot(dzdx, dzdy))).astype(np.float32)


def apply_cliffs(
    feature: np.ndarray,
    slope: np.ndarray,
    vocab: FeatureVocabulary,
    threshold_deg: float = CLIFF_DEG,
) -> np.ndarray:
    """Cells steeper than ``threshold_deg`` become ``cliff`` unless their feature outranks
    ``cliff`` in ``features.csv`` (water, river: a steep bank under water is still water)."""
    out = feature.copy()
    cliff_prio = vocab.priority("cliff")
    keeps = np.zeros(256, dtype=bool)
    for f in vocab.features:
        keeps[f.code] = f.priority > cliff_prio
    out[(slope > threshold_deg) & ~keeps[feature]] = vocab.code("cliff")
    return out


def promote_dense_buildings(
    feature: np.ndarray,
    vocab: FeatureVocabulary,
    res: float,
    window_m: float = DENSE_WINDOW_M,
    fraction: float = DENSE_FRACTION,
) -> np.ndarray:
    """Building cells in a neighbourhood that is mostly buildings become ``built_up`` (7.2:
    isolated house-sized buildings are debris, a dense town is impractical).

    >>> import numpy as np
    >>> from scenario_builder.codetables import load_features
    >>> v = load_features(); b = v.code("building")
    >>> f = np.full((9, 9), v.code("open"), np.uint8); f[1:8, 1:8] = b; f[0, 0] = b
    >>> g = promote_dense_buildings(f, v, res=10.0, window_m=30.0)
    >>> v.name(g[4, 4]), v.name(g[0, 0])
    ('built_up', 'building')
    """
    building = vocab.code("building")
    is_b = (feature == building) | (feature == vocab.code("built_up"))
    if not (feature == building).any():
        return feature
    size = max(1, round(window_m / res))
    if size < 2:
        return feature
    density = ndimage.uniform_filter(is_b.astype(np.float32), size=size, mode="constant")
    out = feature.copy()
    out[(feature == building) & (density >= fraction)] = vocab.code("built_up")
    return out


def classify(feature: np.ndarray, tables: CodeTables) -> dict[str, np.ndarray]:
    """Layers ``move`` (uint8, 7.3), ``cover`` (uint8, 7.2), ``blocks_sight`` (bool, 6.2)."""
    move, cover, blocks = tables.ruleset.luts(tables.vocab)
    return {"move": move[feature], "cover": cover[feature], "blocks_sight": blocks[feature]}
