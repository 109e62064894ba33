// The audience's phone (/watch/CODE): anyone with the link watches the game and, each round,
// votes once for the card they think is the storyteller's — never changing the players' scores.
// A name, then the table as the room goes: "Mara is choosing…", the cards to vote on (a tap
// chooses, the button votes), "You voted", and after the reveal the storyteller's card, where the
// crowd's vote went, whether you were right and your points; at the game over the album with the
// audience's leaderboard. The browser keeps its audience token per room (localStorage): a reload
// is the same audience member, with the same vote and points.
import { h } from "../dom.js";
import { listText, t } from "../i18n.js";
import { api, DOUBLE_TAP_MS, Table } from "../net.js";
import { rabbit } from "../rabbits.js";
import { aloudHeading, clueWords, hasClue } from "./clue.js";
import { roomPeople } from "./chart.js";
import { audienceLine, crowdFound, crowdOf, number } from "./crowd.js";
import { createAlbumView } from "./album.js";
import { cardImage, cardViewer, describeCards, errorText, markRabbits, memberName, roundLine, scoreTrack, sideName, sides, tickCountdowns, timeLeft } from "./parts.js";
import { roundParts } from "./reveal.js";
import { pausedWords, phaseTimer } from "./room/clock.js";
import { nameField, tooLongName } from "./name_field.js";
import { roomCode } from "./room/streamer.js";
import { soundPlayer } from "./sound.js";

const KEPT = "fabula.audience";

function kept() {
  try {
    return JSON.parse(localStorage.getItem(KEPT) || "{}");
  } catch {
    return {};
  }
}

// This browser's audience member in room ``code``: {token, name, votes: {"game:round": card}}.
export function savedAudience(code) {
  return kept()[code] ?? null;
}

function saveAudience(code, member) {
  const all = kept();
  delete all[code]; // (the newest last)
  if (member) all[code] = member;
  const codes = Object.keys(all);
  for (const old of codes.slice(0, Math.max(0, codes.length - 20))) delete all[old]; // a few rooms are enough
  localStorage.setItem(KEPT, JSON.stringify(all));
}

// A random audience token: 24 characters of base64url, made once per room.
function newToken() {
  const bytes = crypto.getRandomValues(new Uint8Array(18));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

// The join page's way into the audience ("Watch and vote"); ``primary`` when it is the only way in.
// A name typed on the join page comes along (``typed``): it is not asked for twice.
export function audienceButton(ctx, code, primary = false, typed = () => "") {
  const path = `/watch/${code}`;
  const go = ctx.link(path);
  const onclick = (event) => {
    const name = typed().trim();
    if (name) localStorage.setItem("fabula.name", name);
    return go(event);
  };
  return h("a.button.watch-vote", { class: primary ? "primary" : "", href: path, onclick }, t("audience.join"));
}

export function audienceScreen(ctx, code) {
  const a = {
    me: savedAudience(code), // null: the name is asked first
    name: savedAudience(code)?.name ?? localStorage.getItem("fabula.name") ?? "",
    room: null,
    you: null, // the server's AudienceYou
    status: "connecting",
    fatal: null,
    message: "",
    chosen: null, // the card tapped, not yet voted for
    chosenFor: "", // … in this round
    sending: false,
    lastTap: { card: null, at: 0 },
    album: null,
    albumFor: null,
  };
  let table = null;
  const tick = setInterval(tickCountdowns, 1000);

  function connect() {
    table?.close();
    a.fatal = null;
    table = new Table(code, null, { onState, onStatus, onFatal, onAudience }, { audience: { token: a.me.token, name: a.me.name } });
    table.open();
  }

  function onState(room) {
    a.room = room;
    markRabbits(room.members);
    remember();
    followAlbum();
    draw();
  }
  function onStatus(status) {
    a.status = status;
    draw();
  }
  function onAudience(you) {
    a.you = you;
    remember();
    draw();
  }
  function onFatal(code_, message) {
    a.fatal = code_;
    a.message = errorText(code_, message);
    if (code_ === "name_empty" || code_ === "name_too_long" || code_ === "malformed") {
      a.me = null; // the name is asked again (the same token with it: the same member)
    }
    draw();
  }

  const roundKey = (round) => `${a.room?.games_started ?? 0}:${round}`;

  // Your vote of each round, kept with the token: after the reveal (and a reload) it says whether
  // you were right — the server's standing tells only of the round being played. (A vote's answer
  // may come after the reveal it was cast before: its round is the standing's, not the table's.)
  function remember() {
    if (!a.me || !a.you?.vote || !a.room) return;
    const key = roundKey(a.you.round);
    if (a.me.votes?.[key] === a.you.vote) return;
    a.me = { ...a.me, votes: { ...Object.fromEntries(Object.entries(a.me.votes ?? {}).slice(-30)), [key]: a.you.vote } };
    saveAudience(code, a.me);
  }

  // At the game over: its album (the latest game, asked over the socket as a spectator does).
  function followAlbum() {
    const room = a.room;
    if (room.status !== "over" || a.albumFor === room.games_started) return;
    const number_ = room.games_started;
    a.albumFor = number_;
    a.album ??= createAlbumView({});
    a.album.show(null);
    table.send("album", { game: null }).then((reply) => {
      if (a.albumFor !== number_) return;
      if (reply.type === "album" && reply.album) a.album.show(reply.album, { keepPlace: false });
      else a.album.fail();
      draw();
    });
  }

  // ---------------------------------------------------------------- the vote

  function myVote(game) {
    return a.you && a.you.round === game.round ? a.you.vote : (a.me?.votes?.[roundKey(game.round)] ?? null);
  }

  // ``at``: the tap's own stamp (its event's timeStamp), not when a busy phone got round to it
  function choose(card, at) {
    const again = a.lastTap.card === card && at - a.lastTap.at < DOUBLE_TAP_MS; // (a double tap: one)
    a.lastTap = { card, at };
    if (a.sending || again) return;
    a.chosen = a.chosen === card ? null : card;
    a.message = "";
    draw();
  }

  async function vote(card) {
    if (a.sending) return;
    a.sending = true;
    a.message = "";
    draw();
    const reply = await table.send("crowd_vote", { card });
    a.sending = false;
    if (reply.type === "error") a.message = reply.code === "wrong_phase" ? t("audience.vote_closed") : errorText(reply.code, reply.message);
    else a.chosen = null;
    draw();
  }

  // ---------------------------------------------------------------- drawing

  const people = () => roomPeople(a.room, null);

  function nameForm() {
    const tooLong = tooLongName(a.name);
    return h(
      "form.card-panel.audience-join",
      {
        onsubmit: (event) => {
          event.preventDefault();
          const name = a.name.trim();
          if (!name || tooLong) return;
          localStorage.setItem("fabula.name", name);
          a.me = { token: savedAudience(code)?.token ?? newToken(), name, votes: savedAudience(code)?.votes ?? {} };
          saveAudience(code, a.me);
          a.message = "";
          connect();
          draw();
        },
      },
      h("h2", {}, t("audience.title", { code })),
      h("p", {}, t("audience.intro")),
      nameField(a, { keep: "audience-name", onInput: draw }),
      a.message ? h("p.error", { role: "alert" }, a.message) : null,
      h(
        "div.actions",
        {},
        h("button.primary", { type: "submit", disabled: tooLong }, t("audience.join")),
        h("a.button", { href: `/room/${code}?watch=1`, onclick: ctx.link(`/room/${code}?watch=1`) }, t("join.watch")),
      ),
    );
  }

  function header() {
    if (!a.room) return [connection()];
    return [roomCode(a.room, code, draw), h("span.badge.audience-badge", {}, t("audience.badge", { name: a.you?.name ?? a.me.name })), connection()];
  }

  function connection() {
    return h("span.connection", { class: a.status, role: "status", title: t(`connection.${a.status}`) }, h("span.dot", { "aria-hidden": "true" }), h("span.connection-text", {}, t(`connection.${a.status}`)));
  }

  function draw() {
    if (!a.me) {
      ctx.render(nameForm());
      return;
    }
    if (a.fatal) {
      ctx.render(h("section.card-panel.fatal", {}, h("h2", {}, a.message), h("div.actions", {}, h("a.button.primary", { href: "/", onclick: ctx.link("/") }, t("app.home")))));
      return;
    }
    const room = a.room;
    if (!room) {
      ctx.render(h("p.notice", {}, t("app.connecting")), { headerExtra: header() });
      return;
    }
    let body;
    if (room.status === "lobby") body = lobby(room);
    else if (room.status === "over") body = over(room);
    else body = playing(room, room.game);
    ctx.render(h("section.audience-screen", {}, body), { headerExtra: header(), wide: room.status !== "lobby" });
    document.documentElement.dataset.seq = String(room.seq);
    const open = room.game?.phase === "vote" && !room.paused && !myVote(room.game);
    document.title = open ? `● ${t("audience.vote_now")} · Fabula` : `Fabula · ${t("audience.tab")}`;
    if (open && !a.wasOpen && a.wasOpen !== undefined) nudge();
    a.wasOpen = open;
    showNewReveal(room);
  }

  // The vote opens: a short buzz, on a phone that allows it (not before the page's first tap).
  function nudge() {
    if (navigator.userActivation?.hasBeenActive && navigator.vibrate) navigator.vibrate(120);
  }

  // A round revealed while you watch (not one already there when the page opened) is brought into
  // sight: you may have been scrolled down the cards you voted on.
  function showNewReveal(room) {
    const last = room.game?.last_round;
    const key = last ? `${room.games_started}:${last.round}` : "";
    const seen = a.revealSeen;
    a.revealSeen = key;
    if (seen === undefined || !key || key === seen) return;
    const result = document.querySelector(".audience-result");
    if (!result || result.getBoundingClientRect().top >= 0) return;
    const still = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    result.scrollIntoView({ block: "start", behavior: still ? "instant" : "smooth" });
  }

  function pointsLine() {
    if (!a.you) return null;
    return h("p.audience-points", {}, h("strong", {}, t("audience.points", { points: number(a.you.points) })), placeText());
  }

  // " · 37th of 1,204 in the crowd": where you stand on the game's leaderboard, which names only
  // its top ten (null before your first vote of the game)
  function placeText() {
    const you = a.you;
    if (!you?.place) return null;
    return [" · ", h("span.audience-place", {}, t("audience.place", { place: number(you.place), voters: number(you.voters) }))];
  }

  function lobby(room) {
    const here = room.members;
    return [
      h("h2", {}, t("audience.welcome", { name: a.you?.name ?? a.me.name })),
      h("p.status-line", { role: "status" }, t("audience.lobby")),
      h("ul.seated", {}, here.map((m) => h("li", {}, rabbit(m.colour, memberName(m), { size: 24 }), " ", memberName(m)))),
      audienceLine(room),
      h("p.hint", {}, t("audience.intro")),
      // (a seat instead, while the game has not started: the join page says if one is free)
      h("p", {}, h("a.button.small", { href: `/join/${code}`, onclick: ctx.link(`/join/${code}`) }, t("room.take_seat"))),
    ];
  }

  function playing(room, game) {
    const { nameOf, bySeat } = people();
    const teller = nameOf(game.storyteller);
    const mine = myVote(game);
    if (a.chosenFor !== `${room.games_started}:${game.round}`) {
      a.chosenFor = `${room.games_started}:${game.round}`;
      a.chosen = null;
    }
    let line;
    if (room.paused) line = pausedWords(room);
    else if (game.phase === "clue") line = room.settings.mode === "party" ? t("board.teller_thinking_blind", { name: teller }) : t("board.teller_thinking", { name: teller });
    else if (game.phase === "play") line = t("audience.playing", { names: listText(game.awaiting.map(nameOf)) || "…" });
    else if (mine) line = t("audience.voted", { slot: slotOf(game, mine) });
    else line = t("audience.pick", { name: teller });
    const clue = game.aloud || game.sound
      ? aloudHeading("p.clue", { clue: game.clue, name: teller, own: false, bots: false, sound: game.sound, code })
      : game.clue
        ? h("p.clue", { "aria-label": t("table.clue_label") }, t("table.quoted_clue", { clue: game.clue }))
        : null;
    const voting = game.phase === "vote";
    return [
      h("div.table-head", {}, roundLine(game), h("span.teller", {}, rabbit(bySeat(game.storyteller)?.colour, teller, { size: 22 }), h("span.head-name", {}, t("table.storyteller", { name: teller }))), phaseTimer(room, timeLeft)),
      clue,
      h("p.status-line", { role: "status", "aria-live": "polite", class: room.paused ? "paused-banner" : "" }, line),
      audienceLine(room),
      voting ? voteCards(room, game, mine) : game.last_round ? result(room, game, { points: true }) : null,
      a.message ? h("p.error", { role: "alert" }, a.message) : null,
      voting && !mine ? voteBar(game) : null,
      // (with a result shown, under its verdict: a reveal brings it into sight, and the points with it)
      voting || !game.last_round ? pointsLine() : null,
      scoreTrack(room, game, { nameOf, bySeat }),
    ];
  }

  function slotOf(game, card) {
    return game.table.find((entry) => entry.card === card)?.slot ?? "?";
  }

  function voteCards(room, game, mine) {
    const open = !mine && !room.paused;
    return h(
      "ol.table-cards.audience-cards",
      { class: `n${game.table.length}`, "aria-label": t("table.table") },
      game.table.map((entry, index) => {
        const chosen = open && a.chosen === entry.card;
        return h(
          "li.table-card",
          { class: [chosen ? "chosen" : "", mine === entry.card ? "my-crowd-vote" : ""].join(" "), "data-key": `crowd-${entry.card}` },
          h(
            "button.card-button",
            {
              type: "button",
              disabled: !open,
              "aria-pressed": chosen ? "true" : "false",
              "aria-label": t("table.card_slot", { slot: entry.slot }),
              "data-keep": `crowd-slot-${entry.slot}`,
              onclick: (event) => choose(entry.card, event.timeStamp),
            },
            cardImage(entry.card, { width: 400 }),
            h("span.slot-number", {}, entry.slot),
            mine === entry.card ? h("span.tag", {}, t("audience.your_vote")) : null,
            chosen ? h("span.token-mark", {}, "●") : null,
          ),
          h("button.zoom", { type: "button", "aria-label": t("table.zoom"), onclick: () => cardViewer(game.table.map((e) => e.card), index) }, "⤢"),
        );
      }),
    );
  }

  function voteBar(game) {
    const slot = a.chosen ? slotOf(game, a.chosen) : null;
    return h(
      "div.action-bar",
      {},
      h(
        "button.primary.crowd-vote",
        { type: "button", "data-keep": "crowd-vote", disabled: !a.chosen || a.sending || a.status !== "online", onclick: () => a.chosen && vote(a.chosen) },
        slot ? t("audience.vote_for", { slot }) : t("audience.vote"),
      ),
      slot ? null : h("span.hint", {}, t("audience.tap_first")),
    );
  }

  // The round just revealed: your vote against the storyteller's card, and where the crowd's went.
  // ``points``: the result says your points under its verdict (during a game; the end says them itself)
  function result(room, game, { points = false } = {}) {
    const last = game.last_round;
    const { nameOf, bySeat } = roomPeople(room, last.round);
    const teller = nameOf(last.storyteller);
    const mine = a.me?.votes?.[roundKey(last.round)] ?? null;
    const tellerSlot = last.table.indexOf(last.storyteller_card) + 1;
    let verdict;
    if (!mine) verdict = t("audience.no_vote", { round: last.round });
    else if (mine === last.storyteller_card) verdict = t("audience.right", { name: teller });
    else verdict = t("audience.wrong", { name: teller, slot: tellerSlot });
    const crowd = crowdOf(room, last);
    const parts = roundParts(last, game, { nameOf, bySeat, crowd, onCard: (index) => cardViewer(last.table, index) });
    for (const card of parts.cards.children) if (card.dataset.card === mine) card.classList.add("my-crowd-vote");
    return h(
      "section.audience-result",
      { "data-round": last.round },
      h("h3", {}, t("table.round", { round: last.round }), " · ", hasClue(last.clue, last.aloud, last.sound) ? clueWords(last.clue, last.aloud, last.sound) : "", last.sound ? [" ", soundPlayer(last.sound, { code })] : null),
      h("p.audience-verdict", { class: !mine ? "" : mine === last.storyteller_card ? "right" : "wrong", role: "status" }, verdict),
      points ? pointsLine() : null,
      crowd ? h("p.crowd-line", {}, crowdFound(crowd)) : null,
      parts.cards,
    );
  }

  function over(room) {
    const game = room.game;
    const { nameOf } = people();
    const winners = sides(game).filter((row) => row.rank === 1);
    const names = listText(winners.map((row) => sideName(row, nameOf)));
    return [
      h("h2", {}, winners.length > 1 ? t("over.shared", { names }) : t("over.winner", { name: names })),
      a.you ? h("p.audience-final", {}, t("audience.final", { points: number(a.you.points) }), placeText()) : null,
      audienceLine(room),
      game.last_round ? result(room, game) : null,
      a.album?.element ?? null,
      h("p", {}, h("a", { href: "/", onclick: ctx.link("/") }, t("app.home"))),
    ];
  }

  ctx.relabel = () => {
    if (a.room) markRabbits(a.room.members);
    a.album?.redraw();
    draw();
  };
  if (a.me) connect();
  draw();
  describeCards(code).then(draw);
  if (!a.me) {
    // the room is there before a name is asked for
    api(`/api/rooms/${code}`).catch((error) => {
      a.message = errorText(error.code, error.message);
      draw();
    });
  }
  return () => {
    clearInterval(tick);
    table?.close();
    a.album?.destroy();
  };
}
