// The board for a TV or projector: read-only, public information only, readable from three
// metres. In the lobby it shows the join QR code; in a game the table, the clue, whose turn it
// is, the reveal and the scoring track around the edge.
import { h } from "../dom.js";
import { listText, t } from "../i18n.js";
import { api, Table } from "../net.js";
import { rabbit } from "../rabbits.js";
import {
  awayLines,
  cardImage,
  describeCards,
  errorText,
  inviteBlock,
  markRabbits,
  memberName,
  revealHeadline,
  roundLine,
  sideName,
  sideRabbit,
  sides,
  tickCountdowns,
  timeLeft,
} from "./parts.js";
import { roomPeople } from "./chart.js";
import { aloudHeading, clueWords, hasClue } from "./clue.js";
import { boardSound } from "./sound.js";
import { createReplay } from "./replay.js";
import { audienceLine, crowdMark, crowdOf } from "./crowd.js";
import { pausedWords, phaseTimer } from "./room/clock.js";
import { maskedCode, streaming } from "./room/streamer.js";

/** How long the TV keeps a round's reveal on screen. */
const REVEAL_MS = 12_000;

export function boardScreen(ctx, code) {
  let room = null;
  let status = "connecting";
  let fatal = null;
  let invite = null;
  let revealUntil = 0;
  let revealSeen = null; // the newest round revealed (null: none yet; on opening, none is held)
  let holding = null;
  let replay = null; // at the game over: the game's replay, round by round
  let replayFor = null; // the game it was asked for
  const table = new Table(code, null, {
    onState: (found) => {
      room = found;
      markRabbits(room.members);
      const last = room.game?.last_round;
      const key = last ? room.games_started * 1000 + last.round : 0;
      if (revealSeen !== null && key > revealSeen) {
        revealUntil = Date.now() + REVEAL_MS;
        clearTimeout(holding);
        holding = setTimeout(draw, REVEAL_MS + 50);
      }
      revealSeen = key;
      followReplay();
      draw();
    },
    onStatus: (found) => {
      status = found;
      draw();
    },
    onFatal: (found) => {
      fatal = found;
      draw();
    },
  });
  table.open();

  // At the end of a game the board replays it (the room's latest album, asked over the socket).
  function followReplay() {
    if (room.status !== "over") {
      if (replay) replay.destroy();
      replay = null;
      replayFor = null;
      return;
    }
    if (replayFor === room.games_started) return;
    const number = room.games_started;
    replayFor = number;
    table.send("album", { game: null }).then((reply) => {
      if (replayFor !== number || reply.type !== "album" || !reply.album?.rounds.length) return;
      replay?.destroy();
      // the final scores first, then the game again round by round, and again
      replay = createReplay(reply.album, { start: reply.album.rounds.length, playing: true, loop: true });
      draw();
    });
  }

  const bySeat = (seat) => room.members.find((m) => m.seat === seat);
  const nameOf = (seat) => memberName(bySeat(seat)) ?? `#${seat + 1}`;

  function track(game) {
    // The 31 spaces and the goal around the edge of an 11 × 7 grid, clockwise from the top-left
    // corner: 0–10 along the top, 11–15 down the right, 16–26 back along the bottom, 27–30 up the
    // left, and past 30 the corner next to the start. The goal is the game's: a target of 30 or
    // less is marked ★ on its space, one over 30 is written in the corner, and a score past 30
    // goes round again from 0, its rabbit saying "+31" (as on the box's board); a game that ends
    // by rounds or the deck alone has no goal.
    const ring = [];
    for (let column = 1; column <= 11; column += 1) ring.push([1, column]);
    for (let row = 2; row <= 6; row += 1) ring.push([row, 11]);
    for (let column = 11; column >= 1; column -= 1) ring.push([7, column]);
    for (let row = 6; row >= 2; row -= 1) ring.push([row, 1]);
    const target = game.options?.target_score ?? null;
    const rows = sides(game);
    const spaces = [];
    for (let space = 0; space <= 30; space += 1) {
      const [row, column] = ring[space];
      const here = rows.filter((side) => side.score % 31 === space);
      const goal = target !== null && target <= 30 && space === target;
      spaces.push(
        h(
          "div.board-space",
          { class: goal ? "goal-space" : "", style: { gridRow: String(row), gridColumn: String(column) } },
          h("span.space-number", {}, goal ? `★ ${space}` : space),
          h(
            "span.space-rabbits",
            {},
            here.map((side) => {
              const drawn = sideRabbit(side, nameOf, bySeat, { size: here.length > 4 ? 20 : 30 });
              const laps = Math.floor(side.score / 31);
              return laps ? h("span.lapped", { title: String(side.score) }, drawn, h("span.lap", {}, `+${31 * laps}`)) : drawn;
            }),
          ),
        ),
      );
    }
    if (target !== null && target > 30) {
      const [row, column] = ring[31];
      spaces.push(
        h("div.board-goal", { "aria-hidden": "true", style: { gridRow: String(row), gridColumn: String(column) } }, `★ ${target}`),
      );
    }
    return spaces;
  }

  // The reveal of a round stays on the TV for a while, whatever the table does meanwhile (a
  // bot storyteller tells within a second): it is the moment everyone looks up at the screen.
  function revealing(game) {
    const last = game.last_round;
    if (!last) return false;
    return Date.now() < revealUntil || (game.phase === "clue" && !hasClue(game.clue, game.aloud, game.sound));
  }

  // What is happening now, said under a reveal that shows the round before.
  function nowLine(game) {
    if (game.phase === "over") return t("board.then_scores");
    return t("board.now", { round: game.round, name: nameOf(game.storyteller) });
  }

  function waitingSides(game) {
    return sides(game)
      .filter((side) => side.seats.some((seat) => game.awaiting.includes(seat)))
      .sort((a, b) => a.seats[0] - b.seats[0]);
  }

  function centre(game) {
    const last = game.last_round;
    const showReveal = revealing(game);
    if (game.phase === "over" && !showReveal) return ranking(game);
    const teller = nameOf(game.storyteller);
    let line;
    if (game.phase === "clue") {
      line = game.mode === "party" ? t("board.teller_thinking_blind", { name: teller }) : t("board.teller_thinking", { name: teller });
    } else {
      // named, a team as one (it plays one card): read from the sofa, not counted
      const names = listText(waitingSides(game).map((side) => sideName(side, nameOf)));
      line = game.phase === "play" ? t("board.playing", { names }) : t("board.voting", { names });
    }
    // the round revealed names who played it (a seat taken over since: who sat there then)
    const past = showReveal ? roomPeople(room, last.round) : null;
    const cards = showReveal ? last.table : game.table.map((entry) => entry.card);
    const clue = showReveal ? last.clue : game.clue;
    const aloud = showReveal ? last.aloud : game.aloud;
    const sound = showReveal ? last.sound : game.sound;
    const clueClass = [showReveal ? "past" : "", [...(clue ?? "")].length > 60 ? "long" : ""].join(" ");
    let clueLine = null;
    if ((aloud || sound) && !showReveal) {
      // said aloud: the TV tells the room to listen (the words typed, if any, under it); a sound:
      // it plays it, once a first tap has allowed the TV to make sound
      clueLine = aloudHeading("p.board-clue", { clue, name: teller, bots: room.members.some((m) => m.bot), extra: { class: clueClass } });
      if (sound) clueLine.append(boardSound(code, sound));
    } else if (hasClue(clue, aloud, sound)) {
      // (a sound at its reveal: a tap plays it again)
      clueLine = h("p.board-clue", { class: clueClass }, clueWords(clue, aloud, sound), sound ? [" ", boardSound(code, sound)] : null);
    }
    return h(
      "div.board-centre",
      {},
      topRow(
        showReveal
          ? h("p.board-round", {}, t("board.reveal_of", { round: last.round, name: past.nameOf(last.storyteller) }), " · ", h("span.board-now", {}, nowLine(game)))
          : h(
              "p.board-round",
              {},
              roundLine(game),
              " · ",
              t("table.storyteller", { name: teller }),
              // the turn's timer, read from the sofa (paused: said large across the top instead)
              ...(room.deadline && !room.paused ? [" · ", phaseTimer(room, timeLeft)] : []),
            ),
      ),
      clueLine,
      showReveal ? h("p.board-headline", {}, revealHeadline(last, game, past.nameOf)) : h("p.board-line", {}, line),
      audienceLine(room, "p.board-audience", showReveal ? last : null), // (a number, never names)
      showReveal ? null : awayLines(game, { bySeat, nameOf }),
      h(
        "ol.board-cards",
        { class: `n${cards.length}` },
        cards.map((card, index) =>
          h(
            "li",
            { class: showReveal && card === last.storyteller_card && game.mode !== "party" ? "teller-card" : "" },
            cardImage(card, { width: 600 }),
            h("span.slot-number", {}, index + 1),
            showReveal ? crowdMark(crowdOf(room, last), card) : null,
            showReveal
              ? h(
                  "div.owner",
                  {},
                  rabbit(past.bySeat(last.owners[index])?.colour, past.nameOf(last.owners[index]), { size: 30 }),
                  last.votes.flatMap((slots, voter) => slots.filter((s) => s === index + 1).map(() => rabbit(past.bySeat(voter)?.colour, past.nameOf(voter), { size: 24 }))),
                  last.red === index + 1 ? h("span.tag-inline.red-tag", {}, t("table.red_token")) : null,
                )
              : null,
          ),
        ),
      ),
      h(
        "ul.board-players",
        {},
        sides(game)
          .sort((a, b) => a.seats[0] - b.seats[0])
          .map((side) => {
            const waiting = game.phase !== "over" && side.seats.some((seat) => game.awaiting.includes(seat));
            return h(
              "li",
              { class: waiting ? "waiting" : "done" },
              sideRabbit(side, nameOf, bySeat, { size: 34 }),
              h("span.board-name", {}, sideName(side, nameOf)),
              h("strong", {}, ` ${side.score}`),
              // the reveal's headline says what the rule gives; each side's own change is here
              showReveal ? h("span.board-gain", {}, ` +${last.points[side.seats[0]]}`) : null,
              waiting && !showReveal ? h("span.board-waiting", { "aria-label": t("board.still_to_play") }, "…") : null,
            );
          }),
      ),
    );
  }

  // The biggest cards that fit the centre, in as many columns as that takes.
  function fitCards() {
    const list = document.querySelector(".board-cards");
    const centre = list?.closest(".board-centre");
    if (!list || !centre || !list.children.length) return;
    const count = list.children.length;
    const gap = 12;
    const others = [...centre.children].filter((child) => child !== list);
    const taken = others.reduce((sum, child) => sum + child.getBoundingClientRect().height + gap, 0);
    const height = centre.clientHeight - taken - gap;
    const width = centre.clientWidth - 16;
    const below = list.querySelector(".owner") ? 44 : 0; // the owner and the tokens under a revealed card
    let best = { size: 0, columns: count };
    for (let columns = 1; columns <= count; columns += 1) {
      const rows = Math.ceil(count / columns);
      const size = Math.min((width - gap * (columns - 1)) / columns, ((height - gap * (rows - 1)) / rows - below) / 1.5, 320);
      if (size > best.size) best = { size, columns };
    }
    list.style.gridTemplateColumns = `repeat(${best.columns}, ${Math.max(60, Math.floor(best.size))}px)`;
  }

  function ranking(game) {
    const rows = sides(game);
    const winners = rows.filter((row) => row.rank === 1);
    const names = listText(winners.map((row) => sideName(row, nameOf)));
    return h(
      "div.board-centre",
      {},
      topRow(null),
      h("p.board-clue", {}, winners.length > 1 ? t("over.shared", { names }) : t("over.winner", { name: names })),
      h(
        "ol.board-ranking",
        {},
        rows.map((row) => h("li", {}, sideRabbit(row, nameOf, bySeat, { size: 40 }), sideName(row, nameOf), h("strong", {}, ` ${row.score}`))),
      ),
    );
  }

  // The first row of the centre: what round it is, and the TV's language menu at its end (in the
  // centre, not over the track: it covers no space, card or rabbit).
  function topRow(line) {
    return h("div.board-top", {}, line ?? h("p.board-round"), ctx.languageMenu("board-language"));
  }

  // Where there is no track (the lobby, the replay, a notice): the menu in the top corner.
  function cornerMenu() {
    return ctx.languageMenu("board-language corner");
  }

  function draw() {
    if (fatal) {
      ctx.render([h("p.board-notice", {}, errorText(fatal)), cornerMenu()], { board: true });
      return;
    }
    if (!room) {
      ctx.render([h("p.board-notice", {}, t("app.connecting")), cornerMenu()], { board: true });
      return;
    }
    if (room.status === "lobby") {
      ctx.render(
        h(
          "section.board-lobby",
          {},
          // streamer mode: neither the code nor the QR code on the TV (the host gives them out)
          streaming(room) ? h("h1", {}, t("board.join", { code: maskedCode(code) })) : h("h1", {}, t("board.join", { code })),
          streaming(room) ? h("p.board-streamer", {}, t("board.streamer")) : inviteBlock(code, invite, { board: true }),
          h("ul.board-players", {}, room.members.map((m) => h("li", {}, rabbit(m.colour, memberName(m), { size: 40, lit: m.connected }), memberName(m)))),
          audienceLine(room, "p.board-audience"),
          h("p.board-status", { class: status }, t(`connection.${status}`)),
          cornerMenu(),
        ),
        { board: true },
      );
      return;
    }
    const game = room.game;
    if (replay && game.phase === "over" && !revealing(game)) {
      ctx.render(h("section.board-replay", {}, replay.element, h("p.board-status", { class: status }, t(`connection.${status}`)), cornerMenu()), { board: true });
      return;
    }
    // paused: said large across the top of the centre, the time left standing still
    const paused = room.paused ? h("p.board-paused", { role: "status" }, pausedWords(room)) : null;
    ctx.render(h("section.board", { class: room.paused ? "paused" : "" }, track(game), centre(game), paused, h("p.board-status", { class: status }, t(`connection.${status}`))), { board: true });
    fitCards();
  }
  draw();
  describeCards(code).then(draw);
  api(`/api/rooms/${code}`)
    .then((summary) => {
      invite = summary.invite;
      draw();
    })
    .catch(() => {});
  ctx.relabel = () => {
    if (room) markRabbits(room.members);
    replay?.redraw();
    draw();
  };
  const tick = setInterval(tickCountdowns, 1000);
  window.addEventListener("resize", fitCards);
  return () => {
    table.close();
    replay?.destroy();
    clearInterval(tick);
    clearTimeout(holding);
    window.removeEventListener("resize", fitCards);
  };
}
