/* Label decluttering for scenario-builder maps (this project's own; needs only Leaflet).
   Every label is an element with class "sb-label" and a priority in data-prio (formations 3,
   plus a thousandth a base shown, places 2, roads 1.5, contours 1). After each zoom or pan, labels are shown in priority order
   (then page order: longer contours first) and any label whose box would touch one already
   shown is hidden, so no two labels ever overlap. */
var SBLabels = (function () {
  "use strict";
  var GAP = 3; // px of clear space kept between two labels

  function declutter(map) {
    var els = Array.prototype.slice.call(map.getContainer().querySelectorAll(".sb-label"));
    els.forEach(function (el, i) { el._sbOrder = i; el.style.visibility = ""; });
    els.sort(function (a, b) {
      return (parseFloat(b.dataset.prio || "0") - parseFloat(a.dataset.prio || "0")) || (a._sbOrder - b._sbOrder);
    });
    var kept = [], view = map.getContainer().getBoundingClientRect();
    els.forEach(function (el) {
      var r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) return; // its layer is off
      if (r.right < view.left || r.left > view.right || r.bottom < view.top || r.top > view.bottom) return;
      for (var k = 0; k < kept.length; k++) {
        var q = kept[k];
        if (r.left < q.right + GAP && r.right + GAP > q.left && r.top < q.bottom + GAP && r.bottom + GAP > q.top) {
          el.style.visibility = "hidden";
          return;
        }
      }
      kept.push(r);
    });
    return kept.length;
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
