// The lobby (/): Play now, create a room with every option, open tables, join by code.

import {
  ApiError,
  api,
  fill,
  forgetSeat,
  h,
  mySeats,
  savedName,
  saveName,
  roomName,
  saveSeat,
  showError,
  startPage,
} from "./common.js";
import { cardFace } from "./cards.js";
import { lang, t } from "./i18n.js";
import { loadOptions } from "./options.js";
import { offerPractice, startPractice } from "./practice.js";

const $ = (id) => document.getElementById(id);
let options = null; // the server's /api/options

async function main() {
  await startPage("lobby");
  options = await loadOptions();
  $("fan").replaceChildren(
    ...["JC", "JD", "JS", "JH"].map((c, i) => {
      const el = cardFace(c);
      el.style.setProperty("--r", `${(i - 1.5) * 12}deg`);
      el.style.setProperty("--ty", `${Math.abs(i - 1.5) * 8}px`);
      return el;
    }),
  );
  $("name").value = savedName();
  // The browser's own "fill out this field" bubble (Play now) becomes our note.
  $("name").addEventListener("invalid", (ev) => {
    ev.preventDefault();
    nameMissing(true);
    $("name").focus();
  });
  $("name").addEventListener("input", () => {
    if ($("name").value.trim()) nameMissing(false);
  });
  $("play-now-form").addEventListener("submit", playNow);
  restoreLevel();
  wirePractice();
  $("code-form").addEventListener("submit", joinByCode);
  $("create-form").addEventListener("submit", createRoom);
  $("game").addEventListener("change", () => {
    fillPresets();
    fillOptions();
  });
  $("preset").addEventListener("change", fillOptions);
  $("seats").addEventListener("input", fillSeats);
  fillGames();
  fillPresets();
  fillOptions();
  fillSeats();
  document.addEventListener("langchange", () => {
    const game = $("game").value;
    const preset = $("preset").value;
    const values = currentOptionValues();
    fillGames(game);
    fillPresets(preset);
    fillOptions(values);
    fillSeats();
    renderRooms(lastRooms);
  });
  pollRooms();
  showMyTables();
}

/** Rooms this browser holds a seat in and that are still open: back to your seat. */
async function showMyTables() {
  const items = [];
  for (const mine of mySeats().slice(0, 8)) {
    let info;
    try {
      info = await api(`/api/rooms/${encodeURIComponent(mine.code)}`);
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) forgetSeat(mine.code);
      continue;
    }
    if (info.status === "closed") continue;
    items.push(
      h(
        "li",
        { dataset: { code: mine.code } },
        h(
          "div",
          {},
          h("div", { class: "room-title" }, roomName(info, mine.code)),
          h(
            "div",
            { class: "room-meta" },
            `${t(`game.${info.game}`)} · ${t(`room.status.${info.status}`)} · ${mine.name || ""}`,
          ),
        ),
        h("a", { class: "btn small primary", href: `/r/${encodeURIComponent(mine.code)}` }, t("lobby.back_to_seat")),
      ),
    );
  }
  fill($("my-rooms"), items);
  $("mine").hidden = items.length === 0;
}

function myName() {
  const name = $("name").value.trim() || savedName();
  if (!name) {
    nameMissing(true);
    $("name").focus();
    return null;
  }
  nameMissing(false);
  saveName(name);
  return name;
}

// Said beside the name field (and read out) when a button needs a name first.
function nameMissing(missing) {
  const note = $("name-missing");
  note.hidden = !missing;
  note.textContent = missing ? t("lobby.name_missing") : "";
  if (missing) $("name").setAttribute("aria-invalid", "true");
  else $("name").removeAttribute("aria-invalid");
}

const LEVEL_KEY = "slapjack.level";

function restoreLevel() {
  const saved = localStorage.getItem(LEVEL_KEY);
  if (saved && [...$("level").options].some((o) => o.value === saved)) $("level").value = saved;
}

async function playNow(ev) {
  ev.preventDefault();
  const name = myName();
  if (!name) return;
  showError($("play-error"), null);
  $("play-now").disabled = true;
  try {
    const level = $("level").value;
    localStorage.setItem(LEVEL_KEY, level);
    const joined = await api("/api/play-now", { method: "POST", body: { name, level, lang } });
    saveSeat(joined);
    location.href = `/r/${encodeURIComponent(joined.code)}`;
  } catch (err) {
    showError($("play-error"), err);
    $("play-now").disabled = false;
  }
}

function wirePractice() {
  const typed = () => $("name").value.trim();
  const failed = (err) => showError($("play-error"), err);
  $("practice-btn").addEventListener("click", async () => {
    showError($("play-error"), null);
    $("practice-btn").disabled = true;
    try {
      await startPractice(typed());
    } catch (err) {
      failed(err);
      $("practice-btn").disabled = false;
    }
  });
  offerPractice($("play-error"), { getName: typed, onError: failed });
}

function joinByCode(ev) {
  ev.preventDefault();
  const raw = $("code").value.trim();
  // Accept a code or a whole invite link.
  const m = /\/r\/([A-Za-z0-9]+)/.exec(raw);
  const code = (m ? m[1] : raw).replace(/[^A-Za-z0-9]/g, "").toUpperCase();
  if (!code) {
    showError($("code-error"), { message: t("lobby.bad_code") });
    return;
  }
  location.href = `/r/${encodeURIComponent(code)}`;
}

// ------------------------------------------------------------ create form

function fillGames(selected = "slapjack") {
  $("game").replaceChildren(
    ...options.games.map((g) => h("option", { value: g, selected: g === selected }, t(`game.${g}`))),
  );
}

function fillPresets(selected = null) {
  const game = $("game").value;
  const names = Object.keys(options.presets).filter((p) => options.presets[p].game === game);
  const pick = selected && names.includes(selected) ? selected : names[0];
  $("preset").replaceChildren(
    ...names.map((p) => h("option", { value: p, selected: p === pick }, t(`preset.${p}`))),
  );
}

function presetValues() {
  return options.presets[$("preset").value].options;
}

function currentOptionValues() {
  const out = {};
  for (const el of $("options").querySelectorAll("[data-option]")) {
    out[el.dataset.option] = el.type === "checkbox" ? el.checked : el.value;
  }
  return out;
}

function fillOptions(keep = null) {
  const game = $("game").value;
  const base = presetValues();
  const box = $("options");
  box.replaceChildren();
  for (const opt of options.options) {
    if (opt.game !== game || opt.type === "seconds") continue;
    const id = `opt-${opt.name}`;
    const value = keep && opt.name in keep ? keep[opt.name] : base[opt.name];
    if (opt.type === "bool") {
      const input = h("input", {
        id,
        type: "checkbox",
        checked: !!value,
        dataset: { option: opt.name },
        "aria-describedby": `${id}-help`,
      });
      input.addEventListener("change", syncSayIt);
      box.append(
        h(
          "label",
          { class: "check" },
          input,
          h(
            "span",
            {},
            t(`opt.${opt.name}`),
            h("br"),
            h("span", { class: "help", id: `${id}-help` }, t(`opt.${opt.name}.help`)),
          ),
        ),
      );
    } else {
      const select = h(
        "select",
        { id, dataset: { option: opt.name }, "aria-describedby": `${id}-help` },
        opt.choices.map((c) =>
          h("option", { value: c, selected: c === value }, t(`opt.${opt.name}.${c}`)),
        ),
      );
      const help = h("span", { class: "help", id: `${id}-help` }, t(`opt.${opt.name}.help`));
      const choiceHelp = h("span", { class: "help choice-help" });
      const sync = () => {
        choiceHelp.textContent = t(`opt.${opt.name}.${select.value}.help`);
      };
      select.addEventListener("change", sync);
      sync();
      box.append(
        h("label", { class: "field", for: id }, h("span", {}, t(`opt.${opt.name}`)), select, help, choiceHelp),
      );
    }
  }
  $("preset-help").textContent = t(`preset.${$("preset").value}.help`);
  const irish = game === "irish-snap";
  $("time-limit").disabled = irish;
  if (irish) $("time-limit").value = "0";
  syncSayIt();
}

function syncSayIt() {
  const sayIt = $("opt-say_it");
  const wrong = $("opt-wrong_slap");
  if (!sayIt || !wrong) return;
  wrong.disabled = sayIt.checked;
  if (sayIt.checked) wrong.value = presetValues().wrong_slap;
}

function fillSeats() {
  const n = Math.max(2, Math.min(10, Number($("seats").value) || 2));
  const grid = $("seat-grid");
  const old = [...grid.querySelectorAll("select")].map((s) => s.value);
  grid.replaceChildren(
    h(
      "div",
      { class: "field" },
      h("span", {}, t("seat.n", { n: 1 })),
      h("span", { class: "help" }, t("create.seat_you")),
    ),
  );
  for (let s = 1; s < n; s++) {
    const value = old[s - 1] ?? (s === 1 ? "human" : "casual");
    grid.append(
      h(
        "label",
        { class: "field" },
        h("span", {}, t("seat.n", { n: s + 1 })),
        h(
          "select",
          { dataset: { seat: String(s) } },
          ["human", ...options.bot_levels].map((v) =>
            h("option", { value: v, selected: v === value }, t(v === "human" ? "create.human" : `bot.${v}`)),
          ),
        ),
      ),
    );
  }
}

async function createRoom(ev) {
  ev.preventDefault();
  const name = myName();
  showError($("create-error"), null);
  if (!name) {
    // The name field is at the top of the page: say so here too.
    $("create-error").hidden = false;
    $("create-error").textContent = t("lobby.name_missing");
    return;
  }
  const base = presetValues();
  const rules = { preset: $("preset").value };
  const values = currentOptionValues();
  for (const [key, value] of Object.entries(values)) {
    if (key === "wrong_slap" && values.say_it === true) continue;
    if (value !== base[key]) rules[key] = value;
  }
  const bots = {};
  for (const sel of $("seat-grid").querySelectorAll("select")) {
    if (sel.value !== "human") bots[sel.dataset.seat] = sel.value;
  }
  const game = $("game").value;
  const body = {
    name: $("room-name").value.trim(),
    game,
    rules,
    seats: Number($("seats").value),
    bots,
    tempo: $("tempo").value,
    turn_seconds: Number($("turn-seconds").value),
    time_limit: game === "slapjack" ? Math.round(Number($("time-limit").value || 0) * 60) : 0,
    public: $("public").checked,
  };
  try {
    const created = await api("/api/rooms", { method: "POST", body });
    const joined = await api(`/api/rooms/${encodeURIComponent(created.code)}/join`, {
      method: "POST",
      body: { name },
    });
    saveSeat({ ...joined, code: created.code });
    location.href = `/r/${encodeURIComponent(created.code)}`;
  } catch (err) {
    showError($("create-error"), err);
  }
}

// ---------------------------------------------------------- public rooms

let lastRooms = [];

async function pollRooms() {
  try {
    const data = await api("/api/rooms");
    lastRooms = data.rooms || [];
    renderRooms(lastRooms);
  } catch {
    // keep the last list; try again
  }
  setTimeout(pollRooms, 3000);
}

function renderRooms(rooms) {
  $("rooms-empty").hidden = rooms.length > 0;
  $("rooms").replaceChildren(
    ...rooms.map((r) => {
      const taken = (r.seats || []).filter((s) => s.name || s.bot).length;
      const total = (r.seats || []).length;
      return h(
        "li",
        { dataset: { code: r.code } },
        h(
          "div",
          {},
          h("div", { class: "room-title" }, roomName(r)),
          h(
            "div",
            { class: "room-meta" },
            `${t(`game.${r.game}`)} · ${t(`preset.${r.preset}`)} · `,
            t("lobby.seats_free", { taken, total, free: r.free_seats }),
            " · ",
            h("span", { class: "room-code" }, r.code),
          ),
        ),
        h(
          "div",
          { class: "row" },
          h("a", { class: "btn small", href: `/r/${encodeURIComponent(r.code)}?watch=1` }, t("room.watch")),
          r.free_seats > 0
            ? h("a", { class: "btn small primary", href: `/r/${encodeURIComponent(r.code)}` }, t("lobby.join"))
            : null,
        ),
      );
    }),
  );
}

// "ready": the page is wired up (tests wait for it before they type or click).
main().finally(() => {
  document.body.dataset.ready = "1";
});
