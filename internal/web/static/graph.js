// The graph page: loads the neighbourhood JSON named by #cy[data-src] and
// draws it with cytoscape.js. Activating a contract or party opens it.
"use strict";
(function () {
  const box = document.getElementById("cy");
  if (!box || typeof cytoscape !== "function") return;
  const colors = { contract: "#2456c9", party: "#d9822b", location: "#1f7a3d", clause: "#8e44ad" };
  fetch(box.dataset.src, { headers: { "Accept": "application/json" } })
    .then(function (r) { if (!r.ok) throw new Error("HTTP " + r.status); return r.json(); })
    .then(function (g) {
      const elements = [];
      for (const n of g.nodes) elements.push({ group: "nodes", data: { id: n.id, label: n.label, kind: n.kind, href: n.href || "" } });
      for (const e of g.edges) elements.push({ group: "edges", data: { id: e.id, source: e.source, target: e.target, label: e.role ? e.label + " (" + e.role + ")" : e.label } });
      const cy = cytoscape({
        container: box,
        elements: elements,
        wheelSensitivity: 0.3,
        style: [
          { selector: "node", style: {
            "background-color": function (n) { return colors[n.data("kind")] || "#888"; },
            "label": "data(label)", "font-size": 10, "text-wrap": "ellipsis", "text-max-width": 140,
            "text-valign": "bottom", "text-margin-y": 4, "width": 22, "height": 22, "color": "#1d2330", "min-zoomed-font-size": 6 } },
          { selector: "node[kind = 'contract']", style: { "shape": "round-rectangle", "width": 30, "height": 30 } },
          { selector: "node[kind = 'clause']", style: { "shape": "diamond", "width": 16, "height": 16, "font-size": 8 } },
          { selector: "node[href != '']", style: { "border-width": 2, "border-color": "#17213a" } },
          { selector: "edge", style: { "width": 1.5, "line-color": "#b8bfcc", "target-arrow-color": "#b8bfcc",
            "target-arrow-shape": "triangle", "curve-style": "bezier", "label": "data(label)", "font-size": 7,
            "color": "#5b6474", "text-rotation": "autorotate" } },
        ],
        layout: { name: "preset" },
      });
      // Rings around the best-connected node (the contract, or the party
      // of a party graph): its neighbours first, their locations outside.
      const root = cy.nodes().max(function (n) { return n.degree(); }).ele;
      cy.layout({ name: "breadthfirst", circle: true, roots: root, spacingFactor: 2.4, avoidOverlap: true, padding: 30, animate: false }).run();
      if (cy.zoom() > 1.6) { cy.zoom(1.6); cy.center(); }
      cy.on("tap", "node", function (evt) {
        const href = evt.target.data("href");
        if (href) window.location.href = href;
      });
      box.dataset.ready = "true";
    })
    .catch(function (err) {
      box.textContent = "Could not load the graph: " + err.message;
    });
})();
