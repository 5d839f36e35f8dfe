// The risk review page: posts to /api/risk/{id}, lists the streamed stage
// events as they arrive and shows the final report, which the server
// renders with the same HTML renderer as `contractgraph risk --format html`.
// The report keeps its own stylesheet inside a shadow root, so that it
// neither inherits nor overrides the app's styles.
"use strict";
(function () {
  const form = document.getElementById("risk-form");
  if (!form) return;
  const startButton = document.getElementById("risk-start");
  const stopButton = document.getElementById("risk-stop");
  const counts = document.getElementById("risk-counts");
  const progress = document.getElementById("risk-progress");
  const stages = document.getElementById("risk-stages");
  const errorBox = document.getElementById("risk-error");
  const reportSection = document.getElementById("risk-report");
  const reportBody = document.getElementById("risk-report-body");
  const download = document.getElementById("risk-download");
  let controller = null;
  let downloadURL = null;

  const stageNames = {
    rules: "Risk rules", analysis: "Analysis", review: "Senior review", revision: "Revision",
    batch: "Passages", gate: "Citation check", summary: "Executive summary", done: "Done",
  };

  function el(tag, className, text) {
    const e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function seconds(ms) { return (ms / 1000).toFixed(1) + " s"; }

  function stageLabel(ev) {
    let label = stageNames[ev.stage] || ev.stage;
    if (ev.iteration) label += " (round " + ev.iteration + ")";
    return label;
  }

  // One list item per stage run; a stage event finds its item by key.
  const items = new Map();
  function onStage(ev) {
    const key = ev.stage + "/" + (ev.iteration || 0);
    let li = items.get(key);
    if (!li) {
      li = el("li", "risk-stage");
      li.dataset.stage = ev.stage;
      li.append(el("strong", "", stageLabel(ev)), document.createTextNode(" "), el("span", "message"), document.createTextNode(" "), el("span", "muted state"));
      stages.append(li);
      items.set(key, li);
    }
    if (ev.message) li.querySelector(".message").textContent = ev.message;
    const state = li.querySelector(".state");
    switch (ev.status) {
    case "started":
      state.textContent = "running…";
      li.dataset.started = ev.elapsed_ms;
      break;
    case "progress":
      state.textContent = ev.total ? ev.done + " of " + ev.total : "running…";
      break;
    case "failed":
      // The review did not complete: say so, never "done".
      li.querySelector("strong").textContent = "Not completed";
      state.textContent = "after " + seconds(ev.elapsed_ms) + " — the report is partial";
      state.className = "status-failed state";
      li.classList.add("failed");
      break;
    case "finished": {
      const took = ev.elapsed_ms - Number(li.dataset.started || ev.elapsed_ms);
      state.textContent = ev.stage === "done" ? "after " + seconds(ev.elapsed_ms) : "done in " + seconds(took);
      state.className = "status-ok state";
      li.classList.add("finished");
      break;
    }
    }
  }

  function onCalls(ev) {
    const names = Object.keys(ev.tools || {}).sort().map(function (n) { return n + " " + ev.tools[n]; });
    counts.textContent = ev.model_calls + " model call" + (ev.model_calls === 1 ? "" : "s") + " · " +
      ev.tool_calls + " tool call" + (ev.tool_calls === 1 ? "" : "s") + (names.length ? " (" + names.join(", ") + ")" : "") +
      " · " + (ev.usage.input_tokens + ev.usage.output_tokens) + " tokens";
  }

  function showReport(ev) {
    if (!ev.html) {
      fail("The report could not be rendered; the server log has the details.");
      return;
    }
    const doc = new DOMParser().parseFromString(ev.html, "text/html");
    const host = el("div", "risk-report-host");
    const root = host.attachShadow({ mode: "open" });
    for (const style of doc.querySelectorAll("style")) root.append(style);
    const page = el("div", "report-page");
    page.append(...doc.body.childNodes);
    root.append(page);
    // In-report anchors (#clause-3) point into the shadow root, which the
    // browser's fragment navigation does not search.
    root.addEventListener("click", function (e) {
      const a = e.target.closest("a[href^='#']");
      if (!a) return;
      const target = root.getElementById(a.getAttribute("href").slice(1));
      if (target) { e.preventDefault(); target.scrollIntoView({ behavior: "smooth", block: "start" }); }
    });
    for (const a of root.querySelectorAll("a[href^='http']")) { a.target = "_blank"; a.rel = "noopener"; }
    reportBody.replaceChildren(host);
    if (downloadURL) URL.revokeObjectURL(downloadURL);
    downloadURL = URL.createObjectURL(new Blob([ev.html], { type: "text/html" }));
    download.href = downloadURL;
    download.download = "risk-" + (ev.report.contract_id || "report").replace(/[^\w.-]+/g, "_") + ".html";
    reportSection.hidden = false;
  }

  function fail(message) {
    if (counts.textContent === "starting…") counts.textContent = "";
    errorBox.textContent = message;
    errorBox.hidden = false;
  }

  async function start() {
    controller = new AbortController();
    startButton.disabled = true;
    stopButton.disabled = false;
    stages.replaceChildren();
    items.clear();
    errorBox.hidden = true;
    reportSection.hidden = true;
    counts.textContent = "starting…";
    progress.hidden = false;
    let finished = false;
    try {
      const resp = await fetch(form.dataset.api, {
        method: "POST",
        headers: { "Content-Type": "application/json", "Accept": "text/event-stream" },
        body: JSON.stringify({
          jurisdiction: document.getElementById("jurisdiction").value,
          batch: document.getElementById("batch").checked,
        }),
        signal: controller.signal,
      });
      if (!resp.ok) {
        counts.textContent = "";
        fail(await window.apiErrorMessage(resp));
        return;
      }
      await window.readSSE(resp, function (name, ev) {
        switch (name) {
        case "stage": onStage(ev); break;
        case "calls": onCalls(ev); break;
        case "report": showReport(ev); break;
        case "error": fail(ev.error || "the review failed"); break;
        case "done": finished = true; break;
        }
      });
      if (!finished) fail("The connection ended before the review finished.");
    } catch (e) {
      if (e.name === "AbortError") fail("Stopped. The review was cancelled on the server too.");
      else fail("Connection failed: " + e.message);
    } finally {
      controller = null;
      startButton.disabled = false;
      stopButton.disabled = true;
    }
  }

  form.addEventListener("submit", function (e) {
    e.preventDefault();
    if (!controller) start();
  });
  stopButton.addEventListener("click", function () { if (controller) controller.abort(); });
})();
