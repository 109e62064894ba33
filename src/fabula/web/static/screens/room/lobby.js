import { CHOICES } from "../../choices.js";
import { h } from "../../dom.js";
import { language, listText, t } from "../../i18n.js";
import { rabbit } from "../../rabbits.js";
import { errorText, memberName } from "../parts.js";
import { picturesPanel, picturesShort } from "../pictures.js";
import { botLevels, fallbackNote, levelHint, levelName } from "./models.js";
import { soundSetting } from "./sound_setting.js";
import { askList, invitePart, streamerSetting } from "./streamer.js";
import { timerSeconds } from "./clock.js";
import { settingSwitch } from "./switches.js";
import { audienceLine } from "../crowd.js";

const BOT_LEVELS = CHOICES.bot_levels;
const DOUBLE_TAP_MS = 60;

const SEAT_RANGES = Object.fromEntries(CHOICES.modes.map((mode) => [mode.name, mode.seats]));

/** The bot level this browser chose last (the server's default at first). */
export function savedBotLevel() {
  const saved = localStorage.getItem("fabula.botLevel");
  return botLevels(BOT_LEVELS).includes(saved) ? saved : CHOICES.default_bot_level;
}

export function lobbyPart(v) {
  const { ui, code, ctx, token, send, draw, history, hostLine, leaveButton } = v;

  function startProblem(room, count, low, high) {
    const mode = room.settings.mode;
    if (count < low) return t("lobby.need_more", { count: low - count, low });
    if (count > high) return t("lobby.too_many", { high });
    if (mode === "teams" && count % 2) return t("lobby.teams_even");
    return "";
  }

  // Every tap on "Add a bot" counts: taps made while one is on its way wait their turn (the
  // button says how many), and each is sent once the one before it is answered.
  function addBot(event, room, high) {
    // (a double tap — two taps within DOUBLE_TAP_MS — is one tap; taps a person makes one by one
    // count). The gap is the one between the taps as the finger made them (the events' stamps): a
    // busy phone runs the second tap's handler only after the first one's drawing, later than that.
    const at = event.timeStamp;
    if (ui.lastBotTap !== undefined && at - ui.lastBotTap < DOUBLE_TAP_MS) return;
    ui.lastBotTap = at;
    if (room.members.length + ui.botsWanted >= high) return;
    ui.botsWanted += 1;
    draw();
    if (ui.botsWanted === 1) void addBots();
  }

  async function addBots() {
    while (ui.botsWanted > 0) {
      const reply = await send("add_bot", { level: ui.botLevel, language }, "", { again: true });
      ui.botsWanted = reply.type === "error" ? 0 : ui.botsWanted - 1; // (a refusal stops the rest)
    }
    draw();
  }

  // The time limits set, said before the game (the clue's counts from the end of a reveal).
  function timersLine(settings) {
    const set = ["clue", "play", "vote"].filter((phase) => settings[`${phase}_seconds`]);
    if (!set.length) return null;
    const parts = set.map((phase) => t("lobby.timer", { phase: t(`start.timer.${phase}`), seconds: timerSeconds(settings, phase) }));
    return h("p.hint.timers", {}, t("lobby.timers", { timers: listText(parts) }));
  }

  // A house rule: the rules keep the table quiet from the clue until the reveal; the host may let
  // it talk anyway (the room's `table_talk`). Everyone else reads whether it is on.
  function houseRule(room) {
    const box = settingSwitch(room, send, () => ui.room, {
      key: "table_talk",
      name: "table-talk",
      tag: "label.house-rule",
      title: t("lobby.table_talk"),
      hint: t("lobby.table_talk_hint"),
      onLine: h("p.hint.house-rule-on", {}, t("lobby.table_talk_on")),
    });
    return room.you?.host ? h("div.house-rules", {}, box) : box;
  }

  // Extended timers (an accessibility option): every timer twice as long. The host ticks it while
  // the room has a timer; everyone else reads that it is on.
  function extendedTimers(room) {
    const timed = ["clue", "play", "vote"].some((phase) => room.settings[`${phase}_seconds`]);
    if (room.you?.host && !timed && room.settings.extended_timers !== true) return null;
    return settingSwitch(room, send, () => ui.room, {
      key: "extended_timers",
      name: "extended-timers",
      tag: "label.house-rule.extended-timers",
      title: t("lobby.extended"),
      hint: t("lobby.extended_hint"),
      onLine: h("p.hint.extended-on", {}, t("lobby.extended_on")),
    });
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
              m.bot ? h("span.badge", { title: levelHint(m.bot) }, t("lobby.bot_badge", { level: levelName(m.bot) })) : null,
              fallbackNote(m),
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
            botLevels(BOT_LEVELS).map((level) => h("option", { value: level, selected: level === ui.botLevel }, levelName(level))),
          ),
        ),
        h(
          "button.add-bot",
          { type: "button", disabled: count + ui.botsWanted >= high, onclick: (event) => addBot(event, room, high) },
          ui.botsWanted > 1 ? t("lobby.adding_bots", { count: ui.botsWanted }) : t("lobby.add_bot"),
        ),
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
      timersLine(room.settings),
      controls,
      ui.message ? h("p.error", { role: "alert" }, ui.message) : null,
      askList(room, send), // (streamer mode: who waits to join, by the buttons, on a phone's first screen)
      hostLine(room),
      problem && room.you ? h("p.start-problem", { role: "status" }, problem) : null,
      host ? h("p.hint.bot-language", {}, t("lobby.bot_language")) : null,
      houseRule(room),
      extendedTimers(room),
      soundSetting(room, send, () => ui.room),
      streamerSetting(room, send, () => ui.room),
      seats,
      audienceLine(room), // (who came to watch and vote: how many)
      teams,
      room.games_started ? history() : null,
      ui.albumOpen && ui.album?.album ? ui.album.element : null,
      room.you || room.settings.decks.includes("pictures")
        ? picturesPanel({
            room,
            code,
            token,
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
        invitePart(room, code, ui.invite, draw),
        h("p", {}, h("a", { href: `/room/${code}/board`, target: "_blank" }, t("lobby.board_link"))),
      ),
      h("div.leave-row", {}, leaveButton(room)),
      v.chatPanel(room),
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

  return { lobby };
}
