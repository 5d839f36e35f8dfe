// The chat page: posts the question and the conversation so far to
// /api/ask and renders the streamed agent events as they arrive.
"use strict";
(function () {
  const form = document.getElementById("chat-form");
  const input = document.getElementById("question");
  const askButton = document.getElementById("ask-button");
  const stopButton = document.getElementById("stop-button");
  const log = document.getElementById("chat-log");
  const optRewrite = document.getElementById("opt-rewrite");
  const optCritic = document.getElementById("opt-critic");
  const optCheck = document.getElementById("opt-check");
  let history = [];
  let controller = null;

  function el(tag, className, text) {
    const e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function compact(json, max) {
    let s;
    try { s = JSON.stringify(json, null, 2); } catch (e) { s = String(json); }
    if (s === undefined) s = "";
    return s.length > max ? s.slice(0, max) + "\n… (" + (s.length - max) + " more characters)" : s;
  }

  function summarize(result) {
    if (result && typeof result === "object") {
      if ("total_count" in result) return result.total_count + " match" + (result.total_count === 1 ? "" : "es");
      if ("total_groups" in result) return result.total_groups + " group" + (result.total_groups === 1 ? "" : "s");
      if (Array.isArray(result)) return result.length + " result" + (result.length === 1 ? "" : "s");
    }
    return "done";
  }

  function setBusy(busy) {
    askButton.disabled = busy;
    stopButton.disabled = !busy;
    input.disabled = busy;
  }

  async function ask(question) {
    const userMsg = el("div", "msg user");
    userMsg.append(el("div", "who", "You"), el("div", "text", question));
    log.append(userMsg);

    const msg = el("div", "msg assistant");
    const tools = el("div", "tools");
    const text = el("div", "text");
    const status = el("div", "muted status", "Thinking…");
    msg.append(el("div", "who", "ContractGraph"), tools, text, status);

    // A step of the agent's practices (rewrite, check, critique), shown in
    // order among the tool calls.
    function step(kind, label, detail, items) {
      const d = el("div", "step " + kind);
      d.append(el("strong", "", label + " "));
      if (detail) d.append(document.createTextNode(detail));
      if (items && items.length) {
        const ul = el("ul");
        for (const it of items) ul.append(el("li", "", it));
        d.append(ul);
      }
      tools.append(d);
      return d;
    }
    log.append(msg);
    msg.scrollIntoView({ block: "end" });

    const calls = new Map();
    let answer = null;
    controller = new AbortController();
    setBusy(true);
    try {
      const resp = await fetch("/api/ask", {
        method: "POST",
        headers: { "Content-Type": "application/json", "Accept": "text/event-stream" },
        body: JSON.stringify({
          question: question, history: history,
          rewrite: !!(optRewrite && optRewrite.checked),
          critic: !!(optCritic && optCritic.checked),
          check: !!(optCheck && optCheck.checked),
        }),
        signal: controller.signal,
      });
      if (!resp.ok) {
        status.remove();
        msg.append(el("p", "error", await window.apiErrorMessage(resp)));
        return;
      }
      await window.readSSE(resp, function (name, ev) {
        switch (name) {
        case "token":
          status.textContent = "Answering…";
          text.textContent += ev.token;
          break;
        case "rewrite": {
          const r = ev.rewrite;
          if (r.set_aside) step("rewrite", "Question kept as asked:", r.error + ". The rewrite was: " + r.set_aside);
          else if (r.error) step("rewrite", "Question kept as asked:", "the rewrite failed (" + r.error + ").");
          else step("rewrite", "Question rewritten:", r.question);
          break;
        }
        case "check": {
          const c = ev.check;
          if (c.sufficient) step("check", "Sufficiency check:", "the tool results can support an answer.");
          else if (c.retry) { step("check", "Sufficiency check:", "the tool results cannot support an answer; searching once more.", c.gaps); status.textContent = "Searching again…"; }
          else step("check", "Sufficiency check:", "the tool results still cannot support an answer.", c.gaps);
          break;
        }
        case "critique": {
          const c = ev.critique;
          if (c.error) step("critique", "Critic:", "failed (" + c.error + "); the first answer stands.");
          else if (c.follow_ups && c.follow_ups.length) { step("critique", "Critic's follow-up questions:", "", c.follow_ups); status.textContent = "Answering the follow-up questions…"; }
          else step("critique", "Critic:", "the first answer is complete.");
          break;
        }
        case "tool_call": {
          const c = ev.tool_call;
          const d = el("details", "tool");
          const s = el("summary");
          s.append(el("code", "", c.name), document.createTextNode(" "), el("span", "muted result-summary", "running…"));
          d.append(s, el("pre", "args", compact(c.arguments, 1500)));
          tools.append(d);
          calls.set(c.id, d);
          status.textContent = "Looking up " + c.name + "…";
          break;
        }
        case "tool_result": {
          const r = ev.tool_result;
          const d = calls.get(r.id) || tools.appendChild(el("details", "tool"));
          const s = d.querySelector(".result-summary");
          if (r.error) {
            if (s) { s.textContent = "error"; s.className = "error result-summary"; }
            d.append(el("pre", "error", r.error));
          } else {
            if (s) s.textContent = summarize(r.result);
            d.append(el("pre", "result", compact(r.result, 3000)));
          }
          break;
        }
        case "answer":
          answer = ev.answer;
          text.textContent = answer.text;
          for (const n of answer.notes || []) msg.append(el("p", "note", "Note: " + n));
          if (answer.citations && answer.citations.length) {
            const box = el("div", "citations");
            box.append(el("strong", "", "Sources: "));
            const ul = el("ul");
            const seen = new Set();
            for (const c of answer.citations) {
              const href = window.contractHref(c.contract_id, c.start, c.end);
              if (seen.has(href)) continue;
              seen.add(href);
              const li = el("li");
              const a = el("a", "citation", c.title || c.contract_id);
              a.href = href;
              li.append(a);
              if (c.clause_type) li.append(document.createTextNode(" — " + c.clause_type));
              ul.append(li);
            }
            box.append(ul);
            msg.append(box);
          }
          break;
        case "error":
          msg.append(el("p", "error", ev.error || "the agent failed"));
          break;
        case "done":
          break;
        }
      });
    } catch (e) {
      if (e.name === "AbortError") msg.append(el("p", "muted", "Stopped."));
      else msg.append(el("p", "error", "Connection failed: " + e.message));
    } finally {
      status.remove();
      controller = null;
      setBusy(false);
      input.focus();
    }
    if (answer) {
      history.push({ role: "user", content: question }, { role: "assistant", content: answer.text });
    }
  }

  if (!form) return;
  form.addEventListener("submit", function (e) {
    e.preventDefault();
    const q = input.value.trim();
    if (!q || controller) return;
    input.value = "";
    ask(q);
  });
  input.addEventListener("keydown", function (e) {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) form.requestSubmit();
  });
  stopButton.addEventListener("click", function () { if (controller) controller.abort(); });
  document.getElementById("new-chat").addEventListener("click", function () {
    if (controller) controller.abort();
    history = [];
    log.replaceChildren();
    input.focus();
  });
})();
