// The search page: one input, three modes (modes.js), results from POST /v1/search (the one search).
// No framework, no build step. Everything shown is built with textContent: page text is never parsed as HTML.
import { parseMode } from "./modes.js";

const KEY = "sentinel.readKey";
const DEBOUNCE_MS = 180;
const $ = (id) => document.getElementById(id);
const input = $("q");
const state = { cursor: 0, previous: [], hits: [], selected: -1, vault: "", sent: 0, timer: 0, next: null };

function rung() {
  return document.querySelector('input[name="rung"]:checked').value;
}

function headers() {
  const key = localStorage.getItem(KEY);
  const h = { "Content-Type": "application/json" };
  if (key) h.Authorization = `Bearer ${key}`;
  return h;
}

function showError(text) {
  $("error").textContent = text;
  $("error").hidden = !text;
}

function askForKey(why) {
  $("key-form").hidden = false;
  showError(why);
  $("key").focus();
}

async function call(path, body) {
  let response;
  try {
    response = await fetch(path, body === undefined ? { headers: headers() } : {
      method: "POST", headers: headers(), body: JSON.stringify(body),
    });
  } catch {
    throw new Error(`The Sentinel API at ${location.origin} does not answer: is it running? ` +
      "The results shown are from before it stopped.");
  }
  if (response.status === 401) {
    const had = localStorage.getItem(KEY);
    localStorage.removeItem(KEY);
    askForKey(had ? "That key was not accepted (revoked or mistyped): paste a read key." : "");
    throw new Error("");
  }
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    const detail = typeof data.detail === "string" ? data.detail : JSON.stringify(data.detail ?? data);
    throw new Error(`${response.status}: ${detail}`);
  }
  return data;
}

function obsidianLink(hit) {
  const file = hit.path.replace(/\.md$/, "") + (hit.heading ? `#${hit.heading}` : "");
  return `obsidian://open?vault=${encodeURIComponent(state.vault)}&file=${encodeURIComponent(file)}`;
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function provenance(p) {
  const box = el("div", "provenance");
  box.append(el("div", "trace", `written from ${p.sources.length} source(s); trace: ${p.trace}`));
  for (const q of p.quotes) {
    box.append(el("blockquote", "", `“${q.sentence}”`));
    const where = q.heading ? ` › ${q.heading}` : "";
    box.append(el("div", "quote-source", `— ${q.source}${where} (${q.state})`));
  }
  const list = el("ul", "sources");
  for (const s of p.sources) list.append(el("li", "", s));
  box.append(list);
  return box;
}

function render(data) {
  state.hits = data.hits;
  state.vault = data.vault;
  state.next = data.next_cursor;
  $("notes").replaceChildren(...data.notes.map((n) => el("li", "", n)));
  const items = data.hits.map((hit, i) => {
    const li = el("li");
    li.setAttribute("role", "option");
    li.id = `hit-${i}`;
    const head = el("div");
    for (const label of hit.labels) head.append(el("span", "label", `[${label}]`));
    const link = el("a", "title", hit.title);
    link.href = obsidianLink(hit);
    head.append(link);
    li.append(head, el("div", "path", hit.path));
    if (hit.rung === "body") li.append(el("div", "trail", hit.trail));
    li.append(el("div", "text", hit.text));
    if (hit.provenance) li.append(provenance(hit.provenance));
    li.addEventListener("mousemove", () => select(i));
    return li;
  });
  if (!items.length) items.push(el("li", "empty", "no matches"));
  $("hits").replaceChildren(...items);
  const first = data.cursor + 1;
  $("where").textContent = data.hits.length ? `${first}–${data.cursor + data.hits.length}` : "";
  $("prev").disabled = state.previous.length === 0;
  $("next").disabled = state.next === null;
  select(data.hits.length ? 0 : -1);
}

function select(i) {
  state.selected = i;
  document.querySelectorAll("#hits li[role=option]").forEach((li, j) => {
    li.setAttribute("aria-selected", String(j === i));
    if (j === i) li.scrollIntoView({ block: "nearest" });
  });
  if (i >= 0) input.setAttribute("aria-activedescendant", `hit-${i}`);
}

function open(i) {
  const hit = state.hits[i];
  if (!hit) return;
  const url = obsidianLink(hit);
  document.body.dataset.opened = url;
  location.assign(url);
}

// The address says what is searched (?q=), so a search can be bookmarked, shared or set as a search engine.
function remember(typed) {
  const url = new URL(location.href);
  if (typed.trim()) url.searchParams.set("q", typed.trim());
  else url.searchParams.delete("q");
  history.replaceState(null, "", url);
}

async function run() {
  const { mode, query } = parseMode(input.value);
  $("mode").textContent = query ? mode : "";
  remember(input.value);
  if (!query) {
    $("hits").replaceChildren();
    $("notes").replaceChildren();
    showError("");
    return;
  }
  const sent = ++state.sent;
  try {
    const data = await call("/v1/search", { query, mode, rung: rung(), cursor: state.cursor });
    if (sent !== state.sent) return; // a later query is on its way: this answer is stale
    showError("");
    render(data);
  } catch (err) {
    if (sent === state.sent && err.message) showError(err.message);
  }
}

function fresh() {
  state.cursor = 0;
  state.previous = [];
  clearTimeout(state.timer);
  state.timer = setTimeout(run, DEBOUNCE_MS);
}

function page(forward) {
  if (forward && state.next !== null) {
    state.previous.push(state.cursor);
    state.cursor = state.next;
  } else if (!forward && state.previous.length) {
    state.cursor = state.previous.pop();
  } else {
    return;
  }
  run();
}

input.addEventListener("input", fresh);
input.addEventListener("keydown", (e) => {
  const moves = { ArrowDown: 1, ArrowUp: -1 };
  if (e.key in moves && state.hits.length) {
    e.preventDefault();
    select(Math.max(0, Math.min(state.hits.length - 1, state.selected + moves[e.key])));
  } else if (e.key === "Enter") {
    e.preventDefault();
    open(state.selected);
  } else if (e.key === "PageDown" || e.key === "PageUp") {
    e.preventDefault();
    page(e.key === "PageDown");
  }
});
document.addEventListener("keydown", (e) => {
  if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "k") {
    e.preventDefault();
    input.focus();
    input.select();
  }
});
document.querySelectorAll('input[name="rung"]').forEach((r) => r.addEventListener("change", () => {
  fresh();
  input.focus();
}));
$("next").addEventListener("click", () => page(true));
$("prev").addEventListener("click", () => page(false));
$("key-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  localStorage.setItem(KEY, $("key").value.trim());
  $("key").value = "";
  await start();
});

async function start() {
  try {
    await call("/v1/search/access");
    $("key-form").hidden = true;
    showError("");
    input.focus();
    if (input.value.trim()) run();
  } catch (err) {
    if (err.message) showError(err.message);
  }
}

input.value = new URLSearchParams(location.search).get("q") ?? "";
start();
