// The room page (/r/{code}): join or watch, play, see results, rematch.

import {
  ApiError,
  afterPaint,
  fill,
  announce,
  api,
  copyText,
  forgetSeat,
  h,
  keyBindings,
  keyLabel,
  reducedMotion,
  roomName,
  savedName,
  saveKeyBindings,
  setAttr,
  setHidden,
  setText,
  saveName,
  saveSeat,
  seatFor,
  showError,
  startPage,
  DEFAULT_KEYS,
} from "./common.js";
import { warmFaces } from "./cards.js";
import { Connection, ReactionClock } from "./connection.js";
import { lang, msText, t } from "./i18n.js";
import {
  RACE_ENDS,
  Stats,
  TableView,
  describeEvent,
  displayName,
  fitNames,
  isBotName,
  placeOf,
  renderRanking,
  seatName,
  toldByNext,
} from "./table.js";
import { roomState } from "./roomstate.js";
import { Coach, lastChance } from "./practice.js";
import { Sound, vibrate } from "./sound.js";

const $ = (id) => document.getElementById(id);
const code = decodeURIComponent(location.pathname.split("/")[2] || "").toUpperCase();
const params = new URLSearchParams(location.search);

const state = {
  rest: null, // what is left of an update drawn card first, for after its frame (onUpdate)
  resumeAt: null, // when a rebuilt game counting down goes on (performance.now() time; showResume)
  info: null, // RoomInfo
  seat: null, // our seat, null when watching
  token: null,
  view: null,
  room: null,
  gameNo: null,
  conn: null,
  table: null,
  clock: new ReactionClock(),
  stats: new Stats(),
  slapSent: null, // "flipId|round" of our last slap
  slapFlip: null, // the flip_id of our last slap
  callSent: null, // flip_id of our last say-it call
  flipSent: null, // flip_id we last asked to flip at
  round: 0, // reslap rounds on the current card
  endDismissed: false,
  keys: keyBindings(),
  rebinding: null,
  coach: null, // practice.js: the practice game's explanations, the last-chance note
  lastRace: null, // {flipId, name, ms}: the last race's winner, for a late slap
  outShown: false, // the "you are out" overlay was shown this game
  rematchWhenOver: false, // the out overlay's rematch button, pressed while the others still play
  leaveArmed: false,
  log: [], // the log lines (#log), newest first: [{type, text}]
  logRestored: false, // the first view of this page load has brought back the saved log
};
// The log is kept for this tab and room (sessionStorage), so a reload (a
// reconnect with the seat token) shows what happened before it.
const LOG_KEY = `slapjack.log.${code}`;
const LOG_MAX = 40;
const sound = new Sound();

// ------------------------------------------------------------------ start

async function main() {
  await startPage("room");
  // The faces drawn once while the player reads the page and joins (the
  // language is known now: the corners' letters).
  warmFaces();
  document.addEventListener("langchange", () => {
    renderAll();
    renderKeys();
    renderMute();
  });
  $("join-name").value = savedName();
  $("room-code").textContent = code;
  let link = `${location.origin}/r/${code}`;
  $("invite-link").value = link;
  $("copy-link").addEventListener("click", async () => {
    const ok = await copyText(link);
    $("copy-link").textContent = ok ? t("room.copied") : t("room.copy");
    if (!ok) $("invite-link").select();
  });
  wireControls();
  renderKeys();
  try {
    state.info = await api(`/api/rooms/${encodeURIComponent(code)}`);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) {
      $("missing").hidden = false;
      return;
    }
    showStatus(err.message, true);
    return;
  }
  $("qr").src = `/api/rooms/${encodeURIComponent(code)}/qr.svg`;
  try {
    // the server's own address for invites (--lan, --public-url), and whether it works elsewhere
    const invite = await api(`/api/rooms/${encodeURIComponent(code)}/invite`);
    link = invite.url;
    $("invite-link").value = link;
    $("invite-local").hidden = !invite.local_only;
  } catch {
    // the link of this page stays
  }
  const saved = seatFor(code);
  if (saved && saved.token) {
    connect(saved.token, saved.seat);
  } else if (params.has("watch")) {
    connect(null, null);
  } else {
    showJoin();
  }
}

function showJoin() {
  const info = state.info;
  $("join").hidden = false;
  $("game").hidden = true;
  const full = !!info && info.free_seats <= 0;
  $("join-info").textContent = full
    ? t("room.join_full", { name: roomName(info, code), game: t(`game.${info.game}`) })
    : info
    ? t("room.join_info", {
        name: roomName(info, code),
        game: t(`game.${info.game}`),
        free: info.free_seats,
        count: info.free_seats,
      })
    : "";
  $("join-btn").disabled = full;
  if (full) $("watch-btn").focus();
  else $("join-name").focus();
}

async function join(ev) {
  ev.preventDefault();
  const name = $("join-name").value.trim();
  if (!name) return;
  saveName(name);
  showError($("join-error"), null);
  try {
    const joined = await api(`/api/rooms/${encodeURIComponent(code)}/join`, {
      method: "POST",
      body: { name },
    });
    saveSeat({ ...joined, code });
    $("join").hidden = true;
    connect(joined.token, joined.seat);
  } catch (err) {
    showError($("join-error"), err);
  }
}

function connect(token, seat) {
  state.token = token;
  state.seat = seat;
  $("join").hidden = true;
  $("game").hidden = false;
  if (state.conn) state.conn.close();
  state.conn = new Connection(code, token, {
    lang,
    onWelcome,
    onUpdate,
    onError,
    onStatus,
  });
  state.conn.connect();
}

// -------------------------------------------------------- server messages

function onWelcome(msg) {
  state.info = msg.room || state.info;
  state.seat = msg.seat ?? null;
  if (state.seat === null && state.token) {
    // The token was not accepted for a seat: fall back to joining.
    forgetSeat(code);
  }
  setupTable();
  state.coach ??= new Coach({
    practice: params.has("practice"),
    seat: () => state.seat,
    seatEl: (s) => (state.table && state.table.seatEls ? state.table.seatEls[s] || null : null),
    name: seatName,
    avoid: () => [document.querySelector("#table .pile"), $("slap-btn"), $("my-stack")],
  });
  renderAll();
}

function onStatus(status, detail) {
  if (status === "open") showStatus(null);
  else if (status === "closed") showStatus(t("room.reconnecting"));
  else if (status === "connecting" && state.view) showStatus(t("room.reconnecting"));
  else if (status === "gone") {
    showStatus(t("room.gone", { reason: (detail && detail.reason) || detail.code }), true);
  }
}

function onError(msg) {
  if (msg.code === "bad_token") {
    forgetSeat(code);
    state.conn.close();
    state.token = null;
    state.seat = null;
    showJoin();
    return;
  }
  // A slap that reached the server after the next card: the race it meant was
  // settled; say by whom.
  if (msg.code === "stale_flip" && state.lastRace && state.lastRace.flipId === state.slapFlip) {
    showTooLate();
    return;
  }
  // Races lost to timing (a stale flip, a closed window) are normal; say so quietly.
  const key = `error.${msg.code}`;
  const text = t(key) !== key ? t(key) : msg.message || msg.code;
  flashResult(text, "warn");
}

function onUpdate(msg) {
  flushRest(); // the rest of the last update first, if the frame of its card has not come yet
  const prev = state.view;
  const view = msg.view;
  const room = roomState(msg.room, view, state.info);
  if (state.info && room.status) state.info = { ...state.info, status: room.status };
  if (room.gameNo !== null && room.gameNo !== state.gameNo) {
    // A new game (a rematch): forget the last one's statistics.
    if (state.gameNo !== null) {
      state.stats.reset();
      state.endDismissed = false;
      state.slapSent = state.callSent = state.flipSent = null;
      state.clock = new ReactionClock();
      state.lastRace = null;
      state.outShown = false;
      delete $("end").dataset.shown;
      fill($("log"));
      state.log = [];
      pendingLog.length = 0;
      saveLog();
      if (state.coach) state.coach.reset();
      clearResult();
      if (state.table) state.table.clearRace();
    }
    state.gameNo = room.gameNo;
  }
  state.view = view;
  state.room = room;
  if (view && !state.logRestored) restoreLog(view, room);
  if (view) {
    for (const ev of msg.events || []) handleEvent(ev, view);
  }
  if (cardOnly(msg, prev)) {
    // A plain flip: the card now, everything else after the frame that shows
    // it (the counts of the seats, the controls, the side panel: one frame
    // later). The work of the page for the update kept the card from the screen
    // (docs/benchmarks.md, "Nothing moves while you flip").
    state.table.renderCard(view);
    stampCard(msg, view, prev, room);
    state.rest = () => {
      renderAll();
      afterUpdate(msg, view, room);
    };
    afterPaint(flushRest);
    return;
  }
  renderAll();
  stampCard(msg, view, prev, room);
  afterUpdate(msg, view, room);
}

/** The rest of an update drawn card first (see onUpdate), now. */
function flushRest() {
  const rest = state.rest;
  state.rest = null;
  if (rest) rest();
}

/** Is ``msg`` a plain flip in a game under way (one card more, nothing else)? */
function cardOnly(msg, prev) {
  const view = msg.view;
  const events = msg.events || [];
  if (!view || !prev || view.over || !state.table || state.table.n !== view.players.length) return false;
  if (events.length !== 1 || events[0].type !== "flipped") return false;
  const status = (state.room && state.room.status) || (state.info && state.info.status);
  return status !== "waiting" && status !== "closed";
}

/** Does ``view`` name players to slap again (an exact tie)? */
function reslapping(view) {
  return !!(view.reslap_among && view.reslap_among.length);
}

/** The card (or its reslap cue) is in the DOM now: stamp it after it is painted. */
function stampCard(msg, view, prev, room) {
  if (view && view.centre_top.length) {
    const flipId = view.flip_id ?? view.flips;
    // A new reslap round: the race_tied event, or (for a page that was away
    // when it came: a reconnect) a view naming reslappers where the last did not
    // (on another card the round starts at 0 below anyway).
    const tied =
      (msg.events || []).some((ev) => ev.type === "race_tied") || (reslapping(view) && !(prev && reslapping(prev)));
    if (tied) state.round += 1;
    if (!prev || flipId !== (prev.flip_id ?? prev.flips)) state.round = 0;
    // A rebuilt game counting down (timers.resume) holds its card: no slap
    // until it goes on, then the card is stamped afresh (connection.js).
    state.clock.cardDrawn(flipId, state.round, { held: room.resume_in_ms !== null });
  }
}

/** What an update does after it is drawn. */
function afterUpdate(msg, view, room) {
  if (room.resume_in_ms) showResume(performance.now() + room.resume_in_ms);
  if (view && view.over) flushLog(); // the end screen: the whole log at once
  if (state.coach) state.coach.update(msg, view);
  if (view && state.rematchWhenOver && view.over) {
    state.rematchWhenOver = false;
    askRematch();
  }
  // For tests and the benchmark: the page has drawn this update.
  document.dispatchEvent(new CustomEvent("sj:rendered", { detail: { seq: msg.seq } }));
}

function handleEvent(ev, view) {
  state.stats.add(ev);
  const text = describeEvent(ev, view);
  // (a wrong slap that picks up the pile: one line, the pick-up's, marked as
  // a wrong slap)
  const wrongPickup = ev.type === "picked_up" && ev.reason === "wrong";
  if (ev.type !== "slapped" && !toldByNext(ev)) addLog(text, wrongPickup ? "wrong_slap" : ev.type);
  const table = state.table;
  const me = state.seat;
  switch (ev.type) {
    case "flipped":
      announce(text);
      sound.play("flip");
      break;
    case "wrong_slap":
      if (!toldByNext(ev)) announce(text, { assertive: ev.seat === me });
      if (ev.seat === me) {
        sound.play("wrong");
        flashResult(t("room.wrong_slap"), "warn");
      }
      if (table) {
        table.flash(ev.seat, "wrong");
        if (ev.penalty === "pay_player") table.penalty(ev.seat, ev.to);
        if (ev.penalty === "pay_pile") table.penalty(ev.seat, null);
      }
      break;
    case "race_tied":
      announce(text, { assertive: true });
      if (view.reslap_among && view.reslap_among.includes(me)) {
        flashResult(t("room.reslap_now"), "hot");
      }
      break;
    case "race_won":
    case "pile_split":
    case "forfeit":
    case "picked_up":
      announce(text, { assertive: true });
      if (table) {
        // The pile goes to whoever takes it (the view after this has it gone).
        if (ev.type === "race_won") table.sweep(ev.winner);
        if (ev.type === "picked_up") table.sweep(ev.seat);
        table.showRace(ev, view);
        $("result-slot").classList.remove("fresh");
        if (ev.type === "race_won") table.flash(ev.winner, "win");
        if (ev.type === "forfeit" || (ev.type === "picked_up" && ev.reason === "wrong")) {
          table.flash(ev.seat, "wrong");
        }
      }
      if (ev.type === "race_won" || ev.type === "picked_up") sound.play("won");
      if (ev.type === "race_won" && ev.winner === me) {
        vibrate([40, 30, 40]);
        if (table) table.celebrate(me);
      }
      if (RACE_ENDS.has(ev.type)) showMyReaction(ev, view);
      break;
    case "game_over":
      announce(text, { assertive: true });
      sound.play("over");
      if (me !== null && (ev.winners || []).length === 1 && ev.winners[0] === me) {
        vibrate([60, 40, 60, 40, 120]);
        if (table) table.celebrate(me, true);
      }
      break;
    default:
      announce(text);
  }
}

/** My line in the result slot: the one reaction time the referee ranked, or
 * why my slap did not count (it came after the race was settled). */
function showMyReaction(ev, view) {
  const flipId = view.flip_id ?? view.flips;
  const reactions = ev.reactions || [];
  const taker = ev.type === "race_won" ? ev.winner : null;
  const takerMs = taker === null ? null : (reactions.find(([s]) => s === taker) || [])[1];
  state.lastRace =
    taker === null ? null : { flipId, name: seatName(view, taker), ms: takerMs, seat: taker };
  if (state.seat === null) return;
  const mine = reactions.find(([s]) => s === state.seat);
  const slapped = typeof state.slapSent === "string" && state.slapSent.startsWith(`${flipId}|`);
  if (!mine || mine[1] === null || mine[1] === undefined) {
    if (slapped && taker !== null && taker !== state.seat) showTooLate();
    return;
  }
  const won =
    (ev.type === "race_won" && ev.winner === state.seat) ||
    (ev.type === "picked_up" && ev.seat !== state.seat);
  flashResult(t(won ? "room.you_won_race" : "room.your_reaction", { ms: msText(mine[1]) }), won ? "good" : "", true);
}

function showTooLate() {
  const last = state.lastRace;
  if (!last) return;
  flashResult(t("room.too_late", { name: last.name, ms: msText(last.ms) }), "warn");
}

// -------------------------------------------------------------- rendering

function setupTable() {
  if (state.table && state.table.opts.me === state.seat) return;
  const seated = state.seat !== null;
  state.table = new TableView($("table"), {
    me: state.seat,
    onSlap: seated ? (ev) => slap(ev) : null,
    raceEl: $("race-slot"),
    stackEl: seated ? $("my-stack") : null,
    fitPile: true,
    // (a new size may fit a crowded band's names in fewer rows, or more)
    onUnits: () => {
      if (state.table && state.table.n) fitSeatNames(state.table);
    },
  });
}

function renderAll() {
  const info = state.info;
  // The room's name and rules: again only when they (or the language) change.
  const headKey = info && [info.name, info.game, info.preset, JSON.stringify(info.rules || {}), lang].join("|");
  if (info && headKey !== state.headKey) {
    state.headKey = headKey;
    setText($("room-name"), roomName(info, code));
    // The preset, and every house rule the room sets on top of it.
    const extra = Object.entries(info.rules || {})
      .filter(([k]) => k !== "preset")
      .map(([k, v]) => {
        if (k === "time_limit") {
          const time = v % 60 ? `${v} s` : `${v / 60} min`;
          return `${t("opt.time_limit")}: ${time}`;
        }
        if (typeof v === "boolean") return v ? t(`opt.${k}`) : "";
        return `${t(`opt.${k}`)}: ${t(`opt.${k}.${v}`)}`;
      })
      .filter(Boolean);
    setText($("room-rules"), [`${t(`game.${info.game}`)} · ${t(`preset.${info.preset}`)}`, ...extra].join(" · "));
    setAttr($("rules-link"), "href", `/rules?preset=${encodeURIComponent(info.preset)}`);
  }
  const seated = state.seat !== null;
  setHidden($("spectating"), seated);
  setHidden($("leave-btn"), !seated);
  const view = state.view;
  const room = state.room;
  const status = (room && room.status) || (info && info.status);
  const waiting = status === "waiting" || !view;
  renderWaiting(waiting);
  renderClock(room);
  const watching = room ? room.spectators || 0 : 0;
  setHidden($("watchers"), watching === 0);
  setText($("watchers"), t("room.watchers", { n: watching, count: watching }));
  setHidden($("controls"), !seated || waiting);
  setHidden($("result-slot"), waiting);
  setAttr($("result-slot"), "data-placeholder", t("room.result_placeholder"));
  $("game").querySelector(".play-area").classList.toggle("say-it", !!(view && view.rules && sayIt(view)));
  if (status === "closed") showStatus(t("room.closed"), true);
  if (waiting || !state.table) return;
  state.table.render(view, room);
  fitSeatNames(state.table);
  renderControls(view);
  renderOut(view);
  renderEnd(view);
}

/** Each seat's name whole on its line: its font shrinks to fit (app.css:
 * --word-em, the name's width in em). Only the names drawn anew (a new
 * seat, name or language): an update that changes none measures nothing.
 * An upright phone's band shows the others' seats side by side
 * (--band-seats: how many share its width). Five or more (data-crowded):
 * their names may take two lines, the seats in rows (--band-rows): a fifth
 * of the width or less in one row showed "Beginn…", a ninth "Be…". */
function fitSeatNames(table) {
  fitNames(table.el.querySelectorAll(".seat .who:not([data-fit])"), { line: true });
  const others = table.n - (table.opts.me === null || table.opts.me === undefined ? 0 : 1);
  const rows = others >= 5 ? bandRows(table, others) : 1;
  const band = `${others}|${rows}`;
  if (table.el.dataset.band !== band) {
    table.el.dataset.band = band;
    table.el.toggleAttribute("data-crowded", others >= 5);
    table.el.style.setProperty("--band-seats", String(Math.ceil(others / rows)));
    table.el.style.setProperty("--band-rows", String(rows));
  }
}

// A crowded band's seats (app.css, [data-crowded]): the gap between them,
// their padding and border (px each side), the least font of a name that
// fits, and the felt's content height from which three rows leave the pile
// a card of about 90 px.
const BAND = { gap: 3.2, pad: 1.6 + 2, font: 10.5, tall: 426 };

/** How many rows a crowded band of ``others`` seats takes on an upright
 * phone: the fewest (five seats to a row at most) in which every name fits
 * its seat on two lines at 10.5 px or more (--two-em, fitNames); two rows
 * at most, three on a felt tall enough; the most allowed if no count is
 * enough (their fonts shrink). Only from numbers the page has (the felt's
 * size, the names' widths): no layout is read. */
function bandRows(table, others) {
  const least = Math.ceil(others / 5);
  const [fw, fh] = table.units.split("|").map(Number);
  if (!fw) return least;
  const most = Math.max(least, fh * 100 >= BAND.tall ? 3 : 2);
  let need = 0;
  table.seatEls.forEach((seat, s) => {
    if (s === table.opts.me) return;
    const em = parseFloat(seat._parts.name.querySelector(".who")?.style.getPropertyValue("--two-em"));
    if (em > need) need = em;
  });
  for (let rows = least; rows < most; rows++) {
    const perRow = Math.ceil(others / rows);
    const inner = (fw * 100 - (perRow - 1) * BAND.gap) / perRow - 2 * BAND.pad;
    if (inner * 0.985 >= need * BAND.font) return rows;
  }
  return most;
}

function renderClock(room) {
  const el = $("clock");
  const left = room ? room.time_left_ms : null;
  setHidden(el, left === null);
  if (left === null) return;
  const deadline = performance.now() + left;
  el.dataset.deadline = String(deadline);
  tickClock();
}

function tickClock() {
  const el = $("clock");
  if (el.hidden || !el.dataset.deadline) return;
  const left = Math.max(0, Number(el.dataset.deadline) - performance.now());
  const secs = Math.ceil(left / 1000);
  setText(el, t("room.time_left", { time: `${Math.floor(secs / 60)}:${String(secs % 60).padStart(2, "0")}` }));
}
setInterval(tickClock, 250);

function renderWaiting(waiting) {
  setHidden($("waiting"), !waiting);
  setHidden($("table"), !!waiting);
  if (!waiting) return;
  const room = state.room || roomState(null, null, state.info);
  const names = room.names || [];
  // (the table, hidden, laid out with its seats: its pile has the game's
  // size, and its faces are warmed at it, before the first card)
  if (state.table) state.table.layoutSeats(names.length);
  const free = names.filter((n) => !n).length;
  $("waiting-info").textContent =
    room.start_in_ms !== null && room.start_in_ms !== undefined
      ? t("room.starting")
      : free
        ? t("room.waiting_info", { free, count: free })
        : t("room.waiting_connect");
  fill($("waiting-seats"), 
    ...names.map((name, s) => {
      const bot = room.bots[s];
      const mine = s === state.seat;
      let text;
      if (bot) text = isBotName(name) ? displayName(name) : `${name || ""} (${t(`bot.${bot}`)})`;
      else if (name) {
        const on = room.connected && room.connected[s];
        text = `${name}${mine ? ` (${t("seat.you")})` : ""}${on ? "" : ` · ${t("room.not_here")}`}`;
      } else text = t("room.free_seat");
      return h(
        "li",
        { class: name || bot ? "taken" : "free" },
        h("span", { class: "seat-no" }, t("seat.n", { n: s + 1 })),
        " ",
        text,
      );
    }),
  );
  $("start-btn").hidden = state.seat === null || free === 0;
}

function renderControls(view) {
  const me = state.seat;
  if (me === null) return;
  const fixed = !!(state.info && state.info.tempo === "fixed");
  const myTurn = view.turn === me && !view.over && !fixed;
  setText($("my-count"), view.stacks[me]);
  $("my-stack").classList.toggle("empty", view.stacks[me] === 0);
  const stack = $("my-stack");
  stack.classList.toggle("turn", myTurn);
  if (stack.disabled !== !myTurn) stack.disabled = !myTurn;
  setAttr(
    stack,
    "aria-label",
    t(myTurn ? "room.flip_aria" : "room.stack_aria", { n: view.stacks[me], count: view.stacks[me] }),
  );
  const out = view.out[me];
  const noSlap = !!(view.over || out);
  if ($("slap-btn").disabled !== noSlap) $("slap-btn").disabled = noSlap;
  setHidden($("call-btn"), !(view.rules && sayIt(view)));
  const hint = fixed
    ? t("room.fixed_tempo")
    : myTurn
      ? touchScreen()
        ? t("room.flip_hint_touch")
        : t("room.flip_hint", { key: keyLabel(state.keys.flip) })
      : "";
  setText($("flip-hint"), hint);
  // Your last chance, said under your stack too: on an upright phone the felt
  // does not show your seat, nor the note on it (app.css shows this there only).
  const chance = lastChance(view, me);
  setText($("stack-note"), chance ? t(`seat.last_chance.${chance}`) : "");
  setText($("slap-hint"), keyLabel(state.keys.slap));
  setText($("call-hint"), keyLabel(state.keys.call));
}

const COARSE = window.matchMedia("(pointer: coarse)");
function touchScreen() {
  return COARSE.matches;
}

function sayIt(view) {
  return view.rules.say_it === true || view.rules.preset === "say-it";
}

function renderEnd(view) {
  const over = view.over;
  setHidden($("end"), !over || state.endDismissed);
  if (!over) return;
  const me = state.seat;
  const irish = view.game === "irish-snap";
  const place = me === null ? 0 : placeOf(view, me);
  const loserName = view.loser !== null && view.loser !== undefined ? seatName(view, view.loser) : null;
  let title;
  if (me !== null && view.loser === me) title = t("end.you_lose");
  else if (me !== null && place === 1 && (view.winners.includes(me) || !irish)) title = t("end.you_win");
  else if (me !== null && place > 0) title = t("end.your_place", { place: ordinal(place), n: view.players.length });
  else if (view.winners.length && !irish) {
    title = t("end.winners", { names: view.winners.map((s) => seatName(view, s)).join(", ") });
  } else if (loserName) title = t("end.loser", { name: loserName });
  else title = t("end.over");
  if (irish && loserName && view.loser !== me && title !== t("end.loser", { name: loserName })) {
    title += " " + t("end.loser", { name: loserName });
  }
  $("end-title").textContent = title;
  renderRanking($("ranking"), view, state.stats, me === null ? [] : [me]);
  const room = state.room;
  const asked = (room && room.rematch) || [];
  $("end-note").textContent =
    t("end.note", { flips: view.flips }) +
    (asked.length
      ? " " + t("end.rematch_wanted", { names: asked.map((s) => seatName(view, s)).join(", ") })
      : "");
  $("rematch-btn").hidden = me === null;
  if (me !== null && !asked.includes(me)) {
    $("rematch-btn").disabled = false;
    $("rematch-btn").textContent = t("end.rematch");
  }
  const replay = $("replay-link");
  replay.hidden = !(room && room.gameId !== null && room.gameId !== undefined);
  if (!replay.hidden) replay.href = `/replay/${room.gameId}`;
  if (!$("end").dataset.shown) {
    $("end").dataset.shown = "1";
    // Focus the dialog's title, not a button: a Space meant as a last flip must
    // not press "Rematch".
    $("end-title").focus();
  }
}

/** "1st", "2nd" / "1.", "2." */
function ordinal(n) {
  const key = `ord.${n}`;
  return t(key) !== key ? t(key) : t("ord.n", { n });
}

/** Out of a game that goes on: your result, and what now. */
function renderOut(view) {
  const me = state.seat;
  const out = me !== null && view.out[me] && !view.over;
  if (!out) {
    setHidden($("out"), true);
    return;
  }
  if (state.outShown) return;
  state.outShown = true;
  const irish = view.game === "irish-snap";
  const place = view.out_order.indexOf(me);
  const n = view.players.length;
  // Slapjack: the first one out is last; Irish Snap: the first one out placed first.
  const rank = irish ? place + 1 : n - place;
  $("out-title").textContent = t(irish ? "out.safe_title" : "out.title");
  $("out-text").textContent = t(irish ? "out.safe_text" : "out.text", {
    place: ordinal(rank),
    n,
  });
  $("out-rematch").disabled = false;
  $("out-rematch").textContent = t("out.rematch");
  $("out").hidden = false;
  $("out-title").focus();
}

function askRematch() {
  if (!state.conn) return;
  state.conn.act("rematch");
  $("rematch-btn").disabled = true;
  $("rematch-btn").textContent = t("end.rematch_asked");
}

// Log lines wait until the frame that shows the update is painted (the log
// is not on the way from a keypress to the card: docs/benchmarks.md, Browser),
// and are written at most every LOG_EVERY_MS: a new line at the top moves every
// line below it, and repainting them (and the storage copy) was the largest
// part of an update's paint.
const pendingLog = [];
const LOG_EVERY_MS = 800;
let lastLogFlush = -Infinity;

function addLog(text, type) {
  pendingLog.push({ type, text });
  if (pendingLog.length !== 1) return;
  const wait = lastLogFlush + LOG_EVERY_MS - performance.now();
  if (wait > 0) setTimeout(() => afterPaint(flushLog), wait);
  else afterPaint(flushLog);
}

function flushLog() {
  if (!pendingLog.length) return;
  lastLogFlush = performance.now();
  const log = $("log");
  for (const line of pendingLog.splice(0)) {
    log.prepend(h("li", { class: `ev-${line.type}` }, line.text));
    state.log.unshift(line);
  }
  while (log.children.length > LOG_MAX) log.lastChild.remove();
  state.log.length = Math.min(state.log.length, LOG_MAX);
  saveLog();
}

addEventListener("pagehide", () => flushLog());

function saveLog() {
  try {
    sessionStorage.setItem(LOG_KEY, JSON.stringify({ game: state.gameNo, lines: state.log }));
  } catch {
    // storage full or refused: the log lives on in the page only
  }
}

/** The first view after the page (re)loaded: bring back this game's log, else
 * say that the moves before this moment are not shown. */
function restoreLog(view, room) {
  state.logRestored = true;
  let saved = null;
  try {
    saved = JSON.parse(sessionStorage.getItem(LOG_KEY) || "null");
  } catch {
    saved = null;
  }
  const lines =
    saved && saved.game === room.gameNo && Array.isArray(saved.lines)
      ? saved.lines.filter((l) => l && typeof l.text === "string").slice(0, LOG_MAX)
      : [];
  state.log = lines.map((l) => ({ type: String(l.type || "note"), text: l.text }));
  fill(
    $("log"),
    state.log.map((l) => h("li", { class: `ev-${l.type}` }, l.text)),
  );
  if (!state.log.length && (view.flips || 0) > 0) addLog(t("room.log_reconnected"), "reconnected");
  else saveLog();
}

/** My line in the result slot. ``why``: with a button that explains the time. */
function flashResult(text, kind = "", why = false) {
  const el = $("my-result");
  fill(el,
    h("span", { class: "text" }, text),
    why
      ? h("button", {
          class: "why",
          type: "button",
          title: t("room.why"),
          "aria-label": t("room.why_label"),
          "aria-expanded": "false",
          onpointerdown: (ev) => ev.stopPropagation(),
          onclick: (ev) => {
            const open = $("why").hidden;
            $("why").hidden = !open;
            ev.currentTarget.setAttribute("aria-expanded", String(open));
          },
        }, "i")
      : null,
  );
  el.className = `my-result show ${kind}`.trim();
  $("why").hidden = true;
  $("result-slot").classList.remove("fresh");
}

function clearResult() {
  $("result-slot").classList.add("fresh");
  fill($("my-result"));
  $("my-result").className = "my-result";
  $("why").hidden = true;
}

/** A game moved to another node (or restarted) goes on at ``at``: count down. */
function showResume(at) {
  clearInterval(state.resumeTimer);
  state.resumeAt = at;
  const tick = () => {
    const left = at - performance.now();
    if (left > 0) return showStatus(t("room.resuming", { seconds: Math.ceil(left / 1000) }));
    clearInterval(state.resumeTimer);
    showStatus(null);
  };
  tick();
  state.resumeTimer = setInterval(tick, 250);
}

function showStatus(text, bad = false) {
  const el = $("status");
  el.hidden = !text;
  el.textContent = text || "";
  el.classList.toggle("bad", bad);
}

// ---------------------------------------------------------------- actions

function canPlay() {
  return state.seat !== null && state.view && !state.view.over && state.conn;
}

/** A rebuilt game counting down (showResume): a flip or slap now says to
 * wait, rather than nothing (the server would refuse it, the clock holds the card). */
function waitingForResume() {
  if (!(state.resumeAt && performance.now() < state.resumeAt)) return false;
  flashResult(t("room.resume_wait"), "warn");
  return true;
}

function slap(ev) {
  if (!canPlay() || waitingForResume()) return;
  const inputAt = ev.timeStamp;
  const view = state.view;
  if (view.out[state.seat]) return;
  if (!view.centre_top.length) {
    // The pile was just taken: say by whom, so the slap does not vanish.
    const last = state.lastRace;
    if (last && last.flipId === (view.flip_id ?? view.flips) && last.seat !== state.seat) showTooLate();
    return;
  }
  if (view.reslap_among && !view.reslap_among.includes(state.seat)) return;
  const fields = state.clock.slapFields(inputAt);
  if (!fields) return;
  const key = `${fields.flip_id}|${state.clock.round}`;
  if (state.slapSent === key) return; // only the first slap on a card counts
  state.slapSent = key;
  state.slapFlip = fields.flip_id;
  const call = state.callSent === fields.flip_id;
  state.conn.act("slap", { ...fields, call });
  state.table.markSlap(state.seat);
  // No time yet: the one shown is the referee's, when the race is settled.
  flashResult(t("room.you_slapped"));
  $("my-result").dataset.slaps = String(Number($("my-result").dataset.slaps || 0) + 1);
  pulse($("slap-btn"));
  sound.play("slap");
  vibrate(25);
}

function sayCall() {
  if (!canPlay() || !sayIt(state.view)) return;
  const flipId = state.view.flip_id ?? state.view.flips;
  if (state.callSent === flipId) return;
  state.callSent = flipId;
  state.conn.act("call", { flip_id: flipId });
  pulse($("call-btn"));
}

function flip() {
  if (!canPlay() || waitingForResume()) return;
  const view = state.view;
  if (view.turn !== state.seat || view.race_open) return;
  if (state.info && state.info.tempo === "fixed") return; // the room flips by itself
  const flipId = view.flip_id ?? view.flips;
  if (state.flipSent === flipId) return;
  state.flipSent = flipId;
  state.conn.act("flip", { flip_id: flipId });
  // Sent; now the rest of the last update, if its frame has not come yet (it would
  // start this turn's timer again), then nothing left moving.
  flushRest();
  if (state.table) state.table.settle();
}

/** A press shown by light and shadow (the button never moves), without a reflow. */
function pulse(el) {
  if (reducedMotion()) return;
  el.animate([{ filter: "brightness(1)" }, { filter: "brightness(1.3)" }, { filter: "brightness(1)" }], {
    duration: 180,
    easing: "ease-out",
  });
}

function wireControls() {
  $("join-form").addEventListener("submit", join);
  $("watch-btn").addEventListener("click", () => connect(null, null));
  $("my-stack").addEventListener("click", () => flip());
  $("slap-btn").addEventListener("pointerdown", (ev) => {
    ev.preventDefault();
    slap(ev);
  });
  $("slap-btn").addEventListener("click", (ev) => {
    // Keyboard activation of the button (Enter): a click with no pointer.
    if (ev.detail === 0) slap(ev);
  });
  $("call-btn").addEventListener("pointerdown", (ev) => {
    ev.preventDefault();
    sayCall();
  });
  $("call-btn").addEventListener("click", (ev) => {
    if (ev.detail === 0) sayCall();
  });
  $("start-btn").addEventListener("click", () => state.conn && state.conn.act("start"));
  $("rematch-btn").addEventListener("click", askRematch);
  $("out-rematch").addEventListener("click", () => {
    // The room plays the rest out quickly once only bots are left; the
    // rematch is asked for the moment the game is over.
    state.rematchWhenOver = true;
    $("out-rematch").disabled = true;
    $("out-rematch").textContent = t("out.rematch_waiting");
    if (state.view && state.view.over) {
      state.rematchWhenOver = false;
      askRematch();
    }
  });
  $("out-watch").addEventListener("click", () => {
    $("out").hidden = true;
  });
  $("out-leave").addEventListener("click", () => {
    state.conn.act("leave");
    forgetSeat(code);
    location.href = "/";
  });
  $("side-toggle").addEventListener("click", () => toggleSide());
  $("side-close").addEventListener("click", () => toggleSide(false));
  $("mute-btn").addEventListener("click", () => {
    sound.setMuted(!sound.muted);
    renderMute();
  });
  renderMute();
  $("end-close").addEventListener("click", () => {
    state.endDismissed = true;
    $("end").hidden = true;
  });
  $("leave-btn").addEventListener("click", () => {
    // Two steps, in the page: "Leave my seat", then "Really leave? A bot takes over".
    if (!state.leaveArmed) {
      state.leaveArmed = true;
      $("leave-btn").textContent = t("room.leave_confirm");
      setTimeout(() => {
        state.leaveArmed = false;
        $("leave-btn").textContent = t("room.leave");
      }, 4000);
      return;
    }
    state.leaveArmed = false;
    $("leave-btn").textContent = t("room.leave");
    state.conn.act("leave");
    forgetSeat(code);
    connect(null, null);
  });
  document.addEventListener("keydown", onKey);
  $("keys-reset").addEventListener("click", () => {
    state.keys = { ...DEFAULT_KEYS };
    saveKeyBindings(state.keys);
    renderKeys();
    if (state.view) renderControls(state.view);
  });
}

function toggleSide(open = !document.body.classList.contains("side-open")) {
  document.body.classList.toggle("side-open", open);
  $("side-toggle").setAttribute("aria-expanded", String(open));
  if (open) $("side-close").focus();
}

function renderMute() {
  const btn = $("mute-btn");
  // A speaker, with sound waves or crossed out (drawn: no emoji font needed).
  btn.innerHTML =
    '<svg viewBox="0 0 24 24" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">' +
    '<path d="M4 9h4l5-4v14l-5-4H4z" fill="currentColor"/>' +
    (sound.muted ? '<path d="M17 9l5 6M22 9l-5 6"/>' : '<path d="M16.5 8.5a5 5 0 0 1 0 7M19 6a8.5 8.5 0 0 1 0 12"/>') +
    "</svg>";
  btn.setAttribute("aria-pressed", String(sound.muted));
  btn.title = t(sound.muted ? "sound.unmute" : "sound.mute");
  btn.setAttribute("aria-label", btn.title);
}

function onKey(ev) {
  if (state.rebinding) {
    ev.preventDefault();
    if (ev.key !== "Escape" && ev.key !== "Tab") {
      state.keys = { ...state.keys, [state.rebinding]: ev.key.length === 1 ? ev.key.toLowerCase() : ev.key };
      saveKeyBindings(state.keys);
    }
    state.rebinding = null;
    renderKeys();
    if (state.view) renderControls(state.view);
    return;
  }
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const target = ev.target;
  const tag = target && target.tagName;
  if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") return;
  if (!$("end").hidden) return;
  if (ev.key === "Escape" && document.body.classList.contains("side-open")) {
    toggleSide(false);
    return;
  }
  const key = ev.key.length === 1 ? ev.key.toLowerCase() : ev.key;
  if (ev.repeat) {
    if ([state.keys.slap, state.keys.flip, state.keys.call].includes(key)) ev.preventDefault();
    return;
  }
  if (key === state.keys.slap) {
    ev.preventDefault();
    slap(ev);
  } else if (key === state.keys.call) {
    ev.preventDefault();
    sayCall();
  } else if (key === state.keys.flip) {
    // Space on a focused button belongs to the button.
    if (key === " " && (tag === "BUTTON" || tag === "A" || tag === "SUMMARY")) return;
    ev.preventDefault();
    flip();
  }
}

function renderKeys() {
  const list = $("key-list");
  fill(list, 
    ...["flip", "slap", "call"].map((action) =>
      h(
        "li",
        {},
        h("span", {}, t(`keys.${action}`)),
        h(
          "button",
          {
            class: "btn small key",
            type: "button",
            "aria-label": t("keys.change", { action: t(`keys.${action}`) }),
            onclick: () => {
              state.rebinding = action;
              renderKeys();
            },
          },
          state.rebinding === action ? t("keys.press") : keyLabel(state.keys[action]),
        ),
      ),
    ),
  );
}

// "ready": the page is wired up (tests wait for it before they type or click).
main().finally(() => {
  document.body.dataset.ready = "1";
});
