// The reveal of one round: every card with its owner and the tokens on it, what scored and why,
// and — updated by the room while it is open — whether your move is awaited now. Drawn once per
// round (the room keeps the dialog across redraws, so a reader keeps their place in it). The
// same drawing of a round (`roundParts`) is every page of a game's album and of its replay.
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { rabbit } from "../rabbits.js";
import { clueBy } from "./clue.js";
import { soundPlayer } from "./sound.js";
import { cardImage, reasonsText, revealHeadline, sideName, sideRabbit, votesText } from "./parts.js";
import { crowdMark, crowdOf, fillCrowd } from "./crowd.js";

// One revealed round (a view's `last_round`, or an album's round) in parts a screen arranges:
// the clue, the sentence that says what scored, the cards with owners and tokens, the points.
// ``game``: {mode, options, teams, tokens}; ``standIns``: the seats a bot played for this round;
// ``size``: the rabbits' size (the cards fill their grid); ``animate``: cards flip in; ``crowd``:
// the audience's vote on the round (crowd.js), a marker with its share on each card.
export function roundParts(last, game, { nameOf, bySeat, size = 22, standIns = [], animate = true, onCard = null, crowd = null }) {
  const party = game.mode === "party";
  const votersOf = (slot) => last.votes.flatMap((slots, voter) => slots.filter((s) => s === slot).map(() => voter));
  const rows = game.teams
    ? game.teams.map((seats, team) => ({ team, seats }))
    : last.points.map((_, seat) => ({ team: null, seats: [seat] }));
  const cards = h(
    "ol.reveal-cards",
    { class: animate ? "" : "still" },
    last.table.map((card, index) => {
      const slot = index + 1;
      const owner = last.owners[index];
      const isTeller = card === last.storyteller_card && !party;
      const voters = votersOf(slot);
      const picture = cardImage(card, { width: 400 });
      return h(
        "li.reveal-card",
        { class: isTeller ? "teller-card" : "", "data-card": card, style: { "--delay": `${index * 0.15}s` } },
        onCard ? h("button.card-button", { type: "button", "aria-label": t("table.card_slot", { slot }), onclick: () => onCard(index) }, picture) : picture,
        h("span.slot-number", {}, slot),
        crowdMark(crowd, card),
        h(
          "div.owner",
          {},
          rabbit(bySeat(owner)?.colour, nameOf(owner), { size }),
          // (a word too long for a narrow card is cut with an ellipsis: the title has it whole)
          h("span.owner-name", { title: nameOf(owner) }, nameOf(owner)),
          isTeller ? h("span.tag-inline", { title: t("reveal.storytellers_card") }, t("reveal.storytellers_card")) : null,
          last.red === slot ? h("span.tag-inline.red-tag", { title: t("table.red_token") }, t("table.red_token")) : null,
        ),
        h(
          "div.voters",
          { "aria-label": votesText(voters.length) },
          voters.map((voter) => rabbit(bySeat(voter)?.colour, nameOf(voter), { size: size - 2 })),
          party ? h("span.vote-count", {}, votesText(voters.length)) : null,
        ),
      );
    }),
  );
  const points = h(
    "ul.points",
    {},
    rows.map((row, index) => {
      const seatNumber = row.seats[0];
      const name = sideName(row, nameOf);
      const reasons = last.reasons?.[seatNumber] ? reasonsText(last.reasons[seatNumber]) : "";
      const botPlayed = row.seats.filter((s) => standIns.includes(s));
      return h(
        "li",
        { style: { "--delay": `${0.6 + index * 0.05}s` } },
        h(
          "span.points-line",
          {},
          sideRabbit(row, nameOf, bySeat, { size }),
          h("span.points-name", { title: name }, name),
          h("strong.gain", {}, ` +${last.points[seatNumber]}`),
          h("span.total", {}, ` → ${last.scores[seatNumber]}`),
        ),
        reasons ? h("span.reasons", {}, reasons) : null,
        botPlayed.map((s) => h("span.reasons.stood-in", {}, t("album.bot_played_for", { name: nameOf(s) }))),
      );
    }),
  );
  return {
    // (a long clue in smaller type: at 360 px a 200-character one pushed the cards below the fold)
    clue: h("p.reveal-clue", { class: [...last.clue].length > 60 ? "long" : "" }, clueBy(nameOf(last.storyteller), last.clue, last.aloud, last.sound), last.sound ? [" ", soundPlayer(last.sound)] : null),
    headline: h("p.reveal-headline", {}, revealHeadline(last, game, nameOf)),
    cards,
    points,
  };
}

// ``last``: the round (a view's `last_round`); ``game``: the view it came with. The dialog, and
// the line that says when it is your turn (empty, hidden, until the room fills it).
// ``room``: the state (the audience's vote on the round, crowd.js); ``follow(room)`` shows the
// crowd's vote as newer states tell it (votes stored just after the reveal still count).
export function buildReveal(last, game, { nameOf, bySeat, onClose, room = null }) {
  const parts = roundParts(last, game, { nameOf, bySeat });
  const turn = h("p.reveal-turn", { role: "status", hidden: true });
  const crowd = h("p.crowd-line", { hidden: true }); // (filled by the room: crowd.js, fillCrowd)
  // A long clue shows its first three lines, and the whole of it at a tap: the first cards stay in
  // sight on a phone (the button goes once the page shows that the clue fits).
  let more = null;
  if (parts.clue.classList.contains("long")) {
    parts.clue.classList.add("clamped");
    parts.clue.id = "reveal-clue";
    const toggle = () => {
      const whole = parts.clue.classList.toggle("clamped") === false;
      more.setAttribute("aria-expanded", String(whole));
      more.textContent = whole ? t("reveal.clue_less") : t("reveal.clue_whole");
    };
    more = h("button.small.clue-more", { type: "button", "aria-expanded": "false", "aria-controls": "reveal-clue", onclick: toggle }, t("reveal.clue_whole"));
    requestAnimationFrame(() => {
      if (parts.clue.isConnected && parts.clue.scrollHeight <= parts.clue.clientHeight + 1) more.hidden = true;
    });
  }
  const dialog = h(
    "div.overlay",
    { role: "dialog", "aria-modal": "true", "aria-label": t("reveal.title"), onkeydown: (event) => event.key === "Escape" && onClose() },
    h(
      "div.reveal",
      {},
      h("h2", {}, t("reveal.title_round", { round: last.round })),
      parts.clue,
      more,
      parts.headline,
      turn,
      crowd,
      parts.cards,
      parts.points,
      h("div.reveal-actions", {}, h("button.primary", { type: "button", onclick: onClose }, t("reveal.continue"))),
    ),
  );
  const follow = (now) => fillCrowd(dialog, crowdOf(now, last));
  follow(room);
  return { dialog, turn, follow };
}
