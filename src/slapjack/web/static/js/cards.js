// Card faces drawn with HTML and CSS: rank and suit symbol in two corners and
// the centre; red suits red, black suits black (colour AND symbol).

import { h } from "./common.js";
import { t } from "./i18n.js";

export const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
export const RED = new Set(["D", "H"]);
const PIPS = { A: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 7, 8: 8, 9: 9, 10: 10 };
// Where the pips of a number card sit: [column 1-3, row 1-9].
const CORNERS = [[1, 1], [3, 1], [1, 9], [3, 9]];
const SIDES4 = [[1, 1], [3, 1], [1, 4], [3, 4], [1, 6], [3, 6], [1, 9], [3, 9]];
const LAYOUT = {
  2: [[2, 1], [2, 9]],
  3: [[2, 1], [2, 5], [2, 9]],
  4: CORNERS,
  5: [...CORNERS, [2, 5]],
  6: [...CORNERS, [1, 5], [3, 5]],
  7: [...CORNERS, [1, 5], [3, 5], [2, 3]],
  8: [...CORNERS, [1, 5], [3, 5], [2, 3], [2, 7]],
  9: [...SIDES4, [2, 5]],
  10: [...SIDES4, [2, 2], [2, 8]],
};

/** "10H" → {rank: "10", suit: "H"}; null for anything else. */
export function parseCard(name) {
  const m = /^(A|[2-9]|10|J|Q|K)([CDHS])$/.exec(String(name || ""));
  return m ? { rank: m[1], suit: m[2] } : null;
}

/** The rank as printed on the card in the current language (German decks: B, D, K). */
export function rankLabel(rank) {
  return t(`rank.short.${rank}`);
}

/** "Jack of spades" / "Pik Bube". */
export function spokenCard(name) {
  const c = parseCard(name);
  if (!c) return String(name);
  return t("card.spoken", { rank: t(`rank.${c.rank}`), suit: t(`suit.${c.suit}`) });
}

/** "J♠" in the current language. */
export function shortCard(name) {
  const c = parseCard(name);
  return c ? rankLabel(c.rank) + SUITS[c.suit] : String(name);
}

/** A face-up card element. */
export function cardFace(name, { size = "", extra = "" } = {}) {
  const c = parseCard(name);
  if (!c) return cardBack({ size });
  const symbol = SUITS[c.suit];
  const label = rankLabel(c.rank);
  const corner = (pos) =>
    h(
      "span",
      { class: `corner ${pos}`, "aria-hidden": "true" },
      h("span", { class: "c-rank" }, label),
      h("span", { class: "c-suit" }, symbol),
    );
  let centre;
  if (c.rank in PIPS && c.rank !== "A") {
    const n = PIPS[c.rank];
    centre = h(
      "span",
      { class: n >= 9 ? "pips many" : "pips", "aria-hidden": "true" },
      LAYOUT[n].map(([col, row]) =>
        h(
          "span",
          {
            class: row > 5 ? "pip flip" : "pip",
            style: { "grid-column": String(col), "grid-row": String(row) },
          },
          symbol,
        ),
      ),
    );
  } else if (c.rank === "A") {
    centre = h("span", { class: "ace", "aria-hidden": "true" }, symbol);
  } else {
    centre = h(
      "span",
      { class: "court", "aria-hidden": "true" },
      h("span", { class: "court-rank" }, label),
      h("span", { class: "court-suit" }, symbol),
    );
  }
  return h(
    "div",
    {
      class: `card face ${RED.has(c.suit) ? "red" : "black"} ${size} ${extra}`.trim(),
      role: "img",
      "aria-label": spokenCard(name),
      dataset: { card: name },
    },
    corner("tl"),
    centre,
    corner("br"),
  );
}

/** A face-down card. */
export function cardBack({ size = "", extra = "" } = {}) {
  return h("div", { class: `card back ${size} ${extra}`.trim(), "aria-hidden": "true" });
}
