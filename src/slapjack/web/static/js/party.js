// Party mode (/party): 2-4 players at one screen, each with a key and a corner.
// Each local player holds its own seat and its own socket (docs/protocol.md:
// one token per socket); the table flips on a fixed tempo.

import { announce, api, fill, h, showError, startPage } from "./common.js";
import { Connection, ReactionClock } from "./connection.js";
import { LANGS, lang, msText, t } from "./i18n.js";
import { loadOptions } from "./options.js";
import { roomState } from "./roomstate.js";
import {
  RACE_ENDS,
  Stats,
  TableView,
  describeEvent,
  fitNames,
  renderRanking,
  seatName,
  toldByNext,
} from "./table.js";

const $ = (id) => document.getElementById(id);
const DEFAULT_KEYS = ["a", "l", "v", "p"];
// Player i's name until one is typed: the same words as the field's label
// ("Player 1", in German "Person 1"), in the page's language.
const defaultName = (i) => t("party.player_n", { n: i + 1 });
// The same words in every language the page speaks ("Player {n}", "Person {n}"),
// loaded at start: a name that is player i's default in any of them was not
// typed (a name saved by an English party is "Player 1"), and follows the language.
let defaultWords = [];
async function loadDefaultWords() {
  const tables = await Promise.all(
    LANGS.map((l) =>
      fetch(`/api/words/${l}`)
        .then((res) => (res.ok ? res.json() : {}))
        .catch(() => ({})),
    ),
  );
  defaultWords = tables.map((words) => words["party.player_n"]).filter((w) => typeof w === "string");
}
const isDefaultName = (name, i) =>
  [t("party.player_n"), ...defaultWords].some((w) => w.replace("{n}", String(i + 1)) === name);
const STORE = "slapjack.party";
// Player i's touch corner (the zone .z{i}, the setup's "party.corner.{i}"), as
// a place on the felt [ux, uy]: their seat sits in the same corner of the
// table, so a player's corner is always beside their seat, upright or sideways.
// (0.7: a corner of the oval felt, inside its rim.)
export const CORNERS = [
  [-0.7, 0.7], // bottom left
  [0.7, 0.7], // bottom right
  [-0.7, -0.7], // top left
  [0.7, -0.7], // top right
];

/** Where the seats go at a party table: the players' in their corners, the
 * bots' on the edges between them (then in the corners nobody touches). */
export function partyPlaces(localSeats, n) {
  const free = CORNERS.slice(localSeats.length);
  const bots = [];
  for (let s = 0; s < n; s++) if (!localSeats.includes(s)) bots.push(s);
  const slots =
    bots.length === 2
      ? [
          [-1, 0],
          [1, 0],
        ]
      : [[0, -1], [-1, 0], [1, 0], [0, 1], ...free];
  // On a table taller than wide the sides are next to the pile: the bots sit
  // at the top and the bottom first.
  const upright = [[0, -1], [0, 1], ...free, [-1, 0], [1, 0]];
  const places = {};
  // (Upright, the felt is a rounded box: the corners are its own.)
  localSeats.forEach((s, i) => (places[s] = [...CORNERS[i], CORNERS[i][0] / 0.7, CORNERS[i][1] * 1.15]));
  bots.forEach((s, j) => (places[s] = [...(slots[j] || [0, -1]), ...(upright[j] || [0, -1])]));
  return places;
}
const SESSION = "slapjack.party.session";

/** Which edges of the felt have a seat in their middle (a bot at the top, at
 * the bottom): "none", "top", "bottom" or "both". A phone held sideways puts
 * the pile's count under the pile unless both are taken (app.css). */
export function feltEnds(localSeats, n) {
  const places = Object.values(partyPlaces(localSeats, n));
  const top = places.some(([ux, uy]) => ux === 0 && uy === -1);
  const bottom = places.some(([ux, uy]) => ux === 0 && uy === 1);
  return top && bottom ? "both" : top ? "top" : bottom ? "bottom" : "none";
}

const state = {
  code: null,
  players: [], // [{name, key, seat, token, conn}]
  view: null,
  room: null,
  info: null,
  table: null,
  clock: new ReactionClock(),
  round: 0,
  stats: new Stats(),
  slapped: new Set(), // "seat|flip|round"
  gameNo: null,
  endsFor: null, // the local seats and the count the felt's data-ends was set for
};

async function main() {
  await startPage("party");
  const [options] = await Promise.all([loadOptions(), loadDefaultWords()]);
  const saved = loadSaved();
  $("count").value = String(saved.players.length);
  fill(
    $("preset"),
    Object.keys(options.presets)
      // say-it needs a second key per player; not offered at one shared screen
      .filter((p) => p !== "say-it")
      .map((p) => h("option", { value: p, selected: p === saved.preset }, t(`preset.${p}`))),
  );
  fill(
    $("bot-level"),
    options.bot_levels.map((l) => h("option", { value: l, selected: l === saved.level }, t(`bot.${l}`))),
  );
  $("bots").value = String(saved.bots);
  $("tempo").value = String(saved.tempo);
  renderPlayers(saved.players);
  $("count").addEventListener("change", () => renderPlayers(readPlayers()));
  $("party-form").addEventListener("submit", start);
  $("again").addEventListener("click", () => {
    for (const p of state.players) p.conn.act("rematch");
    $("again").disabled = true;
  });
  const endParty = () => {
    for (const p of state.players) {
      p.conn.act("leave");
      p.conn.close();
    }
    sessionStorage.removeItem(SESSION);
    location.reload();
  };
  $("new-party").addEventListener("click", endParty);
  // A way out during play, in two steps (no browser dialog).
  $("party-exit").addEventListener("click", () => {
    const btn = $("party-exit");
    if (btn.dataset.armed) return endParty();
    btn.dataset.armed = "1";
    btn.textContent = t("party.exit_confirm");
    setTimeout(() => {
      delete btn.dataset.armed;
      btn.textContent = t("party.exit");
    }, 4000);
  });
  document.addEventListener("keydown", onKey);
  document.addEventListener("langchange", () => {
    if (state.view) render();
    // The setup's labels follow the language, and so do the names nobody typed.
    if (!$("setup").hidden) renderPlayers(readPlayers());
  });
  await resume();
}

function loadSaved() {
  const fallback = {
    players: DEFAULT_KEYS.slice(0, 2).map((key, i) => ({ name: defaultName(i), key })),
    preset: "classic",
    bots: 1,
    level: "casual",
    tempo: 1.2,
  };
  let saved;
  try {
    saved = { ...fallback, ...JSON.parse(localStorage.getItem(STORE) || "{}") };
  } catch {
    return fallback;
  }
  // A saved name that is just its slot's default (in any language) was never
  // typed: it is the default in the page's language.
  if (Array.isArray(saved.players)) {
    saved.players = saved.players.map((p, i) =>
      p && isDefaultName(String(p.name || "").trim(), i) ? { ...p, name: defaultName(i) } : p,
    );
  }
  return saved;
}

function readPlayers() {
  return [...$("players").querySelectorAll(".party-player")].map((el, i) => {
    const input = el.querySelector("input.name");
    const name = input.value.trim();
    return {
      // A name nobody typed (still the default it was given) is the default in
      // the page's language now.
      name: name && name !== input.dataset.default ? name : defaultName(i),
      key: (el.querySelector("input.key").value || DEFAULT_KEYS[i]).toLowerCase(),
    };
  });
}

function renderPlayers(current) {
  const n = Number($("count").value);
  const list = [];
  for (let i = 0; i < n; i++) {
    const p = current[i] || { name: defaultName(i), key: DEFAULT_KEYS[i] };
    list.push(
      h(
        "div",
        { class: "party-player" },
        h(
          "label",
          { class: "field" },
          h("span", {}, t("party.player_n", { n: i + 1 })),
          h("input", {
            class: "name",
            maxlength: "24",
            value: p.name,
            required: true,
            dataset: { default: defaultName(i) },
          }),
        ),
        h(
          "label",
          { class: "field" },
          h("span", {}, t("party.key")),
          h("input", {
            class: "key",
            maxlength: "1",
            value: p.key.toUpperCase(),
            autocomplete: "off",
            style: { "max-width": "4rem", "text-transform": "uppercase" },
          }),
        ),
        h("span", { class: "help" }, t(`party.corner.${i}`)),
      ),
    );
  }
  fill($("players"), list);
}

async function start(ev) {
  ev.preventDefault();
  const players = readPlayers();
  const keys = players.map((p) => p.key);
  if (new Set(keys).size !== keys.length || keys.some((k) => !/^[a-z0-9]$/.test(k))) {
    showError($("party-error"), { message: t("party.keys_clash") });
    return;
  }
  const bots = Number($("bots").value);
  const level = $("bot-level").value;
  const preset = $("preset").value;
  const tempo = Math.max(0.5, Math.min(10, Number($("tempo").value) || 1.2));
  localStorage.setItem(STORE, JSON.stringify({ players, preset, bots, level, tempo }));
  showError($("party-error"), null);
  const options = await loadOptions();
  const botSeats = {};
  for (let b = 0; b < bots; b++) botSeats[String(players.length + b)] = level;
  try {
    const created = await api("/api/rooms", {
      method: "POST",
      body: {
        name: t("party.room_name"),
        game: options.presets[preset].game,
        rules: { preset },
        seats: players.length + bots,
        bots: botSeats,
        tempo: "fixed",
        turn_seconds: tempo,
        time_limit: 0,
        public: false,
      },
    });
    state.code = created.code;
    state.players = [];
    for (const p of players) {
      const joined = await api(`/api/rooms/${encodeURIComponent(created.code)}/join`, {
        method: "POST",
        body: { name: p.name },
      });
      state.players.push({ ...p, name: joined.name, seat: joined.seat, token: joined.token });
    }
  } catch (err) {
    showError($("party-error"), err);
    return;
  }
  // Kept for this tab only: a reload resumes the same party (same seats).
  sessionStorage.setItem(
    SESSION,
    JSON.stringify({
      code: state.code,
      players: state.players.map(({ name, key, seat, token }) => ({ name, key, seat, token })),
    }),
  );
  enterStage();
}

/** Resume the party this tab was playing, if its room is still open. */
async function resume() {
  let saved;
  try {
    saved = JSON.parse(sessionStorage.getItem(SESSION) || "null");
  } catch {
    saved = null;
  }
  if (!saved || !saved.code || !Array.isArray(saved.players) || !saved.players.length) return false;
  try {
    const info = await api(`/api/rooms/${encodeURIComponent(saved.code)}`);
    if (info.status === "closed") throw new Error("closed");
  } catch {
    sessionStorage.removeItem(SESSION);
    return false;
  }
  state.code = saved.code;
  state.players = saved.players;
  enterStage();
  return true;
}

function enterStage() {
  $("setup").hidden = true;
  $("stage").hidden = false;
  document.body.classList.add("party-playing");
  $("stage").classList.toggle("top-zones", state.players.length > 2);
  state.table = new TableView($("table"), {
    me: null,
    anchor: state.players[0].seat,
    locals: state.players.map((p) => p.seat),
    places: (s, n) => partyPlaces(state.players.map((p) => p.seat), n)[s],
    onSlap: null,
    raceEl: $("party-race"),
  });
  buildZones();
  state.players.forEach((p, i) => {
    p.conn = new Connection(state.code, p.token, {
      lang,
      onUpdate: i === 0 ? onUpdate : () => {},
      onWelcome: i === 0 ? (msg) => (state.info = msg.room) : () => {},
      onError: (msg) =>
        flashZone(i, msg.code === "stale_flip" ? t("error.stale_flip") : "", "wrong", false),
      onStatus: i === 0 ? onStatus : () => {},
    });
    p.conn.connect();
  });
  $("main").focus();
}

function buildZones() {
  fill(
    $("zones"),
    state.players.map((p, i) => {
      const zone = h(
        "div",
        {
          class: `zone z${i}`,
          role: "button",
          "aria-label": t("party.zone_aria", { name: p.name, key: p.key.toUpperCase() }),
          dataset: { i: String(i) },
        },
        h("span", { class: "keycap" }, p.key.toUpperCase()),
        h("span", { class: "zone-name" }, p.name),
        h("span", { class: "zone-ms" }),
      );
      zone.addEventListener("pointerdown", (ev) => {
        ev.preventDefault();
        slap(i, ev);
      });
      return zone;
    }),
  );
  fitNames($("zones").querySelectorAll(".zone-name"));
}

function onStatus(status) {
  const el = $("status");
  el.hidden = status === "open";
  el.textContent = status === "open" ? "" : t("room.reconnecting");
}

function onUpdate(msg) {
  const prev = state.view;
  const view = msg.view;
  const room = roomState(msg.room, view, state.info);
  if (room.gameNo !== null && room.gameNo !== state.gameNo) {
    if (state.gameNo !== null) {
      state.stats.reset();
      state.slapped.clear();
      state.clock = new ReactionClock();
      $("again").disabled = false;
    }
    state.gameNo = room.gameNo;
  }
  state.view = view;
  state.room = room;
  if (!view) {
    $("party-hint").textContent = t("room.starting");
    return;
  }
  for (const ev of msg.events || []) handleEvent(ev, view);
  render();
  if (view.centre_top.length) {
    const flipId = view.flip_id ?? view.flips;
    if ((msg.events || []).some((ev) => ev.type === "race_tied")) state.round += 1;
    if (!prev || flipId !== (prev.flip_id ?? prev.flips)) state.round = 0;
    state.clock.cardDrawn(flipId, state.round, { held: room.resume_in_ms !== null });
  }
  document.dispatchEvent(new CustomEvent("sj:rendered", { detail: { seq: msg.seq } }));
}

function localIndex(seat) {
  return state.players.findIndex((p) => p.seat === seat);
}

function handleEvent(ev, view) {
  state.stats.add(ev);
  if (ev.type === "slapped") return;
  // (a wrong slap that picks up the pile: the pick-up's line says both)
  if (!toldByNext(ev)) {
    const text = describeEvent(ev, view);
    // (a race's end is the race slot's title: the line under it stays empty
    // rather than say it twice)
    $("party-hint").textContent = RACE_ENDS.has(ev.type) ? "" : text;
    announce(text, { assertive: RACE_ENDS.has(ev.type) || ev.type === "wrong_slap" });
  }
  if (ev.type === "wrong_slap") {
    state.table.flash(ev.seat, "wrong");
    if (ev.penalty === "pay_player") state.table.penalty(ev.seat, ev.to);
    if (ev.penalty === "pay_pile") state.table.penalty(ev.seat, null);
    const i = localIndex(ev.seat);
    if (i >= 0) flashZone(i, t("party.wrong"), "wrong");
  }
  if (RACE_ENDS.has(ev.type)) {
    state.table.showRace(ev, view);
    const winner = ev.type === "race_won" ? ev.winner : null;
    for (const [s, r] of ev.reactions || []) {
      const i = localIndex(s);
      if (i >= 0) {
        flashZone(i, msText(r), s === winner ? "won" : "hit");
      }
    }
  }
}

function render() {
  const view = state.view;
  state.table.render(view, state.room);
  // The felt's layout (app.css): the edges with a seat in their middle, and
  // the game (Irish Snap's calls go with the pile's count).
  const local = state.players.map((p) => p.seat);
  const ends = `${local.join(",")}/${view.players.length}`;
  if (state.endsFor !== ends) {
    state.endsFor = ends;
    $("table").dataset.ends = feltEnds(local, view.players.length);
  }
  if ($("table").dataset.game !== view.game) $("table").dataset.game = view.game;
  // The names drawn anew (the first time, another language's bot names).
  fitNames($("table").querySelectorAll(".seat .who:not([data-fit])"));
  $("end").hidden = !view.over;
  if (view.over) {
    const winners = view.winners.map((s) => seatName(view, s)).join(", ");
    $("end-title").textContent = winners
      ? t("end.winners", { names: winners })
      : t("end.over");
    renderRanking($("ranking"), view, state.stats, state.players.map((p) => p.seat));
  }
}

function slap(i, ev) {
  const p = state.players[i];
  const view = state.view;
  if (!p || !p.conn || !view || view.over || !view.centre_top.length || view.out[p.seat]) return;
  if (view.reslap_among && !view.reslap_among.includes(p.seat)) return;
  const fields = state.clock.slapFields(ev.timeStamp);
  if (!fields) return;
  const key = `${p.seat}|${fields.flip_id}|${state.clock.round}`;
  if (state.slapped.has(key)) return;
  state.slapped.add(key);
  p.conn.act("slap", { ...fields, call: false });
  state.table.markSlap(p.seat);
  flashZone(i, msText(fields.reaction_ms), "hit", false);
}

function flashZone(i, text, kind, confirmed = true) {
  const zone = $("zones").children[i];
  if (!zone) return;
  // How many of this player's slaps the server has judged (a wrong slap or a race).
  if (confirmed) zone.dataset.judged = String(Number(zone.dataset.judged || 0) + 1);
  if (text) zone.querySelector(".zone-ms").textContent = text;
  zone.classList.remove("hit", "won", "wrong");
  zone.classList.add(kind);
  clearTimeout(zone._timer);
  zone._timer = setTimeout(() => zone.classList.remove(kind), 1200);
}

function onKey(ev) {
  if ($("stage").hidden || ev.repeat || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const key = ev.key.toLowerCase();
  const i = state.players.findIndex((p) => p.key === key);
  if (i < 0) return;
  ev.preventDefault();
  slap(i, ev);
}

// "ready": the page is wired up (tests wait for it before they type or click).
main().finally(() => {
  document.body.dataset.ready = "1";
});
