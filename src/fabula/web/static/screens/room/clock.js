// The table's clock: the phase's timer as every screen shows it, "Paused" while the host has
// paused the game (the timer standing still at the time it has left), and the host's controls —
// pause or resume, and 30 seconds more.
import { h } from "../../dom.js";
import { t } from "../../i18n.js";
import { clockText, countdown, memberName } from "../parts.js";

/** Seconds one tap on "+30 s" adds. */
export const ADD_SECONDS = 30;
// two taps on one button closer than this are one (a double tap); taps made one by one each count
const DOUBLE_TAP_MS = 300;

const hasTime = (room) => room.time_left !== null && room.time_left !== undefined;

/** The seconds a phase's timer has, as set (0: none) — doubled with extended timers, as the
 *  server's clock has it. */
export const timerSeconds = (settings, phase) => (settings[`${phase}_seconds`] ?? 0) * (settings.extended_timers ? 2 : 1);

/** What the paused game says of its timer: "Paused · 0:42 left", or "Paused" without one. */
export function pausedWords(room) {
  return hasTime(room) ? t("time.paused_left", { time: clockText(room.time_left) }) : t("time.paused");
}

// The phase's timer in a head: a countdown worded by ``words``; paused, the time it has left,
// standing still; the seconds the host added, after it (null: no timer and not paused).
export function phaseTimer(room, words) {
  const added = room.time_added ? h("span.time-added", {}, t("time.added", { seconds: room.time_added })) : null;
  if (room.paused) return h("span.paused-clock", {}, h("span.pause-mark", { "aria-hidden": "true" }), pausedWords(room), added ? " " : "", added);
  if (!room.deadline) return null;
  return h("span.phase-timer", {}, countdown(room.deadline, words), added ? " " : "", added);
}

// The status line's sentence while paused: who paused the game, and what happens next.
export function pausedLine(room) {
  const host = room.members.find((m) => m.member === room.host);
  if (room.you?.host) return t("time.you_paused");
  return host ? t("time.host_paused", { name: memberName(host) }) : t("time.wait_resume");
}

// The host's controls during a game: pause (resume, the one obvious step while paused) and
// "+30 s" while the phase has a timer. The buttons keep their elements as they change (keyed).
export function timeControls(room, { ui, send }) {
  if (!room.you?.host || room.status !== "playing") return null;
  const timed = room.paused ? hasTime(room) : Boolean(room.deadline);
  const once = (type, fields) => {
    const now = Date.now();
    const last = ui.lastTimeTap;
    if (last && last.type === type && now - last.at < DOUBLE_TAP_MS) return;
    ui.lastTimeTap = { type, at: now };
    void send(type, fields);
  };
  return h(
    "div.time-controls",
    { role: "group", "aria-label": t("time.controls") },
    h(
      "button.time-toggle",
      {
        type: "button",
        "data-key": "time-toggle",
        class: room.paused ? "primary" : "small",
        onclick: () => once(room.paused ? "resume" : "pause", {}),
      },
      room.paused ? t("time.resume") : t("time.pause"),
    ),
    timed
      ? h("button.small.add-time", { type: "button", "data-key": "add-time", onclick: () => once("add_time", { seconds: ADD_SECONDS }) }, t("time.add", { seconds: ADD_SECONDS }))
      : null,
  );
}
