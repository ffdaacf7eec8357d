// Shared helpers: the page header, HTTP calls, local storage, announcements.

import { LANGS, applyI18n, initI18n, lang, setLang, t } from "./i18n.js";

/** Create an element: h("div", {class: "x", onclick: f}, child, "text", ...). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2), value);
    } else if (key === "class") {
      el.className = value;
    } else if (key === "dataset") {
      Object.assign(el.dataset, value);
    } else if (key === "style" && typeof value === "object") {
      for (const [k, v] of Object.entries(value)) el.style.setProperty(k, v);
    } else if (value === true) {
      el.setAttribute(key, "");
    } else {
      el.setAttribute(key, String(value));
    }
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** Set an element's text only when it changes: the same text written again
 * still replaces the text node and costs a layout. A lone text node is
 * changed in place: a new node is a style recalc and a layout object more. */
export function setText(el, text) {
  const value = String(text);
  const only = el.firstChild;
  if (only && only === el.lastChild && only.nodeType === 3) {
    if (only.data !== value) only.data = value;
  } else if (el.textContent !== value) {
    el.textContent = value;
  }
  return el;
}

/** Set ``el.hidden`` only when it changes: writing the same value again is
 * still an attribute change, and restyles the element. */
export function setHidden(el, hidden) {
  const value = !!hidden;
  if (el.hidden !== value) el.hidden = value;
  return el;
}

/** Set an attribute only when its value changes (``null``: remove it). */
export function setAttr(el, name, value) {
  if (value === null || value === undefined) {
    if (el.hasAttribute(name)) el.removeAttribute(name);
  } else if (el.getAttribute(name) !== String(value)) {
    el.setAttribute(name, String(value));
  }
  return el;
}

/** Replace an element's children, skipping null/undefined/false ones. */
export function fill(el, ...children) {
  el.replaceChildren(
    ...children
      .flat()
      .filter((c) => c !== null && c !== undefined && c !== false)
      .map((c) => (c instanceof Node ? c : document.createTextNode(String(c)))),
  );
  return el;
}

/** An error from the server (HTTP or WebSocket) with its typed ``code``. */
export class ApiError extends Error {
  constructor(code, message, status = 0) {
    super(message || code);
    this.code = code;
    this.status = status;
  }
}

/** Call the JSON API; throws ApiError with the server's code and message. */
export async function api(path, { method = "GET", body } = {}) {
  let res;
  try {
    res = await fetch(path, {
      method,
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw new ApiError("network", t("error.network"));
  }
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  if (!res.ok) {
    const detail = data && (data.error || data.detail || data);
    const code = (detail && detail.code) || `http_${res.status}`;
    let message = detail && (detail.message || (typeof detail === "string" ? detail : ""));
    if (!message && Array.isArray(detail)) message = detail.map((d) => d.msg).join("; ");
    throw new ApiError(code, message || `${res.status} ${res.statusText}`, res.status);
  }
  return data;
}

// ------------------------------------------------------------------ storage

/** A room's name as the page shows it: a room nobody named is "Room K7Q2PX"
 * in the server's answers (docs/protocol.md), said in the page's language
 * ("Raum K7Q2PX"); a name somebody gave it, as given. */
export function roomName(info, code = info.code) {
  const name = info.name || "";
  return !name || name === `Room ${code}` ? t("room.unnamed", { code }) : name;
}

const NAME_KEY = "slapjack.name";

export function savedName() {
  return localStorage.getItem(NAME_KEY) || "";
}

export function saveName(name) {
  if (name) localStorage.setItem(NAME_KEY, name);
}

/** The seat token kept for a room (``{token, seat, name}``) or null. */
export function seatFor(code) {
  try {
    return JSON.parse(localStorage.getItem(`slapjack.seat.${code}`) || "null");
  } catch {
    return null;
  }
}

export function saveSeat(joined) {
  localStorage.setItem(
    `slapjack.seat.${joined.code}`,
    JSON.stringify({ token: joined.token, seat: joined.seat, name: joined.name, at: Date.now() }),
  );
}

/** Every room this browser holds a seat in, newest first: [{code, name, seat, at}]. */
export function mySeats() {
  const out = [];
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i);
    if (!key || !key.startsWith("slapjack.seat.")) continue;
    const seat = seatFor(key.slice("slapjack.seat.".length));
    if (seat && seat.token) out.push({ ...seat, code: key.slice("slapjack.seat.".length) });
  }
  return out.sort((a, b) => (b.at || 0) - (a.at || 0));
}

export function forgetSeat(code) {
  localStorage.removeItem(`slapjack.seat.${code}`);
}

export const DEFAULT_KEYS = { flip: " ", slap: "j", call: "k" };

/** The player's key bindings (rebindable; stored in localStorage). */
export function keyBindings() {
  try {
    return { ...DEFAULT_KEYS, ...JSON.parse(localStorage.getItem("slapjack.keys") || "{}") };
  } catch {
    return { ...DEFAULT_KEYS };
  }
}

export function saveKeyBindings(keys) {
  localStorage.setItem("slapjack.keys", JSON.stringify(keys));
}

/** How a key is shown: "Space", "J". */
export function keyLabel(key) {
  if (key === " ") return t("key.space");
  return key.length === 1 ? key.toUpperCase() : key;
}

// ------------------------------------------------------------ page chrome

/** Run ``fn`` once after the next frame is painted (or 300 ms later, in a
 * hidden tab that paints no frames). */
export function afterPaint(fn) {
  let done = false;
  const run = () => {
    if (done) return;
    done = true;
    fn();
  };
  requestAnimationFrame(() => setTimeout(run, 0));
  setTimeout(run, 300);
}

/** Say ``text`` through the page's aria-live region: after the frame that
 * shows what it says (not in the work of that frame: a card is painted
 * first), cleared and then set, so a repeated message is spoken again. */
export function announce(text, { assertive = false } = {}) {
  const region = document.getElementById(assertive ? "alert" : "live");
  if (!region) return;
  afterPaint(() => {
    region.textContent = "";
    setTimeout(() => {
      region.textContent = text;
    }, 20);
  });
}

/** Is reduced motion wanted? (One media query list, asked each time: it
 * follows the setting as it changes.) */
const REDUCED_MOTION = window.matchMedia("(prefers-reduced-motion: reduce)");
export function reducedMotion() {
  return REDUCED_MOTION.matches;
}

function mountHeader(active) {
  const nav = [
    ["/", "nav.lobby", "lobby"],
    ["/party", "nav.party", "party"],
    ["/history", "nav.history", "history"],
    ["/rules", "nav.rules", "rules"],
  ];
  const select = h(
    "select",
    { id: "lang-switch", "aria-label": t("nav.language"), "data-i18n-aria-label": "nav.language" },
    LANGS.map((l) => h("option", { value: l, selected: l === lang }, t(`lang.${l}`))),
  );
  select.addEventListener("change", () => setLang(select.value));
  document.addEventListener("langchange", () => {
    for (const opt of select.options) opt.textContent = t(`lang.${opt.value}`);
    select.value = lang;
  });
  const header = h(
    "header",
    { class: "site" },
    h("a", { class: "skip", href: "#main", "data-i18n": "nav.skip" }, t("nav.skip")),
    h(
      "a",
      { class: "brand", href: "/" },
      h("span", { class: "brand-mark", "aria-hidden": "true" }, "J♠"),
      h("span", {}, "Slapjack"),
    ),
    h(
      "nav",
      { "aria-label": t("nav.main"), "data-i18n-aria-label": "nav.main" },
      nav.map(([href, key, id]) =>
        h(
          "a",
          { href, "data-i18n": key, "aria-current": id === active ? "page" : null },
          t(key),
        ),
      ),
    ),
    h("label", { class: "lang" }, select),
  );
  document.body.prepend(header);
  if (!document.getElementById("live")) {
    document.body.append(
      h("div", { id: "live", class: "sr-only", "aria-live": "polite", role: "status" }),
      h("div", { id: "alert", class: "sr-only", "aria-live": "assertive", role: "alert" }),
    );
  }
}

/** Start a page: load translations, put up the header. */
export async function startPage(active) {
  await initI18n();
  mountHeader(active);
  applyI18n(document);
}

/** Show a message in a page's error box (``el``), or clear it with null. */
const DETAILED = new Set(["bad_request", "bad_name"]);
/** Codes whose server message says which field or character is wrong: shown after our words. */

export function showError(el, err) {
  if (!el) return;
  if (!err) {
    el.hidden = true;
    el.textContent = "";
    return;
  }
  el.hidden = false;
  const key = err.code ? `error.${err.code}` : null;
  if (key && t(key) !== key) {
    // Our words first; the server's precise reason after them (it names the field).
    const detail = err.message && err.message !== err.code ? ` (${err.message})` : "";
    el.textContent = DETAILED.has(err.code) ? t(key) + detail : t(key);
  } else {
    el.textContent = err.message || String(err);
  }
}

/** Copy text to the clipboard; returns whether it worked. */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

/** Median of a list of numbers (null when empty). */
export function median(values) {
  if (!values.length) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}
