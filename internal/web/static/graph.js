// The graph page: draws the neighbourhood in #cy with cytoscape.js, from
// the JSON embedded in the page (#graph-data) or else fetched from
// #cy[data-src]. The layout is computed here rather than by a force
// layout, so that no two labels overlap at any size: the root in the
// middle, parties and their places in columns on the left, clauses or
// contracts in columns on the right (wrapping into more columns when
// long), the governing law below, each column ordered to follow the one
// before it. Activating a node opens it (its own graph, the clause in the
// text, or a cluster's contracts).
"use strict";
(function () {
  const box = document.getElementById("cy");
  if (!box || typeof cytoscape !== "function") return;
  const colors = { contract: "#2456c9", party: "#d9822b", location: "#1f7a3d", clause: "#8e44ad", contracts: "#5b7fd6" };
  const COLUMN = 230;      // distance between columns
  const MAX_COLUMN = 640;  // a column of leaves taller than this wraps
  const GAP = 10;          // between the boxes (node and label) in a column

  function clip(s, n) { return s.length > n ? s.slice(0, n - 1) + "…" : s; }

  function size(n) {
    if (n.root) return 36;
    switch (n.kind) {
    case "contract": return 24;
    case "party": return 22;
    case "location": return 16;
    case "clause": return 12 + Math.min(n.count || 1, 12) * 1.5;
    case "contracts": return Math.min(18 + Math.sqrt(n.count || 1) * 3, 44);
    }
    return 20;
  }

  function draw(g) {
    const elements = [];
    for (const n of g.nodes) {
      let label = clip(n.label, 40);
      if (n.detail) label += "\n" + clip(n.detail, 40);
      elements.push({ group: "nodes", data: { id: n.id, label: label, kind: n.kind, href: n.href || "", size: size(n),
        root: n.root ? "yes" : "", side: n.side || "right" }, position: { x: 0, y: 0 } });
    }
    for (const e of g.edges) {
      elements.push({ group: "edges", data: { id: e.id, source: e.source, target: e.target, label: e.role ? e.label + " (" + e.role + ")" : e.label } });
    }
    const cy = cytoscape({
      container: box,
      elements: elements,
      wheelSensitivity: 0.3,
      minZoom: 0.2,
      maxZoom: 3,
      style: [
        { selector: "node", style: {
          "background-color": function (n) { return colors[n.data("kind")] || "#888"; },
          "width": "data(size)", "height": "data(size)",
          "label": "data(label)", "font-size": 11, "text-wrap": "wrap", "text-max-width": 170, "line-height": 1.2,
          "text-valign": "bottom", "text-margin-y": 3, "color": "#1d2330",
          "text-background-color": "#ffffff", "text-background-opacity": 1, "text-background-padding": 1 } },
        { selector: "node[kind = 'contract']", style: { "shape": "round-rectangle" } },
        { selector: "node[kind = 'contracts']", style: { "shape": "round-rectangle", "border-width": 3, "border-color": "#2456c9", "border-style": "double" } },
        { selector: "node[kind = 'clause']", style: { "shape": "diamond" } },
        { selector: "node[href != '']", style: { "border-width": 2, "border-color": "#17213a" } },
        { selector: "node[root = 'yes']", style: { "border-width": 4, "border-color": "#f0a202", "font-weight": "bold", "font-size": 12 } },
        { selector: "edge", style: { "width": 1.2, "line-color": "#c3c9d4", "curve-style": "straight" } },
        { selector: "node.hover", style: { "underlay-color": "#f0a202", "underlay-opacity": 0.3, "underlay-padding": 4 } },
      ],
      layout: { name: "preset" },
    });
    cy.layout({ name: "preset", positions: layout(cy), fit: true, padding: 24, animate: false }).run();
    if (cy.zoom() > 1.3) { cy.zoom(1.3); cy.center(); }
    cy.on("tap", "node", function (evt) {
      const href = evt.target.data("href");
      if (href) window.location.href = href;
    });
    cy.on("mouseover", "node[href != '']", function (evt) { evt.target.addClass("hover"); box.style.cursor = "pointer"; });
    cy.on("mouseout", "node", function (evt) { evt.target.removeClass("hover"); box.style.cursor = ""; });
    box._cy = cy; // for the browser tests
    box.dataset.ready = "true";
  }

  // layout returns a position for every node (see the comment on top).
  function layout(cy) {
    const pos = {};
    // Every node is at (0, 0) still: its box says how far it and its
    // label reach above (top, negative) and below its centre.
    const ext = {}, height = {};
    cy.nodes().forEach(function (n) {
      const bb = n.boundingBox({ includeLabels: true });
      ext[n.id()] = { top: bb.y1, bottom: bb.y2 };
      height[n.id()] = bb.h;
    });
    let root = cy.nodes("[root = 'yes']")[0];
    if (!root) root = cy.nodes().max(function (n) { return n.degree(); }).ele;
    if (!root) return pos;
    // Breadth-first depth from the root.
    const depth = {};
    depth[root.id()] = 0;
    const queue = [root];
    while (queue.length) {
      const n = queue.shift();
      n.neighborhood("node").forEach(function (m) {
        if (depth[m.id()] === undefined) { depth[m.id()] = depth[n.id()] + 1; queue.push(m); }
      });
    }
    pos[root.id()] = { x: 0, y: 0 };
    // Columns per side and depth, in the order the server listed the nodes.
    const columns = { left: [], right: [], below: [] };
    cy.nodes().forEach(function (n) {
      if (n.same(root)) return;
      let side = n.data("side");
      if (!columns[side]) side = "right";
      let d = depth[n.id()];
      if (d === undefined) d = 1 + Math.max(0, ...Object.values(depth)); // unconnected: outermost
      (columns[side][d] = columns[side][d] || []).push(n);
    });
    // The governing law and other nodes below the root: one column under it.
    let y = ext[root.id()].bottom + 3 * GAP;
    for (const col of columns.below) {
      for (const n of col || []) {
        pos[n.id()] = { x: 0, y: y - ext[n.id()].top };
        y += height[n.id()] + 2 * GAP;
      }
    }
    for (const side of ["left", "right"]) {
      const sign = side === "left" ? -1 : 1;
      let x = 0;
      for (let d = 1; d < columns[side].length; d++) {
        const col = columns[side][d];
        if (!col || !col.length) continue;
        // Order by the mean position of the neighbours already placed,
        // the first column as listed.
        const want = {};
        for (const n of col) {
          const ys = n.neighborhood("node").filter(function (m) { return pos[m.id()] && depth[m.id()] < d; }).map(function (m) { return pos[m.id()].y; });
          want[n.id()] = ys.length ? ys.reduce(function (a, b) { return a + b; }, 0) / ys.length : 0;
        }
        if (d > 1) col.sort(function (a, b) { return want[a.id()] - want[b.id()]; });
        const total = col.reduce(function (s, n) { return s + height[n.id()] + GAP; }, 0);
        const leaves = col.every(function (n) { return n.neighborhood("node").every(function (m) { return depth[m.id()] < d; }); });
        const wraps = leaves && d === 1 ? Math.max(1, Math.ceil(total / MAX_COLUMN)) : 1;
        const per = Math.ceil(col.length / wraps);
        for (let w = 0; w < wraps; w++) {
          x += COLUMN;
          const part = col.slice(w * per, (w + 1) * per);
          placeColumn(part, sign * x, want, ext, pos, d > 1);
        }
      }
    }
    return pos;
  }

  // placeColumn stacks nodes at x without overlap (ext gives each node's
  // box, label included, above and below its centre): centred on 0, or,
  // when follow is set, each as near as it can be to the position it wants.
  function placeColumn(col, x, want, ext, pos, follow) {
    const ys = [];
    for (let i = 0; i < col.length; i++) {
      const e = ext[col[i].id()];
      const wanted = follow ? want[col[i].id()] : -Infinity;
      if (i === 0) { ys.push(follow ? wanted : -e.top); continue; }
      const floor = ys[i - 1] + ext[col[i - 1].id()].bottom + GAP - e.top;
      ys.push(Math.max(wanted, floor));
    }
    const mean = function (a) { return a.reduce(function (s, v) { return s + v; }, 0) / a.length; };
    let shift;
    if (follow) {
      shift = mean(col.map(function (n) { return want[n.id()]; })) - mean(ys);
    } else {
      const first = ext[col[0].id()], last = ext[col[col.length - 1].id()];
      shift = -((ys[0] + first.top) + (ys[ys.length - 1] + last.bottom)) / 2;
    }
    col.forEach(function (n, i) { pos[n.id()] = { x: x, y: ys[i] + shift }; });
  }

  const embedded = document.getElementById("graph-data");
  if (embedded) {
    try { draw(JSON.parse(embedded.textContent)); } catch (err) { box.textContent = "Could not draw the graph: " + err.message; }
    return;
  }
  fetch(box.dataset.src, { headers: { "Accept": "application/json" } })
    .then(function (r) { if (!r.ok) throw new Error("HTTP " + r.status); return r.json(); })
    .then(draw)
    .catch(function (err) { box.textContent = "Could not load the graph: " + err.message; });
})();
