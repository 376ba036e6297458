"""Make a folium map self-contained: Leaflet inlined from the vendored npm package, no CDN.

folium links Leaflet, jQuery, Bootstrap and Font Awesome from CDNs. Our maps only need Leaflet
(the legend, the measuring tool and the playback are our own plain JS), so offline pages drop the
rest and carry Leaflet's JS and CSS inline, with the CSS's images as data URIs. The measuring tool
and its CSS are inlined in both modes so online and offline pages behave the same.

>>> import folium
>>> m = make_offline(folium.Map(tiles=None))
>>> html = m.get_root().render()
>>> "<script src=" in html, "<link " in html, "Leaflet 1.9.4" in html
(False, False, True)
"""

from __future__ import annotations

import base64
import functools
import re
from pathlib import Path

import folium
from branca.element import Element, Figure

VENDOR = Path(__file__).resolve().parent / "vendor" / "leaflet"
HERE = Path(__file__).resolve().parent


@functools.cache
def leaflet_js() -> str:
    """The vendored ``leaflet.js`` (1.9.4, from the npm registry)."""
    return (VENDOR / "leaflet.js").read_text(encoding="utf-8")


@functools.cache
def leaflet_css() -> str:
    """The vendored ``leaflet.css`` with ``url(images/x.png)`` turned into data URIs."""
    css = (VENDOR / "leaflet.css").read_text(encoding="utf-8")

    def inline(match: re.Match[str]) -> str:
        png = (VENDOR / "images" / match.group(1)).read_bytes()
        return "url(data:image/png;base64," + base64.b64encode(png).decode("ascii") + ")"

    return re.sub(r"url\(images/([\w.-]+\.png)\)", inline, css)


def asset(name: str) -> str:
    """One of this package's own browser files (``measure.js``, ``playback.css``...)."""
    return (HERE / name).read_text(encoding="utf-8")


def inline_script(js: str) -> str:
    # a literal "</script>" inside the code would end the element early
    return "<script>" + js.replace("</script", "<\\/script") + "</script>"


def inline_style(css: str) -> str:
    return "<style>" + css + "</style>"


def root_figure(m: folium.Map) -> Figure:
    """The page a map is drawn in (``get_root()`` is typed as a bare Element)."""
    root = m.get_root()
    assert isinstance(root, Figure)
    return root


def add_measure_tool(m: folium.Map) -> None:
    """Our measuring control (``measure.js``), inline, added to the map ``m``."""
    root = root_figure(m)
    root.header.add_child(Element(inline_style(asset("measure.css"))), name="sb_measure_css")
    root.header.add_child(Element(inline_script(asset("measure.js"))), name="sb_measure_js")
    m.add_child(_MapScript(f"L.control.measureDistance().addTo({m.get_name()});"))


def make_offline(m: folium.Map) -> folium.Map:
    """Strip CDN links from ``m`` and inline Leaflet; returns ``m``."""
    m.default_js = []
    m.default_css = []
    root = root_figure(m)
    root.header.add_child(Element(inline_style(leaflet_css())), name="leaflet_css_inline")
    root.header.add_child(Element(inline_script(leaflet_js())), name="leaflet_js_inline")
    return m


class _MapScript(folium.MacroElement):
    """Raw JS run in the map's script block, after the map exists."""

    def __init__(self, js: str) -> None:
        super().__init__()
        from jinja2 import Template

        self._name = "MapScript"
        self._template = Template(
            "{% macro script(this, kwargs) %}" + js.replace("{", "{{ '{' }}") + "{% endmacro %}"
        )
