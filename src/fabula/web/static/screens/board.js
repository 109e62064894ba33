// The board for a TV or projector: read-only, public information only, readable from three
// metres. In the lobby it shows the join QR code; in a game the table, the clue, whose turn it
// is, the reveal and the scoring track around the edge.
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { api, Table } from "../net.js";
import { rabbit } from "../rabbits.js";
import { cardImage, describeCards, errorText, inviteBlock, markRabbits, memberName, revealHeadline, sideName, sideRabbit, sides } from "./parts.js";

export function boardScreen(ctx, code) {
  let room = null;
  let status = "connecting";
  let fatal = null;
  let invite = null;
  const table = new Table(code, null, {
    onState: (found) => {
      room = found;
      markRabbits(room.members);
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
    // The 31 spaces and the goal around the edge of an 11 × 7 grid, clockwise from the top-left
    // corner: 0–10 along the top, 11–15 down the right, 16–26 back along the bottom, 27–30 up the
    // left, and the goal ★ after 30, next to the start.
    const ring = [];
    for (let column = 1; column <= 11; column += 1) ring.push([1, column]);
    for (let row = 2; row <= 6; row += 1) ring.push([row, 11]);
    for (let column = 11; column >= 1; column -= 1) ring.push([7, column]);
    for (let row = 6; row >= 2; row -= 1) ring.push([row, 1]);
    const rows = sides(game);
    const spaces = [];
    for (let space = 0; space <= 30; space += 1) {
      const [row, column] = ring[space];
      const here = rows.filter((side) => Math.min(side.score, 30) === space);
      spaces.push(
        h(
          "div.board-space",
          { style: { gridRow: String(row), gridColumn: String(column) } },
          h("span.space-number", {}, space),
          h("span.space-rabbits", {}, here.map((side) => sideRabbit(side, nameOf, bySeat, { size: 30 }))),
        ),
      );
    }
    const [row, column] = ring[31];
    spaces.push(h("div.board-goal", { "aria-hidden": "true", style: { gridRow: String(row), gridColumn: String(column) } }, "★"));
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
      showReveal ? h("p.board-headline", {}, revealHeadline(last, game, nameOf)) : null,
      h(
        "ol.board-cards",
        { class: `n${cards.length}` },
        cards.map((card, index) =>
          h(
            "li",
            { class: showReveal && card === last.storyteller_card && game.mode !== "party" ? "teller-card" : "" },
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
            showReveal && last.red === index + 1 ? h("span.red-mark", {}, t("table.red_token")) : null,
          ),
        ),
      ),
      h(
        "ul.board-players",
        {},
        sides(game)
          .sort((a, b) => a.seats[0] - b.seats[0])
          .map((side) => {
            const waiting = side.seats.some((seat) => game.awaiting.includes(seat));
            return h(
              "li",
              { class: waiting ? "waiting" : "done" },
              sideRabbit(side, nameOf, bySeat, { size: 34, lit: !waiting }),
              sideName(side, nameOf),
              h("strong", {}, ` ${side.score}`),
            );
          }),
      ),
    );
  }

  function ranking(game) {
    const rows = sides(game);
    const winners = rows.filter((row) => row.rank === 1);
    const names = winners.map((row) => sideName(row, nameOf)).join(t("app.list_separator"));
    return h(
      "div.board-centre",
      {},
      h("p.board-clue", {}, winners.length > 1 ? t("over.shared", { names }) : t("over.winner", { name: names })),
      h(
        "ol.board-ranking",
        {},
        rows.map((row) => h("li", {}, sideRabbit(row, nameOf, bySeat, { size: 40 }), sideName(row, nameOf), h("strong", {}, ` ${row.score}`))),
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
      ctx.render(
        h(
          "section.board-lobby",
          {},
          h("h1", {}, t("board.join", { code })),
          inviteBlock(code, invite, { board: true }),
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
  api(`/api/rooms/${code}`)
    .then((summary) => {
      invite = summary.invite;
      draw();
    })
    .catch(() => {});
  return () => table.close();
}
