"""``battle.qgs``: a QGIS project beside ``battle.gpkg`` that opens the battle ready to play.

QGIS (3.22 at least) reads a GeoPackage layer's stored default style when the layer is added,
then resets its temporal properties from the data provider's, which for a GeoPackage are none:
the layers come in styled but not temporal. A project keeps every layer's temporal properties,
and the Temporal Controller's step too, so ``qgis battle.qgs`` shows the battlefield, the bases,
events and messengers, and plays one bound a frame. Paths are relative to the project, so the
run folder can be moved whole.

>>> import datetime as dt
>>> from maps.battle_gpkg import TimeBasis
>>> t = Timeline(dt.datetime(2000, 1, 1), 1.0, TimeBasis.STAND_IN)
>>> _time_settings(t, 17).get("timeStep"), _time_settings(t, 17).find("TemporalRange/end").text
('1', '2000-01-01T00:18:00')
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pyproj

from maps.battle_gpkg import GPKG_NAME, Layer, Timeline, layer_qml
from maps.colours import MOVE_COLOURS, MOVE_NAMES, hex_to_rgba
from scenario_builder.atomic import atomic_path

__all__ = ["QGS_NAME", "write_battle_project"]

QGS_NAME = "battle.qgs"
#: the QGIS version whose project format this follows (older QGIS read it; newer upgrade it)
QGIS_VERSION = "3.22.0"
_GEOMETRY = {Layer.BASES: "Polygon", Layer.EVENTS: "Point", Layer.MESSENGERS: "Line"}
_WKB = {Layer.BASES: "Polygon", Layer.EVENTS: "Point", Layer.MESSENGERS: "LineString"}
#: drawn top first: events over messengers over bases over the ground
_ORDER = (Layer.EVENTS, Layer.MESSENGERS, Layer.BASES)


def _srs(crs: pyproj.CRS) -> ET.Element:
    srs = ET.Element("spatialrefsys")
    ET.SubElement(srs, "wkt").text = crs.to_wkt()
    epsg = crs.to_epsg()
    ET.SubElement(srs, "authid").text = f"EPSG:{epsg}" if epsg else ""
    ET.SubElement(srs, "description").text = crs.name
    return srs


def _time_settings(timeline: Timeline, last_bound: int) -> ET.Element:
    """The Temporal Controller's range (the whole battle) and step (one bound)."""
    el = ET.Element(
        "ProjectTimeSettings",
        {
            "timeStepUnit": "min",
            "timeStep": f"{timeline.bound_minutes:g}",
            "frameRate": "1",
            "cumulativeTemporalRange": "0",
        },
    )
    rng = ET.SubElement(el, "TemporalRange")
    end = timeline.at(last_bound + 1)
    ET.SubElement(rng, "start").text = timeline.at(0).isoformat(timespec="seconds")
    ET.SubElement(rng, "end").text = end.isoformat(timespec="seconds")
    return el


def _vector_layer(layer: Layer, qml: str, crs: pyproj.CRS) -> ET.Element:
    el = ET.Element(
        "maplayer", {"type": "vector", "geometry": _GEOMETRY[layer], "wkbType": _WKB[layer]}
    )
    ET.SubElement(el, "id").text = f"battle_{layer}"
    ET.SubElement(el, "datasource").text = f"./{GPKG_NAME}|layername={layer}"
    ET.SubElement(el, "layername").text = str(layer)
    srs = ET.SubElement(el, "srs")
    srs.append(_srs(crs))
    ET.SubElement(el, "provider", {"encoding": "UTF-8"}).text = "ogr"
    style = ET.fromstring(qml.split("\n", 1)[1])  # the QML after its DOCTYPE line
    for child in style:
        if child.tag in ("temporal", "renderer-v2"):
            el.append(child)
    return el


def _terrain_layer(tif: str, crs: pyproj.CRS) -> ET.Element:
    """The ground: the movement classes (chart 7.3) in the maps' colours, plain left clear."""
    el = ET.Element("maplayer", {"type": "raster"})
    ET.SubElement(el, "id").text = "battlefield_move"
    ET.SubElement(el, "datasource").text = tif
    ET.SubElement(el, "layername").text = "battlefield: movement classes"
    srs = ET.SubElement(el, "srs")
    srs.append(_srs(crs))
    ET.SubElement(el, "provider").text = "gdal"
    pipe = ET.SubElement(el, "pipe")
    renderer = ET.SubElement(
        pipe, "rasterrenderer", {"type": "paletted", "band": "3", "opacity": "0.6"}
    )
    palette = ET.SubElement(renderer, "colorPalette")
    for code, colour in MOVE_COLOURS.items():
        r, g, b, a = hex_to_rgba(colour)
        ET.SubElement(
            palette,
            "paletteEntry",
            {
                "value": str(code),
                "color": f"#{r:02x}{g:02x}{b:02x}",
                "alpha": str(a),
                "label": MOVE_NAMES[code],
            },
        )
    return el


def _layer_tree(ids: list[tuple[str, str, str, str]]) -> ET.Element:
    tree = ET.Element("layer-tree-group")
    for layer_id, name, source, provider in ids:
        ET.SubElement(
            tree,
            "layer-tree-layer",
            {
                "id": layer_id,
                "name": name,
                "source": source,
                "providerKey": provider,
                "checked": "Qt::Checked",
                "expanded": "1",
            },
        )
    return tree


def battle_project(
    log: Mapping[str, Any], timeline: Timeline, battlefield_tif: str | None = None
) -> str:
    """The project's XML: the battle's layers with their styles (``battlefield_tif``: the
    ground's GeoTIFF, a path relative to the project)."""
    crs = pyproj.CRS.from_user_input(log["crs"])
    qml = layer_qml(log, timeline)
    root = ET.Element(
        "qgis", {"projectname": str(log.get("scenario", "battle")), "version": QGIS_VERSION}
    )
    ET.SubElement(root, "title").text = f"{log.get('scenario', 'battle')}: {timeline.words()}"
    project_crs = ET.SubElement(root, "projectCrs")
    project_crs.append(_srs(crs))
    tree: list[tuple[str, str, str, str]] = [
        (f"battle_{layer}", str(layer), f"./{GPKG_NAME}|layername={layer}", "ogr")
        for layer in _ORDER
    ]
    if battlefield_tif is not None:
        tree.append(("battlefield_move", "battlefield: movement classes", battlefield_tif, "gdal"))
    root.append(_layer_tree(tree))
    layers = ET.SubElement(root, "projectlayers")
    for layer in _ORDER:
        layers.append(_vector_layer(layer, qml[layer], crs))
    if battlefield_tif is not None:
        layers.append(_terrain_layer(battlefield_tif, crs))
    props = ET.SubElement(root, "properties")
    paths = ET.SubElement(props, "Paths")
    ET.SubElement(paths, "Absolute", {"type": "bool"}).text = "false"
    last = max((int(b.get("bound", i)) for i, b in enumerate(log["bounds"])), default=0)
    root.append(_time_settings(timeline, last))
    ET.indent(root)
    doctype = "<!DOCTYPE qgis PUBLIC 'http://mrcc.com/qgis.dtd' 'SYSTEM'>\n"
    return doctype + ET.tostring(root, encoding="unicode") + "\n"


def write_battle_project(
    log: Mapping[str, Any],
    out: str | os.PathLike[str],
    timeline: Timeline,
    battlefield_tif: str | None = None,
) -> Path:
    """Write :func:`battle_project` to ``out`` (beside ``battle.gpkg``), atomically."""
    out = Path(out)
    with atomic_path(out) as tmp:
        tmp.write_text(battle_project(log, timeline, battlefield_tif), encoding="utf-8")
    return out
