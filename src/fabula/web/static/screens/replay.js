// The replay of a game: its rounds one after the other (the TV at the game over, anyone with a
// share link), then the final scores, and again.
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { albumEveryone, albumGame, albumPeople, albumSides, chartWidth, finalNameOf, scoreChart, takeoverLines, winnersText } from "./chart.js";
import { clueWords } from "./clue.js";
import { soundPlayer } from "./sound.js";
import { markRabbits, sideName, sideRabbit } from "./parts.js";
import { roundParts } from "./reveal.js";
import { albumCrowd, audienceBoard, crowdFound } from "./crowd.js";
import { fill, stepKeys, swipeable } from "./stepping.js";

/** How long the replay shows a round before the next (ms), and the final scores. */
export const REPLAY_MS = 6000;
const FINAL_MS = 12000;
// below this width the replay is a phone's: two columns of cards, scrolled
const PHONE_WIDTH = 700;

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
  const game = albumGame(album);
  const finalName = finalNameOf(album); // "Leo (took over from Hal in round 4)"
  markRabbits(albumEveryone(album));

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
      element.closest(".overlay")?.scrollTo({ top: 0 }); // (the new round from its top)
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
    element.closest(".overlay")?.scrollTo({ top: 0 });
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

  // each side as it stood after round ``upTo``, named by who played it then (final: its last
  // player, and whom they took over from)
  function standings(upTo, final) {
    const { bySeat, nameOf } = albumPeople(album, final ? null : upTo);
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
          h("span.name", { title: sideName(row.side, final ? finalName : nameOf) }, sideName(row.side, final ? finalName : nameOf)),
          h("strong.score", {}, row.score),
          row.gain !== null ? h("span.gain", {}, `+${row.gain}`) : null,
        ),
      ),
    );
  }

  function draw() {
    const final = index >= count;
    const round = final ? null : album.rounds[index];
    const { bySeat, nameOf } = albumPeople(album, round?.round ?? null);
    // (the crowd's markers on the cards, as the TV showed them at the reveal)
    const crowd = round ? albumCrowd(album, round.round) : null;
    const parts = round ? roundParts(round, game, { nameOf, bySeat, size: 30, standIns: album.stand_ins?.[index] ?? [], crowd }) : null;
    const controls = h(
      "div.replay-controls",
      {},
      h("button", { type: "button", class: "replay-prev", disabled: index === 0, "aria-label": t("album.previous"), onclick: () => step(-1) }, "◀"),
      h("button", { type: "button", class: "replay-play", "aria-pressed": running ? "true" : "false", onclick: toggle }, running ? t("album.pause") : t("album.play")),
      h("button", { type: "button", class: "replay-next", disabled: final, "aria-label": t("album.next"), onclick: () => step(1) }, "▶"),
      onClose ? h("button", { type: "button", class: "replay-close", onclick: onClose }, t("album.close")) : null,
    );
    const head = final
      ? h(
          "div.replay-head",
          {},
          h("p.replay-where", {}, t("album.final")),
          h("p.replay-clue", {}, album.outcome ? winnersText(album, finalName) : t("album.in_progress")),
          takeoverLines(album).map((line) => h("p.took-over", {}, line)),
        )
      : h(
          "div.replay-head",
          {},
          h("p.replay-where", {}, sideRabbit({ seats: [round.storyteller] }, nameOf, bySeat, { size: 34 }), " ", t("album.round_of", { round: index + 1, count }), " · ", t("table.storyteller", { name: nameOf(round.storyteller) })),
          h("p.replay-clue", { class: [...round.clue].length > 60 ? "long" : "" }, clueWords(round.clue, round.aloud, round.sound), round.sound ? [" ", soundPlayer(round.sound)] : null),
          takeoverLines(album, round.round).map((line) => h("p.took-over", {}, line)),
          parts.headline,
          crowd ? h("p.crowd-line", {}, crowdFound(crowd)) : null,
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
        h("div.replay-side", {}, chart, standings(upTo, final), final ? audienceBoard(album) : null),
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
  if (window.innerWidth < PHONE_WIDTH) return; // a phone: two columns, scrolled
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
  // over a computer's page (not a TV, which keeps 24 px) the words under a card follow its size
  const scaled = Boolean(element.closest(".replay-overlay"));
  let below = 80;
  for (let attempt = 0; attempt < 4; attempt += 1) {
    let best = { size: 0, columns: count };
    for (let columns = 1; columns <= count; columns += 1) {
      const rows = Math.ceil(count / columns);
      const size = Math.min((width - gap * (columns - 1)) / columns, ((height - gap * (rows - 1)) / rows - below) / 1.5, 340);
      if (size > best.size) best = { size, columns };
    }
    const size = Math.max(70, Math.floor(best.size));
    if (scaled) element.style.setProperty("--card-text", `${Math.max(16, Math.min(24, Math.round(size / 6)))}px`);
    list.style.gridTemplateColumns = `repeat(${best.columns}, ${size}px)`;
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
  // A phone shows a round in two columns, scrolled: it opens paused, the reader going on with
  // "next" (playing, a round would turn while its card and scores are still below the fold).
  const phone = window.innerWidth < PHONE_WIDTH;
  replay = createReplay(album, { ...options, playing: Boolean(options.playing) && !phone, onClose: close });
  const dialog = h("div.overlay.replay-overlay", { role: "dialog", "aria-modal": "true", "aria-label": t("album.replay_title", { number: album.number }) }, replay.element);
  ctx.overlay(dialog);
  requestAnimationFrame(() => {
    fitReplay(replay.element);
    replay.element.querySelector(".replay-play")?.focus();
  });
  return close;
}
