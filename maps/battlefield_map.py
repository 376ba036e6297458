"""The battlefield map: terrain classes, height levels, hillshade and contours on a folium map.

Every raster goes to the browser as a PNG warped to Web Mercator (see :mod:`maps.reproject`), so it
registers with Leaflet's tiles and scale bar. ``offline=True`` makes a page with no tiles and no
CDN: Leaflet is inlined from the vendored npm package (:mod:`maps.leaflet_offline`).
"""

from __future__ import annotations

import html
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import folium
import numpy as np
from branca.element import MacroElement
from jinja2 import Template

from maps.colours import level_colour
from maps.contour_thinning import steepness, web_runs
from maps.features import LINE_STYLES, FeatureKind, ground_features, label_point, short_name
from maps.leaflet_offline import (
    _MapScript,
    add_measure_tool,
    asset,
    inline_script,
    make_offline,
    root_figure,
)
from maps.palettes import TerrainPalette, terrain_palette
from maps.reproject import classes_to_rgba, hillshade, png_data_uri, warp_to_web_mercator
from maps.vectors import level_outlines, outline_contours
from scenario_builder.atomic import atomic_path
from scenario_builder.battlefield import Battlefield

MAX_CONTOUR_LABELS = 160


@dataclass(frozen=True)
class _Overlay:
    """One raster of the base map, warped to Web Mercator and encoded as a PNG once."""

    name: str
    image: str  # PNG data URI
    bounds: list[list[float]]
    show: bool
    opacity: float = 1.0
    online_opacity: float | None = None  # under tiles, if not ``opacity``


def _drawn(
    name: str,
    rgba_bounds: tuple[np.ndarray, list[list[float]]],
    *,
    show: bool,
    opacity: float = 1.0,
    online_opacity: float | None = None,
) -> _Overlay:
    rgba, bounds = rgba_bounds
    return _Overlay(name, png_data_uri(rgba), bounds, show, opacity, online_opacity)


def _overlay(m: folium.Map, o: _Overlay, *, offline: bool) -> None:
    name, bounds, show = o.name, o.bounds, o.show
    opacity = o.opacity if offline or o.online_opacity is None else o.online_opacity
    folium.raster_layers.ImageOverlay(
        image=o.image,
        bounds=bounds,
        name=name,
        opacity=opacity,
        show=show,
        interactive=False,
        cross_origin=False,
        zindex=1,
    ).add_to(m)


def _hillshade_rgba(bf: Battlefield) -> tuple[np.ndarray, list[list[float]]]:
    shade = hillshade(bf.layer("elevation"), bf.res)
    w = warp_to_web_mercator(shade, bf.transform, bf.crs, categorical=False)
    a = w.array
    valid = np.isfinite(a)
    grey = np.where(valid, 70 + 185 * np.nan_to_num(a), 0).astype(np.uint8)
    rgba = np.dstack([grey, grey, grey, np.where(valid, 255, 0).astype(np.uint8)])
    return rgba, w.latlon_bounds


def _class_rgba(
    bf: Battlefield, layer: str, colours: dict[int, str]
) -> tuple[np.ndarray, list[list[float]]]:
    w = warp_to_web_mercator(
        bf.layer(layer).astype(np.float32), bf.transform, bf.crs, categorical=True
    )
    return classes_to_rgba(w.array, colours), w.latlon_bounds


def _slopes_rgba(bf: Battlefield, pal: TerrainPalette) -> tuple[np.ndarray, list[list[float]]]:
    """The ruleset's DEM slope classes (medieval-d10's gentle and steep slopes) as a shade,
    the steeper the darker (translucent: the terrain classes show through)."""
    codes = pal.slope_codes(bf.layer("slope")).astype(np.float32)
    w = warp_to_web_mercator(codes, bf.transform, bf.crs, categorical=True)
    colours = {k: style.colour for k, (_, style) in enumerate(pal.slopes, start=1)}
    return classes_to_rgba(w.array, colours), w.latlon_bounds


def level_colours(bf: Battlefield) -> dict[int, str]:
    """Colour per height level present, pale (low) to brown (high)."""
    lv = bf.layer("level")
    lo, hi = int(lv.min()), int(lv.max())
    return {k: level_colour(k - lo, hi - lo) for k in range(lo, hi + 1)}


def _levels_rgba(bf: Battlefield) -> tuple[np.ndarray, list[list[float]]]:
    lv = bf.layer("level").astype(np.float32)
    lo = float(lv.min())
    colours = {int(k - lo): c for k, c in level_colours(bf).items()}
    w = warp_to_web_mercator(lv - lo, bf.transform, bf.crs, categorical=True)
    rgba = classes_to_rgba(w.array, colours)
    rgba[..., 3] = np.where(rgba[..., 3] > 0, 150, 0)
    return rgba, w.latlon_bounds


class Legend(MacroElement):
    """A fixed legend box (plain HTML, no jQuery or Bootstrap needed)."""

    def __init__(self, body: str) -> None:
        super().__init__()
        self._name = "Legend"
        self.body = body
        self._template = Template(
            "{% macro html(this, kwargs) %}"
            '<div class="sb-legend" style="position:absolute;bottom:28px;right:10px;z-index:1000;'
            "background:rgba(255,255,255,.92);padding:6px 9px;border-radius:4px;"
            'font:12px/1.35 sans-serif;box-shadow:0 1px 4px rgba(0,0,0,.3);max-width:240px">'
            "{{ this.body }}</div>"
            "{% endmacro %}"
        )


def _swatch(colour: str, label: str) -> str:
    return (
        f'<div><span style="display:inline-block;width:14px;height:10px;margin-right:5px;'
        f'border:1px solid #555;background:{colour}"></span>{html.escape(label)}</div>'
    )


def source_names(meta: dict[str, Any]) -> list[str]:
    """Short names of a battlefield's sources (attribution or kind + file name).

    >>> source_names({"sources": [{"kind": "dem", "path": "/x/dem.tif"}, "OSM"]})
    ['dem: dem.tif', 'OSM']
    """
    out = []
    for src in meta.get("sources") or []:
        if isinstance(src, dict):
            label = src.get("attribution") or src.get("name")
            if not label:
                label = f"{src.get('kind', 'source')}: {Path(str(src.get('path', '?'))).name}"
            out.append(str(label))
        else:
            out.append(str(src))
    return out


def _line_swatch(colour: str, width: float, dash: str | None, label: str) -> str:
    style = "dashed" if dash and dash.split()[0] != "2" else ("dotted" if dash else "solid")
    return (
        f'<div><span style="display:inline-block;width:18px;height:0;margin:0 5px 3px 0;'
        f'border-top:{max(width, 1.5):g}px {style} {colour}"></span>{html.escape(label)}</div>'
    )


def legend_html(bf: Battlefield, kinds: set[FeatureKind] | None = None) -> str:
    """The legend's HTML: the ground's terrain classes (its ruleset's own: movement and cover
    for 2mm Earth, the TERRAIN CHART's terrain and cover for medieval-d10 ...) and slope
    classes, the level ramp, the step height, and the roads, walls and streams drawn
    (``kinds``)."""
    pal = terrain_palette(bf)
    parts = []
    if pal.ruleset:
        parts.append(f'<div class="sb-ruleset"><i>{html.escape(pal.ruleset)}</i></div>')
    for role in ("move", "cover"):
        parts.append(f"<b>{html.escape(pal.title(role))}</b>")
        present = set(np.unique(bf.layer(role)).tolist())
        for style in pal.classes[role]:
            if style.code in present:
                parts.append(_swatch(style.colour if style.drawn else "#ffffff", style.label))
    if pal.slopes:
        present = set(np.unique(pal.slope_codes(bf.layer("slope"))).tolist())
        shown = [k for k in range(1, len(pal.slopes) + 1) if k in present]
        if shown:
            parts.append(
                f"<b>Slopes ({html.escape(pal.cite('move'))}, from the DEM)</b>"
                '<div style="color:#555;font-size:10px">a layer, off at first</div>'
            )
            for k in shown:
                parts.append(_swatch(pal.slopes[k - 1][1].colour, pal.slope_label(k)))
    cols = level_colours(bf)
    lo, hi = min(cols), max(cols)
    parts.append(f"<b>Height levels (6.2)</b><div>{lo} .. {hi}, step {bf.step:g} m</div>")
    ramp = ",".join(cols[k] for k in sorted(cols))
    parts.append(
        f'<div style="height:10px;border:1px solid #555;background:linear-gradient(90deg,{ramp})">'
        "</div>"
    )
    if kinds:
        parts.append("<b>On the ground</b>")
        for kind in FeatureKind:
            if kind in kinds:
                parts.append(_line_swatch(*LINE_STYLES[kind], kind.value.replace("_", " ")))
    names = source_names(bf.meta)
    if names:
        parts.append(
            '<div style="margin-top:4px;color:#555;font-size:10px">'
            + html.escape("; ".join(names[:5]))
            + "</div>"
        )
    return "".join(parts)


Label = tuple[float, float, str, str, float]  # lat, lon, text, class, priority


@dataclass(frozen=True)
class _Lines:
    """A base-map line layer drawn once: its GeoJSON (EPSG:4326) and its text labels."""

    geojson: str | None
    labels: list[Label]
    kinds: frozenset[FeatureKind] = frozenset()


def _draw_contours(bf: Battlefield) -> _Lines | None:
    """The print's smoothed contours (``maps.vectors.outline_contours``: the level outlines'
    edges, never cell staircases), labelled by level; the labels are decluttered in the page."""
    import geopandas as gpd

    grid = steepness(bf)
    lat = float(np.mean(bf.bounds_lonlat()[1::2]))
    # each level's line cut where the slope changes how thinly it is drawn, with the zoom the
    # run shows from (maps.contour_thinning): steep ground keeps only its index contours
    rows = [
        {"level": k, "elevation": _level_base_m(bf, k), "z": z, "geometry": run}
        for k, line in outline_contours(bf, level_outlines(bf))
        for run, z in web_runs(bf, k, line.simplify(bf.res / 8), grid, lat)
    ]
    if not rows:
        return None
    lines = gpd.GeoDataFrame(rows, columns=["level", "elevation", "z", "geometry"], crs=bf.crs)
    lines = lines[~lines.geometry.is_empty]
    geo = lines.to_crs("EPSG:4326")
    # candidates on the longest pieces first; the page hides any that would overlap, and any
    # whose run is not drawn at the zoom
    pieces: list[tuple[float, int, int, Any]] = []
    for level, z, geom in zip(lines["level"], lines["z"], lines.geometry, strict=True):
        for p in getattr(geom, "geoms", [geom]):
            if p.length > 8 * bf.res:
                pieces.append((p.length, int(level), int(z), p))
    pieces.sort(key=lambda t: -t[0])
    labels: list[Label] = []
    for _length, level, z, p in pieces[:MAX_CONTOUR_LABELS]:
        for frac in (0.5,) if p.length < 60 * bf.res else (0.25, 0.75):
            pt = p.interpolate(frac, normalized=True)
            _label(labels, bf, pt.x, pt.y, str(level), f"sb-contour-label sb-from-z{z}", 1.0)
    return _Lines(geo.to_json(), labels)


def _add_contours(m: folium.Map, drawn: _Lines | None) -> None:
    if drawn is None:
        return
    group = folium.FeatureGroup(name="Contours (height levels)", show=True)
    lines = folium.GeoJson(
        drawn.geojson,
        style_function=lambda f: {
            "color": "#4e342e",
            "weight": 1.6 if int(f["properties"]["level"]) % 5 == 0 else 0.8,
            "opacity": 0.8,
        },
        tooltip=folium.GeoJsonTooltip(fields=["level", "elevation"], aliases=["level", "base (m)"]),
        name="contours",
    )
    lines.add_to(group)
    group.add_to(m)
    _emit_labels(m, group, drawn.labels)
    # a run (and its label) is drawn from its zoom on (maps.contour_thinning); before the
    # labels' declutter, which runs on the next frame
    m.add_child(
        _MapScript(
            f"(function (map, lines) {{ function thin() {{ var z = map.getZoom();"
            " lines.eachLayer(function (l) { l.setStyle({ stroke: l.feature.properties.z <= z });"
            " });"
            " map.getContainer().querySelectorAll('.sb-contour-label').forEach(function (e) {"
            " var m = /sb-from-z(\\d+)/.exec(e.className);"
            " e.style.display = m && +m[1] > z ? 'none' : ''; }); }"
            " map.on('zoomend overlayadd', thin); thin(); })"
            f"({m.get_name()}, {lines.get_name()});"
        )
    )


def _level_base_m(bf: Battlefield, k: int) -> float:
    base = bf.meta.get("level_base_m")
    return round(float(base) + k * bf.step, 1) if isinstance(base, (int, float)) else float("nan")


def _label(
    labels: list[Label], bf: Battlefield, x: float, y: float, text: str, cls: str, prio: float
) -> None:
    """A text label centred on (x, y) map metres, decluttered by ``labels.js``."""
    lon, lat = bf.to_lonlat(x, y)
    labels.append((round(float(lat), 7), round(float(lon), 7), html.escape(text), cls, prio))


def _emit_labels(m: folium.Map, layer: Any, labels: list[Label]) -> None:
    """Every label of ``layer`` made in the page by one loop over a JSON list: one folium Marker
    each would compile a template per label (seconds for a few thousand)."""
    if not labels:
        return
    data = json.dumps(labels, separators=(",", ":"), ensure_ascii=False).replace("</", "<\\/")
    m.add_child(
        _MapScript(
            f"{data}.forEach(function (a) {{ L.marker([a[0], a[1]], {{interactive: false, "
            "keyboard: false, icon: L.divIcon({className: 'sb-label-icon', iconSize: [0, 0], "
            "iconAnchor: [0, 0], html: '<div class=\"sb-label ' + a[3] + '\" data-prio=\"' + "
            f"a[4] + '\">' + a[2] + '</div>'}})}}).addTo({layer.get_name()}); }});"
        )
    )


def _draw_features(bf: Battlefield) -> _Lines | None:
    """Roads, tracks, walls, hedges, rivers and streams as lines, and the names of places and
    roads from the battlefield's vector sources (``maps.features``), with the kinds drawn."""
    import geopandas as gpd

    feats = ground_features(bf)
    if not feats:
        return None
    lines = [f for f in feats if f.kind is not FeatureKind.PLACE]
    kinds = frozenset(f.kind for f in lines)
    geojson = None
    if lines:
        geojson = (
            gpd.GeoDataFrame(
                {
                    "kind": [f.kind.value for f in lines],
                    "name": [f.name or f.kind.value for f in lines],
                    "geometry": [f.geometry.simplify(bf.res / 8) for f in lines],
                },
                crs=bf.crs,
            )
            .to_crs("EPSG:4326")
            .to_json()
        )
    seen: set[str] = set()
    labels: list[Label] = []
    named = sorted((f for f in feats if f.name), key=lambda f: f.kind is not FeatureKind.PLACE)
    for f in named:
        name = short_name(str(f.name))
        if name in seen:
            continue
        seen.add(name)
        p = label_point(f.geometry)
        place = f.kind is FeatureKind.PLACE
        _label(
            labels,
            bf,
            p.x,
            p.y,
            name,
            "sb-place-label" if place else "sb-road-label",
            2.0 if place else 1.5,
        )
    return _Lines(geojson, labels, kinds)


def _add_features(m: folium.Map, drawn: _Lines | None) -> set[FeatureKind]:
    """The drawn roads, walls and names on ``m``; returns the kinds drawn (for the legend)."""
    if drawn is None:
        return set()
    group = folium.FeatureGroup(name="Roads, walls and names", show=True)
    if drawn.geojson is not None:
        styles = {k.value: v for k, v in LINE_STYLES.items()}
        folium.GeoJson(
            drawn.geojson,
            style_function=lambda f: {
                "color": styles[f["properties"]["kind"]][0],
                "weight": styles[f["properties"]["kind"]][1],
                "dashArray": styles[f["properties"]["kind"]][2],
                "opacity": 0.9,
            },
            tooltip=folium.GeoJsonTooltip(fields=["name"], labels=False),
            name="roads",
        ).add_to(group)
    group.add_to(m)
    _emit_labels(m, group, drawn.labels)
    return set(drawn.kinds)


@dataclass(frozen=True)
class BaseMap:
    """Everything a page of one battlefield shows under its own layers, drawn once: the rasters
    warped and encoded, the contours and the roads as GeoJSON with their labels. The demo's two
    pages (terrain map and playback) share one (:func:`draw_base_map`)."""

    overlays: tuple[_Overlay, ...]
    contours: _Lines | None
    features: _Lines | None


def draw_base_map(bf: Battlefield) -> BaseMap:
    """Draw ``bf``'s base map (what :func:`battlefield_map` puts on every page)."""
    overlays = [
        _drawn("Hillshade", _hillshade_rgba(bf), show=True, online_opacity=0.55),
        _drawn("Height levels (6.2)", _levels_rgba(bf), show=True, opacity=0.6),
    ]
    pal = terrain_palette(bf)  # the ruleset's own classes (bf may be Ruleset.ground's view)
    if pal.slopes:
        # off at first: on a rolling battlefield the hatching would cover the height tints
        # that already show the hills; the layer control switches it on
        name = f"Slopes ({pal.cite('move')})"
        overlays.append(_drawn(name, _slopes_rgba(bf, pal), show=False))
    for role, show, opacity in (("move", True, 0.75), ("cover", False, 0.6)):
        word, cite = pal.headings[role]
        rgba_bounds = _class_rgba(bf, role, pal.colours(role))
        overlays.append(_drawn(f"{word} classes ({cite})", rgba_bounds, show=show, opacity=opacity))
    return BaseMap(tuple(overlays), _draw_contours(bf), _draw_features(bf))


LABEL_CSS = (
    "<style>.sb-label-icon{background:none;border:none}"
    ".sb-label{position:absolute;transform:translate(-50%,-50%);white-space:nowrap;"
    "pointer-events:none;font:bold 10px sans-serif;text-shadow:0 0 2px #fff,0 0 2px #fff,"
    "0 0 3px #fff}"
    ".sb-contour-label{color:#4e342e}"
    ".sb-place-label{color:#111;font:bold 12px serif;font-style:italic}"
    ".sb-road-label{color:#4e342e;font:italic 11px serif}"
    ".sb-form-label{font:bold 11px sans-serif}</style>"
)


def battlefield_map(
    bf: Battlefield,
    *,
    offline: bool = True,
    title: str | None = None,
    fit: bool = True,
    base: BaseMap | None = None,
) -> folium.Map:
    """A folium map of ``bf``: overlays, contours, legend, layer control, scale bar, measuring.

    ``fit=False`` leaves the first view to the caller: a page that fits its own view (the
    playback) must not start a second, animated fit that its own interrupts, or Leaflet keeps
    the vector layers projected for the abandoned zoom (contours clipped away). ``base``: the
    base map already drawn (:func:`draw_base_map`), for a second page of the same ground.
    """
    from branca.element import Element

    west, south, east, north = bf.bounds_lonlat()
    m = folium.Map(
        location=[(south + north) / 2, (west + east) / 2],
        tiles=None,
        control_scale=True,
        max_zoom=19,
        min_zoom=8,
        prefer_canvas=False,
        zoom_snap=0.25,  # fit the battlefield (or the armies) to the window, not a power of 2
        zoom_delta=0.5,
    )
    make_offline(m)  # Leaflet is inlined always: the page never needs a network to work
    if not offline:  # tiles are an option on top, never required
        folium.TileLayer("OpenStreetMap", name="OpenStreetMap", max_zoom=19).add_to(m)
        folium.TileLayer("OpenTopoMap", name="OpenTopoMap", max_zoom=17, show=False).add_to(m)
    root_figure(m).header.add_child(Element(LABEL_CSS), name="sb_label_css")
    root_figure(m).header.add_child(Element(inline_script(asset("labels.js"))), name="sb_labels_js")
    if title:
        root_figure(m).header.add_child(
            Element(f"<title>{html.escape(title)}</title>"), name="title"
        )
    if base is None:
        base = draw_base_map(bf)
    for o in base.overlays:
        _overlay(m, o, offline=offline)
    _add_contours(m, base.contours)
    kinds = _add_features(m, base.features)
    m.add_child(Legend(legend_html(bf, kinds)))
    add_measure_tool(m)
    folium.LayerControl(collapsed=True).add_to(m)
    if fit:
        m.fit_bounds([[south, west], [north, east]])
    m.add_child(_MapScript(f"SBLabels.attach({m.get_name()});"))
    return m


def write_html(m: folium.Map, out: str | os.PathLike[str]) -> Path:
    """Render ``m`` and write it atomically (readable by others, like any web page)."""
    out = Path(out)
    page = root_figure(m).render()
    with atomic_path(out) as tmp:
        tmp.write_text(page, encoding="utf-8")
        os.chmod(tmp, 0o644)
    return out


def write_battlefield_map(
    bf_dir: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    offline: bool = True,
    ground: Any = None,
) -> Path:
    """``scenario-builder map BATTLEFIELD_DIR``: load, draw, write. ``ground(bf)``: the
    battlefield as a ruleset reads it (``map --ruleset``)."""
    bf = Battlefield.load(Path(bf_dir))
    if ground is not None:
        bf = ground(bf)
    slug = bf.meta.get("slug") or Path(bf_dir).name
    return write_html(battlefield_map(bf, offline=offline, title=f"{slug} battlefield"), out)
