// The saga-kgqa web page: start a run, follow its server-sent events, reopen earlier runs.
// Every text from the server (observations, labels, queries) is set as textContent, never as HTML.
"use strict";

const $ = (id) => document.getElementById(id);
let stream = null;
let current = null; // the thread id shown
let modelReady = true;

// Ask is disabled from the click until the run ends: a double click starts one run, not two.
function setRunning(running) {
  $("ask").disabled = running || !modelReady;
  $("cancel").hidden = !running;
  $("cancel").disabled = false;
  if (running) $("resume").hidden = true;
}

function offerResume(threadId) {
  if (!modelReady) return;
  current = threadId;
  $("resume").hidden = false;
}

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = text;
  if (cls) node.className = cls;
  return node;
}

const SPARQL_TOKENS = /(<[^<>\s]*>)|("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')|([?$][A-Za-z_][\w]*)|\b(SELECT|ASK|WHERE|FILTER|OPTIONAL|UNION|MINUS|DISTINCT|ORDER|BY|GROUP|HAVING|LIMIT|OFFSET|PREFIX|BASE|VALUES|BIND|AS|COUNT|SUM|AVG|MIN|MAX|SAMPLE|NOT|EXISTS|IN|GRAPH|DESC|ASC|LANG|LANGMATCHES|STR|REGEX|CONTAINS|a)\b/gi;

function highlight(target, sparql) {
  target.replaceChildren();
  let last = 0;
  for (const match of sparql.matchAll(SPARQL_TOKENS)) {
    if (match.index > last) target.append(document.createTextNode(sparql.slice(last, match.index)));
    const cls = match[1] ? "iri" : match[2] ? "str" : match[3] ? "var" : "kw";
    target.append(el("span", match[0], cls));
    last = match.index + match[0].length;
  }
  target.append(document.createTextNode(sparql.slice(last)));
}

const LABELS = { ok: "OK", empty: "EMPTY", blocked: "[BLOCKED]", rejected: "[REJECTED]", error: "ERROR", refused: "REFUSED", flagged: "FLAGGED" };

function showStep(event) {
  const item = el("li", null, "step outcome-" + event.outcome);
  item.dataset.tool = event.tool;
  item.dataset.outcome = event.outcome;
  const head = el("div");
  head.append(el("span", `${event.tool}(${event.argument})`, "call"), el("span", LABELS[event.outcome] || event.outcome, "badge"));
  item.append(head);
  if (event.thought) item.append(el("div", event.thought, "thought"));
  const details = el("details");
  details.open = event.outcome !== "ok";
  details.append(el("summary", "observation"), el("pre", event.observation));
  item.append(details);
  $("steps").append(item);
}

function showTheta(event) {
  $("theta-size").textContent = `(${event.size})`;
  const list = $("theta");
  list.replaceChildren();
  for (const entry of event.entries) {
    const item = el("li");
    item.append(el("span", entry.key, "theta-key"), document.createTextNode(": " + entry.types.join(", ")));
    list.append(item);
  }
}

// An IRI cell shows its label and its short name (the exact IRI as the tooltip); other cells their text.
function cell(value, view) {
  const td = el("td");
  if (!view) { td.textContent = value ?? ""; return td; }
  td.title = value;
  if (view.label) td.append(el("span", view.label, "label"));
  td.append(el("span", view.short || value, view.label ? "short" : ""));
  return td;
}

function showProgress(event) {
  $("progress").hidden = false;
  $("progress-bar").max = event.max_steps;
  $("progress-bar").value = Math.min(event.steps, event.max_steps);
  $("progress-text").textContent = `step ${event.steps} of at most ${event.max_steps}: ${event.doing}`;
}

function fail(message, resumable) {
  $("status").textContent = "Failed: " + message;
  $("status").className = "failed";
  if (resumable) offerResume(current);
}

function showFinal(event) {
  $("progress").hidden = true;
  const outcome = event.outcome || {};
  $("status").textContent = "Finished: " + event.status + (outcome.message ? " (" + outcome.message + ")" : "");
  $("status").dataset.outcome = event.status;
  if (event.sparql) highlight($("sparql"), event.sparql);
  else $("sparql").textContent = "(no final query)";
  const answer = $("answer");
  answer.replaceChildren();
  if (outcome.diagnosis) answer.append(el("p", "Why it is empty: " + outcome.diagnosis, "diagnosis"));
  if (outcome.earlier) {
    answer.append(el("p", `An earlier result, not the answer: step ${outcome.earlier.step} returned ${outcome.earlier.row_count} row(s).`, "earlier"));
  }
  if (event.boolean !== null && event.boolean !== undefined) {
    answer.append(el("p", event.boolean ? "true" : "false", "boolean"));
    return;
  }
  const table = el("table");
  table.id = "answer-table";
  const head = el("tr");
  for (const variable of event.variables) head.append(el("th", variable));
  table.append(head);
  for (const row of event.rows) {
    const line = el("tr");
    for (const variable of event.variables) line.append(cell(row[variable], (event.views || {})[row[variable]]));
    table.append(line);
  }
  const counts = el("div", event.counts || `${event.rows.length} rows`);
  counts.id = "answer-counts";
  answer.append(table, counts);
}

function term(t) { return t.label ? `${t.label} (${t.short})` : t.short || t.value; }

// One expander per answer row: the triples that support it, and the Wikidata statements behind them.
function evidenceDetails(row) {
  const details = el("details", null, "evidence");
  const flag = row.statements.some((s) => s.deprecated) ? " — DEPRECATED statement" : "";
  details.append(el("summary", `evidence: ${row.triples.length} triple(s)${row.truncated ? " (more exist)" : ""}${flag}`));
  const list = el("ul");
  for (const t of row.triples) list.append(el("li", `${term(t.subject)} ${term(t.predicate)} ${term(t.object)}`, "triple"));
  for (const s of row.statements) {
    const item = el("li", `statement ${s.statement}: rank ${s.rank}${s.deprecated ? " (DEPRECATED)" : ""}`, s.deprecated ? "statement deprecated" : "statement");
    const parts = el("ul");
    for (const q of s.qualifiers) parts.append(el("li", `qualifier ${term(q.property)}: ${term(q.value)}`));
    for (const r of s.references) for (const v of r.values) parts.append(el("li", `reference ${term(v.property)}: ${term(v.value)}`));
    item.append(parts);
    list.append(item);
  }
  details.append(list);
  return details;
}

function showEvidence(event) {
  const table = $("answer-table");
  const summary = el("div", `evidence: supporting triples for ${event.rows_supported} of the first ${event.rows_checked} answer rows${event.note ? " (" + event.note + ")" : ""}`, "evidence-summary");
  // Last row first: each expander is inserted after its row, so the earlier rows keep their indices.
  for (const row of [...event.rows].sort((a, b) => b.row - a.row)) {
    if (row.row < 0 || !table) { $("answer").append(evidenceDetails(row)); continue; }
    const line = table.rows[row.row + 1];
    if (!line) continue;
    const holder = el("tr", null, "evidence-row");
    const td = el("td");
    td.colSpan = line.cells.length;
    td.append(evidenceDetails(row));
    holder.append(td);
    line.after(holder);
  }
  $("answer").append(summary);
}

// The run asks back: one button per candidate (label, id, type, fact); a click answers and follows the run.
function showClarify(event) {
  $("progress").hidden = true;
  $("status").className = "";
  $("status").textContent = `Needs clarification: which "${event.mention}" do you mean?${event.refused ? " (" + event.refused + ")" : ""}`;
  const box = el("div", null, "clarify");
  box.id = "clarify";
  for (const candidate of event.candidates) {
    const button = el("button", `${candidate.label} (${candidate.id}${candidate.type ? ", " + candidate.type : ""})${candidate.fact ? ": " + candidate.fact : ""}`, "choice");
    button.dataset.choice = candidate.id;
    button.onclick = () => choose(event.thread_id, candidate.id);
    box.append(button);
  }
  $("answer").replaceChildren(box);
}

async function choose(threadId, choice) {
  for (const button of document.querySelectorAll("#clarify button")) button.disabled = true;
  const reply = await fetch(`/api/runs/${encodeURIComponent(threadId)}/choose`, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ choice }),
  });
  const body = await reply.json();
  if (!reply.ok) { refused(reply, body); return; }
  follow(threadId);
}

function show(event) {
  switch (event.kind) {
    case "start": current = event.thread_id; $("status").className = ""; $("status").textContent = `Run ${event.thread_id} on ${event.source}: ${event.question}`; break;
    case "progress": showProgress(event); break;
    case "resumed": $("status").className = ""; $("status").textContent = `Run ${event.thread_id} resumed from its last step`; break;
    case "cancelled": $("status").textContent = "Cancelled. The run is saved: press Resume to continue it."; offerResume(event.thread_id); break;
    case "interrupted": $("status").textContent = `Interrupted after ${event.steps} step(s). Press Resume to continue it.`; offerResume(event.thread_id); break;
    case "answer_type": $("status").textContent += ` — expecting ${event.label}${event.type_id ? " (" + event.type_id + ")" : ""}`; break;
    case "step": showStep(event); break;
    case "theta": showTheta(event); break;
    case "final": showFinal(event); break;
    case "evidence": showEvidence(event); break;
    case "clarify": showClarify(event); break;
    case "error": fail(event.message, event.resumable); break;
    case "end": if (stream) { stream.close(); stream = null; } setRunning(false); $("progress").hidden = true; loadHistory(); break;
  }
}

function follow(threadId) {
  if (stream) stream.close();
  current = threadId;
  setRunning(true);
  $("resume").hidden = true;
  for (const id of ["steps", "theta", "answer", "sparql"]) $(id).replaceChildren();
  $("theta-size").textContent = "";
  stream = new EventSource(`/api/runs/${encodeURIComponent(threadId)}/events`);
  stream.onmessage = (message) => show(JSON.parse(message.data));
  stream.onerror = () => {
    if (stream && stream.readyState === EventSource.CLOSED) {
      stream = null;
      setRunning(false);
      fail("the connection to the server was lost. Reload the page, then open the run from Earlier runs.", false);
    }
  };
}

async function loadHistory() {
  const reply = await fetch("/api/runs");
  const { runs } = await reply.json();
  const list = $("history");
  list.replaceChildren();
  for (const run of runs) {
    const item = el("li");
    const link = el("a", run.question);
    link.dataset.thread = run.thread_id;
    link.title = `${run.source} · ${new Date(run.created * 1000).toLocaleString()}`;
    link.onclick = () => follow(run.thread_id);
    item.append(link);
    list.append(item);
  }
}

async function loadSources() {
  const { sources, default: chosen, model_ready: ready, no_model: why } = await (await fetch("/api/sources")).json();
  modelReady = ready;
  if (!ready) { $("notice").textContent = why; $("notice").hidden = false; }
  setRunning(false);
  for (const source of sources) {
    const option = el("option", source.title === source.name ? source.name : `${source.name} — ${source.title}`);
    option.value = source.name;
    option.selected = source.name === chosen;
    $("source").append(option);
  }
}

function refused(reply, body) {
  const wait = reply.headers.get("Retry-After");
  const text = reply.status === 429 ? `The server is busy with other runs; try again in ${wait || "a few"} seconds.` : body.error;
  $("status").textContent = "Not started: " + text;
  $("status").className = "failed";
}

async function ask() {
  const question = $("question").value.trim();
  if (!question || $("ask").disabled) return;
  setRunning(true); // disabled before the request leaves: a second click or Enter does nothing
  $("cancel").disabled = true; // enabled once the run exists (follow)
  current = null;
  try {
    const reply = await fetch("/api/runs", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ question, source: $("source").value }),
    });
    const body = await reply.json();
    if (!reply.ok) { setRunning(false); refused(reply, body); return; }
    follow(body.thread_id);
  } catch (error) {
    setRunning(false);
    fail("the server could not be reached. Check that saga serve web is still running, then try again.", false);
  }
}

async function cancel() {
  if (!current) return;
  $("cancel").disabled = true;
  $("progress-text").textContent = "cancelling after the current step…";
  await fetch(`/api/runs/${encodeURIComponent(current)}/cancel`, { method: "POST" });
}

async function resume() {
  if (!current) return;
  $("resume").hidden = true;
  const reply = await fetch(`/api/runs/${encodeURIComponent(current)}/resume`, { method: "POST" });
  const body = await reply.json();
  if (!reply.ok) { refused(reply, body); offerResume(current); return; }
  follow(current); // the resumed run's stream starts with the steps it had taken
}

$("ask").onclick = ask;
$("cancel").onclick = cancel;
$("resume").onclick = resume;
$("question").addEventListener("keydown", (e) => { if (e.key === "Enter") ask(); });
loadSources();
loadHistory();
