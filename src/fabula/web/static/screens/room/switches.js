import { h } from "../../dom.js";

// A tap on a switch that has only just appeared is the second tap of a double tap on what was
// there before — "Create the room" lies where a phone's lobby shows its first switch: not a choice.
const SETTLE_MS = 800;
// when each switch was first shown on this page (its element is kept across redraws)
const shownAt = new Map();

// A room setting the host turns on or off in the lobby (table talk, extended timers, streamer
// mode): for the host a checkbox kept in place across redraws (`data-keep`), which sends the room's
// settings as they are now (`current()`: a redraw may not have come since another change) with
// this one changed, and goes back to what the room has if the server refuses; everyone else reads
// one line while it is on.
export function settingSwitch(room, send, current, { key, name, tag, title, hint, onLine }) {
  const on = room.settings[key] === true;
  if (!room.you?.host) return on ? onLine : null;
  if (!shownAt.has(name)) shownAt.set(name, performance.now());
  return h(
    tag,
    {},
    h("input", {
      type: "checkbox",
      name,
      "data-keep": name,
      checked: on,
      onchange: async (event) => {
        const box = event.target;
        if (performance.now() - shownAt.get(name) < SETTLE_MS) {
          box.checked = current().settings[key] === true;
          return;
        }
        const reply = await send("settings", { settings: { ...current().settings, [key]: box.checked } });
        if (reply.type === "error") box.checked = current().settings[key] === true; // (as the room has it)
      },
    }),
    h("span", {}, h("span.house-rule-name", {}, title), h("br"), h("span.hint", {}, hint)),
  );
}
