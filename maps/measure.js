/* A small distance-measuring control for Leaflet (this project's own; works offline).
   Click "Measure", then click points on the map; the running length in metres shows in the
   control (ground distance on the WGS84 ellipsoid approximation Leaflet uses). Double-click or
   press the button again to stop; "Clear" removes the line. */
(function () {
  "use strict";
  L.Control.MeasureDistance = L.Control.extend({
    options: { position: "topleft" },
    onAdd: function (map) {
      var div = L.DomUtil.create("div", "leaflet-bar sb-measure");
      var btn = L.DomUtil.create("a", "sb-measure-btn", div);
      btn.href = "#"; btn.title = "Measure a distance"; btn.innerHTML = '<svg width="18" height="18" viewBox="0 0 18 18" style="vertical-align:middle"><path d="M1 12 L12 1 L17 6 L6 17 Z" fill="none" stroke="#333" stroke-width="1.5"/><path d="M5 8 l2 2 M8 5 l2 2 M11 2 l2 2" stroke="#333" stroke-width="1.2"/></svg>';
      btn.setAttribute("role", "button");
      var out = L.DomUtil.create("span", "sb-measure-out", div);
      var clear = L.DomUtil.create("a", "sb-measure-clear", div);
      clear.href = "#"; clear.title = "Clear the measurement"; clear.innerHTML = "&#x2715;";
      var pts = [], line = null, active = false, self = this;
      function fmt(m) { return m >= 1000 ? (m / 1000).toFixed(2) + " km" : m.toFixed(0) + " m"; }
      function total() {
        var d = 0;
        for (var i = 1; i < pts.length; i++) d += map.distance(pts[i - 1], pts[i]);
        return d;
      }
      function redraw() {
        if (line) { line.setLatLngs(pts); } else { line = L.polyline(pts, { color: "#d81b60", weight: 3, dashArray: "6 4", interactive: false }).addTo(map); }
        out.textContent = pts.length ? fmt(total()) : "";
        self.lengthMetres = total();
      }
      function onClick(e) { pts.push(e.latlng); redraw(); }
      function stop() { active = false; map.off("click", onClick); map.doubleClickZoom.enable(); L.DomUtil.removeClass(div, "sb-measure-on"); map.getContainer().style.cursor = ""; }
      function start() { active = true; pts = []; redraw(); map.on("click", onClick); map.doubleClickZoom.disable(); L.DomUtil.addClass(div, "sb-measure-on"); map.getContainer().style.cursor = "crosshair"; }
      L.DomEvent.disableClickPropagation(div);
      L.DomEvent.on(btn, "click", function (e) { L.DomEvent.preventDefault(e); if (active) stop(); else start(); });
      L.DomEvent.on(clear, "click", function (e) { L.DomEvent.preventDefault(e); pts = []; redraw(); });
      map.on("dblclick", function () { if (active) stop(); });
      this.lengthMetres = 0;
      return div;
    }
  });
  L.control.measureDistance = function (opts) { return new L.Control.MeasureDistance(opts); };
})();
