/* Label decluttering for scenario-builder maps (this project's own; needs only Leaflet).
   Every label is an element with class "sb-label" and a priority in data-prio (formations 3,
   plus a thousandth a base shown, places 2, roads 1.5, contours 1). After each zoom or pan, labels are shown in priority order
   (then page order: longer contours first) and any label whose box would touch one already
   shown is tried at its other places round its bases (formation names, data-near) and else
   hidden, so no two labels ever overlap. */
var SBLabels = (function () {
  "use strict";
  var GAP = 3; // px of clear space kept between two labels
  var NEAR = 14; // px a formation's name is drawn below its bases' middle (playback.js)

  function hits(r, kept) {
    for (var k = 0; k < kept.length; k++) {
      var q = kept[k];
      if (r.left < q.right + GAP && r.right + GAP > q.left && r.top < q.bottom + GAP && r.bottom + GAP > q.top) return true;
    }
    return false;
  }

  function moved(r, dx, dy) {
    return { left: r.left + dx, right: r.right + dx, top: r.top + dy, bottom: r.bottom + dy };
  }

  // where else a label with data-near (a formation's name, drawn just below its bases) may go
  // when its own place is taken: above the bases, further below or above, then beside them
  function nearby(r) {
    var w = r.right - r.left, h = r.bottom - r.top, above = -2 * NEAR, out = [];
    // rows just below and above the bases, then one to three lines further out; in each row
    // centred, then shifted half a name either way, then clear beside the bases (a crowded
    // line of battle, Flodden's English centre at zoom 13, needs the third line out)
    var rows = [0, above], cols = [0, -w / 2, w / 2, -(w / 2 + 2 * NEAR), w / 2 + 2 * NEAR];
    for (var n = 1; n <= 3; n++) rows.push(n * (h + GAP), above - n * (h + GAP));
    for (var i = 0; i < rows.length; i++) for (var j = 0; j < cols.length; j++) out.push([cols[j], rows[i]]);
    out.push([-(w / 2 + 2 * NEAR), -NEAR], [w / 2 + 2 * NEAR, -NEAR]); // level with the bases
    return out.slice(1).sort(function (a, b) { return Math.hypot(a[0], a[1]) - Math.hypot(b[0], b[1]); });
  }

  function declutter(map) {
    var els = Array.prototype.slice.call(map.getContainer().querySelectorAll(".sb-label"));
    els.forEach(function (el, i) { el._sbOrder = i; el.style.visibility = ""; el.style.transform = ""; });
    els.sort(function (a, b) {
      return (parseFloat(b.dataset.prio || "0") - parseFloat(a.dataset.prio || "0")) || (a._sbOrder - b._sbOrder);
    });
    var kept = [], view = map.getContainer().getBoundingClientRect();
    // the map's own panels and buttons first: no label half under the play panel or legend
    Array.prototype.forEach.call(map.getContainer().querySelectorAll(".leaflet-control"), function (c) {
      var r = c.getBoundingClientRect();
      if (r.width > 0 && r.height > 0) kept.push(r);
    });
    var controls = kept.length;
    els.forEach(function (el) {
      var r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) return; // its layer is off
      if (r.right < view.left || r.left > view.right || r.bottom < view.top || r.top > view.bottom) return;
      if (hits(r, kept)) {
        var alt = el.hasAttribute("data-near") ? nearby(r) : [], found = null;
        for (var a = 0; a < alt.length && !found; a++) {
          var q = moved(r, alt[a][0], alt[a][1]);
          if (q.left >= view.left && q.right <= view.right && q.top >= view.top && q.bottom <= view.bottom && !hits(q, kept)) found = alt[a];
        }
        if (!found) { el.style.visibility = "hidden"; return; }
        el.style.transform = "translate(calc(-50% + " + found[0] + "px), calc(-50% + " + found[1] + "px))";
        r = moved(r, found[0], found[1]);
      }
      kept.push(r);
    });
    return kept.length - controls;
  }

  function attach(map) {
    var pending = null;
    function run() {
      if (pending) cancelAnimationFrame(pending);
      pending = requestAnimationFrame(function () { pending = null; declutter(map); });
    }
    map.on("zoomend moveend overlayadd overlayremove", run);
    run();
    return run;
  }

  return { declutter: declutter, attach: attach };
})();
