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
  // event markers (maps/playback.py MARK_EVENTS): a shape and a colour each, so a panic test
  // (triangle) never looks like a character (open yellow ring) or a rout (black square)
  var MARK = { panic_test: ["tri", "#ffeb3b"], rout: ["square", "#000000"], retreat: ["diamond", "#ff9800"],
    rally: ["circle", "#4caf50"], destroyed: ["cross", "#616161"], killed: ["cross", "#b71c1c"],
    wing_split: ["circle", "#03a9f4"], brigade_merge: ["circle", "#03a9f4"], order_refused: ["diamond", "#e91e63"],
    order_roll: ["circle", "#ffffff"], ladder: ["square", "#795548"], temperament_change: ["circle", "#9c27b0"] };
  var OTHER_MARK = ["circle", "#6a1b9a"];

  function glyph(shape, fill, size) {
    // a small SVG symbol (used on the map and in the key)
    var z = size || 16, h = z / 2, d;
    if (shape === "tri") d = '<path d="M' + h + ' 1 L' + (z - 1) + " " + (z - 2) + " L1 " + (z - 2) + ' Z"/>' +
      '<text x="' + h + '" y="' + (z - 4) + '" font-size="' + (z * 0.6) + '" text-anchor="middle" font-family="sans-serif" font-weight="bold" fill="#000" stroke="none">!</text>';
    else if (shape === "square") d = '<rect x="2" y="2" width="' + (z - 4) + '" height="' + (z - 4) + '"/>';
    else if (shape === "diamond") d = '<path d="M' + h + " 1 L" + (z - 1) + " " + h + " L" + h + " " + (z - 1) + " L1 " + h + ' Z"/>';
    else if (shape === "cross") d = '<path d="M3 3 L' + (z - 3) + " " + (z - 3) + " M" + (z - 3) + " 3 L3 " + (z - 3) + '" stroke-width="3"/>';
    else d = '<circle cx="' + h + '" cy="' + h + '" r="' + (h - 2) + '"/>';
    var stroke = shape === "cross" ? fill : "#000";
    return '<svg xmlns="http://www.w3.org/2000/svg" width="' + z + '" height="' + z + '" viewBox="0 0 ' + z + " " + z +
      '" style="overflow:visible"><g fill="' + fill + '" stroke="' + stroke + '" stroke-width="1">' + d + "</g></svg>";
  }

  function start(map) {
    var D = JSON.parse(document.getElementById("sb-playback-data").textContent);
    var P = D.proj, ll = project(P), B = D.bases, n = B.id.length, sides = D.sides;
    var cur = 0, view = -1, timer = null;
    var PAL = D.palette || { shot: "#e69f00", melee: "#56b4e9" };
    var show = { shooting: true, melee: true, events: true, messengers: true, names: true };
    var single = D.bounds.length === 1; // a deployment preview: nothing to play
    // own panes, so a base restyled and re-added never covers a character ring or an event
    [["sbBases", 410], ["sbFront", 415], ["sbChars", 420], ["sbMsg", 430], ["sbEv", 440]].forEach(function (p) {
      if (!map.getPane(p[0])) map.createPane(p[0]).style.zIndex = p[1];
    });
    var gBases = L.layerGroup().addTo(map), gFront = L.layerGroup().addTo(map);
    var gChars = L.layerGroup().addTo(map), gMsg = L.layerGroup().addTo(map), gEv = L.layerGroup().addTo(map);
    if (!map.getPane("sbNames")) map.createPane("sbNames").style.zIndex = 450;
    var gNames = L.layerGroup().addTo(map), nameMarks = {};

    function drawNames(b, vis) {
      // each formation's name at the middle of its living bases (those this view shows):
      // the full name when bases are big enough to tell apart, its short form otherwise
      var acc = {};
      for (var i = 0; i < n; i++) {
        var st = b.s[i];
        if (st === "-" || st === "d" || !shows(i, b, vis)) continue;
        var fi = formOf(b, i);
        if (fi < 0) continue;
        var a = acc[fi] || (acc[fi] = [0, 0, 0]);
        a[0] += b.p[3 * i] / 10; a[1] += b.p[3 * i + 1] / 10; a[2] += 1;
      }
      var full = basePx() >= 10;
      Object.keys(nameMarks).forEach(function (k) { if (!acc[k] || !show.names) { gNames.removeLayer(nameMarks[k]); delete nameMarks[k]; } });
      if (!show.names) return;
      Object.keys(acc).forEach(function (k) {
        var a = acc[k], f = D.forms[k], col = f.s >= 0 ? sides[f.s].colour : "#333";
        var at = ll(a[0] / a[2] + P.cx, a[1] / a[2] + P.cy);
        var book = bookText(b, +k);
        // formations' names above places and contours (3), and among them the one with more
        // bases shown first: where two names would touch, the larger formation keeps its own
        var prio = 3 + Math.min(a[2], 999) / 1000;
        var text = (full ? f.name : (f.short || f.name)) + (book ? " \u00b7 " + book : "") + "|" + prio;
        var html = '<div class="sb-label sb-form-label" data-near data-prio="' + prio + '" style="color:' + esc(col) + '">' +
          esc(full ? f.name : (f.short || f.name)) + (book ? '<span class="sb-form-book"> \u00b7 ' + esc(book) + "</span>" : "") + "</div>";
        if (nameMarks[k]) { nameMarks[k].setLatLng(at); if (nameMarks[k]._sbText !== text) { nameMarks[k].setIcon(L.divIcon({ className: "sb-label-icon", html: html, iconSize: [0, 0], iconAnchor: [0, -14] })); nameMarks[k]._sbText = text; } }
        else {
          nameMarks[k] = L.marker(at, { pane: "sbNames", interactive: false, keyboard: false, icon: L.divIcon({ className: "sb-label-icon", html: html, iconSize: [0, 0], iconAnchor: [0, -14] }) }).addTo(gNames);
          nameMarks[k]._sbText = text;
        }
      });
    }
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

    function bookText(b, fi) {
      // the book's own record of a formation (dark-age: "shieldwall, 2 DP"), "" when it has none
      var parts = [];
      if (b.ft && b.ft[fi]) parts.push(b.ft[fi]);
      if (b.dp && b.dp[fi] !== null && b.dp[fi] !== undefined) parts.push(b.dp[fi] + " DP");
      // medieval-d10: "18 figures (2 lost), disordered" (maps/playback.py _figures)
      if (b.fg && b.fg[fi]) parts.push(b.fg[fi]);
      return parts.join(", ");
    }

    function popup(i) {
      var b = D.bounds[cur], st = b.s[i], fi = formOf(b, i);
      var f = fi >= 0 ? D.forms[fi] : null;
      // headed by the formation's name, as a player calls it; the base's number after it
      // (the id "sc_home.3" is the engine's, kept last for matching with the battle log)
      var num = String(B.id[i]).split(".").pop();
      return "<b>" + esc(f ? f.name : B.id[i]) + "</b>" + (f ? ", base " + esc(num) : "") +
        " (" + esc(sides[B.s[i]].name) + ")<br>" +
        (f ? esc(MORALE[b.m[fi]] || "?") +
          (bookText(b, fi) ? " (" + esc(bookText(b, fi)) + ")" : "") + "<br>" : "") +
        esc(B.u[i] || "") + ", " + B.w[i] + " x " + B.d[i] + " m, state " + esc(STATE[st]) +
        (B.c[i] ? "<br>character: " + esc(B.c[i]) : "") +
        '<br><span class="sb-base-id">' + esc(B.id[i]) + "</span>";
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
    function metresPerPx() {
      // ground metres in one screen pixel at the map's centre (web mercator)
      var lat = map.getCenter().lat * Math.PI / 180;
      return 40075016.686 * Math.cos(lat) / Math.pow(2, map.getZoom() + 8);
    }
    function basePx() {
      // screen pixels of a 40 m frontage
      return 40 / metresPerPx();
    }
    // a base is never drawn under this many pixels across (its shorter side): a 9 m figure
    // of medieval-d10 zoomed out stays a visible block, not a speck under its character ring
    var MIN_BASE_PX = 5;
    // units in contact stand a few metres apart: their melee line is drawn at least this long
    // (about its middle, same direction) so a fight reads at any zoom
    var MIN_LINE_PX = 30;
    function atLeast(a, z, px) {
      var pa = map.latLngToLayerPoint(a), pz = map.latLngToLayerPoint(z), d = pa.distanceTo(pz);
      if (d >= px) return [a, z];
      var m = pa.add(pz).divideBy(2), u = d > 0 ? pz.subtract(pa).divideBy(d) : L.point(1, 0);
      return [map.layerPointToLatLng(m.subtract(u.multiplyBy(px / 2))), map.layerPointToLatLng(m.add(u.multiplyBy(px / 2)))];
    }

    function draw(k) {
      cur = Math.max(0, Math.min(D.bounds.length - 1, k));
      small = basePx() < 14;
      var mpp = metresPerPx();
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
        var grow = Math.max(1, MIN_BASE_PX * mpp / Math.min(B.w[i], B.d[i]));
        var c = corners(x, y, f, B.w[i] * grow, B.d[i] * grow);
        polys[i].setLatLngs(c.map(function (p) { return ll(p[0], p[1]); }));
        var fi = formOf(b, i);
        polys[i].setStyle(style(i, st, fi >= 0 ? b.m[fi] : "s", died));
        if (!gBases.hasLayer(polys[i])) gBases.addLayer(polys[i]);
        if (st !== "d") frontLines[B.s[i]].push([ll(c[0][0], c[0][1]), ll(c[1][0], c[1][1])]);
        if (chars[i]) {
          chars[i].setLatLng(ll(x, y));
          // the ring fits its base as drawn: 6 px round a big base, down to 3 px round a small one
          chars[i].setRadius(Math.max(3, Math.min(6, 0.7 * Math.min(B.w[i], B.d[i]) * grow / mpp)));
          if (!gChars.hasLayer(chars[i])) gChars.addLayer(chars[i]);
        }
      }
      fronts.forEach(function (pl, s) { pl.setLatLngs(frontLines[s]); });
      gMsg.clearLayers();
      b.g.forEach(function (m) {
        if (!show.messengers || (view >= 0 && m.s !== view)) return;
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
          if (!show.events) return;
          // a book's own event names the core glyph it is drawn with (mk) and reads in words
          var mk = MARK[e.mk || e.t] || OTHER_MARK, tip = e.mk ? e.x : e.t.replace(/_/g, " ");
          L.marker(ll(e.k[0] / 10 + P.cx, e.k[1] / 10 + P.cy), { pane: "sbEv", keyboard: false,
            icon: L.divIcon({ className: "sb-event sb-event-" + e.t + " sb-glyph-" + mk[0], html: glyph(mk[0], mk[1]), iconSize: [16, 16], iconAnchor: [8, 8] }) })
            .bindTooltip(esc(tip)).bindPopup("<b>" + esc(e.mk || e.t.replace(/_/g, " ")) + "</b><br>" + esc(e.x)).addTo(gEv);
          return;
        }
        if (!e.l) return;
        // lk: the line a book's own event asks for (shot or melee); the core's by their type
        var melee = e.lk ? e.lk === "melee" : e.t === "melee" || e.t === "pursuit";
        if (melee ? !show.melee : !show.shooting) return;
        var a = ll(e.l[0] / 10 + P.cx, e.l[1] / 10 + P.cy), z = ll(e.l[2] / 10 + P.cx, e.l[3] / 10 + P.cy);
        var ends = atLeast(a, z, MIN_LINE_PX);
        a = ends[0]; z = ends[1];
        var col = melee ? PAL.melee : PAL.shot;
        // a white casing under the line: legible on any ground, whatever the armies' colours
        L.polyline([a, z], { pane: "sbEv", color: "#fff", weight: melee ? 7 : 5, opacity: 0.8, interactive: false }).addTo(gEv);
        L.polyline([a, z], { pane: "sbEv", color: col, weight: melee ? 4 : 2.5, opacity: 0.95, dashArray: melee ? null : "4 4", className: "sb-event sb-event-" + e.t + " sb-line-" + (melee ? "melee" : "shot") })
          .bindPopup("<b>" + esc(e.lk || e.t) + "</b><br>" + esc(e.x)).addTo(gEv);
      });
      drawNames(b, vis);
      updatePanel(b, lines);
      if (window.SBLabels) SBLabels.declutter(map);
      if (listOpen()) keepClear();
    }

    function listOpen() {
      return !!map.getContainer().querySelector(".sb-playback:not(.sb-collapsed) details[open]");
    }

    // An open event list (or key) makes the panel taller than the first view left room for:
    // the map moves the least that brings every base out from under the panel and the legend,
    // keeping all the bases in view that were; if no move does, the bases are fitted again.
    var clearing = false;
    function keepClear() {
      if (clearing) return;
      var cr = map.getContainer().getBoundingClientRect();
      var boxes = Array.prototype.map.call(document.querySelectorAll(".sb-playback, .sb-legend, .leaflet-control-zoom, .leaflet-control-layers"), function (e) { return e.getBoundingClientRect(); })
        .filter(function (r) { return r.width > 0 && r.height > 0; });
      var troops = Array.prototype.map.call(map.getContainer().querySelectorAll("path.sb-base"), function (e) { return e.getBoundingClientRect(); })
        .filter(function (r) { return r.width > 0 && r.right > cr.left && r.left < cr.right && r.bottom > cr.top && r.top < cr.bottom; });
      var M = 6;
      function fits(sx, sy) {
        return troops.every(function (t) {
          var l = t.left + sx, r = t.right + sx, u = t.top + sy, b = t.bottom + sy;
          if (l < cr.left || r > cr.right || u < cr.top || b > cr.bottom) return false;
          return boxes.every(function (q) { return r <= q.left || l >= q.right || b <= q.top || u >= q.bottom; });
        });
      }
      if (fits(0, 0)) return;
      // the candidate moves: each covered base just past each edge of the box over it
      var xs = [0], ys = [0];
      boxes.forEach(function (q) {
        troops.forEach(function (t) {
          if (t.left < q.right && t.right > q.left && t.top < q.bottom && t.bottom > q.top) {
            xs.push(q.right - t.left + M, q.left - t.right - M);
            ys.push(q.top - t.bottom - M, q.bottom - t.top + M);
          }
        });
      });
      var best = null;
      xs.forEach(function (sx) {
        ys.forEach(function (sy) {
          var d = Math.abs(sx) + Math.abs(sy);
          if ((best === null || d < best[2]) && fits(sx, sy)) best = [sx, sy, d];
        });
      });
      clearing = true;
      if (best) map.panBy(L.point(-best[0], -best[1]), { animate: false });
      else if (troops.length) {
        var b = null;
        troops.forEach(function (t) {
          var sw = map.containerPointToLatLng(L.point(t.left - cr.left, t.bottom - cr.top)), ne = map.containerPointToLatLng(L.point(t.right - cr.left, t.top - cr.top));
          b = b ? b.extend(sw).extend(ne) : L.latLngBounds(sw, ne);
        });
        fitClear(map, b);
      }
      clearing = false;
    }

    // -- controls --------------------------------------------------------------------------
    var panel = L.control({ position: "bottomleft" });
    var els = {};
    panel.onAdd = function () {
      var div = L.DomUtil.create("div", "sb-playback");
      var toggles = [["shooting", "shooting"], ["melee", "melee"], ["events", "events"], ["messengers", "messengers"], ["names", "names"]];
      div.innerHTML =
        '<div class="sb-row sb-head"><button id="sb-collapse" title="hide / show the panel" aria-expanded="true">&#9662;</button>' +
        (single ? '<span id="sb-bound"></span>' :
          '<button id="sb-prev" title="previous bound (left arrow)">&#9664;&#9664;</button>' +
          '<button id="sb-play" title="play / pause (space)">&#9654;</button>' +
          '<button id="sb-next" title="next bound (right arrow)">&#9654;&#9654;</button>' +
          '<input id="sb-slider" type="range" min="0" max="' + (D.bounds.length - 1) + '" value="0" step="1" aria-label="bound">' +
          '<span id="sb-bound"></span>') + "</div>" +
        '<div class="sb-body"><div class="sb-row"><label>view <select id="sb-side"><option value="-1">all (umpire)</option>' +
        sides.map(function (s, k) { return '<option value="' + k + '">' + esc(s.name) + " only</option>"; }).join("") +
        '</select></label> <span id="sb-losses"></span></div>' +
        '<div id="sb-fogline"></div>' +
        '<div class="sb-row sb-toggles">show ' + toggles.map(function (t) {
          return '<label><input type="checkbox" id="sb-show-' + t[0] + '" checked> ' + t[1] + "</label>";
        }).join(" ") + "</div>" +
        '<div id="sb-result"></div><details><summary>events this bound (<span id="sb-nev">0</span>)</summary><ol id="sb-events"></ol></details>' +
        '<details id="sb-key"><summary>key</summary>' + keyHtml() + "</details>" +
        (single ? "" : '<div class="sb-hint">keys: &larr; &rarr; step, space play/pause, Home/End</div>') + "</div>";
      L.DomEvent.disableClickPropagation(div);
      L.DomEvent.disableScrollPropagation(div);
      return div;
    };

    function keyHtml() {
      // one line per symbol drawn on this page
      var row = function (sym, text) { return '<div class="sb-key-row"><span class="sb-key-sym">' + sym + "</span>" + esc(text) + "</div>"; };
      var rect = function (fill, stroke, op, dash) {
        return '<svg width="26" height="14"><rect x="2" y="3" width="22" height="9" fill="' + fill + '" fill-opacity="' + op + '" stroke="' + stroke + '" stroke-width="1.5"' + (dash ? ' stroke-dasharray="' + dash + '"' : "") + '/><line x1="2" y1="3" x2="24" y2="3" stroke="#111" stroke-width="2.5"/></svg>';
      };
      var line = function (col, w, dash) {
        return '<svg width="26" height="14"><line x1="1" y1="7" x2="25" y2="7" stroke="#fff" stroke-width="' + (w + 3) + '"/><line x1="1" y1="7" x2="25" y2="7" stroke="' + col + '" stroke-width="' + w + '"' + (dash ? ' stroke-dasharray="' + dash + '"' : "") + "/></svg>";
      };
      var h = sides.map(function (s) { return row(rect(s.colour, "#fff", 0.85), s.name + ": base (front edge dark)"); }).join("");
      var c0 = sides.length ? sides[0].colour : "#555";
      h += row(rect(c0, c0, 0.4), "injured base") + row(rect(c0, "#fff", 0.68, "5 3"), "formation retreating") +
        row(rect(c0, "#000", 0.15, "2 3"), "formation routing") + row(rect("#999", "#555", 0.25, "1 3"), "base destroyed this bound") +
        row('<svg width="26" height="14"><circle cx="13" cy="7" r="5" fill="none" stroke="#ffd600" stroke-width="3"/></svg>', "character (open yellow ring)") +
        row(line(PAL.shot, 2.5, "4 4"), "shooting") + row(line(PAL.melee, 4), "melee, pursuit");
      var c1 = sides.length ? sides[0].colour : "#555";
      h += row('<svg width="26" height="14"><line x1="1" y1="7" x2="25" y2="7" stroke="' + c1 + '" stroke-width="2" stroke-dasharray="8 6"/><circle cx="13" cy="7" r="5" fill="' + c1 + '" stroke="#fff" stroke-width="2"/></svg>', "messenger on its route (ring: destination)");
      var seen = {};
      Object.keys(MARK).forEach(function (t) {
        var mk = MARK[t], key = mk[0] + mk[1];
        h += row(glyph(mk[0], mk[1], 14), t.replace(/_/g, " ") + (seen[key] ? "" : ""));
        seen[key] = true;
      });
      return h + row(glyph(OTHER_MARK[0], OTHER_MARK[1], 14), "other event");
    }
    panel.addTo(map);
    ["sb-prev", "sb-play", "sb-next", "sb-slider", "sb-bound", "sb-side", "sb-losses", "sb-events", "sb-nev", "sb-result", "sb-collapse", "sb-fogline"].forEach(function (id) { els[id] = document.getElementById(id); });

    function updatePanel(b, lines) {
      if (els["sb-slider"]) els["sb-slider"].value = cur;
      els["sb-bound"].textContent = single ? "deployment (bound " + b.b + ")" : "bound " + b.b + " (" + (cur + 1) + "/" + D.bounds.length + ")";
      // a side's view: its own losses, and only the enemy losses it saw fall (6.2)
      var mine = view >= 0 && b.ls ? b.ls[view] || {} : null;
      els["sb-losses"].innerHTML = "losses: " + sides.map(function (s, k) {
        var v = mine && k !== view ? (mine[s.id] || 0) + " seen" : (b.l[s.id] || 0);
        return '<span style="color:' + esc(s.colour) + '">' + esc(s.name) + " " + v + "</span>";
      }).join(", ");
      var fogged = view >= 0 && D.fog;
      map.getContainer().classList.toggle("sb-fog", fogged);
      els["sb-fogline"].textContent = !fogged ? "" : sides[view].name + "'s view" +
        (b.h ? ": " + (b.h[view] || 0) + " enemy formation" + ((b.h[view] || 0) === 1 ? "" : "s") + " hidden" : "") +
        (D.fogSource === "engine" ? " (what the battle saw)" : " (recomputed from the log)");
      els["sb-nev"].textContent = lines.length;
      els["sb-events"].innerHTML = lines.map(function (e) { return "<li>" + esc(e.x) + "</li>"; }).join("");
      // written by playback.py (result_text): the result, or "deployment (bound 0): not fought"
      els["sb-result"].textContent = (D.resultText && cur === D.bounds.length - 1) ? D.resultText : "";
    }

    function stop() { if (timer) { clearInterval(timer); timer = null; } if (els["sb-play"]) els["sb-play"].innerHTML = "&#9654;"; }
    function play() {
      if (single) return;
      if (cur >= D.bounds.length - 1) draw(0);
      els["sb-play"].innerHTML = "&#10073;&#10073;";
      timer = setInterval(function () { if (cur >= D.bounds.length - 1) stop(); else draw(cur + 1); }, 900);
    }
    function toggle() { if (timer) stop(); else play(); }
    if (!single) {
      els["sb-play"].addEventListener("click", toggle);
      els["sb-next"].addEventListener("click", function () { stop(); draw(cur + 1); });
      els["sb-prev"].addEventListener("click", function () { stop(); draw(cur - 1); });
      els["sb-slider"].addEventListener("input", function () { stop(); draw(parseInt(this.value, 10)); });
    }
    els["sb-side"].addEventListener("change", function () { view = parseInt(this.value, 10); draw(cur); });
    Object.keys(show).forEach(function (k) {
      document.getElementById("sb-show-" + k).addEventListener("change", function () { show[k] = this.checked; draw(cur); });
    });
    Array.prototype.forEach.call(document.querySelectorAll(".sb-playback details"), function (d) {
      d.addEventListener("toggle", function () { if (d.open) keepClear(); });
    });
    els["sb-collapse"].addEventListener("click", function () {
      var panelDiv = this.closest(".sb-playback"), closed = panelDiv.classList.toggle("sb-collapsed");
      this.innerHTML = closed ? "&#9656;" : "&#9662;";
      this.setAttribute("aria-expanded", closed ? "false" : "true");
    });
    // keyboard stepping anywhere on the page (not while typing in a field or choosing a view)
    document.addEventListener("keydown", function (ev) {
      var t = ev.target, tag = t && t.tagName ? t.tagName.toLowerCase() : "";
      if (tag === "select" || tag === "textarea" || (tag === "input" && t.type !== "range" && t.type !== "checkbox")) return;
      if (ev.ctrlKey || ev.metaKey || ev.altKey || single) return;
      var k = ev.key;
      if (k === "ArrowRight") { stop(); draw(cur + 1); }
      else if (k === "ArrowLeft") { stop(); draw(cur - 1); }
      else if (k === " " || k === "Spacebar") toggle();
      else if (k === "Home") { stop(); draw(0); }
      else if (k === "End") { stop(); draw(D.bounds.length - 1); }
      else return;
      ev.preventDefault();
      ev.stopPropagation(); // the map must not pan as well
    }, true);

    map.on("zoomend", function () { draw(cur); });
    // the panel filled first (its height is part of what the first view keeps clear), then
    // the view, then the bound drawn again at the view's zoom
    draw(0);
    // one synchronous view change: an animated zoom here leaves vector layers mis-projected
    if (D.fit) fitClear(map, L.latLngBounds([ll(D.fit[0] / 10 + P.cx, D.fit[1] / 10 + P.cy), ll(D.fit[2] / 10 + P.cx, D.fit[3] / 10 + P.cy)]));
    draw(0);
    return { draw: draw, current: function () { return cur; }, count: D.bounds.length, setView: function (v) { view = v; draw(cur); },
      playing: function () { return timer !== null; } };
  }

  // The boxes over the map's corners (Leaflet's controls, this page's panel among them, and
  // the legend, which sits on the page above the map) as {corner, w, h} in pixels of the map.
  function cornerBoxes(map) {
    var c = map.getContainer(), cr = c.getBoundingClientRect(), out = [];
    function add(el, corner) {
      var r = el.getBoundingClientRect();
      var l = Math.max(r.left, cr.left), t = Math.max(r.top, cr.top);
      var rr = Math.min(r.right, cr.right), b = Math.min(r.bottom, cr.bottom);
      if (rr <= l || b <= t) return; // hidden, empty or off the map
      var top = corner.charAt(0) === "t", left = corner.charAt(1) === "l";
      out.push({ top: top, left: left, w: Math.ceil(left ? rr - cr.left : cr.right - l), h: Math.ceil(top ? b - cr.top : cr.bottom - t) });
    }
    [["tl", ".leaflet-top.leaflet-left"], ["tr", ".leaflet-top.leaflet-right"], ["bl", ".leaflet-bottom.leaflet-left"], ["br", ".leaflet-bottom.leaflet-right"]].forEach(function (q) {
      c.querySelectorAll(q[1] + " > .leaflet-control").forEach(function (el) { add(el, q[0]); });
    });
    document.querySelectorAll(".sb-legend").forEach(function (el) {
      var r = el.getBoundingClientRect(), mx = (r.left + r.right) / 2, my = (r.top + r.bottom) / 2;
      add(el, (my < (cr.top + cr.bottom) / 2 ? "t" : "b") + (mx < (cr.left + cr.right) / 2 ? "l" : "r"));
    });
    return out;
  }

  // fitBounds that keeps the bounds clear of every box over a corner: each box is kept out
  // either by a margin on its side (its width) or at its end (its height), whichever way of
  // all of them lets the bounds be drawn largest (the highest zoom; the most free area on ties).
  function fitClear(map, bounds) {
    var boxes = cornerBoxes(map).slice(0, 8), size = map.getSize(), best = null;
    for (var m = 0; m < (1 << boxes.length); m++) {
      var pad = { l: 0, r: 0, t: 0, b: 0 };
      boxes.forEach(function (bx, i) {
        if (m & (1 << i)) { var k = bx.left ? "l" : "r"; pad[k] = Math.max(pad[k], bx.w); }
        else { var v = bx.top ? "t" : "b"; pad[v] = Math.max(pad[v], bx.h); }
      });
      var fw = size.x - pad.l - pad.r, fh = size.y - pad.t - pad.b;
      if (fw < 0.3 * size.x || fh < 0.3 * size.y) continue; // a sliver: not a view
      var z = map.getBoundsZoom(bounds, false, L.point(pad.l + pad.r, pad.t + pad.b)), area = fw * fh;
      if (best === null || z > best.z || (z === best.z && area > best.area)) best = { z: z, area: area, pad: pad };
    }
    var p = best ? best.pad : { l: 0, r: 0, t: 0, b: 0 };
    map.fitBounds(bounds, { paddingTopLeft: L.point(p.l, p.t), paddingBottomRight: L.point(p.r, p.b), animate: false });
    return p;
  }

  return { start: start, fitClear: fitClear };
})();
