// The first game that teaches: the practice game (POST /api/practice) and its coach.
//
// - startPractice(): make a practice room, keep its seat, open /r/CODE?practice=1.
// - offerPractice(): on a first visit, the lobby offers it once (localStorage flag).
// - Coach: watches the game's updates. In a practice game it explains each moment
//   once (your turn, the first flip, the first Jack, the race's result, a Queen,
//   a wrong slap, an empty stack, the end) in a bubble placed where it covers
//   neither the pile nor the Slap button nor your stack; dismissible ("Got it"),
//   and a tip goes by itself after TIP_MS.
//   In every game it puts a note on your seat while you are on your last chance.

import { api, h, saveName, saveSeat, savedName } from "./common.js";
import { lang, t } from "./i18n.js";

export const OFFERED_KEY = "slapjack.practice.offered";

/** Make a practice room for ``name`` and go there. Throws the API's error. */
export async function startPractice(name) {
  const who = (name || savedName() || t("practice.default_name")).trim().slice(0, 24);
  const joined = await api("/api/practice", { method: "POST", body: { name: who, lang } });
  if (name) saveName(name);
  saveSeat(joined);
  localStorage.setItem(OFFERED_KEY, "1");
  location.href = `/r/${encodeURIComponent(joined.code)}?practice=1`;
}

/** On a first visit: an offer of the practice game, inserted after ``anchor``.
 * ``getName`` gives the name typed so far; ``onError`` shows a failure. */
export function offerPractice(anchor, { getName = () => "", onError = () => {} } = {}) {
  if (!anchor || localStorage.getItem(OFFERED_KEY)) return null;
  localStorage.setItem(OFFERED_KEY, "1"); // offered once: on the first visit
  const offer = h(
    "section",
    { id: "practice-offer", class: "panel practice-offer", "aria-labelledby": "practice-offer-title" },
    h("h2", { id: "practice-offer-title", "data-i18n": "practice.offer_title" }, t("practice.offer_title")),
    h("p", { "data-i18n": "practice.offer_text" }, t("practice.offer_text")),
    h(
      "p",
      { class: "row" },
      h(
        "button",
        {
          id: "practice-offer-go",
          class: "btn primary",
          type: "button",
          "data-i18n": "practice.offer_go",
          onclick: async (ev) => {
            ev.currentTarget.disabled = true;
            try {
              await startPractice(getName());
            } catch (err) {
              ev.currentTarget.disabled = false;
              onError(err);
            }
          },
        },
        t("practice.offer_go"),
      ),
      h(
        "button",
        {
          id: "practice-offer-no",
          class: "btn",
          type: "button",
          "data-i18n": "practice.offer_no",
          onclick: () => offer.remove(),
        },
        t("practice.offer_no"),
      ),
    ),
  );
  anchor.after(offer);
  return offer;
}

/** Is seat ``s`` on its last chance: an empty stack, still in, Slapjack running?
 * ``"next_jack"`` (win the next Jack or be out), ``"until_turn"`` (win a Jack
 * before your turn comes), or null. */
export function lastChance(view, s) {
  if (!view || view.over || view.game === "irish-snap" || s === null || s === undefined) return null;
  if (view.out[s] || view.stacks[s] !== 0) return null;
  const rules = view.rules || {};
  const untilTurn = rules.empty_stack === "until_turn" || (!rules.empty_stack && rules.preset === "klatsch-bube");
  return untilTurn ? "until_turn" : "next_jack";
}

/** How long a tip stays unless dismissed or replaced, and the moments that stay. */
export const TIP_MS = 15000;
const STAYS = new Set(["last_chance_you", "last_chance", "end"]);

const rankOf = (card) => String(card).slice(0, -1);

export class Coach {
  /**
   * @param {object} opts
   * @param {boolean} opts.practice  explain the moments (else only the seat note)
   * @param {() => number|null} opts.seat  our seat
   * @param {(s: number) => Element|null} opts.seatEl  the table's element of seat s
   * @param {(view: object, s: number) => string} opts.name  a seat's display name
   * @param {() => Element[]} opts.avoid  what the bubble must never cover
   */
  constructor(opts) {
    this.opts = opts;
    this.seen = new Set();
    this.flips = 0;
    this.current = null; // {id, key, params}
    this.bubble = null;
    if (opts.practice) {
      document.body.classList.add("practising");
      window.addEventListener("resize", () => this.place());
      document.addEventListener("langchange", () => this.redraw());
    }
  }

  /** A new game in the room (a rematch): every moment may be explained again. */
  reset() {
    this.seen.clear();
    this.flips = 0;
    this.hide();
  }

  /** Call after the page drew an update (``msg`` is the update frame). */
  update(msg, view) {
    if (!view) return;
    const me = this.opts.seat();
    if (this.opts.practice && me !== null && me !== undefined) this.lessons(msg.events || [], view, me);
    this.seatNote(view, me);
    this.place();
  }

  lessons(events, view, me) {
    const name = (s) => this.opts.name(view, s);
    for (const ev of events) {
      if (ev.type === "flipped") {
        this.flips += 1;
        const rank = rankOf(ev.card);
        const who = ev.seat === me ? t("practice.you") : name(ev.seat);
        if (rank === "J") this.show("jack", "practice.jack", { who });
        else if (rank === "Q") this.show("queen", "practice.queen", { who });
        else if (this.flips === 1 || !this.seen.has("first_flip")) {
          this.show("first_flip", ev.seat === me ? "practice.first_flip_you" : "practice.first_flip", {
            who,
            card: ev.card,
          });
        }
      } else if (ev.type === "race_won" && this.seen.has("jack")) {
        const won = ev.winner === me;
        this.show("race", won ? "practice.race_won" : "practice.race_lost", {
          who: name(ev.winner),
          cards: ev.cards,
          count: ev.cards,
        });
      } else if (ev.type === "no_slap" && this.seen.has("jack")) {
        this.show("no_slap", "practice.no_slap", {});
      } else if (ev.type === "wrong_slap") {
        const mine = ev.seat === me;
        let key = mine ? "practice.wrong_slap_you" : "practice.wrong_slap";
        if (ev.penalty === "pay_pile") key += "_pile";
        else if (mine && ev.to === me) key += "_self";
        const to = ev.to === me ? t("practice.you_dative") : ev.to !== undefined && ev.to !== null ? name(ev.to) : "";
        this.show("wrong_slap", key, { who: name(ev.seat), to });
      } else if (ev.type === "game_over") {
        const won = (ev.winners || view.winners || []).includes(me);
        this.show("end", won ? "practice.end_won" : "practice.end_lost", {});
      }
    }
    if (!view.over && this.flips === 0 && view.turn === me && view.centre_top.length === 0) {
      this.show("your_turn", "practice.your_turn", {});
    }
    for (let s = 0; s < view.players.length; s++) {
      const kind = lastChance(view, s);
      if (!kind) continue;
      if (s === me) this.show("last_chance_you", `practice.last_chance_you.${kind}`, {});
      else if (!this.seen.has("last_chance_you")) {
        this.show("last_chance", `practice.last_chance.${kind}`, { who: name(s) });
      }
    }
  }

  /** Explain moment ``id`` (once per game) with the text ``key``. */
  show(id, key, params) {
    if (this.seen.has(id)) return;
    this.seen.add(id);
    this.current = { id, key, params };
    this.redraw();
  }

  hide() {
    this.current = null;
    if (this.bubble) this.bubble.hidden = true;
  }

  redraw() {
    if (!this.current) return;
    if (!this.bubble) {
      this.text = h("p", { class: "coach-text" });
      this.bubble = h(
        "aside",
        { id: "coach", class: "coach", role: "status", "aria-live": "polite" },
        h("span", { class: "coach-badge", "aria-hidden": "true" }, "?"),
        this.text,
        h(
          "button",
          {
            id: "coach-ok",
            class: "btn small coach-ok",
            type: "button",
            tabindex: "-1", // never takes the keys' focus from the game
            onclick: () => this.hide(),
            onmousedown: (ev) => ev.preventDefault(),
          },
          t("practice.got_it"),
        ),
      );
      document.body.append(this.bubble);
    }
    this.bubble.querySelector(".coach-ok").textContent = t("practice.got_it");
    this.text.textContent = t(this.current.key, this.current.params);
    this.bubble.dataset.moment = this.current.id;
    this.bubble.hidden = false;
    this.place();
    // A tip goes by itself after a while (the last chance and the end stay).
    clearTimeout(this.timer);
    const id = this.current.id;
    if (!STAYS.has(id)) {
      this.timer = setTimeout(() => {
        if (this.current && this.current.id === id) this.hide();
      }, TIP_MS);
    }
  }

  /** Put the bubble in the first corner where it covers nothing it must not. */
  place() {
    const b = this.bubble;
    if (!b || b.hidden) return;
    const vw = document.documentElement.clientWidth;
    const vh = window.innerHeight;
    const m = 8;
    b.style.maxWidth = `${Math.min(360, vw - 2 * m)}px`;
    b.style.left = `${m}px`;
    b.style.top = `${m}px`;
    const w = b.offsetWidth;
    const ht = b.offsetHeight;
    // Never the pile, Slap or your stack (weight 1000); your own seat rather
    // not (10); the other seats if it can be helped (1).
    const rect = (el) => (el && el.isConnected && el.getClientRects().length ? el.getBoundingClientRect() : null);
    const me = this.opts.seat();
    const mine = me === null || me === undefined ? null : this.opts.seatEl(me);
    const avoid = [
      ...this.opts.avoid().map((el) => [rect(el), 1000]),
      [rect(mine), 10],
      ...[...document.querySelectorAll("#table .seat")].filter((el) => el !== mine).map((el) => [rect(el), 1]),
    ].filter(([r]) => r);
    const spots = [
      [vw - w - m, m],
      [m, m],
      [vw - w - m, vh - ht - m],
      [m, vh - ht - m],
      [(vw - w) / 2, m],
    ];
    let best = null;
    for (const [x, y] of spots) {
      let overlap = 0;
      for (const [r, weight] of avoid) {
        const ox = Math.min(x + w, r.right + 4) - Math.max(x, r.left - 4);
        const oy = Math.min(y + ht, r.bottom + 4) - Math.max(y, r.top - 4);
        if (ox > 0 && oy > 0) overlap += ox * oy * weight;
      }
      if (best === null || overlap < best[2]) best = [x, y, overlap];
      if (overlap === 0) break;
    }
    b.style.left = `${Math.max(m, best[0])}px`;
    b.style.top = `${Math.max(m, best[1])}px`;
  }

  /** The note on our own seat while we are on our last chance (every game). */
  seatNote(view, me) {
    const kind = lastChance(view, me);
    // Nothing to show and nothing shown (most updates): no DOM work at all.
    if (!kind && !this.noted) return;
    for (const old of document.querySelectorAll(".lastchance-note")) {
      if (old.dataset.seat !== String(me)) old.remove();
    }
    const el = me === null || me === undefined ? null : this.opts.seatEl(me);
    let note = el ? el.querySelector(".lastchance-note") : null;
    this.noted = !!(kind && el);
    if (!kind || !el) {
      if (note) note.remove();
      if (el) el.classList.remove("last-chance");
      return;
    }
    if (!note) {
      note = h("p", { class: "lastchance-note", role: "note", dataset: { seat: String(me) } });
      el.append(note);
    }
    el.classList.add("last-chance");
    note.textContent = t(`seat.last_chance.${kind}`);
    note.title = t(`practice.last_chance_you.${kind}`);
  }
}
