/* Battle playback for scenario-builder maps (this project's own code; needs only Leaflet).
   Reads the JSON block #sb-playback-data written by maps/playback.py and draws it on a Leaflet
   map: one polygon per base, moved and restyled on every step. */
var SBPlayback = (function () {
  "use strict";

  function project(P) {
    // battlefield metres -> [lat, lon] with the cubic fitted in maps/reproject.py (same term order)
    return function (x, y) {
      var u = (x - P.cx) / P.s, v = (y - P.cy) / P.s, lon = 0, lat = 0, k = 0;
      for (var i = 0; i < 4; i++) {
        for (var j = 0; j < 4 - i; j++) {
          var t = Math.pow(u, i) * Math.pow(v, j);
          lon += P.lon[k] * t; lat += P.lat[k] * t; k++;
        }
      }
      return [lat, lon];
    };
  }

  function esc(s) {
    return String(s).replace(/[&<>"]/g, function (c) { return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]; });
  }

  var MORALE = { s: "steady", r: "retreating", R: "routing", D: "destroyed", "-": "not on the field" };
  var STATE = { o: "ok", i: "injured", d: "dead", "-": "absent" };
  // marker colours for events drawn at a formation (maps/playback.py MARK_EVENTS); others purple
  var MARK = { panic_test: "#ffeb3b", rout: "#000000", retreat: "#ff9800", rally: "#4caf50",
    destroyed: "#616161", killed: "#b71c1c", wing_split: "#03a9f4", brigade_merge: "#03a9f4",
    order_refused: "#e91e63", order_roll: "#ffffff", ladder: "#795548", temperament_change: "#9c27b0" };

  function start(map) {
    var D = JSON.parse(document.getElementById("sb-playback-data").textContent);
    var P = D.proj, ll = project(P), B = D.bases, n = B.id.length, sides = D.sides;
    var cur = 0, view = -1, timer = null;
    // own panes, so a base restyled and re-added never covers a character ring or an event
    [["sbBases", 410], ["sbFront", 415], ["sbChars", 420], ["sbMsg", 430], ["sbEv", 440]].forEach(function (p) {
      if (!map.getPane(p[0])) map.createPane(p[0]).style.zIndex = p[1];
    });
    var gBases = L.layerGroup().addTo(map), gFront = L.layerGroup().addTo(map);
    var gChars = L.layerGroup().addTo(map), gMsg = L.layerGroup().addTo(map), gEv = L.layerGroup().addTo(map);
    var fronts = sides.map(function (s) { return L.polyline([], { pane: "sbFront", color: "#111", weight: 2.5, opacity: 0.9, interactive: false }).addTo(gFront); });
    var polys = new Array(n), chars = {};

    function corners(x, y, f, w, d) {
      // facing f degrees clockwise from grid north is the way the front (width w) faces
      var r = f * Math.PI / 180, fx = Math.sin(r), fy = Math.cos(r), rx = Math.cos(r), ry = -Math.sin(r);
      var hw = w / 2, hd = d / 2;
      return [
        [x + fx * hd - rx * hw, y + fy * hd - ry * hw], [x + fx * hd + rx * hw, y + fy * hd + ry * hw],
        [x - fx * hd + rx * hw, y - fy * hd + ry * hw], [x - fx * hd - rx * hw, y - fy * hd - ry * hw]
      ];
    }

    function style(i, st, morale, died) {
      // a white edge keeps a base readable on any tint (a green army in green woods)
      var col = sides[B.s[i]].colour;
      var s = { color: small ? "#222" : "#fff", fillColor: col, weight: small ? 0.5 : 1, opacity: 1, fillOpacity: 0.85, dashArray: null };
      if (st === "i") { s.fillOpacity = 0.4; s.weight = 1.5; s.color = col; }
      if (morale === "r") { s.dashArray = "5 3"; s.fillOpacity *= 0.8; }
      if (morale === "R") { s.dashArray = "2 3"; s.fillOpacity = 0.15; s.color = "#000"; }
      if (morale === "D" || died) { s.color = "#555"; s.fillColor = "#999"; s.fillOpacity = 0.25; s.dashArray = "1 3"; }
      return s;
    }

    function formOf(b, i) {
      // a base may join a wing split off during the battle (4.2): the bound says so
      return b.f && b.f[i] !== undefined ? b.f[i] : B.f[i];
    }

    function popup(i) {
      var b = D.bounds[cur], st = b.s[i], fi = formOf(b, i);
      var f = fi >= 0 ? D.forms[fi] : null;
      return "<b>" + esc(B.id[i]) + "</b> (" + esc(sides[B.s[i]].name) + ")<br>" +
        (f ? "formation " + esc(f.name) + ": " + esc(MORALE[b.m[fi]] || "?") + "<br>" : "") +
        esc(B.u[i] || "") + ", " + B.w[i] + " x " + B.d[i] + " m, state " + esc(STATE[st]) +
        (B.c[i] ? "<br>character: " + esc(B.c[i]) : "");
    }

    for (var i = 0; i < n; i++) {
      polys[i] = L.polygon([[0, 0], [0, 0], [0, 0]], { pane: "sbBases", className: "sb-base sb-side-" + B.s[i] });
      polys[i].bindPopup((function (k) { return function () { return popup(k); }; })(i));
      if (B.c[i]) {
        chars[i] = L.circleMarker([0, 0], { pane: "sbChars", radius: 6, color: "#ffd600", weight: 3, fill: false, className: "sb-character" });
        chars[i].bindTooltip("character: " + esc(B.c[i]));
      }
    }

    function visibleSet(b) {
      if (view < 0 || !D.fog) return null;
      var v = b.v[sides[view].id] || [], set = {};
      for (var k = 0; k < v.length; k++) set[v[k]] = true;
      return set;
    }

    function shows(i, b, vis) {
      return vis === null || B.s[i] === view || vis[i] === true;
    }

    var small = false;
    function basePx() {
      // screen pixels of a 40 m frontage at the map's centre (web mercator)
      var lat = map.getCenter().lat * Math.PI / 180;
      return 40 / (40075016.686 * Math.cos(lat) / Math.pow(2, map.getZoom() + 8));
    }

    function draw(k) {
      cur = Math.max(0, Math.min(D.bounds.length - 1, k));
      small = basePx() < 14;
      fronts.forEach(function (pl) { pl.setStyle({ weight: small ? 1.2 : 2.5 }); });
      var b = D.bounds[cur], prev = cur > 0 ? D.bounds[cur - 1] : null, vis = visibleSet(b);
      var frontLines = sides.map(function () { return []; });
      for (var i = 0; i < n; i++) {
        var st = b.s[i], died = st === "d" && prev && prev.s[i] !== "d" && prev.s[i] !== "-";
        var on = st !== "-" && (st !== "d" || died) && shows(i, b, vis);
        if (!on) {
          if (gBases.hasLayer(polys[i])) gBases.removeLayer(polys[i]);
          if (chars[i] && gChars.hasLayer(chars[i])) gChars.removeLayer(chars[i]);
          continue;
        }
        var x = b.p[3 * i] / 10 + P.cx, y = b.p[3 * i + 1] / 10 + P.cy, f = b.p[3 * i + 2] / 10;
        var c = corners(x, y, f, B.w[i], B.d[i]);
        polys[i].setLatLngs(c.map(function (p) { return ll(p[0], p[1]); }));
        var fi = formOf(b, i);
        polys[i].setStyle(style(i, st, fi >= 0 ? b.m[fi] : "s", died));
        if (!gBases.hasLayer(polys[i])) gBases.addLayer(polys[i]);
        if (st !== "d") frontLines[B.s[i]].push([ll(c[0][0], c[0][1]), ll(c[1][0], c[1][1])]);
        if (chars[i]) {
          chars[i].setLatLng(ll(x, y));
          if (!gChars.hasLayer(chars[i])) gChars.addLayer(chars[i]);
        }
      }
      fronts.forEach(function (pl, s) { pl.setLatLngs(frontLines[s]); });
      gMsg.clearLayers();
      b.g.forEach(function (m) {
        if (view >= 0 && m.s !== view) return;
        var pts = [];
        for (var k = 0; k < m.r.length; k += 2) pts.push(ll(m.r[k] / 10 + P.cx, m.r[k + 1] / 10 + P.cy));
        var col = sides[m.s].colour, at = ll(m.p[0] / 10 + P.cx, m.p[1] / 10 + P.cy);
        // the whole string faint, the part still to ride bold: progress at a glance
        L.polyline(pts, { pane: "sbMsg", color: "#fff", weight: 5, opacity: 0.6, interactive: false }).addTo(gMsg);
        L.polyline(pts, { pane: "sbMsg", color: col, weight: 2, dashArray: "8 6", opacity: 0.9, className: "sb-messenger" }).bindPopup(esc(m.x)).addTo(gMsg);
        L.circleMarker(pts[pts.length - 1], { pane: "sbMsg", radius: 4, color: col, weight: 2, fill: false, interactive: false }).addTo(gMsg);
        L.circleMarker(at, { pane: "sbMsg", radius: 6, color: "#fff", weight: 2, fillColor: col, fillOpacity: 1, className: "sb-messenger-at" }).bindTooltip(esc(m.x)).bindPopup(esc(m.x)).addTo(gMsg);
      });
      gEv.clearLayers();
      var lines = [];
      b.e.forEach(function (e) {
        if (view >= 0 && D.fog && e.vs && e.vs.indexOf(view) < 0) return;
        lines.push(e);
        if (e.k) {
          var kc = MARK[e.t] || "#6a1b9a";
          L.circleMarker(ll(e.k[0] / 10 + P.cx, e.k[1] / 10 + P.cy), { pane: "sbEv", radius: 7, color: "#000", weight: 1, fillColor: kc, fillOpacity: 0.9, className: "sb-event sb-event-" + e.t })
            .bindTooltip(esc(e.t.replace(/_/g, " "))).bindPopup("<b>" + esc(e.t.replace(/_/g, " ")) + "</b><br>" + esc(e.x)).addTo(gEv);
          return;
        }
        if (!e.l) return;
        var a = ll(e.l[0] / 10 + P.cx, e.l[1] / 10 + P.cy), z = ll(e.l[2] / 10 + P.cx, e.l[3] / 10 + P.cy);
        var col = e.t === "melee" ? "#ff6f00" : "#d50000";
        L.polyline([a, z], { pane: "sbEv", color: col, weight: e.t === "melee" ? 4 : 2, opacity: 0.85, dashArray: e.t === "shot" ? "3 5" : null, className: "sb-event sb-event-" + e.t })
          .bindPopup("<b>" + esc(e.t) + "</b><br>" + esc(e.x)).addTo(gEv);
      });
      updatePanel(b, lines);
    }

    // -- controls --------------------------------------------------------------------------
    var panel = L.control({ position: "bottomleft" });
    var els = {};
    panel.onAdd = function () {
      var div = L.DomUtil.create("div", "sb-playback");
      div.innerHTML =
        '<div class="sb-row"><button id="sb-prev" title="previous bound">&#9664;&#9664;</button>' +
        '<button id="sb-play" title="play / pause">&#9654;</button>' +
        '<button id="sb-next" title="next bound">&#9654;&#9654;</button>' +
        '<input id="sb-slider" type="range" min="0" max="' + (D.bounds.length - 1) + '" value="0" step="1">' +
        '<span id="sb-bound"></span></div>' +
        '<div class="sb-row"><label>view <select id="sb-side"><option value="-1">all (umpire)</option>' +
        sides.map(function (s, k) { return '<option value="' + k + '">' + esc(s.name) + " only</option>"; }).join("") +
        '</select></label> <span id="sb-losses"></span></div>' +
        '<div id="sb-result"></div><details><summary>events this bound (<span id="sb-nev">0</span>)</summary><ol id="sb-events"></ol></details>';
      L.DomEvent.disableClickPropagation(div);
      L.DomEvent.disableScrollPropagation(div);
      return div;
    };
    panel.addTo(map);
    ["sb-prev", "sb-play", "sb-next", "sb-slider", "sb-bound", "sb-side", "sb-losses", "sb-events", "sb-nev", "sb-result"].forEach(function (id) { els[id] = document.getElementById(id); });

    function updatePanel(b, lines) {
      els["sb-slider"].value = cur;
      els["sb-bound"].textContent = "bound " + b.b + " (" + (cur + 1) + "/" + D.bounds.length + ")";
      els["sb-losses"].innerHTML = "losses: " + sides.map(function (s) {
        return '<span style="color:' + esc(s.colour) + '">' + esc(s.name) + " " + (b.l[s.id] || 0) + "</span>";
      }).join(", ");
      els["sb-nev"].textContent = lines.length;
      els["sb-events"].innerHTML = lines.map(function (e) { return "<li>" + esc(e.x) + "</li>"; }).join("");
      // written by playback.py (result_text): the result, or "deployment (bound 0): not fought"
      els["sb-result"].textContent = (D.resultText && cur === D.bounds.length - 1) ? D.resultText : "";
    }

    function stop() { if (timer) { clearInterval(timer); timer = null; } els["sb-play"].innerHTML = "&#9654;"; }
    function play() {
      if (cur >= D.bounds.length - 1) draw(0);
      els["sb-play"].innerHTML = "&#10073;&#10073;";
      timer = setInterval(function () { if (cur >= D.bounds.length - 1) stop(); else draw(cur + 1); }, 900);
    }
    els["sb-play"].addEventListener("click", function () { if (timer) stop(); else play(); });
    els["sb-next"].addEventListener("click", function () { stop(); draw(cur + 1); });
    els["sb-prev"].addEventListener("click", function () { stop(); draw(cur - 1); });
    els["sb-slider"].addEventListener("input", function () { stop(); draw(parseInt(this.value, 10)); });
    els["sb-side"].addEventListener("change", function () { view = parseInt(this.value, 10); draw(cur); });

    map.on("zoomend", function () { if ((basePx() < 14) !== small) draw(cur); });
    // one synchronous view change: an animated zoom here leaves vector layers mis-projected
    if (D.fit) map.fitBounds([ll(D.fit[0] / 10 + P.cx, D.fit[1] / 10 + P.cy), ll(D.fit[2] / 10 + P.cx, D.fit[3] / 10 + P.cy)], { animate: false });
    draw(0);
    return { draw: draw, current: function () { return cur; }, count: D.bounds.length, setView: function (v) { view = v; draw(cur); } };
  }

  return { start: start };
})();
