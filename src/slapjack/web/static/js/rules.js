// The rules page (/rules?preset=…): the rules text of each preset in the
// current language, from GET /api/rules/{preset}?lang= (Markdown).

import { api, fill, h, showError, startPage } from "./common.js";
import { lang, t } from "./i18n.js";
import { loadOptions } from "./options.js";

const $ = (id) => document.getElementById(id);
let preset = new URLSearchParams(location.search).get("preset") || "classic";

async function main() {
  await startPage("rules");
  const options = await loadOptions();
  if (!(preset in options.presets)) preset = "classic";
  const tabs = () =>
    fill(
      $("presets"),
      Object.keys(options.presets).map((p) =>
        h(
          "a",
          {
            class: "btn small",
            href: `/rules?preset=${encodeURIComponent(p)}`,
            "aria-current": p === preset ? "page" : null,
            onclick: (ev) => {
              ev.preventDefault();
              preset = p;
              history.replaceState(null, "", `/rules?preset=${encodeURIComponent(p)}`);
              tabs();
              load();
            },
          },
          t(`preset.${p}`),
        ),
      ),
    );
  tabs();
  document.addEventListener("langchange", () => {
    tabs();
    load();
  });
  load();
}

async function load() {
  showError($("rules-error"), null);
  try {
    const data = await api(`/api/rules/${encodeURIComponent(preset)}?lang=${lang}`);
    $("rules").replaceChildren(...markdown(data.markdown || data.text || ""));
  } catch (err) {
    showError($("rules-error"), err);
  }
}

/** Inline Markdown (**bold**, *italic*, `code`) as DOM nodes; text is never parsed as HTML. */
function inline(text) {
  const out = [];
  const re = /(\*\*([^*]+)\*\*|\*([^*]+)\*|`([^`]+)`)/g;
  let last = 0;
  let m;
  while ((m = re.exec(text))) {
    if (m.index > last) out.push(text.slice(last, m.index));
    if (m[2] !== undefined) out.push(h("strong", {}, m[2]));
    else if (m[3] !== undefined) out.push(h("em", {}, m[3]));
    else out.push(h("code", {}, m[4]));
    last = re.lastIndex;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

/** The small Markdown the rules texts use: headings, bullet lists, paragraphs. */
export function markdown(src) {
  const blocks = [];
  let list = null;
  let para = [];
  const flushPara = () => {
    if (para.length) blocks.push(h("p", {}, inline(para.join(" "))));
    para = [];
  };
  for (const raw of src.split("\n")) {
    const line = raw.trimEnd();
    const heading = /^(#{1,4})\s+(.*)$/.exec(line);
    const bullet = /^\s*[-*]\s+(.*)$/.exec(line);
    if (heading) {
      flushPara();
      list = null;
      blocks.push(h(`h${Math.min(4, heading[1].length)}`, {}, inline(heading[2])));
    } else if (bullet) {
      flushPara();
      if (!list) {
        list = h("ul");
        blocks.push(list);
      }
      list.append(h("li", {}, inline(bullet[1])));
    } else if (!line.trim()) {
      flushPara();
      list = null;
    } else if (list && /^\s+/.test(raw)) {
      list.lastChild.append(" ", ...inline(line.trim()));
    } else {
      list = null;
      para.push(line.trim());
    }
  }
  flushPara();
  return blocks;
}

// "ready": the page is wired up (tests wait for it before they type or click).
main().finally(() => {
  document.body.dataset.ready = "1";
});
