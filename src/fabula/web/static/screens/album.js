// Every game leaves its story: the album (each round as it was revealed, one at a time), the
// score chart, the picture to download and the link to share, the room's history of games, the
// replay for a TV or anyone with a share link, and the rounds a player missed while away.
// An album is the server's JSON (`GET /api/rooms/CODE/games/N`, the `album` WebSocket message,
// `GET /api/albums/CODE/SECRET`); every round is drawn as the reveal draws it (reveal.js).
import { h } from "../dom.js";
import { language, listText, t } from "../i18n.js";
import { api } from "../net.js";
import { cardViewer, describeCards, errorText, markRabbits, memberName, sideName, sideRabbit } from "./parts.js";
import { roundParts } from "./reveal.js";
import { albumEveryone, albumGame, albumPeople, chartWidth, dateText, finalNameOf, scoreChart, takeoverLines, winnersText } from "./chart.js";
import { replayOverlay } from "./replay.js";
import { albumCrowd, audienceBoard } from "./crowd.js";
import { fill, stepKeys, swipeable } from "./stepping.js";


// ---------------------------------------------------------------- pictures and links

// Fetch the album's picture (with the seat token, when there is one) and hand it to the browser
// as a download.
async function downloadPicture(url, token, filename) {
  const response = await fetch(url, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
  if (!response.ok) {
    const error = new Error(`http_${response.status}`);
    error.code = (await response.json().catch(() => null))?.error?.code; // album_too_tall, …
    throw error;
  }
  const blob = await response.blob();
  const link = h("a", { href: URL.createObjectURL(blob), download: filename, hidden: true });
  document.body.append(link);
  link.click();
  setTimeout(() => {
    URL.revokeObjectURL(link.href);
    link.remove();
  }, 1000);
}

function downloadButton(label, { url, token, filename, small = false }) {
  const note = h("span.hint.download-note", { role: "status" });
  const button = h(
    small ? "button.small" : "button",
    {
      type: "button",
      class: "download",
      onclick: async () => {
        button.disabled = true;
        note.textContent = t("album.downloading");
        try {
          await downloadPicture(url(), token, filename());
          note.textContent = "";
        } catch (error) {
          // a game too long for one picture is so every time: say what to do instead
          note.textContent = error.code === "album_too_tall" ? t("album.too_tall") : t("album.download_failed");
        }
        button.disabled = false;
      },
    },
    label,
  );
  return h("span.download-wrap", {}, button, note);
}

// The share link once made: the link as text anyone can select, and a copy button.
function shareResult(url) {
  const field = h("input.share-url", { type: "text", readonly: true, value: url, "aria-label": t("album.share_link"), onfocus: (event) => event.target.select() });
  const copy = h(
    "button.small",
    {
      type: "button",
      onclick: async () => {
        try {
          await navigator.clipboard.writeText(url);
          copy.textContent = t("lobby.copied");
        } catch {
          field.focus();
          field.select(); // no clipboard here: the link is selected, to copy by hand
          copy.textContent = t("album.copy_by_hand");
        }
      },
    },
    t("lobby.copy"),
  );
  return h("div.share-result", {}, h("p.hint", {}, t("album.share_hint")), h("div.share-row", {}, field, copy));
}

// The album's chart, drawn for the window's width and drawn again when the width changes (a
// phone turned, a window resized): an SVG merely scaled down would shrink its names below reading
// size. A chart no longer on the page stops listening at the next resize.
function albumChart(album) {
  let width = chartWidth(false);
  const caption = () => h("figcaption.sr-only", {}, t("album.chart"));
  const box = h("figure.chart-box", {}, scoreChart(album, { width }), caption());
  let timer = null;
  const resized = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (!box.isConnected) {
        window.removeEventListener("resize", resized);
        return;
      }
      const now = chartWidth(false);
      if (now === width) return;
      width = now;
      box.replaceChildren(scoreChart(album, { width }), caption());
    }, 120);
  };
  window.addEventListener("resize", resized);
  return box;
}

// ---------------------------------------------------------------- the album

// The album of one game, a round at a time. ``links``: {png(album, round|null) → URL, token,
// share(album) → a promise of {url} (null: no share button), filename(album)}; ``onReplay(album)``:
// the replay button (null: none; ``replayPrimary``: the page's one primary button). The view keeps its place across the screen's redraws: put ``element``
// in every redraw; ``show(album)`` for another album (or the same one, grown).
export function createAlbumView({ links = null, onReplay = null, replayPrimary = false, heading = "h3" } = {}) {
  let album = null;
  let index = 0;
  let shared = null;
  const element = h("section.album", { "aria-label": t("album.title_plain") });
  const step = (by) => {
    if (!album?.rounds.length) return;
    const next = Math.max(0, Math.min(album.rounds.length - 1, index + by));
    if (next === index) return;
    index = next;
    draw();
    element.querySelector(".album-nav")?.scrollIntoView?.({ block: "nearest" });
  };
  const removeKeys = stepKeys(element, step);

  function roundPage(round) {
    const { bySeat, nameOf } = albumPeople(album, round.round); // (a seat taken over later: who played it then)
    const game = albumGame(album);
    const standIns = album.stand_ins?.[index] ?? [];
    const parts = roundParts(round, game, {
      nameOf,
      bySeat,
      standIns,
      animate: false,
      onCard: (slot) => cardViewer(round.table, slot),
      crowd: albumCrowd(album, round.round),
    });
    const area = h(
      "article.album-round",
      { "data-round": round.round },
      h("h3.album-teller", {}, sideRabbit({ seats: [round.storyteller] }, nameOf, bySeat, { size: 30 }), " ", t("table.round", { round: round.round }), " · ", t("table.storyteller", { name: nameOf(round.storyteller) })),
      takeoverLines(album, round.round).map((line) => h("p.took-over", {}, line)),
      parts.clue,
      parts.headline,
      parts.cards,
      parts.points,
      links?.png
        ? h(
            "div.actions",
            {},
            downloadButton(t("album.download_round"), {
              url: () => links.png(album, round.round),
              token: links.token,
              filename: () => `${links.filename(album)}-round-${round.round}.png`,
              small: true,
            }),
          )
        : null,
    );
    swipeable(area, step);
    return area;
  }

  function draw() {
    if (!album) {
      fill(element, h("p.notice", {}, t("album.loading")));
      return;
    }
    const count = album.rounds.length;
    index = Math.max(0, Math.min(index, count - 1));
    const tools = h(
      "div.album-tools",
      {},
      onReplay && count ? h(replayPrimary ? "button.primary" : "button", { type: "button", class: "replay-open", onclick: () => onReplay(album) }, t("album.replay")) : null,
      links?.png
        ? downloadButton(t("album.download"), {
            url: () => links.png(album, null),
            token: links.token,
            filename: () => `${links.filename(album)}.png`,
          })
        : null,
      links?.share
        ? h(
            "button",
            {
              type: "button",
              class: "share",
              onclick: async (event) => {
                event.target.disabled = true;
                try {
                  shared = await links.share(album);
                } catch (error) {
                  shared = { error: errorText(error.code, error.message) };
                }
                draw();
                element.querySelector(".share-url")?.focus();
              },
            },
            t("album.share"),
          )
        : null,
    );
    fill(
      element,
      heading ? h(`${heading}.album-title`, {}, t("album.title", { number: album.number })) : null,
      h(
        "p.album-meta",
        {},
        [t(`mode.${album.mode}`), dateText(album.ended_at ?? album.started_at), album.outcome ? winnersText(album, finalNameOf(album)) : t("album.in_progress")]
          .filter(Boolean)
          .join(" · "),
      ),
      takeoverLines(album).map((line) => h("p.took-over", {}, line)),
      album.ended_by_host ? h("p.hint", {}, t("album.ended_by_host")) : null,
      tools,
      shared?.url ? shareResult(shared.url) : shared?.error ? h("p.error", { role: "alert" }, shared.error) : null,
      count ? albumChart(album) : null,
      audienceBoard(album),
      count
        ? h(
            "nav.album-nav",
            { "aria-label": t("album.rounds") },
            h("button", { type: "button", class: "album-prev", disabled: index === 0, "aria-label": t("album.previous"), onclick: () => step(-1) }, "←"),
            h("span.album-where", { role: "status" }, t("album.round_of", { round: index + 1, count })),
            h("button", { type: "button", class: "album-next", disabled: index === count - 1, "aria-label": t("album.next"), onclick: () => step(1) }, "→"),
          )
        : h("p.hint", {}, t("album.no_rounds")),
      count ? roundPage(album.rounds[index]) : null,
    );
  }

  draw();
  return {
    element,
    // the album could not be had (the server is gone, or has none)
    fail() {
      album = null;
      fill(element, h("p.hint", {}, t("album.failed")));
    },
    show(next, { keepPlace = true } = {}) {
      if (!keepPlace || next?.number !== album?.number) {
        index = 0;
        shared = null;
      }
      album = next;
      if (album) markRabbits(albumEveryone(album));
      draw();
    },
    get album() {
      return album;
    },
    redraw: draw,
    destroy: removeKeys,
  };
}

// ---------------------------------------------------------------- the room's history

// The room's finished games, newest first (members only: it asks with the seat token); each
// opens its album or its replay. ``refresh()`` asks again (a game has just ended).
export function createHistory(code, token, { onOpen, onReplay }) {
  let games = null;
  let failed = false;
  const element = h("section.history", { "aria-label": t("history.title") });
  function draw() {
    if (!games?.length) {
      fill(element, failed ? h("p.hint", {}, t("history.failed")) : null);
      element.hidden = !failed;
      return;
    }
    element.hidden = false;
    fill(
      element,
      h("h3", {}, t("history.title")),
      h(
        "ol.history-list",
        {},
        games.map((game) => {
          const people = { bySeat: (s) => game.players.find((p) => p.seat === s) };
          const nameOf = (s) => memberName(people.bySeat(s)) ?? `#${s + 1}`;
          const finalName = finalNameOf(game); // "Leo (took over from Hal in round 4)"
          // teams win as teams: "Ann & Bo won", not two winners
          const sidesWon = game.teams && game.winning_teams ? game.winning_teams.map((team) => sideName({ seats: game.teams[team] }, nameOf)) : game.winners.map(nameOf);
          const winners = listText(sidesWon);
          return h(
            "li.history-game",
            { "data-number": game.number },
            h(
              "div.history-text",
              {},
              h("strong", {}, t("history.game", { number: game.number }), " · ", t(`mode.${game.mode}`)),
              h("span.history-when", {}, dateText(game.ended_at ?? game.started_at), " · ", (game.rounds === 1 ? t("history.rounds_one") : t("history.rounds", { count: game.rounds }))),
              h("span.history-players", {}, listText(game.players.map((p) => finalName(p.seat)))),
              winners ? h("span.history-winner", {}, sidesWon.length > 1 ? t("history.winners", { names: winners }) : t("history.winner", { name: winners })) : null,
            ),
            h(
              "div.history-actions",
              {},
              h("button.small", { type: "button", class: "history-open", onclick: () => onOpen(game.number) }, t("history.open")),
              game.rounds ? h("button.small", { type: "button", class: "history-replay", onclick: () => onReplay(game.number) }, t("history.replay")) : null,
            ),
          );
        }),
      ),
    );
  }
  async function refresh() {
    try {
      games = await api(`/api/rooms/${code}/games`, undefined, { token });
      failed = false;
    } catch {
      failed = games === null;
    }
    draw();
  }
  draw();
  return { element, refresh, redraw: draw };
}

// ---------------------------------------------------------------- what you missed

// The rounds a player back at the table missed: from the first a bot played for them to the last
// revealed, compactly (the clue, the storyteller, the cards with owners and votes, the points).
export function missedRounds(album, fromRound) {
  const rounds = album.rounds.filter((round) => round.round >= fromRound);
  if (!rounds.length) return null;
  const game = albumGame(album);
  return h(
    "div.missed-rounds",
    {},
    h("p", {}, h("strong", {}, t("story.missed_rounds"))),
    rounds.map((round) => {
      const { bySeat, nameOf } = albumPeople(album, round.round); // who played each seat then
      const parts = roundParts(round, game, {
        nameOf,
        bySeat,
        size: 20,
        animate: false,
        standIns: album.stand_ins?.[album.rounds.indexOf(round)] ?? [],
        onCard: (slot) => cardViewer(round.table, slot),
        crowd: albumCrowd(album, round.round),
      });
      const tookOver = takeoverLines(album, round.round).map((line) => h("p.took-over", {}, line));
      return h("article.missed-round", { "data-round": round.round }, h("h4", {}, t("table.round", { round: round.round })), tookOver, parts.clue, parts.cards, parts.points);
    }),
  );
}

// ---------------------------------------------------------------- the share-link page

// /album/CODE/SECRET: anyone with the link sees the album and its replay; no seat needed.
export function sharedAlbumScreen(ctx, code, secret) {
  const base = `/api/albums/${code}/${secret}`;
  let failed = null;
  let view = null;
  let replayClose = null;
  const draw = () => {
    if (failed) {
      ctx.render(h("section.card-panel", {}, h("h2", {}, t("album.missing")), h("p", {}, h("a.button.primary", { href: "/", onclick: ctx.link("/") }, t("app.home")))));
      return;
    }
    if (!view) {
      ctx.render(h("p.notice", {}, t("album.loading")));
      return;
    }
    ctx.render(h("div.shared-album", {}, h("p.hint", {}, t("album.shared_intro")), view.element), { wide: true });
  };
  const open = (album) => {
    view = createAlbumView({
      links: {
        png: (_, round) => `${base}/album.png?lang=${encodeURIComponent(language)}${round ? `&round=${round}` : ""}`,
        token: null,
        share: null,
        filename: (found) => `fabula-${code}-${found.number}`,
      },
      replayPrimary: true,
      heading: "h2", // the page's own heading
      onReplay: (found) => (replayClose = replayOverlay(found, ctx, { start: 0, playing: true })),
    });
    view.show(album);
    draw();
  };
  draw();
  describeCards(code).then(() => view?.redraw());
  api(base)
    .then(open)
    .catch((error) => {
      failed = error.code || "no_album";
      draw();
    });
  ctx.relabel = () => {
    view?.redraw();
    draw();
  };
  return () => {
    view?.destroy();
    replayClose?.();
  };
}
