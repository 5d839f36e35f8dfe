// The contracts list: on a narrow screen the filter form starts folded
// away (its summary says how many filters are set), so that the results
// come first. Without JavaScript the form simply stays open.
"use strict";
(function () {
  const panel = document.getElementById("filter-panel");
  if (panel && window.matchMedia("(max-width: 640px)").matches) panel.open = false;
})();
