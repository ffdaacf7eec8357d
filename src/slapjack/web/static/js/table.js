// The table: seats around a green felt, the centre pile, and the texts that
// describe what happened. Shared by the room, party mode and the replay viewer.

import { fill, h, median, reducedMotion, setAttr, setHidden, setText } from "./common.js";
import { cardBack, cardFace, rankLabel, spokenCard, warmFaces, warmFacesAt } from "./cards.js";
import { FALSE_START_OFFSET_MS, falseStart, msText, t } from "./i18n.js";

const BOT_NAME = /^(Beginner|Casual|Pro|Matched|Perfect) bot (\d+)$/;

/** A bot's table name ("Casual bot 2", as the server names it) in the page's
 * language; any other name as it is. */
export function displayName(name) {
  const m = BOT_NAME.exec(String(name || ""));
  if (!m) return name;
  return t("bot.name", { level: t(`bot.short.${m[1].toLowerCase()}`), n: m[2] });
}

/** Is ``name`` a bot's own table name (it says its level)? */
export function isBotName(name) {
  return BOT_NAME.test(String(name || ""));
}

/** A seat's name (or "Seat 3" if the view has none). */
export function seatName(view, seat) {
  if (seat === null || seat === undefined) return "?";
  if (typeof seat === "string") return seat;
  const name = view && view.players && view.players[seat];
  return name ? displayName(name) : t("seat.n", { n: seat + 1 });
}

function names(view, seats) {
  return seats.map((s) => seatName(view, s)).join(", ");
}

const ms = msText;

/** A rank ("J", "7") in the current language's long form. */
export function rankWord(rank) {
  return rank ? t(`rank.${rank}`) : "";
}

/** One line of text for an event (``event_to_dict`` with seat numbers). */
export function describeEvent(ev, view) {
  const who = (s) => seatName(view, s);
  switch (ev.type) {
    case "flipped":
      if (ev.call) {
        return t(ev.match ? "ev.flipped_match" : "ev.flipped_call", {
          name: who(ev.seat),
          card: spokenCard(ev.card),
          call: rankWord(ev.call),
        });
      }
      return t("ev.flipped", { name: who(ev.seat), card: spokenCard(ev.card) });
    case "slapped":
      return t(ev.call ? "ev.slapped_call" : "ev.slapped", { name: who(ev.seat) });
    case "wrong_slap": {
      const self = ev.penalty === "pay_player" && ev.to === ev.seat;
      return t(self ? "ev.wrong_slap.pay_self" : `ev.wrong_slap.${ev.penalty}`, {
        name: who(ev.seat),
        to: who(ev.to),
      });
    }
    case "race_won": {
      const mine = (ev.reactions || []).find(([s]) => s === ev.winner);
      return t("ev.race_won", {
        name: who(ev.winner),
        cards: ev.cards,
        count: ev.cards,
        ms: ms(mine ? mine[1] : null),
      });
    }
    case "race_tied":
      return t("ev.race_tied", { names: names(view, ev.seats), ms: ms(ev.reaction_ms) });
    case "pile_split":
      return t("ev.pile_split", {
        shares: ev.shares.map(([s, n]) => `${who(s)} ${n}`).join(", "),
      });
    case "forfeit":
      return t("ev.forfeit", {
        name: who(ev.seat),
        shares: ev.shares.map(([s, n]) => `${who(s)} ${n}`).join(", ") || "—",
      });
    case "no_slap":
      return t("ev.no_slap", { card: spokenCard(ev.card) });
    case "picked_up":
      return t(`ev.picked_up.${ev.reason === "wrong" ? "wrong" : "last"}`, {
        name: who(ev.seat),
        cards: ev.cards,
        count: ev.cards,
      });
    case "pile_returned":
      return t("ev.pile_returned", { name: who(ev.seat), cards: ev.cards, count: ev.cards });
    case "eliminated":
      return t("ev.eliminated", { name: who(ev.seat), reason: t(`out.${ev.reason}`) });
    case "finished":
      return t("ev.finished", { name: who(ev.seat) });
    case "time_is_up":
      return t("ev.time_is_up");
    case "game_over":
      // Irish Snap (avoid the last): the game names the one left holding cards,
      // as the end screen does; the others finished in order, first is first
      // (not "X, Y share the win!" for everyone but the loser).
      if (ev.loser !== null && ev.loser !== undefined) {
        return t("ev.game_over_loser", { name: who(ev.loser) });
      }
      return t((ev.winners || []).length > 1 ? "ev.game_over_shared" : "ev.game_over", {
        names: names(view, ev.winners || []),
      });
    default:
      return ev.type;
  }
}

/** Does the event after ``ev`` tell it too? Irish Snap's wrong slap (its
 * penalty: "pickup") always comes with its pick-up (reason "wrong"), whose
 * line says who slapped wrongly and how many cards they took: a log, a
 * replay's step, a party's line show that one line, not both. */
export function toldByNext(ev) {
  return ev.type === "wrong_slap" && ev.penalty === "pickup";
}

/** The events that close a race, with their reaction list. */
export const RACE_ENDS = new Set(["race_won", "pile_split", "forfeit", "picked_up"]);
/** The turn timer bar moves in steps of this many ms (see runBar). */
const TIMER_STEP_MS = 250;

/**
 * A turn timer's bar shrinks from what is left (of ``total`` ms) to nothing
 * by ``end`` (a performance.now() time), a step every TIMER_STEP_MS, each by
 * a timer that sets its transform: between two steps nothing on the page
 * moves. (A smooth bar, and even a Web Animation in steps(), made the browser
 * draw frames all turn long, and after a key press Chromium draws its next
 * frame before it hands the page a socket message: the card you flipped
 * waited for it. docs/benchmarks.md, "Nothing moves while you flip".) Under
 * reduced motion the bar shows what was left and stays.
 */
function runBar(bar, end, total) {
  stopBar(bar);
  bar._end = end;
  bar._total = total;
  const step = () => {
    const left = Math.max(0, bar._end - performance.now());
    const scale = `scaleX(${Math.min(1, left / bar._total).toFixed(3)})`;
    if (bar.style.transform !== scale) bar.style.transform = scale;
    bar._tick = left > 0 && !reducedMotion() ? setTimeout(step, Math.min(TIMER_STEP_MS, left)) : null;
  };
  step();
}

function stopBar(bar) {
  clearTimeout(bar._tick);
  clearTimeout(bar._resume);
  bar._tick = null;
  bar._resume = null;
}

/**
 * The final ranking (seats, first place first), as the engine's
 * ``Game.ranking()`` computes it, from a view.
 */
export function ranking(view) {
  const n = view.players.length;
  const seats = [...Array(n).keys()];
  const stacks = view.stacks;
  if (view.game === "irish-snap") {
    if ((view.rules && view.rules.irish_goal) === "first_out" || presetGoal(view) === "first_out") {
      const rest = seats
        .filter((s) => !view.winners.includes(s))
        .sort((a, b) => stacks[a] - stacks[b] || a - b);
      return [...view.winners, ...rest];
    }
    const holders = seats.filter((s) => !view.out[s]).sort((a, b) => stacks[a] - stacks[b] || a - b);
    return [...view.out_order, ...holders];
  }
  const stillIn = seats
    .filter((s) => !view.out[s])
    .sort(
      (a, b) =>
        Number(!view.winners.includes(a)) - Number(!view.winners.includes(b)) ||
        stacks[b] - stacks[a] ||
        a - b,
    );
  return [...stillIn, ...[...view.out_order].reverse()];
}

function presetGoal(view) {
  return view.rules && view.rules.preset === "irish-snap-winner" ? "first_out" : "avoid_last";
}

/** The end screen's columns for a game: [heading key, cell(seat)]. */
function rankingColumns(view, stats) {
  const cards = ["end.cards", (s) => String(view.stacks[s])];
  const wrong = ["end.wrong_head", (s) => String(stats.wrong[s] || 0)];
  const med = ["end.median", (s) => msText(stats.medianReaction(s))];
  if (view.game === "irish-snap") {
    return [
      cards,
      ["end.pickups", (s) => String(stats.pickups[s] || 0)],
      ["end.matches", (s) => String(stats.matches[s] || 0)],
      wrong,
      med,
    ];
  }
  return [cards, ["end.jacks", (s) => String(stats.jacks[s] || 0)], wrong, med];
}

/** Fill an end-screen ranking table (its head too): place, name, and the
 * figures of the game (Slapjack: Jacks won; Irish Snap: pick-ups, matches). */
export function renderRanking(tbody, view, stats, mine = []) {
  const cols = rankingColumns(view, stats);
  const head = tbody.parentElement && tbody.parentElement.querySelector("thead");
  if (head) {
    fill(head,
      h("tr", {},
        h("th", { scope: "col", class: "place" }, t("end.place")),
        h("th", { scope: "col" }, t("end.player")),
        cols.map(([key]) => h("th", { scope: "col" }, t(key))),
      ),
    );
  }
  const order = ranking(view);
  fill(
    tbody,
    order.map((s, i) =>
      h(
        "tr",
        {
          class: [mine.includes(s) ? "me" : "", view.loser === s ? "loser" : ""].join(" ").trim(),
          dataset: { seat: String(s) },
        },
        h("td", { class: "place" }, String(i + 1)),
        h(
          "th",
          { scope: "row" },
          h("span", { class: "name" }, seatName(view, s)),
          view.loser === s ? h("span", { class: "tag lost" }, t("seat.loser")) : null,
        ),
        cols.map(([, cell]) => h("td", {}, cell(s))),
      ),
    ),
  );
}

/** A seat's place (1 = first) in the final ranking. */
export function placeOf(view, seat) {
  return ranking(view).indexOf(seat) + 1;
}

/** Per-seat statistics gathered from the events a client has seen. */
export class Stats {
  constructor() {
    this.reset();
  }

  reset() {
    this.jacks = {};
    this.wrong = {};
    this.reactions = {};
    this.cardsWon = {};
    this.pickups = {};
    this.matches = {};
  }

  add(ev) {
    const bump = (obj, s, by = 1) => {
      obj[s] = (obj[s] || 0) + by;
    };
    if (ev.type === "race_won") {
      bump(this.jacks, ev.winner);
      bump(this.cardsWon, ev.winner, ev.cards);
    }
    if (ev.type === "wrong_slap") bump(this.wrong, ev.seat);
    if (ev.type === "picked_up" && ev.reason !== "wrong") {
      bump(this.pickups, ev.seat);
      // Everyone who slapped the match in time (all but the one picking up).
      for (const [s, r] of ev.reactions || []) {
        if (s !== ev.seat && r !== null && r !== undefined) bump(this.matches, s);
      }
    }
    // The reaction time the referee ranked, one per slap that joined a race
    // (the engine's Slapped event carries it). A false start is a guess, not
    // a reaction: it stays out of the median, as in the stored game's summary
    // (slapjack/store/summary.py), so the end screen and the history agree
    // and a seat that only guessed shows "—", not a superhuman time.
    if (ev.type === "slapped" && typeof ev.reaction_ms === "number") {
      if (!falseStart(ev.reaction_ms)) (this.reactions[ev.seat] ||= []).push(ev.reaction_ms);
    }
  }

  medianReaction(seat) {
    return median(this.reactions[seat] || []);
  }
}

/**
 * The table widget. ``el`` is an empty element; ``opts.me`` is the player's
 * seat (null for a spectator), ``opts.locals`` extra seats played on this
 * screen (party mode), ``opts.places(seat, n)`` an [ux, uy] in [-1, 1] for a
 * seat placed by the page (else round the table), ``opts.onSlap(event)`` and ``opts.onFlip(event)`` the
 * input handlers (omit them for a read-only table), ``opts.stackEl`` the
 * element that stands for my seat where the felt does not show it (the
 * phone's stack button: cards fly from it, won piles to it),
 * ``opts.onUnits(width, height)`` is told the felt's new size (its content
 * box, px) when it changes, ``opts.fitPile`` keeps the pile's fan off the
 * seats (a room's felt: see fitPile).
 */
export class TableView {
  constructor(el, opts = {}) {
    this.el = el;
    this.opts = opts;
    // (its seats' slap hands laid out while hidden, for fitPile to measure: app.css)
    if (opts.fitPile) el.dataset.fitPile = "";
    this.n = 0;
    this.seatEls = [];
    this.pileKey = "";
    this.view = null;
    // The card movements running now (see move() and settle()).
    this.moving = new Set();
    this.effects = new Set();
    // The elements of played-out effects, removed with the next full drawing.
    this.spent = [];
    el.classList.add("felt");
    this.seatsEl = h("ol", { class: "seats", "aria-label": t("table.seats") });
    this.callEl = h("div", { class: "call-banner", hidden: true, "aria-hidden": "true" });
    this.pileEl = h("div", {
      class: "pile",
      role: opts.onSlap ? "button" : "img",
      tabindex: opts.onSlap ? "0" : null,
    });
    this.pileInfo = h("div", { class: "pile-info" });
    // The race result: in an element of the page's own (opts.raceEl: a fixed
    // slot that never covers the pile), else beside the pile.
    this.raceEl = opts.raceEl || h("div", { class: "race", hidden: true });
    this.sideEl = h(
      "div",
      { class: "pile-side" },
      this.callEl,
      this.pileInfo,
      opts.raceEl ? null : this.raceEl,
    );
    this.centreEl = h("div", { class: "centre" }, this.pileEl, this.sideEl);
    this.fxEl = h("div", { class: "fx-layer", "aria-hidden": "true" });
    fill(el, this.seatsEl, this.centreEl, this.fxEl);
    // Every face drawn once, out of sight (from the page's start on, and at
    // once for a table made later): cards.js warmFaces().
    warmFaces();
    // Where seats and pile are, measured when their sizes change (a
    // ResizeObserver runs after layout): the animations read these, never the
    // layout itself, so an update costs no forced reflow. The felt's own size
    // also sets the units its stylesheet scales by (--fw, --fh: app.css).
    this.geom = null;
    this.units = "";
    this.sizes =
      typeof ResizeObserver === "function"
        ? new ResizeObserver((entries) => {
            for (const e of entries) if (e.target === el) this.setUnits(e.contentRect);
            this.measure();
          })
        : null;
    if (this.sizes) {
      this.sizes.observe(el);
      this.sizes.observe(this.pileEl);
      if (opts.stackEl) this.sizes.observe(opts.stackEl);
    } else {
      this.setUnits(el.getBoundingClientRect());
    }
    if (opts.onSlap) {
      this.pileEl.addEventListener("pointerdown", (ev) => {
        ev.preventDefault();
        opts.onSlap(ev);
      });
      this.pileEl.addEventListener("keydown", (ev) => {
        if (ev.key === "Enter" && !ev.repeat) {
          ev.preventDefault();
          ev.stopPropagation();
          opts.onSlap(ev);
        }
      });
    }
  }

  /** The seat shown at the bottom (the player's own, or seat 0). */
  get anchor() {
    return this.opts.anchor ?? this.opts.me ?? 0;
  }

  /** The felt's ``n`` seats laid out before a view is drawn (a room that
   * waits for its players: the pile is sized by them, fitPile, and its
   * faces are warmed at that size before the first card). */
  layoutSeats(n) {
    if (n && n !== this.n) this.buildSeats(n);
  }

  buildSeats(n) {
    this.n = n;
    this.seatEls = [];
    fill(this.seatsEl);
    for (let s = 0; s < n; s++) {
      const k = (s - this.anchor + n) % n;
      const phi = (2 * Math.PI * k) / n;
      // On the felt's edge: (ux, uy) in [-1, 1], the anchor seat at the bottom;
      // opts.places(seat, n) may give a seat its own place (party mode: each
      // player's seat in the corner of the felt beside their touch corner).
      const own = this.opts.places ? this.opts.places(s, n) : null;
      const ux = own ? own[0] : -Math.sin(phi);
      const uy = own ? own[1] : Math.cos(phi);
      const style = { "--ux": ux.toFixed(3), "--uy": uy.toFixed(3) };
      // A third and fourth number: the place on a table taller than wide (a
      // phone held upright), which the page's stylesheet may use.
      if (own && own.length === 4) Object.assign(style, { "--pux": own[2].toFixed(3), "--puy": own[3].toFixed(3) });
      const el = h(
        "li",
        {
          // (mine marked at once: a room that waits lays its seats out, and
          // an upright phone's band leaves mine out)
          class: s === this.opts.me ? "seat me" : "seat",
          style,
          dataset: { seat: String(s) },
        },
        h("div", { class: "seat-name" }),
        h(
          "div",
          { class: "seat-row" },
          h("span", { class: "seat-stack" }, cardBack({ size: "mini" }), h("span", { class: "count" })),
          h("span", { class: "seat-status" }),
          h("span", { class: "seat-reaction", hidden: true }),
        ),
        // Always laid out, shown by a class (visibility): showing it on every
        // turn change with ``hidden`` laid it out again (docs/benchmarks.md).
        h("div", { class: "seat-timer" }, h("span", { class: "bar" })),
      );
      // Its parts, found once (an update only changes their texts and classes).
      el._parts = {
        name: el.querySelector(".seat-name"),
        count: el.querySelector(".count"),
        status: el.querySelector(".seat-status"),
        reaction: el.querySelector(".seat-reaction"),
        timer: el.querySelector(".seat-timer"),
        bar: el.querySelector(".seat-timer .bar"),
      };
      this.seatEls.push(el);
      this.seatsEl.append(el);
      if (this.sizes) this.sizes.observe(el);
    }
    this.geom = null;
  }

  /** 1 % of the felt's content box, in px, for its stylesheet (--fw, --fh);
   * only when it changed (then the seats and pile are laid out again). */
  setUnits(box) {
    if (!box.width) return;
    const fw = (box.width / 100).toFixed(4);
    const fh = (box.height / 100).toFixed(4);
    const key = `${fw}|${fh}`;
    if (key === this.units) return;
    this.units = key;
    this.el.style.setProperty("--fw", `${fw}px`);
    this.el.style.setProperty("--fh", `${fh}px`);
    if (this.opts.onUnits) this.opts.onUnits(box.width, box.height);
  }

  /** Measure the felt, the seats' centres and the pile (felt coordinates). */
  measure() {
    const box = this.el.getBoundingClientRect();
    if (!box.width) return;
    const rel = (r) => ({
      x: r.left - box.left + r.width / 2,
      y: r.top - box.top + r.height / 2,
      left: r.left - box.left,
      top: r.top - box.top,
      width: r.width,
      height: r.height,
    });
    const pile = rel(this.pileEl.getBoundingClientRect());
    // The top card rests at the pile's right (see .pile .card in app.css).
    const cw = pile.width / 1.8;
    // (a new cap that changes the pile's size: measured again once it has,
    // and the faces warmed at the size it has then)
    const resizing =
      this.opts.fitPile &&
      this.fitPile(box, pile) &&
      Math.abs(parseFloat(getComputedStyle(this.el).getPropertyValue("--cw")) - cw) > 0.05;
    if (!resizing) warmFacesAt(cw);
    // A seat the felt does not show (mine on a phone: display none, a rect
    // of nothing at the page's corner) is where the page shows it instead,
    // or nowhere: no movement starts or ends at the corner of the screen.
    const place = (el, s) => {
      let r = el.getBoundingClientRect();
      if (!r.width && s === this.opts.me && this.opts.stackEl) r = this.opts.stackEl.getBoundingClientRect();
      return r.width ? rel(r) : null;
    };
    this.geom = {
      seats: this.seatEls.map(place),
      pile,
      top: { x: pile.left + pile.width - 0.08 * cw - cw / 2, y: pile.top + pile.height / 2 },
    };
  }

  /** The largest card (its width, px) at which the box of every card of
   * the pile, fanned as far as it goes (renderPile: five cards, each at the
   * extremes of its jitter: FAN), keeps PILE_KEEP px off every seat the
   * felt shows and off each seat's slap hand (app.css, .seat::after: laid
   * out, hidden, where it shows): the felt's --pile-cap, which its --cw
   * (app.css) does not exceed. The felt's formula for --cw keeps the pile
   * off seats at its sides, top and bottom; seats on its diagonals come
   * nearer (with ten, at 1280x720 and 844x390, the fan lay on "Beginner
   * bot 2", at the pile's lower left). The pile's middle does not move with
   * the card's size (the centre is centred on it, its side column as wide
   * whatever the card), so the cap comes from where the seats are alone: it
   * changes only when they move (a new size), and setting it moves nothing
   * but the pile. True if it changed. */
  fitPile(box, pile) {
    let cap = Infinity;
    for (const el of this.seatEls) {
      const r = el.getBoundingClientRect();
      if (!r.width) continue;
      const boxes = [[r.left, r.top, r.right, r.bottom]];
      const hand = getComputedStyle(el, "::after");
      const size = parseFloat(hand.width);
      if (hand.content !== "none" && size > 0) {
        const seat = getComputedStyle(el);
        const x = r.left + parseFloat(seat.borderLeftWidth) + parseFloat(hand.left);
        const y = r.top + parseFloat(seat.borderTopWidth) + parseFloat(hand.top);
        if (Number.isFinite(x + y)) boxes.push([x, y, x + size, y + parseFloat(hand.height)]);
      }
      for (const [left, top, right, bottom] of boxes) {
        const o = [left - box.left, top - box.top, right - box.left, bottom - box.top];
        const most = Math.min(...FAN.map((card) => cardRoom(card, pile.x, pile.y, o)));
        // (a seat on the pile's very middle: no size of card clears it)
        if (most > 0) cap = Math.min(cap, most);
      }
    }
    const value = Number.isFinite(cap) ? `${cap.toFixed(1)}px` : "";
    if (value === this.pileCap) return false;
    this.pileCap = value;
    if (value) this.el.style.setProperty("--pile-cap", value);
    else this.el.style.removeProperty("--pile-cap");
    return true;
  }

  /** Draw only the pile of ``view`` (and the table's state attributes): a new
   * card, drawn before the rest of the update so that the frame that shows it
   * carries nothing else. ``render`` draws the rest (and the pile again: no
   * change then). The seats must be built (``view`` has as many as before). */
  renderCard(view) {
    this.setView(view);
    this.renderPile(view);
  }

  /** Take ``view`` as the one drawn: the table state as data attributes (for
   * styles, and for tests that drive the page). */
  setView(view) {
    this.view = view;
    this.el.dataset.flip = String(view.flip_id ?? view.flips);
    this.el.dataset.turn = view.turn === null || view.turn === undefined ? "" : String(view.turn);
    this.el.dataset.over = String(!!view.over);
  }

  /** Draw ``view``; ``room`` carries timers and connection states (may be null). */
  render(view, room = null) {
    this.setView(view);
    const n = view.players.length;
    if (n !== this.n) this.buildSeats(n);
    const locals = new Set(this.opts.locals || []);
    const bots = (room && room.bots) || {};
    const connected = room && room.connected;
    for (let s = 0; s < n; s++) {
      const el = this.seatEls[s];
      const isMe = s === this.opts.me;
      el.classList.toggle("me", isMe || locals.has(s));
      el.classList.toggle("bot", !!bots[s]);
      el.classList.toggle("turn", view.turn === s && !view.over);
      el.classList.toggle("out", !!view.out[s]);
      el.classList.toggle("winner", view.over && view.winners.includes(s));
      el.classList.toggle("loser", view.over && view.loser === s);
      el.classList.toggle("slapped", (view.slapped || []).includes(s));
      el.classList.toggle("reslap", !!(view.reslap_among && view.reslap_among.includes(s)));
      const offline = Array.isArray(connected) && connected[s] === false && !bots[s];
      el.classList.toggle("offline", offline);
      const parts = el._parts;
      const nameEl = parts.name;
      const name = seatName(view, s);
      // Built again only when it changes (an update touches no layout it need not).
      const nameKey = `${name}|${isMe}|${offline}|${t("seat.you")}`;
      if (nameEl.dataset.key !== nameKey) {
        nameEl.dataset.key = nameKey;
        fill(nameEl,
          h("span", { class: "who", title: name }, keepNumber(name)),
          isMe ? h("span", { class: "tag you" }, t("seat.you")) : null,
          offline ? h("span", { class: "tag offline" }, t("seat.offline")) : null,
        );
      }
      setText(parts.count, view.stacks[s]);
      let status = "";
      if (view.over && view.winners.includes(s)) status = t("seat.winner");
      else if (view.over && view.loser === s) status = t("seat.loser");
      else if (view.out[s]) status = view.game === "irish-snap" ? t("seat.safe") : t("seat.out");
      else if (view.turn === s) status = t("seat.turn");
      else if (view.stacks[s] === 0) status = t(view.game === "irish-snap" ? "seat.empty" : "seat.last_chance");
      const statusEl = parts.status;
      // A bot's level where there is nothing else to say (its name may not say it).
      const level = bots[s] && !isBotName(view.players[s]) ? t(`bot.${bots[s]}`) : "";
      setText(statusEl, status || level);
      statusEl.classList.toggle("bot", !status && !!level);
      setAttr(
        statusEl,
        "title",
        !view.out[s] && view.stacks[s] === 0 && view.game !== "irish-snap" ? t("seat.last_chance_help") : "",
      );
      setAttr(
        el,
        "aria-label",
        t("seat.aria", { name: seatName(view, s), cards: view.stacks[s], count: view.stacks[s] }) +
          (status ? `, ${status}` : ""),
      );
    }
    this.renderPile(view);
    this.renderTimer(view, room);
    this.sweepSpent();
  }

  renderPile(view) {
    const key = `${view.flip_id ?? view.flips}|${view.centre_top.join(",")}|${view.centre_face_down}`;
    const topChanged = key !== this.pileKey;
    this.pileKey = key;
    if (topChanged) {
      // The cards already on the pile stay where they are in the DOM (only
      // their place in the fan changes, a transform); the new one is added.
      // Rebuilding them all cost a style and layout pass for every card.
      const seen = {};
      const want = view.centre_top.map((name) => {
        seen[name] = (seen[name] || 0) + 1; // (a card twice: two elements)
        return `f:${name}:${spokenCard(name)}:${seen[name]}`;
      });
      const under =
        view.centre_face_down > 0 && !want.length ? "b:top" : view.centre_face_down > 0 ? "b:under" : null;
      if (under) want.unshift(under);
      if (!want.length) want.push(`e:${t("pile.empty")}`);
      const have = new Map([...this.pileEl.children].map((el) => [el.dataset.key, el]));
      const kept = [...have.keys()].filter((k) => want.includes(k));
      const inOrder = kept.every((k, i) => want.filter((w) => have.has(w))[i] === k);
      if (!inOrder) have.clear();
      for (const [k, el] of have) if (!want.includes(k)) el.remove();
      if (!inOrder) this.pileEl.replaceChildren();
      let prev = null;
      const els = want.map((k) => {
        let el = inOrder ? have.get(k) : undefined;
        if (!el) {
          el = this.pileCard(k);
          if (prev) prev.after(el);
          else this.pileEl.prepend(el);
        }
        prev = el;
        return el;
      });
      const cards = els.filter((el) => el.dataset.key.startsWith("f:"));
      cards.forEach((el, i) => {
        const name = el.dataset.card;
        const isTop = i === cards.length - 1;
        // The cards under the top one fan out to the left, the oldest furthest,
        // so the last few stay readable (their top-left corner shows).
        const depth = cards.length - 1 - i;
        const r = jitter(name + i, 6) - depth * 3;
        el.dataset.r = String(r);
        // The transform itself, not custom properties: those are inherited,
        // and changing them restyles every pip of every card.
        const dx = `calc(${jitter(name, 4).toFixed(1)}px - ${(depth * 0.17).toFixed(2)} * var(--cw))`;
        const dy = `${(jitter(name + "y", 4) + depth * 2).toFixed(1)}px`;
        const transform = isTop ? `rotate(${(r / 3).toFixed(2)}deg)` : `translate(${dx}, ${dy}) rotate(${r}deg)`;
        if (el._transform !== transform) {
          el._transform = transform;
          el.style.transform = transform;
        }
        el.classList.toggle("top", isTop);
        el.classList.toggle("under", !isTop);
        // A card covered before its flight ended goes straight to its place.
        if (!isTop && el._fly) {
          el._fly.cancel();
          el._fly = null;
        }
        setAttr(el, "aria-hidden", isTop ? null : "true");
      });
      const prevFlip = this.pileFlip;
      this.pileFlip = view.flip_id ?? view.flips;
      // A new card: it flies in from the seat that turned it. It is painted,
      // face up and readable, in the very first frame; only its position moves.
      const top = cards[cards.length - 1];
      if (top && prevFlip !== undefined && this.pileFlip !== prevFlip) {
        this.flyIn(top, view.last_flipper);
      }
    }
    const top = view.centre_top.length ? view.centre_top[view.centre_top.length - 1] : null;
    const label = top ? t("pile.aria_top", { card: spokenCard(top) }) : t("pile.aria_empty");
    setAttr(
      this.pileEl,
      "aria-label",
      this.opts.onSlap ? `${t("pile.slap_hint")} ${label}` : label,
    );
    this.pileEl.classList.toggle("open", !!view.race_open);
    setText(
      this.pileInfo,
      view.centre_size
        ? t(view.centre_face_down ? "pile.count_hidden" : "pile.count", {
            n: view.centre_size,
            count: view.centre_size,
            hidden: view.centre_face_down,
          })
        : "",
    );
    if (view.game === "irish-snap" && !view.over) {
      setHidden(this.callEl, false);
      const parts = [];
      if (view.top_call) {
        parts.push(
          h(
            "span",
            { class: view.centre_top.length && isMatch(view) ? "call now match" : "call now" },
            t("call.now", { rank: rankLabel(view.top_call) }),
          ),
        );
      }
      if (view.next_call) {
        parts.push(h("span", { class: "call next" }, t("call.next", { rank: rankLabel(view.next_call) })));
      }
      fill(this.callEl, ...parts);
    } else {
      setHidden(this.callEl, true);
    }
    return topChanged;
  }

  /** A card element of the pile for a key of renderPile's (f: face, b: back, e: empty). */
  pileCard(key) {
    let el;
    if (key.startsWith("f:")) el = cardFace(key.split(":")[1], { size: "large" });
    else if (key === "b:top") el = cardBack({ size: "large", extra: "top" });
    else if (key === "b:under") el = cardBack({ size: "large", extra: "under buried" });
    else el = h("div", { class: "card empty large" }, t("pile.empty"));
    el.dataset.key = key;
    return el;
  }

  renderTimer(view, room) {
    const timer = room && room.turn_timer;
    for (let s = 0; s < this.n; s++) {
      const el = this.seatEls[s]._parts.timer;
      const active =
        timer && timer.seat === s && view.turn === s && !view.over && timer.ms_left > 0;
      const bar = this.seatEls[s]._parts.bar;
      if (!active) {
        if (el.classList.contains("on")) {
          el.classList.remove("on");
          stopBar(bar);
          bar.dataset.stamp = "";
        }
        continue;
      }
      if (!el.classList.contains("on")) el.classList.add("on");
      const total = timer.ms_total || timer.ms_left;
      const stamp = `${view.flips}|${timer.seat}|${Math.round(timer.ms_left / 50)}`;
      if (bar.dataset.stamp === stamp) continue;
      bar.dataset.stamp = stamp;
      runBar(bar, performance.now() + timer.ms_left, total);
    }
  }

  /** Stop the turn timers' steps (the player flipped: their turn is over);
   * the next update starts them again where it says. After a second they go
   * on by themselves (no update came: the flip was refused). */
  freezeTimers() {
    for (const el of this.seatEls) {
      const bar = el._parts.bar;
      if (!bar._tick) continue;
      stopBar(bar);
      bar.dataset.stamp = "";
      bar._resume = setTimeout(() => runBar(bar, bar._end, bar._total), 1000);
    }
  }

  /** Show a race's result: who won and each seat's reaction time (the one the
   * referee ranked). It stays until the next race, faded after a few seconds. */
  showRace(ev, view) {
    const reactions = ev.reactions || [];
    const winner = ev.type === "race_won" ? ev.winner : null;
    const loser = ev.type === "picked_up" ? ev.seat : null;
    const rows = reactions.map(([s, r]) =>
      h(
        "li",
        { class: s === winner ? "best" : s === loser ? "worst" : "", dataset: { seat: String(s) } },
        h("span", { class: "who" }, seatName(view, s)),
        " ",
        h("span", { class: "ms" }, ms(r)),
      ),
    );
    this.raceEl.hidden = false;
    fill(this.raceEl,
      h("p", { class: "race-title" }, describeEvent(ev, view)),
      rows.length ? h("ol", { class: "reactions" }, rows) : null,
    );
    this.raceEl.classList.remove("old");
    if (!reducedMotion()) {
      this.move(this.raceEl, [{ opacity: 0.2 }, { opacity: 1 }], { duration: 200, easing: "ease-out" }, true);
    }
    this.hideBadges();
    for (const [s, r] of reactions) {
      const el = this.seatEls[s] && this.seatEls[s]._parts.reaction;
      if (!el) continue;
      el.hidden = false;
      this.seatEls[s].classList.add("timed");
      // A false start in a seat's badge: its time, marked by colour, the
      // words in its title and in the race result (a seat is too narrow).
      const early = falseStart(r);
      fill(el, ...unitApart(ms(early ? r - FALSE_START_OFFSET_MS : r)));
      setAttr(el, "title", early ? ms(r) : null);
      el.classList.toggle("early", early);
      el.classList.toggle("best", s === winner);
    }
    clearTimeout(this.raceTimer);
    this.raceTimer = setTimeout(() => this.fadeRace(), 4000);
  }

  /** The last race result stays readable but steps back; the seats' badges go. */
  fadeRace() {
    this.raceEl.classList.add("old");
    this.hideBadges();
  }

  /** The seats' reaction badges go (their status line comes back). */
  hideBadges() {
    for (const el of this.seatEls) {
      setHidden(el._parts.reaction, true);
      if (el.classList.contains("timed")) el.classList.remove("timed");
    }
  }

  /** Forget the last race (a new game). */
  clearRace() {
    clearTimeout(this.raceTimer);
    this.raceEl.hidden = !this.opts.raceEl;
    fill(this.raceEl);
    this.hideBadges();
  }

  /** Animate a seat (a wrong slap, a penalty, a win): its colour by a class,
   * its movement by the Web Animations API (no reflow to restart it). */
  flash(seat, kind) {
    const el = this.seatEls[seat];
    if (!el) return;
    el.classList.remove("fx-wrong", "fx-win", "fx-pay");
    el.classList.add(`fx-${kind}`);
    clearTimeout(el._fx);
    el._fx = setTimeout(() => el.classList.remove(`fx-${kind}`), 1200);
    if (reducedMotion()) return;
    const frames =
      kind === "wrong"
        ? [{ translate: "0 0" }, { translate: "-8px 0" }, { translate: "8px 0" }, { translate: "-5px 0" }, { translate: "5px 0" }, { translate: "0 0" }]
        : [{ scale: "1" }, { scale: "1.08" }, { scale: "1" }];
    this.move(el, frames, { duration: 500, easing: "ease-in-out" }, true);
  }

  /** End every card movement now (each lands where it was going) and hold
   * the turn timers' steps: called when the player flips, so that the page
   * has nothing left to draw while their card is on its way. A running
   * animation makes it draw a frame every 16 ms, and after a key press
   * Chromium draws its next frame before it hands the page a socket message
   * (docs/benchmarks.md, "Nothing moves while you flip"). */
  settle() {
    for (const a of [...this.moving]) if (!this.effects.has(a)) a.finish();
    this.freezeTimers();
  }

  /** ``el.animate(frames, opts)``, kept in ``this.moving`` while it runs (so
   * settle() ends it without asking the browser for every animation, which
   * recalculates the page's style first). ``effect``: a flourish (a sweep, a
   * burst, a penalty card, a seat's flash) that settle() leaves to run out:
   * ending it at once would change the page in the frame after the key
   * press, with layers to remove, and the card would wait behind that frame
   * (docs/benchmarks.md, "After a race"). */
  move(el, frames, opts, effect = false) {
    const a = el.animate(frames, opts);
    this.moving.add(a);
    if (effect) this.effects.add(a);
    const done = () => {
      this.moving.delete(a);
      this.effects.delete(a);
    };
    a.addEventListener("finish", done);
    a.addEventListener("cancel", done);
    return a;
  }

  /** An effect's element, played out (invisible now: its last frame has
   * opacity 0 and it holds it): taken out of the page with the next full
   * drawing, after the frame that shows a card, not the moment it ends (which
   * may be just before a card is due). */
  discard(el) {
    this.spent.push(el);
  }

  /** Take the elements of played-out effects out (see discard). */
  sweepSpent() {
    if (!this.spent.length) return;
    for (const el of this.spent.splice(0)) el.remove();
  }

  /** The new top card flies from ``seat`` to its place. It is painted face up
   * in the first frame; nothing waits for the flight, and it reads no layout. */
  flyIn(card, seat) {
    if (reducedMotion() || seat === null || seat === undefined || !this.geom) return;
    const from = this.geom.seats[seat];
    if (!from) return;
    const dx = from.x - this.geom.top.x;
    const dy = from.y - this.geom.top.y;
    const rest = `rotate(${((Number(card.dataset.r) || 0) / 3).toFixed(2)}deg)`;
    card._fly = this.move(card,
      // Short, and upright enough to read on the way: the reaction clock
      // starts at the first frame, when the card is already face up.
      [{ transform: `translate(${dx}px, ${dy}px) rotate(-8deg) scale(.85)` }, { transform: rest }],
      { duration: 140, easing: "cubic-bezier(.2,.7,.3,1)" },
    );
  }

  /** The pile's cards sweep to ``seat`` (call before the empty pile is drawn):
   * a copy of the pile, where the pile was, flies to the seat. */
  sweep(seat) {
    if (reducedMotion() || !this.geom) return;
    const to = this.geom.seats[seat];
    const pile = this.geom.pile;
    if (!to) return;
    const copy = h("div", { class: "ghost-pile", "aria-hidden": "true" });
    for (const card of this.pileEl.querySelectorAll(".card:not(.empty)")) copy.append(card.cloneNode(true));
    if (!copy.childElementCount) return;
    Object.assign(copy.style, {
      left: `${pile.left}px`,
      top: `${pile.top}px`,
      width: `${pile.width}px`,
      height: `${pile.height}px`,
    });
    this.fxEl.append(copy);
    this.move(copy,
      [
        { transform: "none", opacity: 1 },
        { transform: `translate(${to.x - pile.x}px, ${to.y - pile.y}px) scale(.2) rotate(25deg)`, opacity: 0 },
      ],
      { duration: 420, easing: "cubic-bezier(.4,0,.6,1)", fill: "forwards" },
      true,
    ).onfinish = () => this.discard(copy);
  }

  /** Show a penalty card travelling from one seat to another (or the pile). */
  penalty(from, to) {
    if (reducedMotion() || !this.geom) return;
    const pa = this.geom.seats[from];
    const pb = to === null || to === undefined ? this.geom.pile : this.geom.seats[to];
    if (!pa || !pb) return;
    const card = cardBack({ size: "mini", extra: "flying" });
    card.style.left = `${pa.x}px`;
    card.style.top = `${pa.y}px`;
    this.fxEl.append(card);
    this.move(card,
      [
        { transform: "translate(-50%, -50%)", opacity: 1 },
        { transform: `translate(calc(${pb.x - pa.x}px - 50%), calc(${pb.y - pa.y}px - 50%)) rotate(200deg)`, opacity: 1, offset: 0.9 },
        { transform: `translate(calc(${pb.x - pa.x}px - 50%), calc(${pb.y - pa.y}px - 50%)) rotate(200deg)`, opacity: 0 },
      ],
      { duration: 650, easing: "cubic-bezier(.3,.7,.4,1)", fill: "forwards" },
      true,
    ).onfinish = () => this.discard(card);
  }

  /** A short burst of suits from ``seat`` (a Jack won; ``big``: the game):
   * the suits on a ring that grows from the seat and fades, one element that
   * moves (one layer for the compositor, not one per suit: the frames of a
   * burst cost the page little while you flip your next card). */
  celebrate(seat, big = false) {
    if (reducedMotion() || !this.geom) return;
    const c = this.geom.seats[seat];
    if (!c) return;
    const n = big ? 28 : 12;
    const ring = h("div", { class: "burst-ring" });
    ring.style.left = `${c.x}px`;
    ring.style.top = `${c.y}px`;
    for (let i = 0; i < n; i++) {
      const angle = (2 * Math.PI * i) / n + jitter(String(i), 0.3);
      const dist = (big ? 160 : 80) * (0.6 + ((i * 37) % 10) / 25);
      const bit = h("span", { class: `burst ${i % 4 === 1 || i % 4 === 2 ? "red" : ""}` }, "♠♥♦♣"[i % 4]);
      bit.style.left = `${(Math.cos(angle) * dist).toFixed(1)}px`;
      bit.style.top = `${(Math.sin(angle) * dist).toFixed(1)}px`;
      bit.style.transform = `translate(-50%, -50%) rotate(${i * 40}deg)`;
      ring.append(bit);
    }
    this.fxEl.append(ring);
    this.move(ring,
      [
        { transform: "scale(.15) rotate(-20deg)", opacity: 1 },
        { transform: "scale(.7) rotate(0deg)", opacity: 1, offset: 0.45 },
        { transform: "scale(1) rotate(12deg)", opacity: 0 },
      ],
      { duration: big ? 1100 : 700, easing: "cubic-bezier(.2,.8,.4,1)", fill: "forwards" },
      true,
    ).onfinish = () => this.discard(ring);
  }

  /** Mark a seat's slap with a hand at once (before the server confirms). */
  markSlap(seat) {
    const el = this.seatEls[seat];
    if (el) el.classList.add("slapped");
  }
}

/** Px between a card of the pile and a seat (or its slap hand) at the least. */
const PILE_KEEP = 4;

/** The box of each card of a pile fanned as far as it goes (renderPile;
 * app.css, .pile .card), from the pile's middle: its left, right, top and
 * bottom edges, each [a, b] for a * (the card's width) + b px, at the
 * extremes of its jitter. ``d`` cards under the top one, a card is moved
 * left by 0.17 d of its width (and up to 4 px either way), down by 2 d px
 * (and up to 4), and turned by up to 6 + 3 d degrees (the top card: up to
 * 2); unturned it (1 x 1.4 widths) rests 0.32 of its width right of the
 * pile's middle (the pile is 1.8 wide, a card 0.08 from its right). */
const FAN = [0, 1, 2, 3, 4].map((d) => {
  const turn = ((d ? 6 + 3 * d : 2) * Math.PI) / 180;
  const halfW = (Math.cos(turn) + 1.4 * Math.sin(turn)) / 2;
  const halfH = (Math.sin(turn) + 1.4 * Math.cos(turn)) / 2;
  const x = 0.32 - 0.17 * d;
  const jitter = d ? 4 : 0;
  return {
    left: [x - halfW, -jitter],
    right: [x + halfW, jitter],
    top: [-halfH, 2 * d - jitter],
    bottom: [halfH, 2 * d + jitter],
  };
});

/** The widest card (px) whose box, as ``card`` of FAN in a pile whose
 * middle is at (x, y), keeps PILE_KEEP px off the box ``o`` ([left, top,
 * right, bottom]): on one side of it at least (each edge of the card's box
 * moves out from the pile's middle as the card grows). Not above 0: no
 * card clears it (the box lies on the pile's middle). */
function cardRoom(card, x, y, o) {
  return Math.max(
    (o[0] - PILE_KEEP - x - card.right[1]) / card.right[0],
    (x + card.left[1] - o[2] - PILE_KEEP) / -card.left[0],
    (o[1] - PILE_KEEP - y - card.bottom[1]) / card.bottom[0],
    (y + card.top[1] - o[3] - PILE_KEEP) / -card.top[0],
  );
}

/** A time's text ("387 ms") as its number and its unit (" ms", a .unit
 * span): a crowded seat shows the number alone (app.css). */
function unitApart(text) {
  const m = /^(.*?\d)(\D*)$/.exec(text);
  return m && m[2] ? [m[1], h("span", { class: "unit" }, m[2])] : [text];
}

/** A name's parts, a word and the number after it kept on one line
 * ("Beginner " + "bot 4", "Bot 4" + " (Anfänger)") where a seat lets a
 * name take two lines. */
function keepNumber(name) {
  const m = /^(.*?)(\S+ \d+)(.*)$/.exec(String(name));
  if (!m) return name;
  return [m[1], h("span", { class: "nobreak" }, m[2]), m[3]].filter((part) => part !== "");
}

function isMatch(view) {
  const top = view.centre_top[view.centre_top.length - 1];
  return top && view.top_call && top.slice(0, -1) === view.top_call;
}

/** A small deterministic offset per card so the pile looks tossed, not stacked. */
function jitter(text, span) {
  let x = 0;
  for (const ch of String(text)) x = (x * 31 + ch.charCodeAt(0)) % 1009;
  return (x / 1009) * 2 * span - span;
}

/** The pieces of a name a line may not break inside: its words, a word with
 * a hyphen in two ("Anastasia-", "Marie"), and what the table keeps on one
 * line (a .nobreak part: "bot 4"). */
export function unbreakable(el) {
  return keptText(el)
    .split(/[ \t\n]+/)
    .flatMap((word) => word.split(/(?<=-)(?=.)/))
    .map((word) => word.replace(/\u00a0/g, " "))
    .filter(Boolean);
}

// A name's font shrinks until its widest piece fits its box on one line
// (app.css: --word-em, that piece's width in em); a word breaks only when the
// name is too long even at the smallest size allowed. The widths come from a
// canvas, in the name's own font: no layout is read. (The party's seats and
// zones, the replay's seats.) ``line``: the whole name is the piece, for a
// box a line high (the room's seats): its font shrinks until all of it fits;
// and --two-em, the width of its longer line where it is best broken in two
// (where a line may break: unbreakable()), for a seat whose name may take
// two lines (a crowded band of seats on an upright phone).
let ruler = null;
export function fitNames(els, { line = false } = {}) {
  ruler ||= document.createElement("canvas").getContext("2d");
  const width = (text) => ruler.measureText(text.trim()).width;
  for (const el of els) {
    const style = getComputedStyle(el);
    ruler.font = `${style.fontStyle} ${style.fontWeight} 100px ${style.fontFamily}`;
    const pieces = line ? [el.textContent.trim()].filter(Boolean) : unbreakable(el);
    const widest = Math.max(0, ...pieces.map(width));
    el.style.setProperty("--word-em", (widest / 100).toFixed(3));
    if (line) {
      const text = keptText(el);
      let two = widest;
      for (const m of text.matchAll(/[ \t\n]+|-(?=.)/g)) {
        const cut = m[0] === "-" ? m.index + 1 : m.index;
        const rest = m[0] === "-" ? cut : m.index + m[0].length;
        two = Math.min(two, Math.max(width(text.slice(0, cut)), width(text.slice(rest))));
      }
      el.style.setProperty("--two-em", (two / 100).toFixed(3));
    }
    el.dataset.fit = "1";
  }
}

/** An element's text, the spaces a line may not break at (in a .nobreak
 * part: "bot 4") as no-break spaces. */
function keptText(el) {
  let text = "";
  for (const node of el.childNodes) {
    const part = node.textContent;
    text += node.nodeType === Node.TEXT_NODE ? part : part.replace(/ /g, "\u00a0");
  }
  return text.trim();
}
