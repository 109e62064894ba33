// The operator's model bots (`fabula serve --model-bot NAME=…`): the lobby's menu offers each
// beside the built-in levels ("the qwen model", marked when it sees the pictures), and a seat
// whose model does not answer — played meanwhile by the fallback level — is said so on the page.

import { CHOICES } from "../../choices.js";
import { h } from "../../dom.js";
import { listText, t } from "../../i18n.js";

// [{name, level: "model:NAME", vision}], by name only (never where the model runs)
const MODEL_BOTS = CHOICES.model_bots ?? [];
// the built-in level that moves for a model bot whose model gives no legal move in time
const FALLBACK = CHOICES.model_bot_fallback ?? "normal";
const PREFIX = "model:";

// "qwen" of "model:qwen"; null for a built-in level
export function modelOf(level) {
  return typeof level === "string" && level.startsWith(PREFIX) ? level.slice(PREFIX.length) : null;
}

const sees = (name) => MODEL_BOTS.some((bot) => bot.name === name && bot.vision);
const fallbackName = () => t(`bot.${FALLBACK}`);

// Every level the host may pick: the built-in ones, then the server's models.
export function botLevels(builtIn) {
  return [...builtIn, ...MODEL_BOTS.map((bot) => bot.level)];
}

// A level as the menu and a seat's badge name it: "hard", "the qwen model (sees the pictures)".
export function levelName(level) {
  const name = modelOf(level);
  if (name === null) return t(`bot.${level}`);
  return sees(name) ? t("model_bot.name_sees", { name }) : t("model_bot.name", { name });
}

// What a level plays like (a badge's title).
export function levelHint(level) {
  const name = modelOf(level);
  if (name === null) return t(`bot.${level}.hint`);
  const fallback = fallbackName();
  return sees(name) ? t("model_bot.hint_sees", { name, level: fallback }) : t("model_bot.hint", { name, level: fallback });
}

// "3 moves by the normal bot": a model bot's moves this game that its fallback made; null for
// any other member, or none.
export function fallbackNote(member) {
  const count = member.fallback_moves ?? 0;
  if (!count || modelOf(member.bot) === null) return null;
  const words = count === 1 ? t("model_bot.fallback_one", { level: fallbackName() }) : t("model_bot.fallback_moves", { count, level: fallbackName() });
  return h("span.badge.fallback-moves", { title: t("model_bot.fallback_title") }, words);
}

// One line for each model bot whose model did not answer its last move (the same model at two
// seats: one line), with how many moves its fallback made so far.
export function notAnsweringLines(members) {
  const silent = new Map();
  for (const m of members) {
    const name = modelOf(m.bot);
    if (name !== null && m.not_answering) silent.set(name, (silent.get(name) ?? 0) + (m.fallback_moves ?? 0));
  }
  return [...silent].map(([name, moves]) =>
    h(
      "p.model-silent",
      { role: "status", "data-key": `model-silent-${name}` },
      t("model_bot.not_answering", { name, level: fallbackName() }),
      moves ? h("span.hint", {}, " ", t("model_bot.so_far", { count: moves })) : null,
    ),
  );
}

// For the pictures panel's "no captions: bots play these blind": the server's models that see
// them all the same ("" for none; a model that reads only words plays them blind too).
export function seeingModels() {
  return listText(MODEL_BOTS.filter((bot) => bot.vision).map((bot) => bot.name));
}
