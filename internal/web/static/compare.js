// The clause comparison: a key-term chip of a group marks that kind of
// term (cap, notice, amount...) in the group's clauses, so that the
// figures behind its median are easy to find. Without JavaScript the
// terms are still marked in the text, only not singled out.
"use strict";
(function () {
  document.addEventListener("click", function (ev) {
    const chip = ev.target.closest(".term-chip");
    if (!chip) return;
    const group = chip.closest(".compare-group");
    if (!group) return;
    const on = chip.getAttribute("aria-pressed") !== "true";
    group.querySelectorAll(".term-chip").forEach(function (c) {
      c.setAttribute("aria-pressed", "false");
      c.classList.remove("active");
    });
    group.querySelectorAll("mark.term").forEach(function (m) {
      m.classList.toggle("active", on && m.dataset.kind.split(" ").includes(chip.dataset.kind));
    });
    if (on) {
      chip.setAttribute("aria-pressed", "true");
      chip.classList.add("active");
      const first = group.querySelector("mark.term.active");
      if (first) {
        const members = first.closest("details");
        if (members) members.open = true;
      }
    }
  });
})();
