// Translations: one JSON table per language from GET /api/words/<lang>, the
// browser's part of the one catalogue of words (src/slapjack/texts/words/).
// English is the fallback for any key a table lacks.

export const LANGS = ["en", "de"];
const STORE_KEY = "slapjack.lang";

let table = {};
let fallback = {};
export let lang = "en";

/** The language to use: the stored switch, else the browser's, else English. */
export function pickLang() {
  const stored = localStorage.getItem(STORE_KEY);
  if (stored && LANGS.includes(stored)) return stored;
  for (const l of navigator.languages || [navigator.language || "en"]) {
    const short = String(l).slice(0, 2).toLowerCase();
    if (LANGS.includes(short)) return short;
  }
  return "en";
}

async function load(l) {
  const res = await fetch(`/api/words/${l}`);
  if (!res.ok) throw new Error(`no translation table for ${l}`);
  return res.json();
}

/** Load the tables and translate the page. Call once at start-up. */
export async function initI18n() {
  fallback = await load("en");
  await useLang(pickLang());
}

async function useLang(l) {
  lang = l;
  table = l === "en" ? fallback : await load(l);
  document.documentElement.lang = l;
  applyI18n(document);
}

/** Switch language, remember it, retranslate, and tell the page (event "langchange"). */
export async function setLang(l) {
  if (!LANGS.includes(l)) return;
  localStorage.setItem(STORE_KEY, l);
  await useLang(l);
  document.dispatchEvent(new CustomEvent("langchange", { detail: l }));
}

/** Does a key exist (in this language or the fallback)? */
export function has(key) {
  return key in table || key in fallback;
}

/** The string for ``key`` with ``{name}`` placeholders filled from ``params``
 * (``params.count === 1`` picks ``key_one`` where it exists). */
export function t(key, params = {}) {
  // A singular form, if the table has one: "key_one" when params.count is 1.
  if (params.count === 1 && has(`${key}_one`)) key = `${key}_one`;
  let s = key in table ? table[key] : key in fallback ? fallback[key] : key;
  return s.replace(/\{(\w+)\}/g, (m, name) => (name in params ? String(params[name]) : m));
}

/** Translate every element below ``root`` that carries data-i18n* attributes. */
export function applyI18n(root) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const attr of ["placeholder", "title", "aria-label", "alt"]) {
    const data = "i18n" + attr.replace(/(^|-)(\w)/g, (m, d, c) => c.toUpperCase());
    for (const el of root.querySelectorAll(`[data-i18n-${attr}]`)) {
      el.setAttribute(attr, t(el.dataset[data]));
    }
  }
  const title = document.querySelector("title[data-i18n]");
  if (title) document.title = title.textContent;
}

export const FALSE_START_OFFSET_MS = 5000;
/** Is a reaction time a false start's (``FALSE_START_OFFSET_MS`` added)? */
export function falseStart(value) {
  return typeof value === "number" && value >= FALSE_START_OFFSET_MS;
}

/** A reaction time for display: "212 ms", "62 ms (false start)" for a slap the
 * referee ranked as a false start (the measured value plus 5000 ms, see
 * slapjack/core/timing.py), "—" for none. */
export function msText(value) {
  if (value === null || value === undefined) return "—";
  if (falseStart(value)) {
    return t("unit.ms_false_start", { n: num(value - FALSE_START_OFFSET_MS) });
  }
  return t("unit.ms", { n: num(value) });
}

/** A number formatted for the current language. */
export function num(n, digits = 0) {
  return Number(n).toLocaleString(lang, {
    maximumFractionDigits: digits,
    minimumFractionDigits: digits,
  });
}
