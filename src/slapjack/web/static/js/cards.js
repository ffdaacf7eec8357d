// Card faces: rank and suit symbol in two corners and the centre; red suits
// red, black suits black (colour AND symbol).

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

// Each face is ONE element: its drawing (corners, pips, ace, court frame) is an
// SVG image made once per card and language and set as the element's
// background, instead of ~15 spans to style, lay out and paint on every new
// card (docs/benchmarks.md, Browser). The geometry below is that of the spans
// it replaces, in a 100 x 140 box (the card's width is 100).
const INK = { red: "#c62828", black: "#1a1a1a" };
const FONT = "font-family='Georgia, &quot;Times New Roman&quot;, serif' font-weight='700'";
const faceImages = new Map();

function glyph(x, y, size, text, turn = false) {
  const rot = turn ? ` transform='rotate(180 ${x} ${y})'` : "";
  return `<text x='${x}' y='${y}' font-size='${size}'${rot}>${text}</text>`;
}

/** The SVG of a card face: corners, then the centre (pips, ace or court). */
function faceSvg(rank, suit, label) {
  const ink = RED.has(suit) ? INK.red : INK.black;
  const symbol = SUITS[suit];
  // A corner: the rank (17 high) over the suit (.85 of it), centred in a
  // column that starts 6 % in (a rank's width: about 12, "10" about 19), 5 % down.
  const cx = label.length > 1 ? 15.5 : 12;
  const corner = glyph(cx, 15.5, 17, label) + glyph(cx, 32, 14.45, symbol);
  let centre = "";
  if (rank in PIPS && rank !== "A") {
    // The pips' grid: 3 columns and 9 rows inside an inset of 14 % / 22 %.
    const n = PIPS[rank];
    const size = n >= 9 ? 16 : 19;
    for (const [col, row] of LAYOUT[n]) {
      const x = +(22 + (col - 0.5) * (56 / 3)).toFixed(2);
      const y = +(19.6 + (row - 0.5) * 11.2).toFixed(2);
      centre += glyph(x, y, size, symbol, row > 5);
    }
  } else if (rank === "A") {
    centre = glyph(50, 70, 55, symbol);
  } else {
    centre =
      "<defs><linearGradient id='g' x1='0' y1='0' x2='1' y2='1'>" +
      "<stop offset='0' stop-color='#f4b63f' stop-opacity='.22'/>" +
      "<stop offset='.5' stop-color='#f4b63f' stop-opacity='.05'/>" +
      "<stop offset='1' stop-color='#f4b63f' stop-opacity='.22'/></linearGradient></defs>" +
      `<rect x='19' y='22' width='62' height='96' rx='4' fill='url(#g)' stroke='${ink}' stroke-width='2'/>` +
      glyph(50, 57, 42, label) +
      glyph(50, 91, 26, symbol);
  }
  return (
    "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 100 140'>" +
    `<g fill='${ink}' ${FONT} text-anchor='middle' dominant-baseline='central'>` +
    `${corner}<g transform='rotate(180 50 70)'>${corner}</g>${centre}</g></svg>`
  );
}

/** The CSS background-image of a face (cached: the same string). */
function faceImage(rank, suit) {
  const label = rankLabel(rank);
  const key = `${rank}${suit}|${label}`;
  let url = faceImages.get(key);
  if (!url) {
    url = `url("data:image/svg+xml,${encodeURIComponent(faceSvg(rank, suit, label))}")`;
    faceImages.set(key, url);
  }
  return url;
}

// Each face's image is set by ONE style rule (a class per face and corner
// letter), not on each card element: every card of that face then shares one
// parsed value and one loaded SVG image. Set on the element, the data: URL
// made a new image per card, parsed, styled and laid out again (its text
// too) in the frame that shows the card: 40-60 ms at 4x CPU throttling
// (docs/benchmarks.md, Browser). The rules for all 52 faces are written at
// once, the first time a face in the current language is asked for.
const FACE_RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const faceRules = new Set();
let faceStyle = null;

/** The class that draws a face (its rule written if it is not yet). */
export function faceClass(rank, suit) {
  const label = rankLabel(rank);
  const code = [...label].map((ch) => ch.codePointAt(0).toString(36)).join("");
  const cls = `face-${rank}${suit}-${code}`;
  if (!faceRules.has(cls)) {
    if (!faceStyle) {
      faceStyle = document.createElement("style");
      faceStyle.id = "card-faces";
      document.head.append(faceStyle);
    }
    let css = "";
    for (const r of FACE_RANKS) {
      for (const s of Object.keys(SUITS)) {
        const l = [...rankLabel(r)].map((ch) => ch.codePointAt(0).toString(36)).join("");
        const name = `face-${r}${s}-${l}`;
        if (faceRules.has(name)) continue;
        faceRules.add(name);
        css += `.card.${name},.face-warmup>.${name}{background-image:${faceImage(r, s)}}\n`;
      }
    }
    faceRules.add(cls);
    faceStyle.append(css);
  }
  return cls;
}

/** A face-up card element: one element, its face drawn by its class's background. */
export function cardFace(name, { size = "", extra = "" } = {}) {
  const c = parseCard(name);
  if (!c) return cardBack({ size });
  return h("div", {
    class: `card face ${RED.has(c.suit) ? "red" : "black"} ${faceClass(c.rank, c.suit)} ${size} ${extra}`.trim(),
    role: "img",
    "aria-label": spokenCard(name),
    dataset: { card: name, suit: SUITS[c.suit] },
  });
}

/** A face-down card. */
export function cardBack({ size = "", extra = "" } = {}) {
  return h("div", { class: `card back ${size} ${extra}`.trim(), "aria-hidden": "true" });
}

// The warm-up of the faces: each face drawn once, out of sight, before a card
// needs it. A face's first drawing parses its SVG image and lays out its text
// (tens of ms at 4x CPU throttling), and in the frame that shows the card
// that held the card back (docs/benchmarks.md, Browser). It starts with the
// page (before the player has joined: the table may still be hidden, so the
// box is the page's own, not the table's) and again on a change of language
// (the corners' letters).
let warmBox = null;
let warmRun = 0;
let warmLang = null;
let warmWidth = null;

/** The faces warmed again at the size the table draws its cards
 * (``cssWidth``, CSS px): an SVG image is laid out and painted for each size
 * it is drawn at, so faces warmed at another size are cold in the table
 * (docs/benchmarks.md, "Registered lengths, and faces warmed at the table's
 * size"). A no-op at the same size. */
export function warmFacesAt(cssWidth) {
  const w = Math.round(cssWidth * 100) / 100;
  if (!(w > 0) || w === warmWidth) return;
  warmWidth = w;
  warmBoxMade().style.setProperty("--cw", `${w}px`);
  warmFaces(true);
}

/** The warm-up's box (made, with its language listener, on first use). */
function warmBoxMade() {
  if (!warmBox) {
    warmBox = h("div", { class: "face-warmup", "aria-hidden": "true" });
    document.body.append(warmBox);
    document.addEventListener("langchange", () => warmFaces());
  }
  return warmBox;
}

/** Draw every face once in a 1 px box (a card's size, clipped, all but
 * transparent), two per frame; a no-op while it runs or once done, unless the
 * language changed or ``again`` (then from the start). */
export function warmFaces(again = false) {
  const lang = rankLabel("J") + rankLabel("Q") + rankLabel("K") + rankLabel("A");
  if (lang === warmLang && !again) return;
  warmLang = lang;
  warmBoxMade();
  const run = ++warmRun;
  const names = [];
  for (const rank of FACE_RANKS) for (const suit of Object.keys(SUITS)) names.push(rank + suit);
  // A batch per frame (not idle callbacks: a busy page has none for seconds).
  const step = () => {
    if (run !== warmRun) return;
    // Not cards for the page's scripts or tests: only the class that draws the face.
    const batch = names.splice(0, 2).map((name) => h("div", { class: faceClass(name.slice(0, -1), name.slice(-1)) }));
    warmBox.replaceChildren(...batch);
    if (!batch.length) return;
    // The next batch after this one is painted.
    requestAnimationFrame(() => setTimeout(step, 0));
  };
  setTimeout(step, 0);
}
