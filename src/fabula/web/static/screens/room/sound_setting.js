// The lobby's "Sound clues" (the room's `sound_clues`, on unless the host turns it off): the
// storyteller may record up to ten seconds as the clue. Bots cannot hear: with bots at the table
// one line says they will guess.
import { h } from "../../dom.js";
import { t } from "../../i18n.js";
import { settingSwitch } from "./switches.js";

export function soundSetting(room, send, current) {
  const box = settingSwitch(room, send, current, {
    key: "sound_clues",
    name: "sound-clues",
    tag: "label.house-rule.sound-clues",
    title: t("lobby.sound_clues"),
    hint: t("lobby.sound_clues_hint"),
    onLine: h("p.hint.sound-clues-on", {}, t("lobby.sound_clues_on")),
  });
  const bots = room.settings.sound_clues === true && room.members.some((member) => member.bot);
  return [box, bots ? h("p.hint.bots-cannot-hear", {}, t("lobby.bots_cannot_hear_sounds")) : null];
}
