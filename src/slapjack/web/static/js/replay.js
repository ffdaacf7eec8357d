// The replay viewer (/replay/{id}): steps through a finished game card by card.
// The server replays the record with the engine (GET /api/games/{id}/replay);
// this page only shows its steps.

import { api, fill, h, setText, showError, startPage } from "./common.js";
import { msText, t } from "./i18n.js";
import { RACE_ENDS, TableView, describeEvent, fitNames, toldByNext } from "./table.js";

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
  // each name's widest word (app.css: its font shrinks until that fits)
  fitNames(table.el.querySelectorAll(".seat .who:not([data-fit])"));
  // (and the sides' seats as wide as the widest word, up to a limit: app.css)
  const widest = Math.max(
    0,
    ...[...table.el.querySelectorAll(".seat .who")].map((el) => parseFloat(el.style.getPropertyValue("--word-em")) || 0),
  );
  table.el.style.setProperty("--name-em", String(widest));
  if (table.el.dataset.seats !== String(table.n)) markSeats();
  table.clearRace();
  for (const ev of step.events) if (RACE_ENDS.has(ev.type)) table.showRace(ev, step.view);
  $("scrub").value = String(pos);
  const flips = step.view.flips;
  $("pos").textContent = t("replay.pos", { n: pos, total: steps.length - 1, flips });
  const lines = step.events.filter((ev) => !toldByNext(ev)).map((ev) => h("li", {}, describeEvent(ev, step.view)));
  if (!lines.length) lines.push(h("li", {}, describeAction(step)));
  fill($("step-events"), lines);
  $("first").disabled = $("prev").disabled = $("prev-card").disabled = pos === 0;
  $("last").disabled = $("next").disabled = $("next-card").disabled = pos === steps.length - 1;
  if (pos === steps.length - 1) stop();
}

// The table's seats for the stylesheet (app.css, "The replay's table"): the
// felt's count of seats (data-seats) and how many sit on each side
// (data-column), each seat's side of the felt (data-place: foot, head, left
// or right). Seat 0 at the foot, the others round the table as a room has
// them: up the left side, over the head, down the right side; the head gets
// the one left over when the others do not split evenly between the sides
// (four seats: left, head, right).
function markSeats() {
  const n = table.n;
  const side = Math.floor((n - 1) / 2);
  const head = (n - 1) % 2 === 1;
  table.el.dataset.seats = String(n);
  table.el.dataset.column = String(side);
  table.seatEls.forEach((el, s) => {
    el.dataset.place =
      s === 0 ? "foot" : s <= side ? "left" : head && s === side + 1 ? "head" : "right";
  });
  if (!sizes && typeof ResizeObserver === "function") {
    // after the frame's layout, once for all that changed in it
    sizes = new ResizeObserver(() => {
      pending ||= requestAnimationFrame(layOut);
    });
    sizes.observe(table.el);
    sizes.observe(table.sideEl);
  }
  if (sizes) for (const el of table.seatEls) sizes.observe(el);
  layOut();
}

let sizes = null;
let pending = 0;

// The room the pile's count takes on its line: the longest it says (52
// cards, in the page's language) or has said; it keeps that room while the
// count changes, and the pile its size.
let countProbe = null;
const countRoom = { width: 0, height: 0 };
function countSize() {
  if (!countProbe) {
    countProbe = h("div", { class: "pile-info count-probe", "aria-hidden": "true" });
    table.sideEl.append(countProbe);
    if (sizes) sizes.observe(countProbe);
  }
  setText(countProbe, t("pile.count", { n: 52, count: 52 }));
  for (const r of [table.sideEl.getBoundingClientRect(), countProbe.getBoundingClientRect()]) {
    countRoom.width = Math.max(countRoom.width, r.width);
    countRoom.height = Math.max(countRoom.height, r.height);
  }
  return countRoom;
}

// A laptop's or a sideways phone's felt (the stylesheet says where: its
// --replay-layout is 1) with any count of seats but four (whose places the
// stylesheet has of its own): the seats where their sizes (their names'
// lines, known only once laid out) let them be, and the pile as large as
// they leave it, up to four seats' size.
// The foot's and the head's in the middle of the felt's foot and head (as
// four seats' are); each side's stacked in the middle of its side, each seat
// as far out as the felt's rounded edge lets all its corners be within its
// wooden rim, their spacing the one that leaves the largest pile. The pile in
// the felt's middle (a little over or under it where that makes it larger),
// its count on the line over it or beside it (whichever leaves the larger
// pile), and neither they nor the room the fan's cards tilt out of the
// pile's box (3 px at its head, 14 at its foot) near a seat or the rim.
// Run again when a seat's, the count's or the felt's size changes: a seat's
// does not with its status (app.css), nor the count's room (countSize), so
// the pile keeps its size all through a game.
const RIM = 14; // px: the felt's wooden edge (its inset box-shadow in app.css)
const GAP = 4; // px: between two seats, between a seat and the pile
const TILT = { head: 3, foot: 14 };
const TIGHTEST = 3; // the smallest seats' step (data-tight in app.css)
let tightAt = { W: 0, H: 0 }; // the felt's size when its seats last got smaller
function layOut() {
  pending = 0;
  const felt = table.el;
  const style = getComputedStyle(felt);
  if (style.getPropertyValue("--replay-layout").trim() !== "1") {
    if (felt.dataset.laidOut) {
      delete felt.dataset.laidOut;
      delete felt.dataset.count;
      delete felt.dataset.tight;
      for (const name of ["--fit-cw", "--pile-dy"]) felt.style.removeProperty(name);
      for (const el of table.seatEls) for (const name of ["--sx", "--sy"]) el.style.removeProperty(name);
    }
    return;
  }
  const W = felt.clientWidth;
  const H = felt.clientHeight;
  if (!W || !H) return;
  // The felt's rounded edge, `inset` px in: its half width at d px over or
  // under its middle, and the farthest d at which it is at least x wide.
  const [rx0, ry0] = (() => {
    const [x, y = x] = style.borderTopLeftRadius.split(" ");
    const px = (v, of) => (v.endsWith("%") ? (parseFloat(v) / 100) * of : parseFloat(v));
    return [Math.min(px(x, W), W / 2), Math.min(px(y, H), H / 2)];
  })();
  const edge = (inset) => {
    const rx = rx0 - inset;
    const ry = ry0 - inset;
    const straight = H / 2 - inset - ry;
    const flat = W / 2 - inset - rx;
    return {
      halfWidth: (d) => {
        const q = Math.max(0, d - straight) / ry;
        return q >= 1 ? flat : flat + rx * Math.sqrt(1 - q * q);
      },
      reach: (x) => {
        const q = Math.max(0, x - flat) / rx;
        return q > 1 ? -Infinity : straight + ry * Math.sqrt(1 - q * q);
      },
    };
  };
  const rim = edge(RIM);
  const sideInset = RIM + 1; // every corner of a seat on the felt, none on its rim
  const sideEdge = edge(sideInset);
  const boxes = table.seatEls.map((el) => ({
    el,
    place: el.dataset.place,
    w: el.offsetWidth,
    h: el.offsetHeight,
  }));
  const ends = boxes.filter((b) => b.place === "foot" || b.place === "head");
  // (as far out as the rim lets both their outer corners be on the felt)
  for (const b of ends) {
    b.x = W / 2;
    const out = Math.max(0.025 * H, RIM + 1, H / 2 - sideEdge.reach(b.w / 2));
    b.y = b.place === "head" ? out + b.h / 2 : H - out - b.h / 2;
  }
  const columns = [
    boxes.filter((b) => b.place === "left").reverse(), // top to bottom
    boxes.filter((b) => b.place === "right"),
  ];
  // Is seat b on the box from (l, t) to (r, btm)?
  const overlap = (b, l, t, r, btm) =>
    b.x - b.w / 2 < r && l < b.x + b.w / 2 && b.y - b.h / 2 < btm && t < b.y + b.h / 2;
  const near = (b, e) =>
    overlap(b, e.x - e.w / 2 - GAP, e.y - e.h / 2 - GAP, e.x + e.w / 2 + GAP, e.y + e.h / 2 + GAP);
  // Each side's seats `gap` px apart; false if one is on the foot's or the
  // head's seat, or out of the felt.
  const stack = (gap) => {
    let fits = true;
    columns.forEach((column, i) => {
      let top = H / 2 - (column.reduce((sum, b) => sum + b.h, 0) + gap * (column.length - 1)) / 2;
      for (const b of column) {
        const far = Math.max(H / 2 - top, top + b.h - H / 2);
        const out = Math.min(sideEdge.halfWidth(far) - 1, W / 2 - Math.max(0.03 * W, sideInset));
        b.x = i === 0 ? W / 2 - out + b.w / 2 : W / 2 + out - b.w / 2;
        b.y = top + b.h / 2;
        top += b.h + gap;
        fits &&= far <= H / 2 - sideInset;
        fits &&= !ends.some((e) => near(b, e));
      }
    });
    return fits;
  };
  // Where the pile of card width cw goes: its offset from the felt's middle
  // nearest 0 (within an eighth of the felt's height), or null if none.
  const line = countSize();
  const offset = (cw, beside) => {
    const half = 0.9 * cw;
    const pile = [W / 2 - half, -0.81 * cw - TILT.head, W / 2 + half, 0.81 * cw + TILT.foot];
    const count = beside
      ? [W / 2 + half + 6, -line.height / 2, W / 2 + half + 6 + line.width, line.height / 2]
      : [W / 2 - line.width / 2, -0.81 * cw - line.height, W / 2 + line.width / 2, -0.81 * cw];
    let lo = -H / 8;
    let hi = H / 8;
    const banned = [];
    for (const [l, t, r, b] of [pile, count]) {
      const d = rim.reach(Math.max(W / 2 - l, r - W / 2));
      lo = Math.max(lo, -d - t);
      hi = Math.min(hi, d - b);
      for (const x of boxes) {
        if (x.x - x.w / 2 < r + GAP && l - GAP < x.x + x.w / 2) {
          banned.push([x.y - x.h / 2 - GAP - H / 2 - b, x.y + x.h / 2 + GAP - H / 2 - t]);
        }
      }
    }
    const allowed = (dy) => dy >= lo && dy <= hi && banned.every(([a, z]) => dy <= a || dy >= z);
    const tries = [0, lo, hi, ...banned.flat()].filter(allowed).sort((a, b) => Math.abs(a) - Math.abs(b));
    return tries.length ? tries[0] : null;
  };
  // no larger than four seats' (app.css: what their head's and foot's seats
  // and the count's line leave of the felt's height), nor a room's largest card
  const seatH = parseFloat(style.getPropertyValue("--seat-h"));
  const most = Math.min(230, (0.94 * H - 2 * seatH - 20 - line.height) / 1.62);
  const fit = () => {
    let found = null;
    for (const beside of [false, true]) {
      let lo = 20;
      let hi = Math.max(most, lo);
      if (offset(lo, beside) === null) continue;
      if (offset(hi, beside) !== null) lo = hi;
      while (hi - lo > 0.25) {
        const mid = (lo + hi) / 2;
        if (offset(mid, beside) === null) hi = mid;
        else lo = mid;
      }
      if (!found || lo > found.cw + 0.5) found = { cw: lo, dy: offset(lo, beside), beside };
    }
    return found || { cw: 20, dy: 0, beside: false };
  };
  // The spacing of the sides' seats that leaves the largest pile (the
  // closest if two leave it the same).
  let best = null;
  const spaced = columns.some((column) => column.length > 1);
  for (let gap = GAP; gap <= H; gap += 2) {
    if (!stack(gap) && best) break;
    const found = { gap, ...fit() };
    if (!best || found.cw > best.cw + 0.5) best = found;
    if (!spaced) break;
  }
  // Seats that do not fit even close together, or leave the pile less than
  // 9/10 of four seats' size: smaller (app.css), a step at a time (their new
  // sizes run this again); larger again once the felt is.
  const fits = stack(best.gap);
  const level = Number(felt.dataset.tight || 0);
  if ((!fits || best.cw < 0.9 * most) && level < TIGHTEST) {
    felt.dataset.tight = String(level + 1);
    tightAt = { W, H };
    return;
  }
  if (level && (W > tightAt.W + 1 || H > tightAt.H + 1)) {
    delete felt.dataset.tight;
    return;
  }
  for (const b of boxes) {
    b.el.style.setProperty("--sx", `${b.x.toFixed(1)}px`);
    b.el.style.setProperty("--sy", `${b.y.toFixed(1)}px`);
  }
  felt.dataset.laidOut = "1";
  felt.dataset.count = best.beside ? "beside" : "over";
  felt.style.setProperty("--fit-cw", `${best.cw.toFixed(1)}px`);
  felt.style.setProperty("--pile-dy", `${best.dy.toFixed(1)}px`);
  table.measure(); // where the cards fly from and to
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
