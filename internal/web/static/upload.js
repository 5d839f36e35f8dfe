// The upload page: sends the chosen files to /api/ingest and shows the
// streamed per-file progress.
"use strict";
(function () {
  const form = document.getElementById("upload-form");
  const list = document.getElementById("upload-progress");
  const summary = document.getElementById("upload-summary");
  if (!form) return;
  const rows = new Map();

  function row(file) {
    let li = rows.get(file);
    if (!li) {
      li = document.createElement("li");
      li.dataset.file = file;
      rows.set(file, li);
      list.append(li);
    }
    return li;
  }

  form.addEventListener("submit", async function (e) {
    e.preventDefault();
    const button = form.querySelector("button");
    const data = new FormData(form);
    rows.clear();
    list.replaceChildren();
    summary.textContent = "Uploading…";
    button.disabled = true;
    try {
      const resp = await fetch(form.action, { method: "POST", body: data, headers: { "Accept": "text/event-stream" } });
      if (!resp.ok) {
        summary.textContent = await window.apiErrorMessage(resp);
        summary.className = "status-failed";
        return;
      }
      summary.textContent = "Processing…";
      await window.readSSE(resp, function (name, ev) {
        if (name === "progress") {
          const li = row(ev.file);
          li.replaceChildren();
          const st = document.createElement("span");
          st.className = "status-" + ev.stage;
          st.textContent = ev.stage;
          li.append(document.createTextNode(ev.file + ": "), st);
          if (ev.contract_id) {
            const a = document.createElement("a");
            a.href = window.contractHref(ev.contract_id);
            a.textContent = "open " + ev.contract_id;
            li.append(document.createTextNode(" — "), a);
          }
          if (ev.message) li.append(document.createTextNode(" — " + ev.message));
        } else if (name === "summary") {
          summary.className = ev.failed > 0 ? "status-failed" : "status-ok";
          summary.textContent = ev.ok + " stored, " + ev.skipped + " unchanged, " + ev.failed + " failed.";
        } else if (name === "error") {
          summary.className = "status-failed";
          summary.textContent = ev.error;
        }
      });
    } catch (err) {
      summary.className = "status-failed";
      summary.textContent = "Upload failed: " + err.message;
    } finally {
      button.disabled = false;
    }
  });
})();
