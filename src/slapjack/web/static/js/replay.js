// The replay viewer (/replay/{id}): steps through a finished game card by card.
// The server replays the record with the engine (GET /api/games/{id}/replay);
// this page only shows its steps.

import { api, fill, h, showError, startPage } from "./common.js";
import { msText, t } from "./i18n.js";
import { RACE_ENDS, TableView, describeEvent } from "./table.js";

const $ = (id) => document.getElementById(id);
const id = decodeURIComponent(location.pathname.split("/")[2] || "");
let steps = [];
let pos = 0;
let table = null;
let timer = null;

async function main() {
  await startPage("history");
  $("download").href = `/api/games/${encodeURIComponent(id)}?download=1`;
  $("download").setAttribute("download", `slapjack-${id}.json`);
  let data;
  try {
    data = await api(`/api/games/${encodeURIComponent(id)}/replay`);
  } catch (err) {
    showMissing(err);
    return;
  }
  steps = data.steps;
  const record = data.record;
  $("replay-title").textContent = t("replay.heading_n", { id });
  const meta = $("replay-meta");
  meta.textContent = `${t(`game.${record.game || "slapjack"}`)} · ${t(
    `preset.${(record.rules && record.rules.preset) || "classic"}`,
  )} · ${record.players.join(", ")}${data.truncated ? ` · ${t("replay.truncated")}` : ""}`;
  meta.title = meta.textContent; // whole where a phone held sideways cuts the line
  // A race's result under the step's words (they say who won; this line each
  // hand's time, fastest first), not in the felt's narrow side column.
  table = new TableView($("table"), { me: null, raceEl: $("replay-race") });
  $("scrub").max = String(steps.length - 1);
  $("first").addEventListener("click", () => go(0));
  $("last").addEventListener("click", () => go(steps.length - 1));
  $("prev").addEventListener("click", () => go(pos - 1));
  $("next").addEventListener("click", () => go(pos + 1));
  $("prev-card").addEventListener("click", () => go(findCard(-1)));
  $("next-card").addEventListener("click", () => go(findCard(1)));
  $("play").addEventListener("click", togglePlay);
  $("scrub").addEventListener("input", () => go(Number($("scrub").value)));
  document.addEventListener("keydown", onKey);
  document.addEventListener("langchange", () => go(pos));
  go(0);
}

// No replay to show (an unknown id, a record that cannot be replayed): a clear
// message and a way back, none of the controls of a replay.
function showMissing(err) {
  for (const el of document.querySelectorAll("#table, .replay-bar, #step, #replay-keys, #download"))
    el.hidden = true;
  if (err && err.code === "unknown_game") {
    $("replay-error").hidden = false;
    $("replay-error").textContent = t("replay.missing", { id });
  } else {
    showError($("replay-error"), err);
  }
  $("replay-back").hidden = false;
}

function isFlip(step) {
  return step && step.action && "flip" in step.action;
}

function findCard(dir) {
  let i = pos + dir;
  while (i > 0 && i < steps.length - 1 && !isFlip(steps[i])) i += dir;
  return i;
}

function go(i) {
  pos = Math.max(0, Math.min(steps.length - 1, i));
  const step = steps[pos];
  table.render(step.view, null);
  table.clearRace();
  for (const ev of step.events) if (RACE_ENDS.has(ev.type)) table.showRace(ev, step.view);
  $("scrub").value = String(pos);
  const flips = step.view.flips;
  $("pos").textContent = t("replay.pos", { n: pos, total: steps.length - 1, flips });
  const lines = step.events.map((ev) => h("li", {}, describeEvent(ev, step.view)));
  if (!lines.length) lines.push(h("li", {}, describeAction(step)));
  fill($("step-events"), lines);
  $("first").disabled = $("prev").disabled = $("prev-card").disabled = pos === 0;
  $("last").disabled = $("next").disabled = $("next-card").disabled = pos === steps.length - 1;
  if (pos === steps.length - 1) stop();
}

function describeAction(step) {
  const a = step.action;
  if (!a) return t("replay.deal", { n: step.view.players.length });
  if (a.settle) return t("replay.settle");
  if ("slap" in a) return t("replay.slap_ignored", { name: a.slap, ms: msText(a.reaction_ms) });
  if ("time_up" in a) return t("ev.time_is_up");
  return "";
}

function togglePlay() {
  if (timer) stop();
  else {
    $("play").textContent = t("replay.pause");
    const tick = () => {
      if (pos >= steps.length - 1) return stop();
      go(pos + 1);
      const step = steps[pos];
      timer = setTimeout(tick, step.events.some((e) => RACE_ENDS.has(e.type)) ? 1500 : 600);
    };
    timer = setTimeout(tick, 300);
  }
}

function stop() {
  clearTimeout(timer);
  timer = null;
  $("play").textContent = t("replay.play");
}

function onKey(ev) {
  const tag = ev.target && ev.target.tagName;
  if (tag === "INPUT" && ev.target.type !== "range") return;
  const actions = {
    ArrowRight: () => go(pos + 1),
    ArrowLeft: () => go(pos - 1),
    PageDown: () => go(findCard(1)),
    PageUp: () => go(findCard(-1)),
    Home: () => go(0),
    End: () => go(steps.length - 1),
    p: togglePlay,
  };
  const fn = actions[ev.key];
  if (!fn || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  ev.preventDefault();
  fn();
}

// "ready": the page is wired up (tests wait for it before they type or click).
main().finally(() => {
  document.body.dataset.ready = "1";
});
