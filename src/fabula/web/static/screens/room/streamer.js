// Streamer mode (the room's `settings.streamer`): the room code and its QR code stay masked on
// every screen of the room and on the TV; the host taps the masked code to see it (and the QR)
// on their own screen for a while; people who join wait until the host lets them in.
import { h } from "../../dom.js";
import { t } from "../../i18n.js";
import { rabbit } from "../../rabbits.js";
import { inviteBlock, memberName } from "../parts.js";
import { settingSwitch } from "./switches.js";

// How long a tap shows the code (a second tap hides it at once).
export const REVEAL_MS = 15000;

// One room per page: when the code shown by the host's tap is masked again.
const reveal = { until: 0, timer: null };

export function streaming(room) {
  return room?.settings?.streamer === true;
}

// "K•••": the first character, so that the host can tell rooms apart, and no more.
export function maskedCode(code) {
  return code.slice(0, 1) + "•".repeat(Math.max(0, code.length - 1));
}

function revealed() {
  return Date.now() < reveal.until;
}

function toggle(redraw) {
  clearTimeout(reveal.timer);
  reveal.until = revealed() ? 0 : Date.now() + REVEAL_MS;
  if (reveal.until) reveal.timer = setTimeout(redraw, REVEAL_MS + 50);
  redraw();
}

// The room code of the header: in streamer mode masked, a button for the host.
export function roomCode(room, code, redraw) {
  if (!streaming(room)) return h("span.room-code", {}, t("room.code", { code }));
  const shown = room.you?.host && revealed() ? code : maskedCode(code);
  if (!room.you?.host) return h("span.room-code.masked", {}, t("room.code", { code: shown }));
  return h(
    "button.room-code.masked.small",
    { type: "button", "data-keep": "room-code", "aria-pressed": String(revealed()), title: t(revealed() ? "streamer.hide" : "streamer.show"), onclick: () => toggle(redraw) },
    t("room.code", { code: shown }),
  );
}

// The lobby's invitation: in streamer mode the link and QR code only while the host shows them.
export function invitePart(room, code, invite, redraw) {
  if (!streaming(room)) return inviteBlock(code, invite);
  if (!room.you?.host) return h("p.hint.streamer-note", {}, t("streamer.ask_host"));
  const tap = h(
    "button.streamer-reveal",
    { type: "button", "data-keep": "streamer-reveal", "aria-pressed": String(revealed()), onclick: () => toggle(redraw) },
    revealed() ? t("streamer.hide") : t("streamer.show"),
  );
  return h(
    "div.streamer-invite",
    {},
    h("p.streamer-code", {}, h("span.code-mask", {}, revealed() ? code : maskedCode(code)), " ", tap),
    revealed() ? inviteBlock(code, invite) : h("div.qr-hidden", { "aria-hidden": "true" }),
    h("p.hint", {}, t("streamer.hint_tap")),
  );
}

// The host's switch, in the lobby; everyone else reads that it is on.
export function streamerSetting(room, send, current) {
  return settingSwitch(room, send, current, {
    key: "streamer",
    name: "streamer",
    tag: "label.house-rule.streamer-mode",
    title: t("lobby.streamer"),
    hint: t("lobby.streamer_hint"),
    onLine: h("p.hint.streamer-on", {}, t("lobby.streamer_on")),
  });
}

// The host's list of who waits to join, each with "Let in" and "Turn away" (empty: nothing).
export function askList(room, send) {
  if (!room.you?.host || !room.asks?.length) return null;
  const seatOf = (ask) => room.members.find((m) => m.member === ask.replaces);
  return h(
    "section.asks",
    { "aria-live": "polite" },
    h("h3", {}, t("streamer.asks", { count: room.asks.length })),
    h(
      "ul.ask-list",
      {},
      room.asks.map((ask) =>
        h(
          "li.ask",
          { "data-key": `ask-${ask.ask}` },
          rabbit(ask.colour, ask.name, { size: 28 }),
          h("span.ask-name", {}, ask.name),
          ask.replaces !== null && seatOf(ask) ? h("span.hint", {}, t("streamer.take_over", { name: memberName(seatOf(ask)) })) : null,
          h(
            "span.ask-buttons",
            {},
            h("button.primary.small", { type: "button", onclick: () => send("answer_ask", { ask: ask.ask, approve: true }) }, t("streamer.let_in")),
            h("button.small", { type: "button", onclick: () => send("answer_ask", { ask: ask.ask, approve: false }) }, t("streamer.turn_away")),
          ),
        ),
      ),
    ),
  );
}
