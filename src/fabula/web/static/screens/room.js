// Your seat in a room: the lobby, the table in every mode, the reveal and the end of the game.
// Each new state from the server redraws the screen; what the player is choosing (cards, slots,
// the clue being typed) lives here between states. The reveal is drawn once, in the layer above
// the screen, so that a redraw (any bot's move) never moves the reader's place in it.
import { CHOICES } from "../choices.js";
import { h } from "../dom.js";
import { language, listText, t } from "../i18n.js";
import { ApiError, api, DOUBLE_TAP_MS, saveSeat, savedSeat, Table } from "../net.js";
import { rabbit } from "../rabbits.js";
import {
  cardImage,
  cardViewer,
  awayLines,
  countdown,
  describeCards,
  errorText,
  inviteBlock,
  markRabbits,
  memberName,
  scoreTrack,
  sideName,
  sideOf,
  sideRabbit,
  sides,
  tickCountdowns,
  timeLeft,
} from "./parts.js";
import { picturesPanel, picturesShort, picturesState } from "./pictures.js";
import { buildReveal } from "./reveal.js";
import { createAlbumView, createHistory, missedRounds, replayOverlay } from "./album.js";

/** What a host can pick when adding a bot, in the server's order for the menu. */
const BOT_LEVELS = CHOICES.bot_levels;
const SEAT_RANGES = Object.fromEntries(CHOICES.modes.map((mode) => [mode.name, mode.seats]));

function samePlay(a, b) {
  return a.length === b.length && [...a].sort().join("|") === [...b].sort().join("|");
}

function shortClue(clue) {
  const chars = [...clue];
  return chars.length > 40 ? `${chars.slice(0, 36).join("").trimEnd()}…` : clue;
}

export function roomScreen(ctx, code, watch) {
  const seat = watch ? null : savedSeat(code);
  if (!watch && !seat) {
    ctx.go(`/join/${code}`, true);
    return null;
  }
  const ui = {
    pictures: picturesState(),
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
    teamChat: null, // teams: whether chat goes to the partner only (null: yes, the default there)
    revealKey: 0, // the last reveal shown (games_started × 1000 + round)
    firstStateSeen: false,
    revealing: null,
    revealGame: 0, // the game (games_started) whose round the open reveal shows
    reveal: null, // the reveal's drawn dialog, and the parts of it that follow the table
    fatal: null,
    message: "",
    notice: "", // what the last accepted move did ("Your vote is in")
    sending: false,
    confirming: null, // "leave" or "end": the second tap a serious button asks for
    invite: null,
    sound: localStorage.getItem("fabula.sound") !== "off",
    wasAwaited: false,
    swapPick: null, // teams lobby: the first player the host tapped to change places
    storySeen: sessionStorage.getItem(`fabula.story.${code}`) || "",
    album: null, // the album view (game over, or a game of the history), kept across redraws
    albumFor: null, // the game whose album the game over asked for
    history: null, // the room's finished games (members only)
    missed: null, // the rounds a player back at the table missed: {key, album, node}
    closeReplay: null,
    albumOpen: false, // the lobby shows the album a history entry opened
    botLevel: BOT_LEVELS.includes(localStorage.getItem("fabula.botLevel")) ? localStorage.getItem("fabula.botLevel") : CHOICES.default_bot_level,
  };
  const partnerOnly = () => ui.teamChat ?? ui.room?.settings.mode === "teams";
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
      if (code_ === "bad_token" || code_ === "removed") saveSeat(code, null);
      ui.message = message;
      closeReveal();
      draw();
    },
  });
  table.open();
  const tick = setInterval(tickCountdowns, 1000);
  api(`/api/rooms/${code}`)
    .then((summary) => {
      ui.invite = summary.invite;
      draw();
    })
    .catch(() => {});

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
  function partnerSeat(game) {
    if (!game?.teams || me() === null) return null;
    return sideOf(game, me()).seats.find((s) => s !== me());
  }

  // ---------------------------------------------------------------- albums

  const token = seat?.token ?? null;

  // A game's album: a member asks over HTTP with the seat token; a spectator over the socket
  // (the latest game only).
  async function loadAlbum(number) {
    if (token) return api(`/api/rooms/${code}/games/${number}`, undefined, { token });
    const reply = await table.send("album", { game: null });
    if (reply.type !== "album") throw new ApiError(reply.code || "unknown", reply.message || "");
    return reply.album;
  }

  function albumView() {
    if (!ui.album) {
      ui.album = createAlbumView({
        links: token
          ? {
              png: (album, round) => `/api/rooms/${code}/games/${album.number}/album.png?lang=${encodeURIComponent(language)}${round ? `&round=${round}` : ""}`,
              token,
              share: (album) => api(`/api/rooms/${code}/games/${album.number}/share`, {}, { token }),
              filename: (album) => `fabula-${code}-${album.number}`,
            }
          : null,
        onReplay: openReplay,
      });
    }
    return ui.album;
  }

  function openReplay(album) {
    ui.closeReplay?.();
    ui.closeReplay = replayOverlay(album, ctx, { start: 0, playing: true });
  }

  function history() {
    if (!token) return null;
    if (!ui.history) {
      ui.history = createHistory(code, token, {
        onOpen: async (number) => {
          const view = albumView();
          try {
            view.show(await loadAlbum(number), { keepPlace: false });
          } catch {
            return;
          }
          ui.albumOpen = true;
          draw();
          view.element.scrollIntoView({ behavior: "smooth", block: "start" });
        },
        onReplay: async (number) => {
          try {
            openReplay(await loadAlbum(number));
          } catch {
            /* the album is not there: nothing to replay */
          }
        },
      });
      ui.history.refresh();
    }
    return ui.history.element;
  }

  // At the end of a game: its album (asked once), and the history with it.
  function followAlbum(room) {
    if (room.status !== "over" || ui.albumFor === room.games_started) return;
    const number = room.games_started;
    ui.albumFor = number;
    const view = albumView();
    view.show(null);
    loadAlbum(number)
      .then((album) => {
        if (ui.albumFor !== number) return;
        if (album) view.show(album, { keepPlace: false });
        else view.fail();
      })
      .catch(() => ui.albumFor === number && view.fail());
    ui.history?.refresh();
  }

  function onNewState() {
    const room = ui.room;
    markRabbits(room.members);
    if (ui.host !== undefined && room.host !== ui.host && room.host !== null) {
      // said until the end of the next round
      const host = room.members.find((m) => m.member === room.host);
      const text = room.host === room.you?.member ? t("room.you_host") : t("room.new_host", { name: memberName(host) });
      ui.hostNotice = { text, until: (room.game?.round ?? 0) + 1 };
    }
    ui.host = room.host;
    followAlbum(room);
    if (room.status === "playing") ui.albumFor = null;
    // a round of the game before a rematch is no news once the next game has started
    if (ui.reveal && ui.revealGame !== room.games_started) closeReveal();
    const game = room.game;
    if (!game) return;
    const key = `${room.games_started}:${game.round}:${game.phase}`;
    if (key !== ui.phaseKey) {
      ui.phaseKey = key;
      ui.hand = [];
      ui.slots = [];
      ui.red = null;
      ui.message = "";
      ui.notice = "";
    }
    if (room.status !== "playing" && ui.confirming === "end") ui.confirming = null;
    // A round's reveal shows once, when it happens; not again on a reload or a reconnect.
    const last = game.last_round;
    if (last) {
      const revealKey = room.games_started * 1000 + last.round;
      if (ui.firstStateSeen && revealKey > ui.revealKey) openReveal(last);
      ui.revealKey = Math.max(ui.revealKey, revealKey);
    }
    ui.firstStateSeen = true;
    const now = awaited();
    if (now && !ui.wasAwaited) nudge();
    ui.wasAwaited = now;
    document.title = now ? `● ${t("app.your_move")} · Fabula` : `Fabula · ${code}`;
    if (me() !== null && game.phase !== "over" && ui.legalSeq !== room.seq) {
      const seq = room.seq;
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

  let lastTap = { card: null, at: 0 }; // (see tapIgnored)

  // Send a message and show what became of it. A second tap while the first is on its way sends
  // nothing more (`Table.send` answers both with the one reply).
  async function send(type, fields, done = "") {
    ui.sending = true;
    lastTap = { card: null, at: 0 }; // (a tap after a move is a new choice, however soon)
    draw();
    const phase = ui.phaseKey;
    const reply = await table.send(type, fields);
    ui.sending = false;
    if (reply.type === "error") {
      ui.message = errorText(reply.code, reply.message);
      ui.notice = "";
    } else {
      ui.message = "";
      // (the move may have closed the phase: its state came before this answer)
      if (ui.phaseKey === phase) ui.notice = done;
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
      const removed = ui.fatal === "removed";
      ctx.render(
        h(
          "section.card-panel.fatal",
          {},
          h("h2", {}, errorText(ui.fatal)),
          removed ? null : h("p", {}, ui.message),
          h(
            "div.actions",
            {},
            removed ? h("a.button", { href: `/room/${code}?watch=1`, onclick: ctx.link(`/room/${code}?watch=1`) }, t("join.watch")) : null,
            h("a.button.primary", { href: "/", onclick: ctx.link("/") }, t("app.home")),
          ),
        ),
      );
      return;
    }
    const room = ui.room;
    if (!room) {
      ctx.render(h("p.notice", {}, t("app.connecting")), { headerExtra: connection() });
      return;
    }
    const extra = [
      h("span.room-code", {}, t("room.code", { code })),
      room.you === null ? h("span.badge.watching", {}, t("room.watching")) : null,
      connection(),
    ];
    let body;
    if (room.status === "lobby") body = lobby(room);
    else if (room.status === "over") body = gameOver(room);
    else body = tableView(room);
    ctx.render(body, { headerExtra: extra, wide: room.status !== "lobby" });
    if (ui.reveal) followReveal();
  }

  function hostLine(room) {
    const notice = ui.hostNotice;
    return notice && (room.game?.round ?? 0) <= notice.until ? h("p.notice-line.host-notice", { role: "status" }, notice.text) : null;
  }

  function connection() {
    return h(
      "span.connection",
      { class: ui.status, role: "status", title: t(`connection.${ui.status}`) },
      h("span.dot", { "aria-hidden": "true" }),
      h("span.connection-text", {}, t(`connection.${ui.status}`)),
    );
  }

  // A button that asks for a second tap before it does something that cannot be undone.
  function serious(what, label, question, confirmLabel, action) {
    if (ui.confirming !== what) {
      return h("button.small.quiet", { type: "button", onclick: () => ((ui.confirming = what), draw()) }, label);
    }
    return h(
      "div.confirm",
      { role: "group", "aria-label": label },
      h("p", {}, question),
      h(
        "div.actions",
        {},
        h("button.danger", { type: "button", disabled: ui.sending, "data-keep": `confirm-${what}`, onclick: action }, confirmLabel),
        h("button", { type: "button", onclick: () => ((ui.confirming = null), draw()) }, t("app.cancel")),
      ),
    );
  }

  function leaveButton(room) {
    if (!room.you) return null;
    const question = room.status === "playing" ? t("room.leave_game_question") : t("room.leave_question");
    return serious("leave", t("room.leave"), question, t("room.leave_now"), async () => {
      const reply = await send("leave", { for_good: true });
      if (reply.type === "ack") {
        saveSeat(code, null);
        ctx.go("/");
      }
    });
  }

  // ---------------------------------------------------------------- lobby

  function startProblem(room, count, low, high) {
    const mode = room.settings.mode;
    if (count < low) return t("lobby.need_more", { count: low - count, low });
    if (count > high) return t("lobby.too_many", { high });
    if (mode === "teams" && count % 2) return t("lobby.teams_even");
    return "";
  }

  function lobby(room) {
    const host = room.you?.host;
    const mode = room.settings.mode;
    const [low, high] = SEAT_RANGES[mode];
    const count = room.members.length;
    const problem = startProblem(room, count, low, high);
    // (the pictures panel says how many more of the group's pictures the game needs)
    const blocked = Boolean(problem) || picturesShort(room, ui.pictures).short > 0;
    const seats = h(
      "ul.seats",
      {},
      room.members.map((m) =>
        h(
          "li.seat",
          { class: m.connected ? "here" : "gone" },
          rabbit(m.colour, memberName(m), { size: 36, lit: m.connected }),
          h(
            "span.seat-label",
            {},
            h("span.seat-name", {}, memberName(m)),
            h(
              "span.badges",
              {},
              m.member === room.host ? h("span.badge", {}, t("lobby.host")) : null,
              m.bot ? h("span.badge", { title: t(`bot.${m.bot}.hint`) }, t("lobby.bot_badge", { level: t(`bot.${m.bot}`) })) : null,
              m.member === room.you?.member ? h("span.badge.you", {}, t("lobby.you")) : null,
            ),
          ),
          host && m.member !== room.you?.member ? kickButton(m) : null,
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
    let controls;
    if (host) {
      controls = h(
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
        h("button", { type: "button", disabled: count >= high || ui.sending, onclick: () => send("add_bot", { level: ui.botLevel, language }) }, t("lobby.add_bot")),
        h("button.primary", { type: "button", disabled: blocked || ui.sending, onclick: () => send("start") }, t("lobby.start")),
      );
    } else if (room.you) {
      controls = h("p.status-line", {}, t("lobby.waiting_host", { name: memberName(room.members.find((m) => m.member === room.host)) ?? "" }));
    } else {
      controls = h(
        "div.actions",
        {},
        count < high
          ? h("a.button.primary", { href: `/join/${code}`, onclick: ctx.link(`/join/${code}`) }, t("room.take_seat"))
          : h("p.hint", {}, t("join.full"), room.members.some((m) => m.bot) ? ` ${t("join.full_bots")}` : ""),
      );
    }
    // the buttons come before the seats: a new seat (a bot added) never moves them under a finger
    return h(
      "section.lobby",
      {},
      h("h2", {}, t(`mode.${mode}`)),
      h("p.hint", {}, t(`mode.${mode}.summary`), " ", t("lobby.count", { count, low, high })),
      controls,
      ui.message ? h("p.error", { role: "alert" }, ui.message) : null,
      hostLine(room),
      problem && room.you ? h("p.start-problem", { role: "status" }, problem) : null,
      host ? h("p.hint.bot-language", {}, t("lobby.bot_language")) : null,
      seats,
      teams,
      room.games_started ? history() : null,
      ui.albumOpen && ui.album?.album ? ui.album.element : null,
      room.you || room.settings.decks.includes("pictures")
        ? picturesPanel({
            room,
            code,
            token: seat?.token ?? null,
            p: ui.pictures,
            redraw: draw,
            send,
            errorText: (error) => errorText(error.code, error.message),
          })
        : null,
      h(
        "div.invite",
        {},
        h("h3", {}, t("lobby.invite")),
        inviteBlock(code, ui.invite),
        h("p", {}, h("a", { href: `/room/${code}/board`, target: "_blank" }, t("lobby.board_link"))),
      ),
      h("div.leave-row", {}, leaveButton(room)),
      chatPanel(room),
    );
  }

  // A bot goes at one tap; a person is asked about first.
  function kickButton(m) {
    if (m.bot) return h("button.small", { type: "button", onclick: () => send("kick", { member: m.member }) }, t("lobby.remove_bot"));
    const what = `kick-${m.member}`;
    if (ui.confirming !== what) return h("button.small", { type: "button", onclick: () => ((ui.confirming = what), draw()) }, t("lobby.kick"));
    return h(
      "span.confirm-inline",
      {},
      h("button.small.danger", { type: "button", "data-keep": what, onclick: () => ((ui.confirming = null), send("kick", { member: m.member })) }, t("lobby.kick_now", { name: memberName(m) })),
      h("button.small", { type: "button", onclick: () => ((ui.confirming = null), draw()) }, t("app.cancel")),
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
    const waitingFor = listText(game.awaiting.filter((s) => s !== mine).map(nameOf));
    // a long clue is the big heading already: the prompt quotes its start
    const clue = shortClue(game.clue ?? "");
    if (game.phase === "clue") {
      if (mine === game.storyteller) {
        return game.hand_hidden ? t("table.blind_clue") : t("table.you_tell");
      }
      return room.settings.mode === "party" ? t("table.teller_thinking_blind", { name: teller }) : t("table.teller_thinking", { name: teller });
    }
    if (awaited()) {
      if (game.phase === "play") {
        if (legalOf("propose").length) return t("table.team_play", { clue });
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
      if (action.type === "tell") return t("story.told", { clue: action.clue });
      if (action.type === "blind_clue") return t("story.blind_clue", { clue: action.clue });
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

  function tableView(room) {
    const game = room.game;
    const mine = me();
    const phase = game.phase;
    const canAct = awaited() || (mine !== null && (phase === "play" || phase === "vote") && ui.legal?.length);
    const deadline = room.deadline ? countdown(room.deadline, timeLeft) : null;
    const partner = partnerSeat(game);
    const top = h(
      "div.table-head",
      {},
      h("span.round", {}, t("table.round", { round: game.round })),
      h("span.teller", {}, rabbit(bySeat(game.storyteller)?.colour, nameOf(game.storyteller), { size: 22 }), h("span.head-name", {}, t("table.storyteller", { name: nameOf(game.storyteller) }))),
      partner !== null && partner !== undefined
        ? h("span.partner", {}, rabbit(bySeat(partner)?.colour, nameOf(partner), { size: 22 }), h("span.head-name", {}, t("table.partner", { name: nameOf(partner) })))
        : null,
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
        awayLines(game, { bySeat, nameOf, mine: me() }),
        missedStory(room, game),
        actedRow(room, game),
        phase === "vote" || game.table.length ? tableCards(room, game) : null,
        handStrip(room, game),
        ui.message ? h("p.error", { role: "alert" }, ui.message) : null,
        ui.notice ? h("p.notice-line", { role: "status" }, ui.notice) : null,
        hostLine(room),
        canAct ? actionBar(room, game) : null,
      ),
      h(
        "aside.side",
        {},
        scoreTrack(room, game, { nameOf, bySeat }),
        game.last_round ? h("button.small", { type: "button", onclick: () => openReveal(game.last_round) }, t("table.show_last_round")) : null,
        room.you ? soundToggle() : null,
        room.you ? null : takeOver(room),
        room.you?.host ? serious("end", t("room.end"), t("room.end_question"), t("room.end_now"), () => send("end")) : null,
        leaveButton(room),
        chatPanel(room),
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
          partners(entry) ? h("span.tag", {}, t("table.partners")) : null,
          count ? h("span.token-mark", {}, "●".repeat(count)) : null,
          myVote && !count ? h("span.token-mark.sent", {}, "✓") : null,
          ui.red === entry.slot || game.my_red === entry.slot ? h("span.red-mark", {}, t("table.red_token")) : null,
        ),
        h("button.zoom", { type: "button", "aria-label": t("table.zoom"), onclick: () => cardViewer(game.table.map((e) => e.card), entry.slot - 1) }, "⤢"),
      );
    });
    return h("ol.table-cards", { class: `n${game.table.length}`, "aria-label": t("table.table") }, cards);
  }

  // Whether a tap on a card should change nothing: the move already made is still on its way (it
  // would go as chosen then, whatever the screen showed after), or it is the second tap of a
  // double tap on the same card, with no move made between (a tap chooses or lets go: the second
  // undid the first).
  function tapIgnored(card) {
    const now = Date.now();
    const again = lastTap.card === card && now - lastTap.at < DOUBLE_TAP_MS;
    lastTap = { card, at: now };
    return ui.sending || again;
  }

  function chooseSlot(game, slot) {
    if (tapIgnored(`slot-${slot}`)) return;
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
        { "aria-label": t("table.your_hand"), "data-scroll": "hand" },
        hand.map((card, index) => {
          const chosen = ui.hand.includes(card);
          const played = game.my_cards.includes(card);
          const proposed = game.my_proposal === card;
          return h(
            "li.hand-card",
            { class: [chosen ? "chosen" : "", played ? "played" : "", proposed ? "proposed" : ""].join(" ") },
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
              played ? h("span.tag", {}, t("table.played")) : proposed ? h("span.tag", {}, t("table.suggested")) : null,
            ),
            h("button.zoom", { type: "button", "aria-label": t("table.zoom"), onclick: () => cardViewer(hand, index) }, "⤢"),
          );
        }),
      ),
    );
  }

  function chooseHandCard(game, card) {
    if (tapIgnored(card)) return;
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
    if (tell.length || blind.length) {
      const input = h("input.clue-input", {
        name: "clue",
        maxlength: CHOICES.text_max.clue,
        placeholder: t("table.clue_placeholder"),
        "aria-label": t("table.clue_label"),
        value: ui.clue,
        "data-keep": "clue",
        oninput: (event) => {
          ui.clue = event.target.value;
          showLength();
          if (ui.message === t("error.clue_empty") && ui.clue.trim()) {
            ui.message = "";
            draw();
          }
        },
      });
      // near the limit, the clue says how long it is (the field takes no more than 200)
      const length = h("span.hint.clue-length", { "aria-live": "polite" });
      const showLength = () => {
        const count = [...ui.clue].length;
        length.textContent = count >= 150 ? t("table.clue_length", { count, max: 200 }) : "";
      };
      showLength();
      const ready = blind.length ? true : ui.hand.length === 1;
      return h(
        "form.action-bar",
        {
          onsubmit: async (event) => {
            event.preventDefault();
            const clue = ui.clue.trim();
            if (!clue) {
              ui.message = t("error.clue_empty");
              draw();
              document.querySelector(".clue-input")?.focus();
              return;
            }
            if (!blind.length && ui.hand.length !== 1) {
              ui.message = t("table.pick_card_first");
              draw();
              return;
            }
            const reply = blind.length
              ? await send("act", { action: { type: "blind_clue", clue } })
              : await send("act", { action: { type: "tell", card: ui.hand[0], clue } });
            if (reply.type === "ack") ui.clue = "";
            draw();
          },
        },
        input,
        h("button.primary", { type: "submit", disabled: ui.sending }, blind.length ? t("table.give_clue") : t("table.tell")),
        length,
        !blind.length && !ready ? h("span.hint", {}, t("table.pick_card_first")) : null,
        awayHint(),
      );
    }
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
      if (votes.length) buttons.push(h("span.hint", {}, t("table.red_hint")));
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

  // ---------------------------------------------------------------- the reveal

  function openReveal(last) {
    closeReveal();
    ui.revealing = last;
    ui.revealGame = ui.room.games_started;
    ui.reveal = buildReveal(last, ui.room.game, {
      nameOf,
      bySeat,
      onClose: () => {
        closeReveal();
        draw();
      },
    });
    ctx.overlay(ui.reveal.dialog);
    ui.reveal.dialog.querySelector("button.primary")?.focus(); // Escape and Enter reach the dialog
  }

  function closeReveal() {
    if (!ui.reveal) return;
    ui.revealing = null;
    ui.reveal = null;
    ctx.overlay(null);
  }

  // What in the open reveal follows the table: whether your move is awaited, and its timer.
  function followReveal() {
    const room = ui.room;
    const turn = ui.reveal.turn;
    const mine = awaited() && room.game?.phase !== "over";
    const wanted = mine ? `${room.seq}` : "";
    if (turn.dataset.seq === wanted) return;
    turn.dataset.seq = wanted;
    turn.replaceChildren(...(mine ? [t("reveal.your_turn"), room.deadline ? " " : "", room.deadline ? countdown(room.deadline, timeLeft) : ""] : []));
    turn.hidden = !mine;
  }

  // ---------------------------------------------------------------- the end

  function gameOver(room) {
    const game = room.game;
    const rows = sides(game);
    const winners = rows.filter((row) => row.rank === 1);
    const names = listText(winners.map((row) => sideName(row, nameOf)));
    const ranking = rows.map((row) =>
      h(
        "li",
        { class: row.rank === 1 ? "winner" : "" },
        h("span.rank", {}, row.rank),
        sideRabbit(row, nameOf, bySeat, { size: 30 }),
        h("span.name", {}, sideName(row, nameOf)),
        h("span.score", {}, row.score),
      ),
    );
    return h(
      "section.game-over",
      {},
      h("h2", {}, winners.length > 1 ? t("over.shared", { names }) : game.teams ? t("over.team_wins", { name: names }) : t("over.winner", { name: names })),
      h("ol.ranking", {}, ranking),
      room.you?.host
        ? h("div.actions", {}, h("button.primary", { type: "button", disabled: ui.sending, onclick: () => send("rematch") }, t("over.rematch")))
        : h("p.hint", {}, room.you ? t("over.rematch_wait") : t("over.watching")),
      ui.message ? h("p.error", { role: "alert" }, ui.message) : null,
      hostLine(room),
      albumView().element,
      history(),
      h("p", {}, h("a", { href: "/", onclick: ctx.link("/") }, t("app.home"))),
      h("div.leave-row", {}, leaveButton(room)),
      chatPanel(room),
    );
  }

  // ---------------------------------------------------------------- chat

  function chatPanel(room) {
    if (me() === null && room.you === null && !ui.chat.length) return null;
    const teams = room.settings.mode === "teams";
    const input = h("input", {
      name: "chat",
      maxlength: CHOICES.text_max.chat,
      placeholder: teams && partnerOnly() ? t("chat.team_placeholder") : t("chat.placeholder"),
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
                await send("say", { text, team_only: teams && partnerOnly() });
              },
            },
            input,
            teams
              ? h(
                  "label.small",
                  {},
                  h("input", {
                    type: "checkbox",
                    checked: partnerOnly(),
                    onchange: (e) => {
                      ui.teamChat = e.target.checked;
                      draw();
                    },
                  }),
                  ` ${t("chat.team_only")}`,
                )
              : null,
            h("button", { type: "submit" }, t("chat.send")),
          )
        : null,
    );
  }

  ctx.relabel = () => {
    // the words change, not the table: the connection, the choices and an open reveal stay
    if (ui.room) markRabbits(ui.room.members);
    if (ui.reveal) {
      const last = ui.revealing;
      openReveal(last);
    }
    ui.album?.redraw();
    ui.history?.redraw();
    if (ui.missed) ui.missed.node = null;
    draw();
  };
  describeCards(code).then(draw);
  return () => {
    clearInterval(tick);
    table.close();
    closeReveal();
    ui.closeReplay?.();
    ui.album?.destroy();
  };
}
