// Your seat in a room: the lobby, the table in every mode, the reveal and the end of the game.
// Each new state from the server redraws the screen; what the player is choosing (cards, slots,
// the clue being typed) lives here between states.
import { h } from "../dom.js";
import { language, t } from "../i18n.js";
import { api, saveSeat, savedSeat, Table } from "../net.js";
import { rabbit } from "../rabbits.js";
import { cardImage, cardViewer, describeCards, errorText, memberName, scoreTrack } from "./parts.js";

/** What a host can pick when adding a bot, the default first after the gentlest. */
const BOT_LEVELS = ["easy", "normal", "hard", "random"];

function samePlay(a, b) {
  return a.length === b.length && [...a].sort().join("|") === [...b].sort().join("|");
}

export function roomScreen(ctx, code, watch) {
  const seat = watch ? null : savedSeat(code);
  if (!watch && !seat) {
    ctx.go(`/join/${code}`, true);
    return null;
  }
  const ui = {
    room: null,
    status: "connecting",
    legal: null,
    legalSeq: -1,
    hand: [], // chosen hand cards
    slots: [], // chosen table slots (a slot twice: both tokens on it)
    red: null,
    clue: "",
    phaseKey: "",
    chat: [],
    chatOpen: false,
    teamChat: false,
    revealKey: 0, // the last reveal shown (games_started × 1000 + round)
    firstStateSeen: false,
    revealing: null,
    fatal: null,
    message: "",
    sending: false,
    sound: localStorage.getItem("fabula.sound") === "on",
    wasAwaited: false,
    swapPick: null, // teams lobby: the first player the host tapped to change places
    botLevel: BOT_LEVELS.includes(localStorage.getItem("fabula.botLevel")) ? localStorage.getItem("fabula.botLevel") : "normal",
  };
  const table = new Table(code, seat?.token ?? null, {
    onState: (room) => {
      ui.room = room;
      onNewState();
      draw();
    },
    onChat: (lines, history) => {
      ui.chat = history ? lines : [...ui.chat, ...lines].slice(-100);
      draw();
    },
    onStatus: (status) => {
      ui.status = status;
      draw();
    },
    onFatal: (code_, message) => {
      ui.fatal = code_;
      if (code_ === "bad_token") saveSeat(code, null);
      ui.message = message;
      draw();
    },
  });
  table.open();
  const tick = setInterval(() => ui.room?.deadline && updateCountdown(), 1000);

  function me() {
    return ui.room?.you?.seat ?? null;
  }
  function members() {
    return ui.room?.members ?? [];
  }
  function bySeat(seatNumber) {
    return members().find((m) => m.seat === seatNumber);
  }
  function nameOf(seatNumber) {
    return memberName(bySeat(seatNumber)) ?? `#${seatNumber + 1}`;
  }
  function awaited() {
    const game = ui.room?.game;
    return game && me() !== null && game.phase !== "over" && game.awaiting.includes(me());
  }

  function onNewState() {
    const game = ui.room.game;
    if (!game) return;
    const key = `${ui.room.games_started}:${game.round}:${game.phase}`;
    if (key !== ui.phaseKey) {
      ui.phaseKey = key;
      ui.hand = [];
      ui.slots = [];
      ui.red = null;
      ui.message = "";
    }
    // A round's reveal shows once, when it happens; not again on a reload or a reconnect.
    const last = game.last_round;
    if (last) {
      const revealKey = ui.room.games_started * 1000 + last.round;
      if (ui.firstStateSeen && revealKey > ui.revealKey) ui.revealing = last;
      ui.revealKey = Math.max(ui.revealKey, revealKey);
    }
    ui.firstStateSeen = true;
    const now = awaited();
    if (now && !ui.wasAwaited) nudge();
    ui.wasAwaited = now;
    document.title = now ? `● ${t("app.your_move")} · Fabula` : `Fabula · ${code}`;
    if (me() !== null && game.phase !== "over" && ui.legalSeq !== ui.room.seq) {
      const seq = ui.room.seq;
      ui.legalSeq = seq;
      table.send("legal").then((reply) => {
        if (ui.room.seq === seq && reply.type === "legal") {
          ui.legal = reply.actions;
          draw();
        }
      });
    }
  }

  function nudge() {
    if (navigator.vibrate) navigator.vibrate(150);
    if (ui.sound) {
      try {
        const audio = new AudioContext();
        const tone = audio.createOscillator();
        const gain = audio.createGain();
        tone.frequency.value = 660;
        gain.gain.setValueAtTime(0.15, audio.currentTime);
        gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.4);
        tone.connect(gain).connect(audio.destination);
        tone.start();
        tone.stop(audio.currentTime + 0.4);
      } catch {
        /* no audio: the title and vibration still tell */
      }
    }
  }

  async function send(type, fields) {
    ui.sending = true;
    draw();
    const reply = await table.send(type, fields);
    ui.sending = false;
    if (reply.type === "error") {
      ui.message = errorText(reply.code, reply.message);
    } else {
      ui.message = "";
      if (type === "act") {
        const kind = fields.action.type;
        if (kind === "vote") ui.slots = [];
        if (kind === "play" || kind === "propose") ui.hand = [];
      }
    }
    draw();
    return reply;
  }

  function legalOf(type) {
    return (ui.legal || []).filter((a) => a.type === type);
  }

  // ---------------------------------------------------------------- drawing

  function draw() {
    if (ui.fatal) {
      ctx.render(
        h(
          "section.card-panel",
          {},
          h("h2", {}, errorText(ui.fatal)),
          h("p", {}, ui.message),
          h("a.button.primary", { href: "/", onclick: ctx.link("/") }, t("app.home")),
        ),
      );
      return;
    }
    const room = ui.room;
    if (!room) {
      ctx.render(h("p.notice", {}, t("app.connecting")), { headerExtra: connection() });
      return;
    }
    const extra = [h("span.room-code", {}, t("room.code", { code })), connection()];
    let body;
    if (room.status === "lobby") body = lobby(room);
    else if (room.status === "over") body = gameOver(room);
    else body = tableView(room);
    ctx.render([body, ui.revealing ? reveal(ui.revealing) : null], { headerExtra: extra, wide: room.status !== "lobby" });
    if (ui.revealing && ui.revealing !== ui.revealFocused) {
      // a dialog takes the focus, so that Escape and Enter reach it
      ui.revealFocused = ui.revealing;
      document.querySelector(".overlay button.primary")?.focus();
    }
  }

  function connection() {
    return h(
      "span.connection",
      { class: ui.status, role: "status", title: t(`connection.${ui.status}`) },
      h("span.dot", { "aria-hidden": "true" }),
      h("span.connection-text", {}, t(`connection.${ui.status}`)),
    );
  }

  // ---------------------------------------------------------------- lobby

  function lobby(room) {
    const host = room.you?.host;
    const mode = room.settings.mode;
    const [low, high] = { odyssey: [3, 12], party: [6, 12], teams: [6, 12], classic: [3, 6] }[mode];
    const count = room.members.length;
    const fits = count >= low && count <= high && (mode !== "teams" || count % 2 === 0);
    const joinUrl = `${location.origin}/join/${code}`;
    const copy = h(
      "button",
      {
        type: "button",
        onclick: async (event) => {
          try {
            await navigator.clipboard.writeText(joinUrl);
            event.target.textContent = t("lobby.copied");
          } catch {
            event.target.textContent = joinUrl;
          }
        },
      },
      t("lobby.copy"),
    );
    const seats = h(
      "ul.seats",
      {},
      room.members.map((m) =>
        h(
          "li.seat",
          { class: m.connected ? "here" : "gone" },
          rabbit(m.colour, memberName(m), { size: 36, lit: m.connected }),
          h("span.seat-name", {}, memberName(m)),
          m.member === room.host ? h("span.badge", {}, t("lobby.host")) : null,
          m.bot ? h("span.badge", { title: t(`bot.${m.bot}.hint`) }, t("lobby.bot_badge", { level: t(`bot.${m.bot}`) })) : null,
          m.member === room.you?.member ? h("span.badge.you", {}, t("lobby.you")) : null,
          host && m.member !== room.you?.member
            ? h("button.small", { type: "button", onclick: () => send("kick", { member: m.member }) }, m.bot ? t("lobby.remove_bot") : t("lobby.kick"))
            : null,
        ),
      ),
    );
    const teams =
      mode === "teams" && room.pairs
        ? h(
            "div.teams",
            {},
            h("h3", {}, t("lobby.teams")),
            h(
              "ol",
              {},
              room.pairs.map((pair, index) =>
                h(
                  "li.team",
                  {},
                  h("span.team-number", {}, t("lobby.team_number", { number: index + 1 })),
                  pair.map((member) => {
                    const m = room.members.find((x) => x.member === member);
                    if (!m) return null;
                    const content = [rabbit(m.colour, memberName(m), { size: 24 }), memberName(m)];
                    if (!host) return h("span.team-member", {}, content);
                    // the host taps one player, then another: the two change places
                    return h(
                      "button.team-member.small",
                      {
                        type: "button",
                        "aria-pressed": ui.swapPick === member ? "true" : "false",
                        "data-keep": `team-${member}`,
                        onclick: () => pickForSwap(room, member),
                      },
                      content,
                    );
                  }),
                ),
              ),
            ),
            host ? h("p.hint", {}, ui.swapPick === null ? t("lobby.swap_hint") : t("lobby.swap_second")) : null,
          )
        : null;
    const controls = host
      ? h(
          "div.actions",
          {},
          h(
            "label.bot-level",
            {},
            t("lobby.bot_level"),
            " ",
            h(
              "select",
              {
                "data-keep": "bot-level",
                onchange: (event) => {
                  ui.botLevel = event.target.value;
                  localStorage.setItem("fabula.botLevel", ui.botLevel);
                },
              },
              BOT_LEVELS.map((level) => h("option", { value: level, selected: level === ui.botLevel }, t(`bot.${level}`))),
            ),
          ),
          h("button", { type: "button", disabled: count >= high, onclick: () => send("add_bot", { level: ui.botLevel, language }) }, t("lobby.add_bot")),
          h("button.primary", { type: "button", disabled: !fits || ui.sending, onclick: () => send("start") }, t("lobby.start")),
        )
      : h("p.status-line", {}, t("lobby.waiting_host", { name: memberName(room.members.find((m) => m.member === room.host)) ?? "" }));
    return h(
      "section.lobby",
      {},
      h("h2", {}, t(`mode.${mode}`)),
      h("p.hint", {}, t(`mode.${mode}.summary`), " ", t("lobby.count", { count, low, high })),
      seats,
      teams,
      ui.message ? h("p.error", { role: "alert" }, ui.message) : null,
      controls,
      host ? h("p.hint.bot-language", {}, t("lobby.bot_language")) : null,
      h(
        "div.invite",
        {},
        h("h3", {}, t("lobby.invite")),
        h("p.join-url", {}, h("code", {}, joinUrl), " ", copy),
        h("img.qr", { src: `/api/rooms/${code}/qr.svg`, alt: t("lobby.qr_alt", { code }), width: 200, height: 200 }),
        h("p", {}, h("a", { href: `/room/${code}/board`, target: "_blank" }, t("lobby.board_link"))),
      ),
      chatPanel(room),
    );
  }

  function pickForSwap(room, member) {
    if (ui.swapPick === null || ui.swapPick === member) {
      ui.swapPick = ui.swapPick === member ? null : member;
      draw();
      return;
    }
    const other = ui.swapPick;
    ui.swapPick = null;
    const pairs = room.pairs.map((pair) => pair.map((m) => (m === member ? other : m === other ? member : m)));
    send("teams", { pairs: pairs.filter((pair) => pair.length === 2) });
  }

  // ---------------------------------------------------------------- the table

  function statusLine(room, game) {
    const mine = me();
    const teller = nameOf(game.storyteller);
    const waitingFor = game.awaiting.filter((s) => s !== mine).map(nameOf).join(t("app.list_separator"));
    const clue = game.clue ?? "";
    if (game.phase === "clue") {
      if (mine === game.storyteller) {
        return game.hand_hidden ? t("table.blind_clue") : t("table.you_tell");
      }
      return t("table.teller_thinking", { name: teller });
    }
    if (awaited()) {
      if (game.phase === "play") {
        if (legalOf("propose").length) return t("table.team_play", { clue });
        return game.cards_to_play === 2 ? t("table.play_two", { clue }) : t("table.play_one", { clue });
      }
      if (game.phase === "vote") {
        if (mine === game.storyteller && room.settings.mode === "party") return t("table.party_teller_vote", { clue });
        if (room.settings.mode === "party") return t("table.party_vote", { clue });
        return game.tokens === 2 ? t("table.vote_two", { clue }) : t("table.vote_one", { clue });
      }
    }
    return waitingFor ? t("table.waiting_for", { names: waitingFor }) : t("table.waiting");
  }

  function tableView(room) {
    const game = room.game;
    const mine = me();
    const phase = game.phase;
    const canAct = awaited() || (mine !== null && (phase === "play" || phase === "vote") && ui.legal?.length);
    const deadline = room.deadline ? h("span.countdown", { "data-deadline": room.deadline }, countdownText(room.deadline)) : null;
    const top = h(
      "div.table-head",
      {},
      h("span.round", {}, t("table.round", { round: game.round })),
      h("span.teller", {}, rabbit(bySeat(game.storyteller)?.colour, nameOf(game.storyteller), { size: 22 }), t("table.storyteller", { name: nameOf(game.storyteller) })),
      deadline,
    );
    const clue = game.clue ? h("p.clue", { "aria-label": t("table.clue_label") }, t("table.quoted_clue", { clue: game.clue })) : null;
    const line = h("p.status-line", { role: "status", "aria-live": "polite" }, statusLine(room, game));
    return h(
      "section.table-screen",
      {},
      h(
        "div.play-area",
        {},
        top,
        clue,
        line,
        actedRow(room, game),
        phase === "vote" || game.table.length ? tableCards(room, game) : null,
        handStrip(room, game),
        ui.message ? h("p.error", { role: "alert" }, ui.message) : null,
        canAct ? actionBar(room, game) : null,
      ),
      h(
        "aside.side",
        {},
        scoreTrack(room, game, { nameOf, bySeat }),
        game.last_round
          ? h("button.small", { type: "button", onclick: () => ((ui.revealing = game.last_round), draw()) }, t("table.show_last_round"))
          : null,
        h(
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
        ),
        chatPanel(room),
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
        return h(
          "li",
          { class: done ? "done" : "waiting", title: `${nameOf(s)}: ${done ? t("table.done") : t("table.thinking")}` },
          rabbit(member?.colour, nameOf(s), { size: 26, lit: done }),
          h("span.sr-only", {}, `${nameOf(s)}: ${done ? t("table.done") : t("table.thinking")}`),
        );
      }),
    );
  }

  function tableCards(room, game) {
    const votable = new Set(legalOf("vote").flatMap((a) => a.slots));
    const redable = new Set(legalOf("red").map((a) => a.slot));
    const voting = game.phase === "vote" && me() !== null;
    const cards = game.table.map((entry) => {
      const count = ui.slots.filter((s) => s === entry.slot).length;
      const selectable = voting && (votable.has(entry.slot) || redable.has(entry.slot));
      const myVote = game.my_vote.filter((s) => s === entry.slot).length;
      return h(
        "li.table-card",
        { class: [count ? "chosen" : "", entry.yours ? "yours" : "", ui.red === entry.slot ? "red-chosen" : ""].join(" ") },
        h(
          "button.card-button",
          {
            type: "button",
            disabled: !selectable,
            "aria-pressed": count > 0 ? "true" : "false",
            "aria-label": t("table.card_slot", { slot: entry.slot }),
            "data-keep": `slot-${entry.slot}`,
            onclick: () => chooseSlot(game, entry.slot),
          },
          cardImage(entry.card, { width: 400 }),
          h("span.slot-number", {}, entry.slot),
          entry.yours ? h("span.tag", {}, t("table.yours")) : null,
          count ? h("span.token-mark", {}, "●".repeat(count)) : null,
          myVote && !count ? h("span.token-mark.sent", {}, "✓") : null,
          ui.red === entry.slot || game.my_red === entry.slot ? h("span.red-mark", {}, t("table.red_token")) : null,
        ),
        h("button.zoom", { type: "button", "aria-label": t("table.zoom"), onclick: () => cardViewer(game.table.map((e) => e.card), entry.slot - 1) }, "⤢"),
      );
    });
    return h("ol.table-cards", { class: `n${game.table.length}`, "aria-label": t("table.table") }, cards);
  }

  function chooseSlot(game, slot) {
    const votes = legalOf("vote");
    const reds = legalOf("red");
    // the party storyteller votes first, then places the red token (both stay changeable)
    if (reds.length && (!votes.length || game.my_vote.length > 0)) {
      ui.red = ui.red === slot ? null : slot;
      draw();
      return;
    }
    const tokens = game.tokens;
    const current = ui.slots.filter((s) => s === slot).length;
    const twiceAllowed = votes.some((a) => a.slots.length === 2 && a.slots[0] === slot && a.slots[1] === slot);
    if (current === 0) {
      ui.slots = tokens === 1 ? [slot] : [...ui.slots, slot].slice(-tokens);
    } else if (current === 1 && twiceAllowed && ui.slots.length < tokens) {
      ui.slots = [slot, slot];
    } else {
      ui.slots = ui.slots.filter((s) => s !== slot);
    }
    draw();
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
        { "aria-label": t("table.your_hand") },
        hand.map((card, index) => {
          const chosen = ui.hand.includes(card);
          const played = game.my_cards.includes(card);
          return h(
            "li.hand-card",
            { class: [chosen ? "chosen" : "", played ? "played" : ""].join(" ") },
            h(
              "button.card-button",
              {
                type: "button",
                disabled: !playable.has(card),
                "aria-pressed": chosen ? "true" : "false",
                "data-keep": `card-${card}`,
                onclick: () => chooseHandCard(game, card),
              },
              cardImage(card, { width: 400 }),
              played ? h("span.tag", {}, t("table.played")) : null,
            ),
            h("button.zoom", { type: "button", "aria-label": t("table.zoom"), onclick: () => cardViewer(hand, index) }, "⤢"),
          );
        }),
      ),
    );
  }

  function chooseHandCard(game, card) {
    const many = game.phase === "play" ? game.cards_to_play || 1 : 1;
    if (ui.hand.includes(card)) ui.hand = ui.hand.filter((c) => c !== card);
    else ui.hand = many === 1 ? [card] : [...ui.hand, card].slice(-many);
    draw();
  }

  function actionBar(room, game) {
    const buttons = [];
    const tell = legalOf("tell");
    const blind = legalOf("blind_clue");
    if (tell.length || blind.length) {
      const input = h("input.clue-input", {
        name: "clue",
        maxlength: 200,
        placeholder: t("table.clue_placeholder"),
        "aria-label": t("table.clue_label"),
        value: ui.clue,
        "data-keep": "clue",
        oninput: (event) => (ui.clue = event.target.value),
      });
      const ready = blind.length ? true : ui.hand.length === 1;
      return h(
        "form.action-bar",
        {
          onsubmit: async (event) => {
            event.preventDefault();
            const clue = ui.clue.trim();
            if (!clue) return;
            const reply = blind.length
              ? await send("act", { action: { type: "blind_clue", clue } })
              : await send("act", { action: { type: "tell", card: ui.hand[0], clue } });
            if (reply.type === "ack") ui.clue = "";
            draw();
          },
        },
        input,
        h("button.primary", { type: "submit", disabled: !ready || ui.sending }, blind.length ? t("table.give_clue") : t("table.tell")),
        !blind.length && !ready ? h("span.hint", {}, t("table.pick_card_first")) : null,
      );
    }
    const plays = legalOf("play");
    const proposals = legalOf("propose");
    if (plays.length || proposals.length) {
      const matching = plays.find((a) => samePlay(a.cards, ui.hand));
      buttons.push(
        h(
          "button.primary",
          { type: "button", disabled: !matching || ui.sending, onclick: () => send("act", { action: { type: "play", cards: ui.hand } }) },
          proposals.length ? t("table.play_for_team") : game.cards_to_play === 2 ? t("table.play_these") : t("table.play_this"),
        ),
      );
      if (proposals.length) {
        buttons.push(
          h(
            "button",
            { type: "button", disabled: ui.hand.length !== 1 || ui.sending, onclick: () => send("act", { action: { type: "propose", card: ui.hand[0] } }) },
            t("table.propose"),
          ),
        );
      }
      if (game.teammate_proposed) buttons.push(h("span.hint", {}, t("table.teammate_proposed")));
    }
    const votes = legalOf("vote");
    if (votes.length) {
      const matching = votes.find((a) => a.slots.length === ui.slots.length && [...a.slots].sort().join() === [...ui.slots].sort().join());
      buttons.push(
        h(
          "button.primary",
          { type: "button", disabled: !matching || ui.sending, onclick: () => send("act", { action: { type: "vote", slots: ui.slots } }) },
          ui.slots.length === 2 ? t("table.vote_both") : t("table.vote"),
        ),
      );
    }
    const reds = legalOf("red");
    if (reds.length) {
      buttons.push(
        h(
          "button.red",
          { type: "button", disabled: ui.red === null || ui.sending, onclick: () => send("act", { action: { type: "red", slot: ui.red } }) },
          t("table.place_red"),
        ),
      );
      if (votes.length) buttons.push(h("span.hint", {}, t("table.red_hint")));
    }
    return buttons.length ? h("div.action-bar", {}, buttons) : null;
  }

  // ---------------------------------------------------------------- reveal and the end

  function reveal(last) {
    const close = () => {
      ui.revealing = null;
      draw();
    };
    const votersOf = (slot) => last.votes.flatMap((slots, voter) => slots.filter((s) => s === slot).map(() => voter));
    return h(
      "div.overlay",
      { role: "dialog", "aria-modal": "true", "aria-label": t("reveal.title"), onkeydown: (event) => event.key === "Escape" && close() },
      h(
        "div.reveal",
        {},
        h("h2", {}, t("reveal.title_round", { round: last.round })),
        h("p.reveal-clue", {}, t("table.quoted_clue", { clue: last.clue })),
        h("p", {}, last.storyteller_scored ? t("reveal.scored", { name: nameOf(last.storyteller) }) : t("reveal.not_scored", { name: nameOf(last.storyteller) })),
        h(
          "ol.reveal-cards",
          {},
          last.table.map((card, index) => {
            const slot = index + 1;
            const owner = last.owners[index];
            const isTeller = card === last.storyteller_card;
            return h(
              "li.reveal-card",
              { class: isTeller ? "teller-card" : "", style: { "--delay": `${index * 0.15}s` } },
              cardImage(card, { width: 400 }),
              h("span.slot-number", {}, slot),
              h("div.owner", {}, rabbit(bySeat(owner)?.colour, nameOf(owner), { size: 22 }), nameOf(owner), isTeller ? ` · ${t("reveal.storytellers_card")}` : ""),
              h("div.voters", {}, votersOf(slot).map((voter) => rabbit(bySeat(voter)?.colour, nameOf(voter), { size: 20 }))),
              last.red === slot ? h("span.red-mark", {}, t("table.red_token")) : null,
            );
          }),
        ),
        h(
          "ul.points",
          {},
          last.points.map((points, s) =>
            h("li", { style: { "--delay": `${0.6 + s * 0.05}s` } }, rabbit(bySeat(s)?.colour, nameOf(s), { size: 22 }), nameOf(s), h("strong.gain", {}, ` +${points}`), ` → ${last.scores[s]}`),
          ),
        ),
        h("div.reveal-actions", {}, h("button.primary", { type: "button", "data-keep": "reveal-continue", onclick: close }, t("reveal.continue"))),
      ),
    );
  }

  function gameOver(room) {
    const game = room.game;
    const outcome = game.outcome;
    const order = game.scores.map((score, s) => ({ score, s })).sort((a, b) => b.score - a.score);
    let rank = 0;
    let previous = null;
    const rows = order.map(({ score, s }, index) => {
      if (score !== previous) rank = index + 1;
      previous = score;
      const member = bySeat(s);
      return h(
        "li",
        { class: outcome.winners.includes(s) ? "winner" : "" },
        h("span.rank", {}, rank),
        rabbit(member?.colour, nameOf(s), { size: 30 }),
        h("span.name", {}, nameOf(s)),
        h("span.score", {}, score),
      );
    });
    const winners = outcome.winners.map(nameOf).join(t("app.list_separator"));
    return h(
      "section.game-over",
      {},
      h("h2", {}, outcome.winners.length > 1 ? t("over.shared", { names: winners }) : t("over.winner", { name: winners })),
      h("ol.ranking", {}, rows),
      room.you?.host
        ? h("div.actions", {}, h("button.primary", { type: "button", onclick: () => send("rematch") }, t("over.rematch")))
        : h("p.hint", {}, t("over.rematch_wait")),
      h("p", {}, h("a", { href: "/", onclick: ctx.link("/") }, t("app.home"))),
      chatPanel(room),
    );
  }

  // ---------------------------------------------------------------- chat and timers

  function chatPanel(room) {
    if (me() === null && room.you === null && !ui.chat.length) return null;
    const teams = room.settings.mode === "teams";
    const input = h("input", {
      name: "chat",
      maxlength: 300,
      placeholder: ui.teamChat ? t("chat.team_placeholder") : t("chat.placeholder"),
      "aria-label": t("chat.label"),
      "data-keep": "chat",
    });
    return h(
      "details.chat",
      { open: ui.chatOpen, ontoggle: (event) => (ui.chatOpen = event.target.open) },
      h("summary", {}, t("chat.title"), ui.chat.length ? ` (${ui.chat.length})` : ""),
      h(
        "ol.chat-lines",
        { "aria-live": "polite" },
        ui.chat.slice(-30).map((line) => h("li", { class: line.team_only ? "team" : "" }, h("strong", {}, line.name, ": "), line.text)),
      ),
      room.you
        ? h(
            "form.chat-form",
            {
              onsubmit: async (event) => {
                event.preventDefault();
                const text = input.value.trim();
                if (!text) return;
                input.value = "";
                await send("say", { text, team_only: teams && ui.teamChat });
              },
            },
            input,
            teams
              ? h("label.small", {}, h("input", { type: "checkbox", checked: ui.teamChat, onchange: (e) => (ui.teamChat = e.target.checked) }), ` ${t("chat.team_only")}`)
              : null,
            h("button", { type: "submit" }, t("chat.send")),
          )
        : null,
    );
  }

  function countdownText(deadline) {
    const left = Math.max(0, Math.round(deadline - Date.now() / 1000));
    return t("table.time_left", { time: `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}` });
  }

  function updateCountdown() {
    for (const element of document.querySelectorAll(".countdown[data-deadline]")) {
      element.textContent = countdownText(Number(element.dataset.deadline));
    }
  }

  describeCards(code).then(draw);
  return () => {
    clearInterval(tick);
    table.close();
  };
}
