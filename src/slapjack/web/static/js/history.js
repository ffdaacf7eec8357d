// History (/history): finished games, per-name statistics, links to replays and downloads.

import { api, fill, h, savedName, showError, startPage } from "./common.js";
import { lang, num, t } from "./i18n.js";

const $ = (id) => document.getElementById(id);
const PAGE = 25;
let offset = 0;
let games = [];
const player = new URLSearchParams(location.search).get("player");

async function main() {
  await startPage("history");
  $("stats-name").value = player || savedName();
  $("stats-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    showStats($("stats-name").value.trim());
  });
  $("more").addEventListener("click", () => loadGames());
  document.addEventListener("langchange", () => renderGames());
  if (player) {
    $("games-filter").hidden = false;
    $("games-filter").textContent = t("history.filtered", { name: player });
  }
  if ($("stats-name").value) showStats($("stats-name").value);
  loadGames();
}

async function showStats(name) {
  if (!name) return;
  showError($("stats-error"), null);
  try {
    const s = await api(`/api/stats/${encodeURIComponent(name)}`);
    if (!s.games) {
      fill($("stats-out"), h("p", { class: "stats-none" }, t("history.no_games_for", { name: s.name || name })));
      return;
    }
    const stat = (label, value) => h("div", { class: "stat" }, h("b", {}, value), label);
    fill(
      $("stats-out"),
      stat(t("history.stat_games"), num(s.games)),
      stat(t("history.stat_wins"), num(s.wins)),
      stat(t("history.stat_jacks"), num(s.jacks)),
      s.wrong_slaps !== undefined ? stat(t("history.stat_wrong"), num(s.wrong_slaps)) : null,
      stat(
        t("history.stat_median"),
        s.median_reaction_ms === null || s.median_reaction_ms === undefined
          ? "—"
          : t("unit.ms", { n: num(s.median_reaction_ms) }),
      ),
      h(
        "div",
        { class: "stat" },
        h("a", { href: `/history?player=${encodeURIComponent(name)}` }, t("history.their_games")),
      ),
    );
  } catch (err) {
    showError($("stats-error"), err);
  }
}

async function loadGames() {
  showError($("games-error"), null);
  const q = new URLSearchParams({ limit: String(PAGE), offset: String(offset) });
  if (player) q.set("player", player);
  try {
    const data = await api(`/api/games?${q}`);
    games = games.concat(data.games || []);
    offset += (data.games || []).length;
    $("more").hidden = !(data.total > offset);
    renderGames();
  } catch (err) {
    showError($("games-error"), err);
  }
}

function when(iso) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? iso
    : d.toLocaleString(lang, { dateStyle: "medium", timeStyle: "short" });
}

function renderGames() {
  $("games-empty").hidden = games.length > 0;
  fill(
    $("games"),
    games.map((g) => {
      let result;
      if (!g.complete) result = t("history.unfinished");
      // Irish Snap (avoid the last): the one left holding cards, not "won" for all the others
      else if (g.loser) result = t("history.lost_by", { name: g.loser });
      else if (g.winners && g.winners.length) result = t("history.won_by", { names: g.winners.join(", ") });
      else result = "—";
      // data-label: a phone shows each game as a card, every value named (app.css)
      return h(
        "tr",
        { dataset: { id: String(g.id) } },
        h("td", { dataset: { label: t("history.when") } }, when(g.finished_at)),
        h("td", { dataset: { label: t("history.game") } }, `${t(`game.${g.game}`)} · ${t(`preset.${g.preset}`)}`),
        h("td", { dataset: { label: t("history.players") } }, g.players.join(", ")),
        h("td", { dataset: { label: t("history.result") } }, result),
        h("td", { dataset: { label: t("history.flips") } }, num(g.flips)),
        h(
          "td",
          { class: "row game-actions", style: { gap: ".4rem", "flex-wrap": "nowrap" } },
          h("a", { class: "btn small primary", href: `/replay/${g.id}` }, t("history.replay")),
          h(
            "a",
            { class: "btn small", href: `/api/games/${g.id}?download=1`, download: `slapjack-${g.id}.json` },
            t("history.download"),
          ),
        ),
      );
    }),
  );
}

// "ready": the page is wired up (tests wait for it before they type or click).
main().finally(() => {
  document.body.dataset.ready = "1";
});
