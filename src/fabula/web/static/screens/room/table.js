import { h } from "../../dom.js";
import { listText, t } from "../../i18n.js";
import { rabbit } from "../../rabbits.js";
import { cardImage, cardViewer, awayLines, countdown, memberName, roundLine, scoreTrack, timeLeft } from "../parts.js";
import { missedRounds } from "../album.js";
import { fallbackNote, levelName, notAnsweringLines } from "./models.js";
import { aloudHeading, clueInSentence } from "../clue.js";
import { pausedLine, phaseTimer, timeControls, timerSeconds } from "./clock.js";
import { audienceLine } from "../crowd.js";

function shortClue(clue) {
  const chars = [...clue];
  return chars.length > 40 ? `${chars.slice(0, 36).join("").trimEnd()}…` : clue;
}

// characters past which a clue is set in smaller type
const LONG_CLUE = 60;

export function tablePart(v) {
  const { ui, code, ctx, token, send, draw, nameOf, bySeat, legalOf, awaited, hostLine, leaveButton, loadAlbum, me, openReveal, partnerSeat, serious } = v;

  function statusLine(room, game) {
    const mine = me();
    const teller = nameOf(game.storyteller);
    const waitingFor = listText(game.awaiting.filter((s) => s !== mine).map(nameOf));
    // a long clue is the big heading already: the prompt quotes its start
    const clue = clueInSentence(game.clue, game.aloud || Boolean(game.sound), shortClue);
    if (game.phase === "clue") {
      if (mine === game.storyteller) {
        return game.hand_hidden ? t("table.blind_clue") : t("table.you_tell");
      }
      return room.settings.mode === "party" ? t("table.teller_thinking_blind", { name: teller }) : t("table.teller_thinking", { name: teller });
    }
    if (awaited()) {
      if (game.phase === "play") {
        if (legalOf("propose").length) return t("table.team_play", { clue });
        // teams: the storyteller's partner plays a decoy for their team, and will not vote
        if (game.teams && partnerSeat(game) === game.storyteller) return t("table.teller_partner_play", { name: teller, clue });
        return game.cards_to_play === 2 ? t("table.play_two", { clue }) : t("table.play_one", { clue });
      }
      if (game.phase === "vote") {
        if (mine === game.storyteller && room.settings.mode === "party") return t("table.party_teller_vote", { clue });
        if (room.settings.mode === "party") return t("table.party_vote", { clue });
        if (game.tokens === 2) {
          return game.options?.single_token_bonus ? t("table.vote_two", { name: teller, clue }) : t("table.vote_two_plain", { name: teller, clue });
        }
        return t("table.vote_one", { name: teller, clue });
      }
    }
    return waitingFor ? t("table.waiting_for", { names: waitingFor }) : t("table.waiting");
  }

  // Told once to a player back at the table: what a bot played for them meanwhile.
  function missedStory(room, game) {
    const moves = room.you?.stood_in || [];
    const told = `${room.games_started}:${moves.map((m) => `${m.round}${m.action.type}`).join(",")}`;
    if (!moves.length || ui.storySeen === told) return null;
    const describe = (action) => {
      if (action.sound) return action.type === "tell" ? t("story.told_sound") : t("story.blind_sound");
      if (action.type === "tell") return action.aloud ? t("story.told_aloud") : t("story.told", { clue: action.clue });
      if (action.type === "blind_clue") return action.aloud ? t("story.blind_aloud") : t("story.blind_clue", { clue: action.clue });
      if (action.type === "play") return t("story.played");
      if (action.type === "propose") return t("story.proposed");
      if (action.type === "vote") return t("story.voted", { slots: listText(action.slots.map(String)) });
      return t("story.red", { slot: action.slot });
    };
    // every round a bot played in, a line each (its moves, the cards it laid): all of them, as the
    // rounds missed below are all there
    const rounds = new Map();
    for (const move of moves) rounds.set(move.round, [...(rounds.get(move.round) ?? []), move.action]);
    const roundLine = ([round, actions]) => {
      const cards = actions.flatMap((action) => (action.type === "tell" ? [action.card] : action.type === "play" ? action.cards : []));
      return h(
        "li",
        { "data-round": round },
        h("span", {}, t("table.round", { round }), t("app.colon"), actions.map(describe).join(t("app.list_separator"))),
        cards.map((card) => h("span.story-card", {}, cardImage(card, { width: 200 }))),
      );
    };
    const away = moves.some((move) => move.because !== "time");
    // the rounds missed, from the album of this game (asked again when another round is revealed)
    const first = Math.min(...moves.map((move) => move.round));
    const key = `${told}|${game.last_round?.round ?? 0}`;
    if (token && ui.missed?.key !== key) {
      const asked = { key, album: ui.missed?.album ?? null, node: null };
      ui.missed = asked;
      loadAlbum(room.games_started)
        .then((album) => {
          if (ui.missed !== asked) return;
          asked.album = album;
          asked.node = null;
          draw();
        })
        .catch(() => {});
    }
    if (ui.missed?.album && !ui.missed.node) ui.missed.node = missedRounds(ui.missed.album, first) || h("div");
    return h(
      "section.story",
      { role: "status" },
      h("p", {}, h("strong", {}, away ? t("story.title") : t("story.title_time"))),
      h("ul.story-moves", {}, [...rounds].map(roundLine)),
      ui.missed?.node ?? null,
      h(
        "button",
        {
          type: "button",
          onclick: () => {
            ui.storySeen = told;
            sessionStorage.setItem(`fabula.story.${code}`, told);
            draw();
          },
        },
        t("story.ok"),
      ),
    );
  }

  // The clue's timer runs from the end of the last round's reveal: until then it says so (a host
  // who set 20 s saw 0:35 and wondered why).
  function timerWords(room, game) {
    const clueSeconds = timerSeconds(room.settings, "clue");
    if (game.phase !== "clue" || !game.last_round || !clueSeconds) return timeLeft;
    return (time, left) => (left > clueSeconds ? t("table.time_left_reveal", { time, seconds: clueSeconds }) : timeLeft(time));
  }

  function tableView(room) {
    const game = room.game;
    const mine = me();
    const phase = game.phase;
    const canAct = !room.paused && (awaited() || (mine !== null && (phase === "play" || phase === "vote") && ui.room?.you?.legal?.length));
    const deadline = phaseTimer(room, timerWords(room, game));
    const partner = partnerSeat(game);
    const top = h(
      "div.table-head",
      {},
      roundLine(game),
      h("span.teller", {}, rabbit(bySeat(game.storyteller)?.colour, nameOf(game.storyteller), { size: 22 }), h("span.head-name", {}, t("table.storyteller", { name: nameOf(game.storyteller) }))),
      partner !== null && partner !== undefined
        ? h("span.partner", {}, rabbit(bySeat(partner)?.colour, nameOf(partner), { size: 22 }), h("span.head-name", {}, t("table.partner", { name: nameOf(partner) })))
        : null,
      deadline,
      audienceLine(room, "span.head-audience"),
    );
    // a long clue in smaller type: at 360 px a 200-character one in the heading's size pushed the
    // hand below the fold
    const long = [...(game.clue ?? "")].length > LONG_CLUE;
    const clue = game.aloud || game.sound
      ? aloudHeading("p.clue", { clue: game.clue, name: nameOf(game.storyteller), own: me() === game.storyteller, bots: room.members.some((m) => m.bot), sound: game.sound, code, extra: { class: long ? "long" : "", "aria-label": t("table.clue_label") } })
      : game.clue
        ? h("p.clue", { class: long ? "long" : "", "aria-label": t("table.clue_label") }, t("table.quoted_clue", { clue: game.clue }))
        : null;
    // (paused: the one sentence says so, and who will resume)
    const line = h("p.status-line", { role: "status", "aria-live": "polite", class: room.paused ? "paused-banner" : "" }, room.paused ? pausedLine(room) : statusLine(room, game));
    return h(
      "section.table-screen",
      {},
      h(
        "div.play-area",
        {},
        top,
        clue,
        line,
        timeControls(room, { ui, send }),
        room.paused ? null : awayLines(game, { bySeat, nameOf, mine: me() }),
        notAnsweringLines(room.members),
        missedStory(room, game),
        actedRow(room, game),
        phase === "vote" || game.table.length ? tableCards(room, game) : null,
        handStrip(room, game),
        ui.message ? h("p.error", { role: "alert" }, ui.message) : null,
        noticeLine(game),
        hostLine(room),
        canAct ? v.actionBar(room, game) : null,
      ),
      h(
        "aside.side",
        {},
        scoreTrack(room, game, { nameOf, bySeat }),
        room.you?.host ? fallbackCounts(room) : null,
        game.last_round ? h("button.small", { type: "button", onclick: () => openReveal(game.last_round) }, t("table.show_last_round")) : null,
        room.you ? soundToggle() : null,
        room.you ? null : takeOver(room),
        room.you?.host ? awaySeats(room) : null,
        room.you?.host ? serious("end", t("room.end"), t("room.end_question"), t("room.end_now"), () => send("end")) : null,
        leaveButton(room),
        v.chatPanel(room),
      ),
    );
  }

  // For the host: each model bot's moves its fallback level made this game (beside its name).
  function fallbackCounts(room) {
    const rows = room.members.filter((m) => fallbackNote(m)).map((m) =>
      h("li", { "data-key": `fallbacks-${m.member}` }, rabbit(m.colour, memberName(m), { size: 20 }), " ", memberName(m), ` (${levelName(m.bot)}) `, fallbackNote(m)),
    );
    return rows.length ? h("ul.model-fallbacks", {}, rows) : null;
  }

  // The host's way to free the seat of someone who left or whose phone is gone (a bot plays it) for a
  // latecomer: removed, the person cannot come back to it, and the seat is open to take over.
  function awaySeats(room) {
    const away = room.members.filter((m) => !m.bot && (m.away || !m.connected) && !m.open && m.member !== room.you.member);
    if (!away.length) return null;
    return h(
      "div.away-seats",
      {},
      away.map((m) =>
        serious(`free-${m.member}`, t("table.free_seat", { name: memberName(m) }), t("table.free_seat_question", { name: memberName(m) }), t("table.free_seat_now"), () => {
          ui.confirming = null;
          send("kick", { member: m.member });
        }),
      ),
    );
  }

  function soundToggle() {
    return h(
      "label.sound-toggle",
      {},
      h("input", {
        type: "checkbox",
        checked: ui.sound,
        onchange: (event) => {
          ui.sound = event.target.checked;
          localStorage.setItem("fabula.sound", ui.sound ? "on" : "off");
        },
      }),
      ` ${t("table.sound")}`,
    );
  }

  // A spectator may sit down in a seat a bot plays (a bot the host added, or a stand-in for
  // someone who left for good).
  function takeOver(room) {
    const open = room.members.filter((m) => m.open);
    if (!open.length) return null;
    return h(
      "section.take-over",
      {},
      h("h3", {}, t("room.take_over_title")),
      h(
        "ul",
        {},
        open.map((m) =>
          h(
            "li",
            {},
            h(
              "a.button.small",
              { href: `/join/${code}?seat=${m.member}`, onclick: ctx.link(`/join/${code}?seat=${m.member}`) },
              rabbit(m.colour, memberName(m), { size: 20 }),
              t("room.take_over", { name: memberName(m) }),
            ),
          ),
        ),
      ),
    );
  }

  function actedRow(room, game) {
    const relevant = game.phase === "vote" ? game.voters : game.phase === "play" ? [...game.acted, ...game.awaiting] : [game.storyteller];
    const seats = [...new Set(relevant)].sort((a, b) => a - b);
    return h(
      "ul.acted",
      { "aria-label": t("table.who_acted") },
      seats.map((s) => {
        const member = bySeat(s);
        const done = !game.awaiting.includes(s);
        const away = member && !member.bot && (member.away || !member.connected);
        const state = done ? t("table.done") : away ? t("table.away") : t("table.thinking");
        return h(
          "li",
          { class: [done ? "done" : "waiting", away ? "away" : ""].join(" "), title: `${nameOf(s)}: ${state}` },
          rabbit(member?.colour, nameOf(s), { size: 26, lit: done }),
          away && !done ? h("span.away-mark", { "aria-hidden": "true" }, "zZ") : null,
          h("span.sr-only", {}, `${nameOf(s)}: ${state}`),
        );
      }),
    );
  }

  // With two voting tokens each has its number (1, 2) on the card it marks, so a token that
  // moves is seen to move; with one, a dot.
  function tokenMarks(game, slot) {
    if (game.tokens !== 2) return h("span.token-mark", {}, "●");
    const numbers = ui.slots.flatMap((s, index) => (s === slot ? [index + 1] : []));
    return h(
      "span.token-mark.numbered",
      { "aria-label": numbers.map((n) => t("table.token_n", { n })).join(", ") },
      numbers.map((n) => h(`span.token.token-${n}`, {}, String(n))),
    );
  }

  // What the last accepted move did; after a reload (nothing sent from this page yet), what the
  // state says was done and may still be changed.
  function noticeLine(game) {
    const text = notice(game);
    return text ? h("p.notice-line", { role: "status" }, text) : null;
  }

  function notice(game) {
    if (ui.notice) return ui.notice;
    if (game.phase === "vote" && game.my_vote.length && legalOf("vote").length) return t("table.vote_sent");
    if (game.phase === "play" && game.my_cards.length && legalOf("play").length) return t("table.play_sent");
    return "";
  }

  function tableCards(room, game) {
    const votable = new Set(legalOf("vote").flatMap((a) => a.slots));
    const redable = new Set(legalOf("red").map((a) => a.slot));
    const voting = game.phase === "vote" && me() !== null;
    // teams: the card a voter may not vote for, and did not play, is the partner's
    const partners = (entry) => Boolean(game.teams) && votable.size > 0 && !entry.yours && !votable.has(entry.slot);
    const cards = game.table.map((entry) => {
      const count = ui.slots.filter((s) => s === entry.slot).length;
      const selectable = voting && (votable.has(entry.slot) || redable.has(entry.slot));
      const myVote = game.my_vote.filter((s) => s === entry.slot).length;
      return h(
        "li.table-card",
        {
          class: [count ? "chosen" : "", entry.yours ? "yours" : "", ui.red === entry.slot ? "red-chosen" : ""].join(" "),
          "data-key": `table-${entry.card}`,
        },
        h(
          "button.card-button",
          {
            type: "button",
            disabled: !selectable,
            "aria-pressed": count > 0 ? "true" : "false",
            "aria-label": t("table.card_slot", { slot: entry.slot }),
            "data-keep": `slot-${entry.slot}`,
            onclick: (event) => v.chooseSlot(game, entry.slot, event.timeStamp),
          },
          cardImage(entry.card, { width: 400 }),
          h("span.slot-number", {}, entry.slot),
          entry.yours ? h("span.tag", {}, t("table.yours")) : null,
          partners(entry) ? h("span.tag", {}, t("table.partners")) : null,
          count ? tokenMarks(game, entry.slot) : null,
          myVote && !count ? h("span.token-mark.sent", {}, "✓") : null,
          ui.red === entry.slot || game.my_red === entry.slot ? h("span.red-mark", {}, t("table.red_token")) : null,
        ),
        h("button.zoom", { type: "button", "aria-label": t("table.zoom"), onclick: () => cardViewer(game.table.map((e) => e.card), entry.slot - 1) }, "⤢"),
      );
    });
    return h("ol.table-cards", { class: `n${game.table.length}`, "aria-label": t("table.table") }, cards);
  }

  function handStrip(room, game) {
    if (me() === null) return null;
    if (game.hand_hidden) {
      return h("div.hand.hidden-hand", {}, h("p", {}, t("table.hand_covered")));
    }
    const hand = game.hand || [];
    const playable = new Set([
      ...legalOf("tell").map((a) => a.card),
      ...legalOf("play").flatMap((a) => a.cards),
      ...legalOf("propose").map((a) => a.card),
    ]);
    return h(
      "div.hand",
      { class: game.phase === "vote" ? "small" : "" },
      h("h3.hand-title", {}, t("table.your_hand")),
      h(
        "ol.hand-cards",
        { "aria-label": t("table.your_hand"), "data-scroll": "hand" },
        hand.map((card, index) => {
          const chosen = ui.hand.includes(card);
          const played = game.my_cards.includes(card);
          const proposed = game.my_proposal === card;
          return h(
            "li.hand-card",
            { class: [chosen ? "chosen" : "", played ? "played" : "", proposed ? "proposed" : ""].join(" "), "data-key": `hand-${card}` },
            h(
              "button.card-button",
              {
                type: "button",
                disabled: !playable.has(card),
                "aria-pressed": chosen ? "true" : "false",
                "data-keep": `card-${card}`,
                onclick: (event) => v.chooseHandCard(game, card, event.timeStamp),
              },
              cardImage(card, { width: 400 }),
              played ? h("span.tag", {}, t("table.played")) : proposed ? h("span.tag", {}, t("table.suggested")) : null,
            ),
            h("button.zoom", { type: "button", "aria-label": t("table.zoom"), onclick: () => cardViewer(hand, index) }, "⤢"),
          );
        }),
      ),
    );
  }

  return { tableView, timerWords };
}
