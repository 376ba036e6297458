"""Code tables: land-cover codes and OSM tags -> features -> ruleset classes (data/codes/*.csv).

Every table is a CSV file a user can read and override. Four kinds, told apart by their header:

- the feature vocabulary (``features.csv``: ``code,feature,priority,description``);
- raster code tables (``worldcover.csv``, ``corine.csv``, ``corine_grid.csv``, ``nlcd.csv``:
  ``code,feature,name``);
- the OSM tag table (``osm.csv``: ``key,value,feature,width_m``);
- ruleset tables (``2mm-earth.csv``: ``feature,move,cover,blocks_sight,note``).

>>> vocab = load_features()
>>> vocab.code("forest"), vocab.name(vocab.code("forest"))
(13, 'forest')
>>> wc = load_raster_table("worldcover")
>>> wc.mapping[80]
'water'
>>> osm = load_osm_table()
>>> osm.match({"natural": "wood", "building": None})
('forest', None)
>>> osm.match({"waterway": "river"})
('river', 20.0)
>>> rs = load_ruleset_table()
>>> rs.rows["forest"]
RulesetRow(feature='forest', move='woods', cover='overhead', blocks_sight=True)
"""

from __future__ import annotations

import csv
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from scenario_builder.battlefield import CoverClass, MoveClass
from scenario_builder.errors import DataSourceError, ScenarioFileError
from scenario_builder.paths import data_dir

# Names used in the ruleset tables, indexed by the MoveClass (7.3) / CoverClass (7.2) values.
MOVE_CLASSES: tuple[str, ...] = tuple(m.name.lower() for m in sorted(MoveClass))
COVER_CLASSES: tuple[str, ...] = tuple(c.name.lower() for c in sorted(CoverClass))

RASTER_SOURCES: tuple[str, ...] = ("worldcover", "corine", "corine_grid", "nlcd")
DEFAULT_FEATURE = "open"  # unknown land-cover codes and uncovered cells (docs/building.md)

_HEADERS: dict[str, tuple[str, ...]] = {
    "features": ("code", "feature", "priority"),
    "raster": ("code", "feature"),
    "osm": ("key", "value", "feature"),
    "ruleset": ("feature", "move", "cover", "blocks_sight"),
}


def codes_dir() -> Path:
    """The shipped ``data/codes`` folder."""
    return data_dir() / "codes"


def _read_rows(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    if not path.exists():
        raise DataSourceError(path, "code table not found")
    if path.stat().st_size == 0:
        raise DataSourceError(path, "code table is empty (0 bytes)")
    try:
        with path.open(newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            header = [h.strip() for h in (reader.fieldnames or [])]
            rows = [{(k or "").strip(): (v or "").strip() for k, v in r.items()} for r in reader]
    except (UnicodeDecodeError, csv.Error) as exc:
        raise ScenarioFileError(path, f"expected a UTF-8 CSV code table, got {exc}") from exc
    return header, rows


def table_kind(path: str | os.PathLike[str]) -> str:
    """Which kind of code table a CSV file is, from its header.

    >>> table_kind(codes_dir() / "osm.csv"), table_kind(codes_dir() / "nlcd.csv")
    ('osm', 'raster')
    """
    header, _ = _read_rows(Path(path))
    for kind in ("features", "ruleset", "osm", "raster"):  # most specific header first
        if all(col in header for col in _HEADERS[kind]):
            return kind
    expected = " | ".join(",".join(cols) for cols in _HEADERS.values())
    raise ScenarioFileError(
        path, f"expected a code table header ({expected}), got {','.join(header)}"
    )


@dataclass(frozen=True)
class Feature:
    """One entry of the feature vocabulary."""

    code: int
    name: str
    priority: int
    description: str = ""


@dataclass(frozen=True)
class FeatureVocabulary:
    """The feature names every table and overlay may use, with their raster codes and priorities."""

    features: tuple[Feature, ...]
    source: str = ""
    _by_name: Mapping[str, Feature] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_name", {f.name: f for f in self.features})

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def code(self, name: str) -> int:
        """Raster code of a feature name (KeyError if unknown)."""
        return self._by_name[name].code

    def name(self, code: int) -> str:
        """Feature name of a raster code."""
        return self.legend()[int(code)]

    def priority(self, name: str) -> int:
        return self._by_name[name].priority

    def names(self) -> list[str]:
        return [f.name for f in self.features]

    def legend(self) -> dict[int, str]:
        """``{code: name}``, as stored in the Battlefield's ``meta["legend"]["feature"]``."""
        return {f.code: f.name for f in self.features}

    def check(self, name: str, source: str | os.PathLike[str], where: str) -> str:
        """Return ``name`` if it is in the vocabulary, else raise naming the file and place."""
        if name not in self._by_name:
            raise ScenarioFileError(
                source, f"{where}: expected a feature from features.csv, got {name!r}"
            )
        return name


@dataclass(frozen=True)
class RasterCodeTable:
    """Raster land-cover code -> feature name (one table per source: WorldCover, CORINE, NLCD)."""

    mapping: Mapping[int, str]
    names: Mapping[int, str]
    source: str

    def lut(self, vocab: FeatureVocabulary, size: int) -> tuple[np.ndarray, np.ndarray]:
        """Lookup arrays of length ``size``: feature code per land-cover code, known-code flag."""
        lut = np.full(size, vocab.code(DEFAULT_FEATURE), dtype=np.uint8)
        known = np.zeros(size, dtype=bool)
        for code, name in self.mapping.items():
            if 0 <= code < size:
                lut[code] = vocab.code(name)
                known[code] = True
        return lut, known


@dataclass(frozen=True)
class OsmRule:
    key: str
    value: str  # "*" matches any value
    feature: str
    width_m: float | None


@dataclass(frozen=True)
class OsmTagTable:
    """OSM ``key=value`` -> feature (+ buffer width for line features)."""

    rules: tuple[OsmRule, ...]
    vocab: FeatureVocabulary
    source: str

    @property
    def keys(self) -> list[str]:
        return sorted({r.key for r in self.rules})

    def match(self, tags: Mapping[str, str | None]) -> tuple[str, float | None] | None:
        """The feature for one OSM object's tags: the highest-priority matching rule, or None."""
        best: OsmRule | None = None
        for rule in self.rules:
            value = tags.get(rule.key)
            if value is None or value != value or value in ("", "no"):  # value != value: NaN
                continue
            if rule.value not in ("*", value):
                continue
            if best is None or self.vocab.priority(rule.feature) > self.vocab.priority(
                best.feature
            ):
                best = rule
        return None if best is None else (best.feature, best.width_m)


@dataclass(frozen=True)
class RulesetRow:
    feature: str
    move: str
    cover: str
    blocks_sight: bool


@dataclass(frozen=True)
class RulesetTable:
    """Feature -> movement class (7.3), cover class (7.2), blocks sight (6.2)."""

    rows: Mapping[str, RulesetRow]
    source: str

    def luts(self, vocab: FeatureVocabulary) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Lookup arrays indexed by feature code: move (uint8), cover (uint8), blocks (bool)."""
        size = max(f.code for f in vocab.features) + 1
        move = np.zeros(size, dtype=np.uint8)
        cover = np.zeros(size, dtype=np.uint8)
        blocks = np.zeros(size, dtype=bool)
        for f in vocab.features:
            row = self.rows[f.name]
            move[f.code] = MOVE_CLASSES.index(row.move)
            cover[f.code] = COVER_CLASSES.index(row.cover)
            blocks[f.code] = row.blocks_sight
        return move, cover, blocks


def _builtin(name: str, suffix: str = ".csv") -> Path:
    return codes_dir() / f"{name}{suffix}"


@lru_cache(maxsize=8)
def _load_features(path: Path) -> FeatureVocabulary:
    header, rows = _read_rows(path)
    if table_kind(path) != "features":
        raise ScenarioFileError(path, f"expected header code,feature,priority,... got {header}")
    feats: list[Feature] = []
    seen_codes: set[int] = set()
    for i, r in enumerate(rows, start=2):
        try:
            code, prio = int(r["code"]), int(r["priority"])
        except ValueError as exc:
            raise ScenarioFileError(path, f"line {i}: expected integer code and priority") from exc
        if not 0 <= code <= 254 or code in seen_codes:
            raise ScenarioFileError(path, f"line {i}: expected a unique code 0..254, got {code}")
        seen_codes.add(code)
        feats.append(Feature(code, r["feature"], prio, r.get("description", "")))
    if DEFAULT_FEATURE not in {f.name for f in feats}:
        raise ScenarioFileError(path, f"expected the default feature {DEFAULT_FEATURE!r}, got none")
    return FeatureVocabulary(tuple(feats), str(path))


def load_features(path: str | os.PathLike[str] | None = None) -> FeatureVocabulary:
    """The feature vocabulary (shipped ``features.csv`` unless a path is given)."""
    return _load_features(Path(path) if path else _builtin("features"))


def _resolve(name_or_path: str | os.PathLike[str], kinds: Iterable[str]) -> Path:
    text = str(name_or_path)
    if text in kinds:
        return _builtin(text)
    return Path(name_or_path)


def load_raster_table(
    name_or_path: str | os.PathLike[str], vocab: FeatureVocabulary | None = None
) -> RasterCodeTable:
    """A raster code table by source name (``worldcover``, ``corine``, ``corine_grid``, ``nlcd``)
    or by path."""
    vocab = vocab or load_features()
    path = _resolve(name_or_path, RASTER_SOURCES)
    if table_kind(path) != "raster":
        raise ScenarioFileError(path, "expected a raster code table (code,feature,name)")
    _, rows = _read_rows(path)
    mapping: dict[int, str] = {}
    names: dict[int, str] = {}
    for i, r in enumerate(rows, start=2):
        try:
            code = int(r["code"])
        except ValueError as exc:
            raise ScenarioFileError(
                path, f"line {i}: expected an integer code, got {r['code']!r}"
            ) from exc
        mapping[code] = vocab.check(r["feature"], path, f"line {i}")
        names[code] = r.get("name", "")
    return RasterCodeTable(mapping, names, str(path))


def load_osm_table(
    path: str | os.PathLike[str] | None = None, vocab: FeatureVocabulary | None = None
) -> OsmTagTable:
    """The OSM tag table (shipped ``osm.csv`` unless a path is given)."""
    vocab = vocab or load_features()
    path = Path(path) if path else _builtin("osm")
    if table_kind(path) != "osm":
        raise ScenarioFileError(path, "expected an OSM tag table (key,value,feature,width_m)")
    _, rows = _read_rows(path)
    rules = []
    for i, r in enumerate(rows, start=2):
        width_text = r.get("width_m", "")
        try:
            width = float(width_text) if width_text else None
        except ValueError as exc:
            raise ScenarioFileError(
                path, f"line {i}: expected a width in metres, got {width_text!r}"
            ) from exc
        if width is not None and width <= 0:
            raise ScenarioFileError(path, f"line {i}: expected a positive width, got {width}")
        rules.append(
            OsmRule(r["key"], r["value"], vocab.check(r["feature"], path, f"line {i}"), width)
        )
    return OsmTagTable(tuple(rules), vocab, str(path))


def load_ruleset_table(
    name_or_path: str | os.PathLike[str] = "2mm-earth", vocab: FeatureVocabulary | None = None
) -> RulesetTable:
    """A ruleset table (shipped ``2mm-earth.csv`` by default); must cover the whole vocabulary."""
    vocab = vocab or load_features()
    path = _resolve(name_or_path, ("2mm-earth",))
    if table_kind(path) != "ruleset":
        raise ScenarioFileError(path, "expected a ruleset table (feature,move,cover,blocks_sight)")
    _, rows = _read_rows(path)
    out: dict[str, RulesetRow] = {}
    for i, r in enumerate(rows, start=2):
        name = vocab.check(r["feature"], path, f"line {i}")
        move, cover, blocks = r["move"].lower(), r["cover"].lower(), r["blocks_sight"].lower()
        if move not in MOVE_CLASSES:
            raise ScenarioFileError(
                path, f"line {i}: expected move in {MOVE_CLASSES}, got {move!r}"
            )
        if cover not in COVER_CLASSES:
            raise ScenarioFileError(
                path, f"line {i}: expected cover in {COVER_CLASSES}, got {cover!r}"
            )
        if blocks not in ("true", "false"):
            raise ScenarioFileError(
                path, f"line {i}: expected blocks_sight true/false, got {blocks!r}"
            )
        out[name] = RulesetRow(name, move, cover, blocks == "true")
    missing = [n for n in vocab.names() if n not in out]
    if missing:
        raise ScenarioFileError(path, f"expected a row for every feature, missing {missing}")
    return RulesetTable(out, str(path))


@dataclass(frozen=True)
class CodeTables:
    """The set of tables one build uses (shipped ones, with user overrides from ``--codes``)."""

    vocab: FeatureVocabulary
    ruleset: RulesetTable
    osm: OsmTagTable
    raster: RasterCodeTable | None = None  # None: detect the source from the codes present
    # Feature for land-cover raster codes missing from the table; None: they are an error
    # (``--unknown-as``), since a silently open battlefield is wrong terrain.
    unknown_as: str | None = None

    @classmethod
    def load(
        cls, overrides: Iterable[str | os.PathLike[str]] = (), unknown_as: str | None = None
    ) -> CodeTables:
        """Shipped tables, each replaced by a user file of the same kind (recognised by header).

        A ``--codes`` value may also name a shipped raster table (``worldcover``, ``nlcd``...).
        ``unknown_as`` must be a feature name of the vocabulary.
        """
        paths: dict[str, Path] = {}
        for item in overrides:
            path = _resolve(item, RASTER_SOURCES)
            kind = table_kind(path)
            if kind in paths:
                raise ScenarioFileError(path, f"a second {kind} table; expected at most one")
            paths[kind] = path
        vocab = load_features(paths.get("features"))
        raster = load_raster_table(paths["raster"], vocab) if "raster" in paths else None
        if unknown_as is not None and unknown_as not in vocab.names():
            from scenario_builder.suggest import did_you_mean

            hint = did_you_mean(unknown_as, vocab.names()) or f"one of {', '.join(vocab.names())}"
            raise ScenarioFileError(
                "--unknown-as",
                f"expected a feature of {Path(vocab.source).name}, got {unknown_as!r}; {hint}",
            )
        return cls(
            unknown_as=unknown_as,
            vocab=vocab,
            ruleset=load_ruleset_table(paths.get("ruleset", "2mm-earth"), vocab),
            osm=load_osm_table(paths.get("osm"), vocab),
            raster=raster,
        )


def detect_raster_table(
    codes: np.ndarray, counts: np.ndarray, vocab: FeatureVocabulary
) -> RasterCodeTable:
    """The shipped raster table whose codes cover most cells (``codes`` unique, ``counts`` cells).

    >>> import numpy as np
    >>> t = detect_raster_table(np.array([10, 40, 80]), np.array([5, 9, 1]), load_features())
    >>> Path(t.source).stem
    'worldcover'
    """
    best: tuple[int, int, RasterCodeTable] | None = None
    for i, name in enumerate(RASTER_SOURCES):
        table = load_raster_table(name, vocab)
        covered = int(counts[np.isin(codes, list(table.mapping))].sum())
        if best is None or covered > best[0]:
            best = (covered, -i, table)
    assert best is not None
    return best[2]
