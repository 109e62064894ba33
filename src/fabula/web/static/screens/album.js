// Every game leaves its story: the album (each round as it was revealed, one at a time), the
// score chart, the picture to download and the link to share, the room's history of games, the
// replay for a TV or anyone with a share link, and the rounds a player missed while away.
// An album is the server's JSON (`GET /api/rooms/CODE/games/N`, the `album` WebSocket message,
// `GET /api/albums/CODE/SECRET`); every round is drawn as the reveal draws it (reveal.js).
import { h } from "../dom.js";
import { language, listText, t } from "../i18n.js";
import { api } from "../net.js";
import { RABBITS } from "../rabbits.js";
import { cardViewer, describeCards, errorText, markRabbits, memberName, sideName, sideRabbit } from "./parts.js";
import { roundParts } from "./reveal.js";

const SVG = "http://www.w3.org/2000/svg";
/** How long the replay shows a round before the next (ms), and the final scores. */
export const REPLAY_MS = 6000;
const FINAL_MS = 12000;

// ---------------------------------------------------------------- reading an album

// What the round drawing needs of a game, from an album: its mode, options, teams and tokens.
export function albumGame(album) {
  const most = Math.max(1, ...album.rounds.flatMap((round) => round.votes.map((slots) => slots.length)));
  return { mode: album.mode, options: album.options || {}, teams: album.teams, tokens: most };
}

// Names and rabbits of an album's seats (a bot is named by its rabbit, as in the room).
export function albumPeople(album) {
  const bySeat = (seat) => album.players.find((p) => p.seat === seat);
  const nameOf = (seat) => memberName(bySeat(seat)) ?? `#${seat + 1}`;
  return { bySeat, nameOf };
}

// The sides of a game (seats, or teams) in seat order.
function albumSides(album) {
  if (album.teams) return album.teams.map((seats, team) => ({ team, seats }));
  return album.players.map((p) => ({ team: null, seats: [p.seat] }));
}

// Each side's score after every round, from 0 before the first (the server's `score_lines`).
export function scoreLines(album) {
  return albumSides(album).map((side) => [0, ...album.rounds.map((round) => round.scores[side.seats[0]])]);
}

function winnersText(album, nameOf) {
  const outcome = album.outcome;
  if (!outcome) return "";
  let names;
  if (album.teams && outcome.winning_teams?.length) {
    names = listText(outcome.winning_teams.map((team) => sideName({ seats: album.teams[team] }, nameOf)));
  } else {
    names = listText(outcome.winners.map(nameOf));
  }
  const shared = album.teams ? (outcome.winning_teams?.length ?? 1) > 1 : outcome.winners.length > 1;
  if (shared) return t("over.shared", { names });
  return album.teams ? t("over.team_wins", { name: names }) : t("over.winner", { name: names });
}

export function dateText(seconds) {
  if (!seconds) return "";
  try {
    return new Intl.DateTimeFormat(language, { dateStyle: "medium", timeStyle: "short" }).format(new Date(seconds * 1000));
  } catch {
    return new Date(seconds * 1000).toLocaleString();
  }
}

// ---------------------------------------------------------------- the score chart

function svg(tag, attrs = {}, text = null) {
  const element = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) element.setAttribute(key, String(value));
  if (text !== null) element.textContent = text; // text, never markup
  return element;
}

// How wide ``text`` is set in the chart's labels (bold, ``font`` px, the page's font).
let measurer = null;
function labelWidthOf(text, font) {
  measurer ??= document.createElement("canvas").getContext("2d");
  if (!measurer) return [...text].length * font * 0.62; // no canvas: a Latin letter's width
  measurer.font = `700 ${font}px ${getComputedStyle(document.body).fontFamily || "sans-serif"}`;
  return measurer.measureText(text).width;
}

// ``name`` cut (with …) until ``name + after`` fits ``room`` px.
function fitName(name, after, room, font) {
  const chars = [...name];
  if (labelWidthOf(name + after, font) <= room) return name;
  for (let keep = chars.length - 1; keep > 1; keep -= 1) {
    const cut = `${chars.slice(0, keep).join("")}…`;
    if (labelWidthOf(cut + after, font) <= room) return cut;
  }
  return `${chars[0]}…`;
}

// Each side's score after every round as lines in the rabbits' colours, the names and scores at
// the ends (colour is never the only cue), the rounds along the bottom. ``upTo``: draw the
// rounds up to this one only (the replay); ``width`` and ``font`` in CSS pixels.
export function scoreChart(album, { upTo = null, width = 640, font = 14, dark = false } = {}) {
  const { bySeat, nameOf } = albumPeople(album);
  const sides = albumSides(album);
  const lines = scoreLines(album);
  const rounds = album.rounds.length;
  const shown = upTo === null ? rounds : Math.min(upTo, rounds);
  const top = Math.max(5, ...lines.flat());
  const stepY = top > 40 ? 10 : 5;
  const maxY = Math.ceil(top / stepY) * stepY;
  // room at the right for the names and scores: as wide as the widest label needs, but no more
  // than 40 % of the chart (a longer name is cut to fit, never clipped at the chart's edge)
  const most = Math.max(font * 4, width * 0.4);
  const labelTexts = sides.map((side, index) => {
    const last = lines[index][rounds]; // (the final score: the room stays as the replay goes on)
    const names = side.seats.map((seat) => nameOf(seat));
    return names.length > 1 ? [`${names[0]} &`, `${names[1]} ${last}`] : [`${names[0]} ${last}`];
  });
  const widest = Math.max(0, ...labelTexts.flat().map((text) => labelWidthOf(text, font)));
  const labelWidth = Math.min(most, Math.max(font * 5, widest + font * 0.6));
  const height = Math.round(Math.max(font * 14, Math.min(width * 0.55, font * 24)));
  const left = font * 2.2;
  const right = width - labelWidth;
  const topY = font;
  const bottom = height - font * 2.4;
  const x = (r) => left + ((right - left - font) * r) / Math.max(1, rounds);
  const y = (score) => bottom - ((bottom - topY) * score) / maxY;
  const chart = svg("svg", {
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    class: `score-chart${dark ? " dark" : ""}`,
    role: "img",
    "aria-label": t("album.chart"),
    "font-size": font,
  });
  chart.append(svg("title", {}, t("album.chart")));
  // the grid: a line every few points, the round numbers along the bottom
  for (let score = 0; score <= maxY; score += stepY) {
    chart.append(
      svg("line", { x1: left, x2: right - font, y1: y(score), y2: y(score), class: "chart-grid" }),
      svg("text", { x: left - font * 0.4, y: y(score) + font * 0.35, "text-anchor": "end", class: "chart-axis" }, score),
    );
  }
  const every = rounds > 16 ? Math.ceil(rounds / 12) : 1;
  for (let r = 0; r <= rounds; r += 1) {
    if (r % every && r !== rounds) continue;
    chart.append(svg("text", { x: x(r), y: bottom + font * 1.2, "text-anchor": "middle", class: "chart-axis" }, r));
  }
  chart.append(svg("text", { x: (left + right) / 2, y: height - font * 0.2, "text-anchor": "middle", class: "chart-axis" }, t("album.chart_rounds")));
  if (upTo !== null && shown > 0) {
    chart.append(svg("line", { x1: x(shown), x2: x(shown), y1: topY, y2: bottom, class: "chart-now" }));
  }
  // the lines, each over a darker edge (a white or yellow rabbit shows on a light page too)
  const ends = [];
  // Sides with the very same scores so far would hide one another: each is moved a few pixels
  // off the shared line, so every colour shows.
  const series = lines.map((line) => line.slice(0, shown + 1).join(","));
  const nudge = series.map((key, index) => {
    const same = series.flatMap((other, at) => (other === key ? [at] : []));
    return (same.indexOf(index) - (same.length - 1) / 2) * font * 0.3;
  });
  sides.forEach((side, index) => {
    const colour = bySeat(side.seats[0])?.colour;
    const fill = RABBITS[colour] || "#999";
    const points = lines[index].slice(0, shown + 1).map((score, r) => `${x(r).toFixed(1)},${(y(score) + nudge[index]).toFixed(1)}`);
    const group = svg("g", { class: "chart-line" });
    group.append(
      svg("polyline", { points: points.join(" "), fill: "none", stroke: dark ? "#000" : "#2b2420", "stroke-width": font * 0.42, "stroke-linejoin": "round", "stroke-linecap": "round", opacity: 0.55 }),
      svg("polyline", { points: points.join(" "), fill: "none", stroke: fill, "stroke-width": font * 0.26, "stroke-linejoin": "round", "stroke-linecap": "round" }),
    );
    const last = lines[index][shown];
    group.append(svg("circle", { cx: x(shown), cy: y(last) + nudge[index], r: font * 0.38, fill, stroke: dark ? "#000" : "#2b2420", "stroke-width": 1.5 }));
    chart.append(group);
    // a team's two names on two lines: "Mara &", "Ben 12"; each cut to the room at the right
    const room = width - (x(rounds) + font * 0.8) - font * 0.2;
    const names = side.seats.map((seat) => nameOf(seat));
    const labelLines =
      names.length > 1
        ? [`${fitName(names[0], " &", room, font)} &`, `${fitName(names[1], ` ${last}`, room, font)} ${last}`]
        : [`${fitName(names[0], ` ${last}`, room, font)} ${last}`];
    ends.push({ y: y(last), lines: labelLines, fill });
  });
  // the names at the ends, pushed apart where lines end together
  ends.sort((a, b) => a.y - b.y);
  const gap = font * 1.15;
  for (let i = 1; i < ends.length; i += 1) {
    ends[i].label = Math.max(ends[i].y, (ends[i - 1].label ?? ends[i - 1].y) + gap * ends[i - 1].lines.length);
  }
  if (ends.length) ends[0].label = ends[0].y;
  const overflow = (ends.at(-1)?.label ?? 0) + gap * ((ends.at(-1)?.lines.length ?? 1) - 1) - (height - font * 0.9);
  if (overflow > 0) for (const end of ends) end.label -= overflow;
  // (at the right whatever round the lines have reached: the labels never cover the lines or
  // the round numbers; a thin line leads from each line's end to its name)
  const labelX = x(rounds) + font * 0.8;
  for (const end of ends) {
    if (Math.abs(end.label - end.y) > 1 || shown < rounds) {
      chart.append(svg("line", { x1: x(shown), y1: end.y, x2: labelX - font * 0.2, y2: end.label, class: "chart-lead" }));
    }
    const label = svg("text", { x: labelX, y: end.label + font * 0.35, class: "chart-label" });
    end.lines.forEach((line, row) => label.append(svg("tspan", { x: labelX, dy: row ? gap : 0 }, line)));
    chart.append(label);
  }
  return chart;
}

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

// ---------------------------------------------------------------- stepping: keys and swipes

// ``element`` shows ``children`` (null, false and "" are nothing; Node.replaceChildren would say "null").
function fill(element, ...children) {
  element.replaceChildren(...children.flat().filter((child) => child !== null && child !== undefined && child !== false && child !== ""));
}

function typing(event) {
  return event.target?.closest?.("input, textarea, select, [contenteditable]");
}

// ←/→ on the page while ``element`` is shown (and no other dialog is over it), and a swipe on
// ``area``; ``extra(event)``: other keys. The listener's remover.
function stepKeys(element, step, extra = null) {
  const keys = (event) => {
    if (!element.isConnected || typing(event) || event.altKey || event.ctrlKey || event.metaKey) return;
    const dialog = document.querySelector(".viewer, #layer .overlay");
    if (dialog && !dialog.contains(element)) return;
    if (event.key === "ArrowRight") step(1);
    else if (event.key === "ArrowLeft") step(-1);
    else if (extra?.(event) !== true) return;
    event.preventDefault();
  };
  document.addEventListener("keydown", keys);
  return () => document.removeEventListener("keydown", keys);
}

function swipeable(area, step) {
  let start = null;
  area.addEventListener("pointerdown", (event) => {
    if (event.pointerType === "mouse") return;
    start = { x: event.clientX, y: event.clientY };
  });
  area.addEventListener("pointerup", (event) => {
    if (!start) return;
    const dx = event.clientX - start.x;
    const dy = event.clientY - start.y;
    start = null;
    if (Math.abs(dx) > 50 && Math.abs(dx) > Math.abs(dy) * 1.5) step(dx < 0 ? 1 : -1);
  });
  area.addEventListener("pointercancel", () => (start = null));
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

function chartWidth(dark) {
  if (dark) return Math.max(480, Math.min(900, Math.round(window.innerWidth * 0.42)));
  return Math.max(300, Math.min(760, window.innerWidth - 40));
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
    const { bySeat, nameOf } = albumPeople(album);
    const game = albumGame(album);
    const standIns = album.stand_ins?.[index] ?? [];
    const parts = roundParts(round, game, {
      nameOf,
      bySeat,
      standIns,
      animate: false,
      onCard: (slot) => cardViewer(round.table, slot),
    });
    const area = h(
      "article.album-round",
      { "data-round": round.round },
      h("h3.album-teller", {}, sideRabbit({ seats: [round.storyteller] }, nameOf, bySeat, { size: 30 }), " ", t("table.round", { round: round.round }), " · ", t("table.storyteller", { name: nameOf(round.storyteller) })),
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
    const { nameOf } = albumPeople(album);
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
        [t(`mode.${album.mode}`), dateText(album.ended_at ?? album.started_at), album.outcome ? winnersText(album, nameOf) : t("album.in_progress")]
          .filter(Boolean)
          .join(" · "),
      ),
      album.ended_by_host ? h("p.hint", {}, t("album.ended_by_host")) : null,
      tools,
      shared?.url ? shareResult(shared.url) : shared?.error ? h("p.error", { role: "alert" }, shared.error) : null,
      count ? albumChart(album) : null,
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
      if (album) markRabbits(album.players);
      draw();
    },
    get album() {
      return album;
    },
    redraw: draw,
    destroy: removeKeys,
  };
}

// ---------------------------------------------------------------- the replay

// The game round by round on a board (a TV, or anyone with a share link): the cards with their
// owners and tokens, the clue, the score chart growing; previous / play-pause / next, ←/→ and
// space. ``start``: the round shown first (its index; the rounds' count: the final scores);
// ``loop``: a TV goes on from the final scores to the first round again.
export function createReplay(album, { onClose = null, start = 0, playing = true, loop = false } = {}) {
  const count = album.rounds.length;
  let index = Math.min(start, count);
  let timer = 0;
  let running = playing;
  const element = h("section.replay", { "aria-label": t("album.replay_title", { number: album.number }) });
  const { bySeat, nameOf } = albumPeople(album);
  const game = albumGame(album);
  markRabbits(album.players);

  const schedule = () => {
    clearTimeout(timer);
    if (!running || !element) return;
    if (index >= count && !loop) {
      running = false;
      return;
    }
    timer = setTimeout(() => {
      if (!element.isConnected && timer) return stop();
      index = index >= count ? 0 : index + 1;
      draw();
      schedule();
    }, index >= count ? FINAL_MS : REPLAY_MS);
  };
  const stop = () => {
    running = false;
    clearTimeout(timer);
  };
  const step = (by) => {
    const next = Math.max(0, Math.min(count, index + by));
    if (next === index) return;
    index = next;
    draw();
    schedule();
  };
  const toggle = () => {
    running = !running;
    if (running && index >= count) index = 0;
    draw();
    schedule();
  };
  const removeKeys = stepKeys(element, step, (event) => {
    if (event.key === " " && !event.target?.closest?.("button")) {
      toggle();
      return true;
    }
    if (event.key === "Escape" && onClose) {
      onClose();
      return true;
    }
    return false;
  });

  function standings(upTo, final) {
    const rows = albumSides(album).map((side) => ({
      side,
      score: upTo ? album.rounds[upTo - 1].scores[side.seats[0]] : 0,
      gain: upTo && !final ? album.rounds[upTo - 1].points[side.seats[0]] : null,
    }));
    rows.sort((a, b) => b.score - a.score || a.side.seats[0] - b.side.seats[0]);
    return h(
      "ol.replay-scores",
      { class: album.teams ? "teams" : "" },
      rows.map((row) =>
        h(
          "li",
          {},
          sideRabbit(row.side, nameOf, bySeat, { size: 32 }),
          h("span.name", {}, sideName(row.side, nameOf)),
          h("strong.score", {}, row.score),
          row.gain !== null ? h("span.gain", {}, `+${row.gain}`) : null,
        ),
      ),
    );
  }

  function draw() {
    const final = index >= count;
    const round = final ? null : album.rounds[index];
    const parts = round ? roundParts(round, game, { nameOf, bySeat, size: 30, standIns: album.stand_ins?.[index] ?? [] }) : null;
    const controls = h(
      "div.replay-controls",
      {},
      h("button", { type: "button", class: "replay-prev", disabled: index === 0, "aria-label": t("album.previous"), onclick: () => step(-1) }, "◀"),
      h("button", { type: "button", class: "replay-play", "aria-pressed": running ? "true" : "false", onclick: toggle }, running ? t("album.pause") : t("album.play")),
      h("button", { type: "button", class: "replay-next", disabled: final, "aria-label": t("album.next"), onclick: () => step(1) }, "▶"),
      onClose ? h("button", { type: "button", class: "replay-close", onclick: onClose }, t("album.close")) : null,
    );
    const head = final
      ? h("div.replay-head", {}, h("p.replay-where", {}, t("album.final")), h("p.replay-clue", {}, album.outcome ? winnersText(album, nameOf) : t("album.in_progress")))
      : h(
          "div.replay-head",
          {},
          h("p.replay-where", {}, sideRabbit({ seats: [round.storyteller] }, nameOf, bySeat, { size: 34 }), " ", t("album.round_of", { round: index + 1, count }), " · ", t("table.storyteller", { name: nameOf(round.storyteller) })),
          h("p.replay-clue", { class: [...round.clue].length > 60 ? "long" : "" }, t("table.quoted_clue", { clue: round.clue })),
          parts.headline,
        );
    const upTo = final ? count : index + 1;
    const narrow = window.innerWidth < 700;
    const chart = narrow
      ? scoreChart(album, { upTo, width: chartWidth(false), font: 14, dark: true })
      : scoreChart(album, { upTo, width: final ? chartWidth(true) + 200 : chartWidth(true) * 0.9, font: 24, dark: true });
    fill(
      element,
      head,
      h(
        "div.replay-body",
        { class: final ? "final" : "" },
        final ? null : h("div.replay-cards", {}, parts.cards),
        h("div.replay-side", {}, chart, standings(upTo, final)),
      ),
      controls,
    );
    if (element.isConnected) fitReplay(element);
    else requestAnimationFrame(() => fitReplay(element));
  }

  swipeable(element, step);
  draw();
  schedule();
  return {
    element,
    destroy() {
      stop();
      removeKeys();
    },
    redraw: draw,
    get index() {
      return index;
    },
  };
}

// The biggest cards that fit the replay's card area, in as many columns as that takes.
function fitReplay(element) {
  const area = element.querySelector(".replay-cards");
  if (window.innerWidth < 700) return; // a phone: two columns, scrolled
  const list = area?.querySelector(".reveal-cards");
  if (!area || !list || !list.children.length) return;
  const count = list.children.length;
  const gap = 12;
  const width = area.clientWidth;
  const height = area.clientHeight;
  if (!width || !height) return;
  // what is under each card (the owner, the storyteller's tag, the tokens): guessed first, then
  // measured, and the cards made smaller again until every row fits (seven cards in two rows, a
  // long name on two lines). Measured without transforms (offsetHeight): the cards are turning over.
  const items = [...list.children];
  let below = 80;
  for (let attempt = 0; attempt < 4; attempt += 1) {
    let best = { size: 0, columns: count };
    for (let columns = 1; columns <= count; columns += 1) {
      const rows = Math.ceil(count / columns);
      const size = Math.min((width - gap * (columns - 1)) / columns, ((height - gap * (rows - 1)) / rows - below) / 1.5, 340);
      if (size > best.size) best = { size, columns };
    }
    list.style.gridTemplateColumns = `repeat(${best.columns}, ${Math.max(70, Math.floor(best.size))}px)`;
    let used = 0;
    for (let first = 0; first < count; first += best.columns) {
      used += (first ? gap : 0) + Math.max(...items.slice(first, first + best.columns).map((item) => item.offsetHeight));
    }
    if (used <= height + 1) return;
    const under = Math.max(...items.map((item) => item.offsetHeight - (item.querySelector(".card-img")?.offsetHeight ?? 0)));
    if (!(under > below)) return;
    below = under + 4;
  }
}

// The replay over the whole page (a phone or a computer), closed by its button or Escape.
export function replayOverlay(album, ctx, options = {}) {
  let replay = null;
  const close = () => {
    replay?.destroy();
    ctx.overlay(null);
  };
  replay = createReplay(album, { ...options, onClose: close });
  const dialog = h("div.overlay.replay-overlay", { role: "dialog", "aria-modal": "true", "aria-label": t("album.replay_title", { number: album.number }) }, replay.element);
  ctx.overlay(dialog);
  requestAnimationFrame(() => {
    fitReplay(replay.element);
    replay.element.querySelector(".replay-play")?.focus();
  });
  return close;
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
              h("span.history-players", {}, listText(game.players.map((p) => nameOf(p.seat)))),
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
  const { bySeat, nameOf } = albumPeople(album);
  const game = albumGame(album);
  return h(
    "div.missed-rounds",
    {},
    h("p", {}, h("strong", {}, t("story.missed_rounds"))),
    rounds.map((round) => {
      const parts = roundParts(round, game, {
        nameOf,
        bySeat,
        size: 20,
        animate: false,
        standIns: album.stand_ins?.[album.rounds.indexOf(round)] ?? [],
        onCard: (slot) => cardViewer(round.table, slot),
      });
      return h("article.missed-round", { "data-round": round.round }, h("h4", {}, t("table.round", { round: round.round })), parts.clue, parts.cards, parts.points);
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
