// The contract page: the text pane stays in view beside the clause list
// (position: sticky), so a clause link scrolls the pane, not the page, to
// its highlight and marks it as the current one. Without JavaScript the
// links are plain fragment links, which also work. On a scanned contract
// the boxes around a clause's words on the page images link to the clause
// too, and showing a clause marks its boxes.
"use strict";
(function () {
  const pane = document.getElementById("contract-text");
  if (!pane) return;

  function show(id, focus) {
    const mark = document.getElementById(id);
    if (!mark || !pane.contains(mark)) return false;
    for (const m of pane.querySelectorAll(".current")) m.classList.remove("current");
    // An anchor element stands for the mark right after it.
    const target = mark.classList.contains("anchor") && mark.nextElementSibling ? mark.nextElementSibling : mark;
    target.classList.add("current");
    // The same span's boxes on the scanned pages.
    for (const b of document.querySelectorAll(".scan-box.current")) b.classList.remove("current");
    for (const b of document.querySelectorAll(".scan-box[data-span]")) {
      if (b.dataset.span === id) b.classList.add("current");
    }
    const box = pane.getBoundingClientRect();
    if (box.top < 0 || box.top > window.innerHeight / 2) pane.scrollIntoView({ block: "start" });
    const rect = target.getBoundingClientRect();
    pane.scrollTop += rect.top - pane.getBoundingClientRect().top - pane.clientHeight / 4;
    if (focus) {
      target.tabIndex = -1;
      target.focus({ preventScroll: true });
    }
    return true;
  }

  document.addEventListener("click", function (e) {
    const a = e.target.closest("a[href^='#']");
    if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    const id = decodeURIComponent(a.getAttribute("href").slice(1));
    if (show(id, true)) {
      e.preventDefault();
      history.replaceState(null, "", "#" + encodeURIComponent(id));
    }
  });
  if (location.hash.length > 1) {
    const id = decodeURIComponent(location.hash.slice(1));
    // The browser has scrolled the page to the mark; bring the pane back
    // into its place and scroll the pane instead.
    if (document.getElementById(id)) {
      window.scrollTo(0, 0);
      show(id, false);
    }
  }
})();
