// Your seat in a room: the lobby, the table in every mode, the reveal and the end of the game.
// This is the room's store: what the server said (the state, the chat, the connection), what the
// player is choosing between states (cards, slots, the clue being typed), and how to send. Each
// change draws the screen again from it — the parts in room/ (lobby, table, action bar, game over
// and chat) are functions of it — and `show` updates the page in place. The reveal is drawn once,
// in the layer above the screen, so that a redraw (any bot's move) never moves the reader's place.
import { h } from "../dom.js";
import { language, t } from "../i18n.js";
import { ApiError, api, rememberRemoval, saveSeat, savedSeat, Table } from "../net.js";
import { countdown, describeCards, errorText, markRabbits, memberName, sideOf, tickCountdowns } from "./parts.js";
import { picturesState } from "./pictures.js";
import { buildReveal } from "./reveal.js";
import { createAlbumView, createHistory } from "./album.js";
import { roomPeople } from "./chart.js";
import { replayOverlay } from "./replay.js";
import { actionsPart } from "./room/actions.js";
import { askList, roomCode, streaming } from "./room/streamer.js";
import { lobbyPart, savedBotLevel } from "./room/lobby.js";
import { overPart } from "./room/over.js";
import { tablePart } from "./room/table.js";

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
    hand: [], // chosen hand cards
    slots: [], // chosen table slots (a slot twice: both tokens on it)
    red: null,
    clue: "",
    aloud: false, // the storyteller chose "I said it aloud": the words typed are then optional
    clueLimit: "", // the clue at its limit: "full" (a key pressed there), "cut" (what went past it left out)
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
    movesNext: 0, // with two voting tokens, the one a tap on a third card moves (its index in slots)
    tokenMoved: "", // … and what the bar says of the move
    botsWanted: 0, // "Add a bot" taps not answered yet: each adds one, in turn
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
    botLevel: savedBotLevel(),
    lastTap: { card: null, at: 0 }, // (see tapIgnored, room/actions.js)
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
      if (code_ === "removed") rememberRemoval(code, seat?.token);
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
        draw(); // (the ranking names a seat taken over as the album does)
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
    // a new stage of the room (the game starts, ends, starts again) is read from its top
    if (ui.stage !== undefined && ui.stage !== room.status) ui.toTop = true;
    ui.stage = room.status;
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
      ui.movesNext = 0;
      ui.tokenMoved = "";
      ui.red = null;
      ui.changingVote = false;
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
  }

  function nudge() {
    // Before the first tap on the page (as after a reload) a browser refuses both, with an error
    // on the console each time: the page's title still tells.
    if (!(navigator.userActivation?.hasBeenActive ?? true)) return;
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

  // Send a message and show what became of it. A second tap while the first is on its way sends
  // nothing more (`Table.send` answers both with the one reply).
  async function send(type, fields, done = "", options = {}) {
    ui.sending = true;
    ui.lastTap = { card: null, at: 0 }; // (a tap after a move is a new choice, however soon)
    draw();
    const phase = ui.phaseKey;
    const reply = await table.send(type, fields, options);
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
        if (kind === "vote") {
          ui.slots = [];
          ui.tokenMoved = "";
          ui.changingVote = false;
        }
        if (kind === "play" || kind === "propose") ui.hand = [];
      }
    }
    draw();
    return reply;
  }

  // the moves the seat may make now come with each state
  function legalOf(type) {
    return (ui.room?.you?.legal ?? []).filter((a) => a.type === type);
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
      roomCode(room, code, draw),
      room.you === null ? h("span.badge.watching", {}, t("room.watching")) : null,
      connection(),
    ];
    let body;
    if (room.status === "lobby") body = v.lobby(room);
    else if (room.status === "over") body = v.gameOver(room);
    else body = v.tableView(room);
    if (room.status !== "lobby" && room.asks?.length) body = [askList(room, send), body]; // (streamer mode: to take over a seat)
    ctx.render(body, { headerExtra: extra, wide: room.status !== "lobby" });
    // which state the page shows (tests and tools wait for a state to be drawn by it)
    document.documentElement.dataset.seq = String(room.seq);
    // (here, not where a state comes in: the words follow a change of language too)
    document.title = awaited() ? `● ${t("app.your_move")} · Fabula` : streaming(room) ? "Fabula" : `Fabula · ${code}`;
    if (ui.toTop) {
      ui.toTop = false;
      window.scrollTo({ top: 0, behavior: "instant" });
    }
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

  // ---------------------------------------------------------------- the table

  // ---------------------------------------------------------------- the reveal

  function openReveal(last) {
    closeReveal();
    ui.revealing = last;
    ui.revealGame = ui.room.games_started;
    // (a seat taken over since: the round names who played it then, as its album does)
    const people = roomPeople(ui.room, last.round);
    ui.reveal = buildReveal(last, ui.room.game, {
      nameOf: people.nameOf,
      bySeat: people.bySeat,
      room: ui.room,
      onClose: () => {
        closeReveal();
        draw();
      },
    });
    ctx.overlay(ui.reveal.dialog);
    // Escape and Enter reach the dialog — unless the player is typing (a chat line, a clue): the
    // next keys are theirs, and a space would close the reveal unseen
    const field = document.activeElement;
    const typing = field?.matches?.("input:not([type=checkbox]):not([type=radio]), textarea") && field.closest("#layer") === null;
    if (!typing) ui.reveal.dialog.querySelector("button.primary")?.focus();
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
    ui.reveal.follow(room); // (the crowd's vote, as it comes)
    const turn = ui.reveal.turn;
    const mine = awaited() && room.game?.phase !== "over";
    const wanted = mine ? `${room.seq}` : "";
    if (turn.dataset.seq === wanted) return;
    turn.dataset.seq = wanted;
    turn.replaceChildren(...(mine ? [t("reveal.your_turn"), room.deadline ? " " : "", room.deadline ? countdown(room.deadline, v.timerWords(room, room.game)) : ""] : []));
    turn.hidden = !mine;
  }

  // ---------------------------------------------------------------- the parts

  // What the parts of the screen read and call: the store, and each other (through `v`).
  const v = {
    ui,
    code,
    ctx,
    token,
    send,
    draw,
    me,
    members,
    bySeat,
    nameOf,
    awaited,
    partnerSeat,
    legalOf,
    connection,
    serious,
    leaveButton,
    hostLine,
    loadAlbum,
    albumView,
    history,
    openReveal,
    partnerOnly,
  };
  Object.assign(v, lobbyPart(v), tablePart(v), actionsPart(v), overPart(v));

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
