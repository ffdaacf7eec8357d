// The table: seats around a green felt, the centre pile, and the texts that
// describe what happened. Shared by the room, party mode and the replay viewer.

import { fill, h, median, reducedMotion } from "./common.js";
import { cardBack, cardFace, rankLabel, spokenCard } from "./cards.js";
import { msText, t } from "./i18n.js";

/** A seat's name (or "Seat 3" if the view has none). */
export function seatName(view, seat) {
  if (seat === null || seat === undefined) return "?";
  if (typeof seat === "string") return seat;
  return (view && view.players && view.players[seat]) || t("seat.n", { n: seat + 1 });
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
      if (ev.loser !== null && ev.loser !== undefined && !(ev.winners || []).length) {
        return t("ev.game_over_loser", { name: who(ev.loser) });
      }
      return t((ev.winners || []).length > 1 ? "ev.game_over_shared" : "ev.game_over", {
        names: names(view, ev.winners || []),
      });
    default:
      return ev.type;
  }
}

/** The events that close a race, with their reaction list. */
export const RACE_ENDS = new Set(["race_won", "pile_split", "forfeit", "picked_up"]);

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

/** Fill an end-screen ranking table body: place, name, cards, jacks, wrong slaps, median. */
export function renderRanking(tbody, view, stats, mine = []) {
  const fmt = msText;
  fill(
    tbody,
    ranking(view).map((s, i) =>
      h(
        "tr",
        { class: mine.includes(s) ? "me" : "" },
        h("td", {}, String(i + 1)),
        h("th", { scope: "row" }, seatName(view, s)),
        h("td", {}, String(view.stacks[s])),
        h("td", {}, String(stats.jacks[s] || 0)),
        h("td", {}, String(stats.wrong[s] || 0)),
        h("td", {}, fmt(stats.medianReaction(s))),
      ),
    ),
  );
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
    if (ev.type === "slapped" && typeof ev.reaction_ms === "number") {
      (this.reactions[ev.seat] ||= []).push(ev.reaction_ms);
    }
  }

  medianReaction(seat) {
    return median(this.reactions[seat] || []);
  }
}

/**
 * The table widget. ``el`` is an empty element; ``opts.me`` is the player's
 * seat (null for a spectator), ``opts.locals`` extra seats played on this
 * screen (party mode), ``opts.onSlap(event)`` and ``opts.onFlip(event)`` the
 * input handlers (omit them for a read-only table).
 */
export class TableView {
  constructor(el, opts = {}) {
    this.el = el;
    this.opts = opts;
    this.n = 0;
    this.seatEls = [];
    this.pileKey = "";
    this.view = null;
    el.classList.add("felt");
    this.seatsEl = h("ol", { class: "seats", "aria-label": t("table.seats") });
    this.callEl = h("div", { class: "call-banner", hidden: true, "aria-hidden": "true" });
    this.pileEl = h("div", {
      class: "pile",
      role: opts.onSlap ? "button" : "img",
      tabindex: opts.onSlap ? "0" : null,
    });
    this.pileInfo = h("div", { class: "pile-info" });
    this.raceEl = h("div", { class: "race", hidden: true });
    this.centreEl = h(
      "div",
      { class: "centre" },
      this.callEl,
      this.pileEl,
      this.pileInfo,
      this.raceEl,
    );
    fill(el, this.seatsEl, this.centreEl);
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

  buildSeats(n) {
    this.n = n;
    this.seatEls = [];
    fill(this.seatsEl);
    for (let s = 0; s < n; s++) {
      const k = (s - this.anchor + n) % n;
      const phi = (2 * Math.PI * k) / n;
      const x = 50 - Math.sin(phi) * 40;
      const y = 50 + Math.cos(phi) * 40;
      const el = h(
        "li",
        { class: "seat", style: { "--x": `${x.toFixed(2)}%`, "--y": `${y.toFixed(2)}%` } },
        h("div", { class: "seat-name" }),
        h("div", { class: "seat-stack" }, cardBack({ size: "mini" }), h("span", { class: "count" })),
        h("div", { class: "seat-status" }),
        h("div", { class: "seat-timer", hidden: true }, h("span", { class: "bar" })),
        h("div", { class: "seat-reaction", hidden: true }),
      );
      this.seatEls.push(el);
      this.seatsEl.append(el);
    }
  }

  /** Draw ``view``; ``room`` carries timers and connection states (may be null). */
  render(view, room = null) {
    this.view = view;
    // State as data attributes: for styles, and for tests that drive the page.
    this.el.dataset.flip = String(view.flip_id ?? view.flips);
    this.el.dataset.turn = view.turn === null || view.turn === undefined ? "" : String(view.turn);
    this.el.dataset.over = String(!!view.over);
    const n = view.players.length;
    if (n !== this.n) this.buildSeats(n);
    const locals = new Set(this.opts.locals || []);
    const bots = (room && room.bots) || {};
    const connected = room && room.connected;
    for (let s = 0; s < n; s++) {
      const el = this.seatEls[s];
      const isMe = s === this.opts.me;
      el.classList.toggle("me", isMe || locals.has(s));
      el.classList.toggle("turn", view.turn === s && !view.over);
      el.classList.toggle("out", !!view.out[s]);
      el.classList.toggle("winner", view.over && view.winners.includes(s));
      el.classList.toggle("loser", view.over && view.loser === s);
      el.classList.toggle("slapped", (view.slapped || []).includes(s));
      el.classList.toggle("reslap", !!(view.reslap_among && view.reslap_among.includes(s)));
      const offline = Array.isArray(connected) && connected[s] === false && !bots[s];
      el.classList.toggle("offline", offline);
      const nameEl = el.querySelector(".seat-name");
      fill(nameEl, 
        h("span", { class: "who" }, seatName(view, s)),
        isMe ? h("span", { class: "tag you" }, t("seat.you")) : null,
        bots[s] ? h("span", { class: "tag bot" }, t(`bot.${bots[s]}`)) : null,
        offline ? h("span", { class: "tag offline" }, t("seat.offline")) : null,
      );
      el.querySelector(".count").textContent = String(view.stacks[s]);
      let status = "";
      if (view.over && view.winners.includes(s)) status = t("seat.winner");
      else if (view.over && view.loser === s) status = t("seat.loser");
      else if (view.out[s]) status = view.game === "irish-snap" ? t("seat.safe") : t("seat.out");
      else if (view.turn === s) status = t("seat.turn");
      else if (view.stacks[s] === 0) status = t("seat.empty");
      el.querySelector(".seat-status").textContent = status;
      el.setAttribute(
        "aria-label",
        t("seat.aria", { name: seatName(view, s), cards: view.stacks[s], count: view.stacks[s] }) +
          (status ? `, ${status}` : ""),
      );
    }
    this.renderPile(view);
    this.renderTimer(view, room);
  }

  renderPile(view) {
    const key = `${view.flip_id ?? view.flips}|${view.centre_top.join(",")}|${view.centre_face_down}`;
    const topChanged = key !== this.pileKey;
    this.pileKey = key;
    if (topChanged) {
      const cards = view.centre_top.map((name, i) => {
        const isTop = i === view.centre_top.length - 1;
        const el = cardFace(name, { size: isTop ? "large" : "large under" });
        // The cards under the top one fan out to the left, the oldest furthest,
        // so the last few stay readable (their top-left corner shows).
        const depth = view.centre_top.length - 1 - i;
        el.style.setProperty("--r", `${jitter(name + i, 6) - depth * 3}deg`);
        el.style.setProperty("--dx", `${jitter(name, 4) - depth * 22}px`);
        el.style.setProperty("--dy", `${jitter(name + "y", 4) + depth * 2}px`);
        if (isTop) el.classList.add("top");
        if (!isTop) el.setAttribute("aria-hidden", "true");
        return el;
      });
      const under =
        view.centre_face_down > 0 && !cards.length
          ? [cardBack({ size: "large", extra: "top" })]
          : view.centre_face_down > 0
            ? [cardBack({ size: "large", extra: "under buried" })]
            : [];
      const empty = !cards.length && !under.length;
      fill(this.pileEl, 
        ...under,
        ...cards,
        empty ? h("div", { class: "card empty large" }, t("pile.empty")) : null,
      );
    }
    const top = view.centre_top.length ? view.centre_top[view.centre_top.length - 1] : null;
    const label = top ? t("pile.aria_top", { card: spokenCard(top) }) : t("pile.aria_empty");
    this.pileEl.setAttribute(
      "aria-label",
      this.opts.onSlap ? `${t("pile.slap_hint")} ${label}` : label,
    );
    this.pileEl.classList.toggle("open", !!view.race_open);
    this.pileInfo.textContent = view.centre_size
      ? t(view.centre_face_down ? "pile.count_hidden" : "pile.count", {
          n: view.centre_size,
          count: view.centre_size,
          hidden: view.centre_face_down,
        })
      : "";
    if (view.game === "irish-snap" && !view.over) {
      this.callEl.hidden = false;
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
      this.callEl.hidden = true;
    }
    return topChanged;
  }

  renderTimer(view, room) {
    const timer = room && room.turn_timer;
    for (let s = 0; s < this.n; s++) {
      const el = this.seatEls[s].querySelector(".seat-timer");
      const active =
        timer && timer.seat === s && view.turn === s && !view.over && timer.ms_left > 0;
      if (!active) {
        el.hidden = true;
        continue;
      }
      el.hidden = false;
      const bar = el.querySelector(".bar");
      const total = timer.ms_total || timer.ms_left;
      const frac = Math.max(0, Math.min(1, timer.ms_left / total));
      const stamp = `${view.flips}|${timer.seat}|${Math.round(timer.ms_left / 50)}`;
      if (bar.dataset.stamp === stamp) continue;
      bar.dataset.stamp = stamp;
      // Restart the shrinking bar from the fraction left.
      bar.style.transition = "none";
      bar.style.transform = `scaleX(${frac})`;
      void bar.offsetWidth;
      if (!reducedMotion()) {
        bar.style.transition = `transform ${timer.ms_left}ms linear`;
        bar.style.transform = "scaleX(0)";
      }
    }
  }

  /** Show a race's result: who won and each seat's reaction time. */
  showRace(ev, view) {
    const reactions = ev.reactions || [];
    const winner = ev.type === "race_won" ? ev.winner : ev.type === "picked_up" ? ev.seat : null;
    const rows = reactions.map(([s, r]) =>
      h(
        "li",
        { class: s === winner ? "best" : "" },
        h("span", { class: "who" }, seatName(view, s)),
        h("span", { class: "ms" }, ms(r)),
      ),
    );
    this.raceEl.hidden = false;
    fill(this.raceEl, 
      h("p", { class: "race-title" }, describeEvent(ev, view)),
      rows.length ? h("ol", { class: "reactions" }, rows) : null,
    );
    this.raceEl.classList.remove("pop");
    void this.raceEl.offsetWidth;
    this.raceEl.classList.add("pop");
    for (const el of this.seatEls) el.querySelector(".seat-reaction").hidden = true;
    for (const [s, r] of reactions) {
      const el = this.seatEls[s] && this.seatEls[s].querySelector(".seat-reaction");
      if (!el) continue;
      el.hidden = false;
      el.textContent = ms(r);
      el.classList.toggle("best", s === winner);
    }
    clearTimeout(this.raceTimer);
    this.raceTimer = setTimeout(() => this.clearRace(), 4000);
  }

  clearRace() {
    this.raceEl.hidden = true;
    for (const el of this.seatEls) el.querySelector(".seat-reaction").hidden = true;
  }

  /** Animate a seat (a wrong slap, a penalty, a win). */
  flash(seat, kind) {
    const el = this.seatEls[seat];
    if (!el) return;
    el.classList.remove("fx-wrong", "fx-win", "fx-pay");
    void el.offsetWidth;
    el.classList.add(`fx-${kind}`);
    setTimeout(() => el.classList.remove(`fx-${kind}`), 1200);
  }

  /** Show a penalty card travelling from one seat to another (or the pile). */
  penalty(from, to) {
    if (reducedMotion()) return;
    const a = this.seatEls[from];
    const b = to === null || to === undefined ? this.pileEl : this.seatEls[to];
    if (!a || !b) return;
    const box = this.el.getBoundingClientRect();
    const ra = a.getBoundingClientRect();
    const rb = b.getBoundingClientRect();
    const card = cardBack({ size: "mini", extra: "flying" });
    card.style.left = `${ra.left - box.left + ra.width / 2}px`;
    card.style.top = `${ra.top - box.top + ra.height / 2}px`;
    this.el.append(card);
    requestAnimationFrame(() => {
      card.style.transform = `translate(${rb.left - ra.left + (rb.width - ra.width) / 2}px, ${
        rb.top - ra.top + (rb.height - ra.height) / 2
      }px) rotate(200deg)`;
    });
    setTimeout(() => card.remove(), 900);
  }

  /** Mark a seat's slap with a hand at once (before the server confirms). */
  markSlap(seat) {
    const el = this.seatEls[seat];
    if (el) el.classList.add("slapped");
  }
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

