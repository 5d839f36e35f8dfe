// Reads a server-sent event stream from a fetch Response (the API streams
// POST responses, which EventSource cannot send) and calls onEvent(name, data)
// for each event, with data parsed as JSON.
"use strict";
window.readSSE = async function readSSE(response, onEvent) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += value.replace(/\r\n?/g, "\n");
    let cut;
    while ((cut = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, cut);
      buf = buf.slice(cut + 2);
      let name = "message";
      const data = [];
      for (const line of block.split("\n")) {
        if (line === "" || line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        let val = colon < 0 ? "" : line.slice(colon + 1);
        if (val.startsWith(" ")) val = val.slice(1);
        if (field === "event") name = val;
        else if (field === "data") data.push(val);
      }
      if (data.length === 0) continue;
      let parsed;
      try { parsed = JSON.parse(data.join("\n")); } catch (e) { parsed = data.join("\n"); }
      onEvent(name, parsed);
    }
  }
};

// errorMessage extracts the message of the API's JSON error shape.
window.apiErrorMessage = async function apiErrorMessage(response) {
  try {
    const body = await response.json();
    if (body && body.error && body.error.message) return body.error.message;
  } catch (e) { /* not JSON */ }
  return "request failed with HTTP status " + response.status;
};

window.contractHref = function contractHref(id, start, end) {
  let href = "/contracts/" + encodeURIComponent(id);
  if (Number.isInteger(start) && Number.isInteger(end) && end > start) {
    href += "?span=" + start + "-" + end + "#cited";
  }
  return href;
};
