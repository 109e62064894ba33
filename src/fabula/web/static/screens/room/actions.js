import { h } from "../../dom.js";
import { t } from "../../i18n.js";
import { DOUBLE_TAP_MS } from "../../net.js";
import { clueForm } from "./clue_form.js";

function samePlay(a, b) {
  return a.length === b.length && [...a].sort().join("|") === [...b].sort().join("|");
}

export function actionsPart(v) {
  const { ui, send, draw, legalOf, nameOf, partnerSeat } = v;

  // Whether a tap on a card should change nothing: the move already made is still on its way (it
  // would go as chosen then, whatever the screen showed after), or it is the second tap of a
  // double tap on the same card, with no move made between (a tap chooses or lets go: the second
  // undid the first). ``at``: the tap's own stamp (its event's timeStamp) — a phone busy drawing
  // after the first tap runs the second one's handler later than the finger made it.
  function tapIgnored(card, at) {
    const again = ui.lastTap.card === card && at - ui.lastTap.at < DOUBLE_TAP_MS;
    ui.lastTap = { card, at };
    return ui.sending || again;
  }

  function chooseSlot(game, slot, at) {
    if (tapIgnored(`slot-${slot}`, at)) return;
    const votes = legalOf("vote");
    const reds = legalOf("red");
    // the party storyteller votes first, then places the red token (both stay changeable)
    if (reds.length && (!votes.length || (game.my_vote.length > 0 && !ui.changingVote))) {
      ui.red = ui.red === slot ? null : slot;
      draw();
      return;
    }
    const tokens = game.tokens;
    const current = ui.slots.filter((s) => s === slot).length;
    const twiceAllowed = votes.some((a) => a.slots.length === 2 && a.slots[0] === slot && a.slots[1] === slot);
    ui.tokenMoved = "";
    if (current === 0 && tokens === 2 && ui.slots.length === 2) {
      // both tokens are down: the one that has stayed longest moves, keeps its number (a token's
      // number is its place in ui.slots), and the bar says which moved where
      const moving = ui.movesNext ?? 0;
      const from = ui.slots[moving];
      ui.slots = ui.slots.map((s, index) => (index === moving ? slot : s));
      ui.movesNext = 1 - moving;
      ui.tokenMoved = t("table.token_moved", { token: moving + 1, from, to: slot });
    } else if (current === 0) {
      ui.slots = tokens === 1 ? [slot] : [...ui.slots, slot];
      ui.movesNext = 0;
    } else if (current === 1 && twiceAllowed && ui.slots.length < tokens) {
      ui.slots = [slot, slot];
    } else {
      ui.slots = ui.slots.filter((s) => s !== slot);
    }
    draw();
  }

  function chooseHandCard(game, card, at) {
    if (tapIgnored(card, at)) return;
    const many = game.phase === "play" ? game.cards_to_play || 1 : 1;
    if (ui.hand.includes(card)) ui.hand = ui.hand.filter((c) => c !== card);
    else ui.hand = many === 1 ? [card] : [...ui.hand, card].slice(-many);
    draw();
  }

  // Teams, for the partner who may still play: what the other has done, and the way to agree.
  function teamNote(game) {
    const partner = partnerSeat(game);
    if (partner === null || partner === undefined || !legalOf("propose").length) return null;
    const name = nameOf(partner);
    let text;
    if (game.acted.includes(partner)) text = t("table.partner_played", { name });
    else if (game.teammate_proposed && game.my_proposal) text = t("table.both_proposed", { name });
    else if (game.teammate_proposed) text = t("table.teammate_proposed", { name });
    else if (game.my_proposal) text = t("table.you_proposed", { name });
    else return null;
    const openChat = () => {
      ui.chatOpen = true;
      draw();
      document.querySelector("details.chat input[name=chat]")?.focus();
    };
    return h("p.hint.partner-offer", {}, text, " ", h("button.small", { type: "button", onclick: openChat }, t("table.open_team_chat")));
  }

  function actionBar(room, game) {
    const buttons = [];
    const tell = legalOf("tell");
    const blind = legalOf("blind_clue");
    if (tell.length || blind.length) return clueForm(v, { blind: blind.length > 0, awayHint });
    const plays = legalOf("play");
    const proposals = legalOf("propose");
    if (plays.length || proposals.length) {
      const matching = plays.find((a) => samePlay(a.cards, ui.hand));
      buttons.push(
        h(
          "button.primary",
          {
            type: "button",
            disabled: !matching || ui.sending,
            onclick: () => send("act", { action: { type: "play", cards: ui.hand } }, t("table.play_sent")),
          },
          proposals.length ? t("table.play_for_team") : game.cards_to_play === 2 ? t("table.play_these") : t("table.play_this"),
        ),
      );
      if (proposals.length) {
        buttons.push(
          h(
            "button",
            {
              type: "button",
              disabled: ui.hand.length !== 1 || ui.sending,
              onclick: () => send("act", { action: { type: "propose", card: ui.hand[0] } }, t("table.proposal_sent")),
            },
            t("table.propose"),
          ),
        );
      }
      const note = teamNote(game);
      if (note) buttons.push(note);
    }
    const votes = legalOf("vote");
    if (votes.length) {
      const matching = votes.find((a) => a.slots.length === ui.slots.length && [...a.slots].sort().join() === [...ui.slots].sort().join());
      buttons.push(
        h(
          "button.primary",
          {
            type: "button",
            disabled: !matching || ui.sending,
            onclick: () => send("act", { action: { type: "vote", slots: ui.slots } }, t("table.vote_sent")),
          },
          ui.slots.length === 2 ? t("table.vote_both") : t("table.vote"),
        ),
      );
      if (ui.tokenMoved) buttons.push(h("span.hint.token-moved", { role: "status" }, ui.tokenMoved));
    }
    const reds = legalOf("red");
    if (reds.length) {
      buttons.push(
        h(
          "button.red",
          {
            type: "button",
            disabled: ui.red === null || ui.sending,
            onclick: () => send("act", { action: { type: "red", slot: ui.red } }, t("table.red_placed", { slot: ui.red })),
          },
          t("table.place_red"),
        ),
      );
      if (votes.length && game.my_vote.length && !ui.changingVote) {
        // the vote made stays changeable: a tap on a card then moves the vote, not the red token
        const change = () => {
          ui.changingVote = true;
          ui.slots = [];
          draw();
        };
        buttons.push(h("button.small", { type: "button", onclick: change }, t("table.change_vote")));
      } else if (votes.length && !ui.changingVote) {
        buttons.push(h("span.hint", {}, t("table.red_hint")));
      }
    }
    return buttons.length ? h("div.action-bar", {}, buttons, awayHint()) : null;
  }

  // Said where the move is made: on a phone the header's "reconnecting…" has scrolled away, and a
  // move made now only greys its button until the connection is back.
  function awayHint() {
    if (ui.status === "offline" || ui.status === "connecting") {
      return h("span.hint.away-hint", { role: "status" }, t("table.offline_hint")); // (between two tries, and during one)
    }
    if (ui.status === "saving") return h("span.hint.away-hint", { role: "status" }, t("connection.saving"));
    return null;
  }

  return { actionBar, chooseSlot, chooseHandCard };
}
