// The board for a TV or projector: read-only, public information only, readable from three
// metres. In the lobby it shows the join QR code; in a game the table, the clue, whose turn it
// is, the reveal and the scoring track around the edge.
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { rabbit } from "../rabbits.js";
import { Table } from "../net.js";
import { cardImage, describeCards, errorText, memberName } from "./parts.js";

export function boardScreen(ctx, code) {
  let room = null;
  let status = "connecting";
  let fatal = null;
  const table = new Table(code, null, {
    onState: (found) => {
      room = found;
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

  const bySeat = (seat) => room.members.find((m) => m.seat === seat);
  const nameOf = (seat) => memberName(bySeat(seat)) ?? `#${seat + 1}`;

  function track(game) {
    // 31 spaces around the edge, clockwise from the top-left corner: 0–10 along the top,
    // 11–15 down the right, 16–25 back along the bottom, 26–30 up the left.
    const spaces = [];
    for (let space = 0; space <= 30; space += 1) {
      let row;
      let column;
      if (space <= 10) [row, column] = [1, space + 1];
      else if (space <= 15) [row, column] = [space - 9, 11];
      else if (space <= 25) [row, column] = [7, 11 - (space - 15)];
      else [row, column] = [7 - (space - 25), 1];
      const here = game.scores.map((score, seat) => ({ score, seat })).filter(({ score }) => Math.min(score, 30) === space);
      spaces.push(
        h(
          "div.board-space",
          { style: { gridRow: String(row), gridColumn: String(column) } },
          h("span.space-number", {}, space),
          h("span.space-rabbits", {}, here.map(({ seat }) => rabbit(bySeat(seat)?.colour, nameOf(seat), { size: 30 }))),
        ),
      );
    }
    // the ring has 32 cells for 31 spaces: the last corner is the goal
    spaces.push(h("div.board-goal", { "aria-hidden": "true" }, "★"));
    return spaces;
  }

  function centre(game) {
    const last = game.last_round;
    const showReveal = last && game.phase === "clue" && !game.clue;
    const teller = nameOf(game.storyteller);
    let line;
    if (game.phase === "clue") line = t("board.teller_thinking", { name: teller });
    else if (game.phase === "play") line = t("board.playing", { count: game.awaiting.length });
    else if (game.phase === "vote") line = t("board.voting", { count: game.awaiting.length });
    else line = t("board.over");
    const cards = showReveal ? last.table : game.table.map((entry) => entry.card);
    if (game.phase === "over") return ranking(game);
    const shownRound = showReveal ? last.round : game.round;
    const shownTeller = showReveal ? nameOf(last.storyteller) : teller;
    return h(
      "div.board-centre",
      {},
      h("p.board-round", {}, t("table.round", { round: shownRound }), " · ", t("table.storyteller", { name: shownTeller })),
      game.clue
        ? h("p.board-clue", {}, t("table.quoted_clue", { clue: game.clue }))
        : showReveal
          ? h("p.board-clue.past", {}, t("table.quoted_clue", { clue: last.clue }))
          : null,
      h("p.board-line", {}, showReveal ? t("board.last_round", { name: nameOf(last.storyteller) }) : line),
      h(
        "ol.board-cards",
        { class: `n${cards.length}` },
        cards.map((card, index) =>
          h(
            "li",
            { class: showReveal && card === last.storyteller_card ? "teller-card" : "" },
            cardImage(card, { width: 600 }),
            h("span.slot-number", {}, index + 1),
            showReveal
              ? h(
                  "div.owner",
                  {},
                  rabbit(bySeat(last.owners[index])?.colour, nameOf(last.owners[index]), { size: 30 }),
                  last.votes.flatMap((slots, voter) => slots.filter((s) => s === index + 1).map(() => rabbit(bySeat(voter)?.colour, nameOf(voter), { size: 24 }))),
                )
              : null,
          ),
        ),
      ),
      h(
        "ul.board-players",
        {},
        room.members
          .filter((m) => m.seat !== null)
          .sort((a, b) => a.seat - b.seat)
          .map((m) => h("li", { class: game.awaiting.includes(m.seat) ? "waiting" : "done" }, rabbit(m.colour, memberName(m), { size: 34, lit: !game.awaiting.includes(m.seat) }), memberName(m), h("strong", {}, ` ${game.scores[m.seat]}`))),
      ),
    );
  }

  function ranking(game) {
    const winners = game.outcome.winners.map(nameOf).join(t("app.list_separator"));
    const order = game.scores.map((score, seat) => ({ score, seat })).sort((a, b) => b.score - a.score);
    return h(
      "div.board-centre",
      {},
      h("p.board-clue", {}, game.outcome.winners.length > 1 ? t("over.shared", { names: winners }) : t("over.winner", { name: winners })),
      h(
        "ol.board-ranking",
        {},
        order.map(({ score, seat }) => h("li", {}, rabbit(bySeat(seat)?.colour, nameOf(seat), { size: 40 }), nameOf(seat), h("strong", {}, ` ${score}`))),
      ),
    );
  }

  function draw() {
    if (fatal) {
      ctx.render(h("p.board-notice", {}, errorText(fatal)), { board: true });
      return;
    }
    if (!room) {
      ctx.render(h("p.board-notice", {}, t("app.connecting")), { board: true });
      return;
    }
    if (room.status === "lobby") {
      const url = `${location.origin}/join/${code}`;
      ctx.render(
        h(
          "section.board-lobby",
          {},
          h("h1", {}, t("board.join", { code })),
          h("img.board-qr", { src: `/api/rooms/${code}/qr.svg`, alt: t("lobby.qr_alt", { code }) }),
          h("p.board-url", {}, url),
          h("ul.board-players", {}, room.members.map((m) => h("li", {}, rabbit(m.colour, memberName(m), { size: 40, lit: m.connected }), memberName(m)))),
          h("p.board-status", { class: status }, t(`connection.${status}`)),
        ),
        { board: true },
      );
      return;
    }
    const game = room.game;
    ctx.render(h("section.board", {}, track(game), centre(game), h("p.board-status", { class: status }, t(`connection.${status}`))), { board: true });
  }
  draw();
  describeCards(code).then(draw);
  return () => table.close();
}
