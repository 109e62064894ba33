// A clue as each screen shows it. The storyteller may say the clue aloud at the table (the rules
// allow a word, a sound, a phrase or a mime) instead of typing it: then the phones and the TV say
// to listen to the storyteller, with the words typed for the album and the bots, if any, under it;
// the album, the replay and the reveal show those words or "(said aloud)". A view's `clue` is the
// words ("" when none were typed) and its `aloud` says which it is. A recorded sound as the clue
// (its `sound` id) is shown alike, with a button that plays it (screens/sound.js).
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { soundPlayer } from "./sound.js";

// The clue inside a sentence: "…that best fits “Dawn”", or "…the clue you heard" (said aloud
// without words). ``short`` cuts a long clue that the heading shows whole already.
export function clueInSentence(clue, aloud, short = (text) => text) {
  if (aloud && !clue) return t("table.heard_clue");
  return t("table.quoted_clue", { clue: short(clue ?? "") });
}

// The clue as the album, the replay and the reveal name it: quoted; said aloud or a sound, marked so.
export function clueWords(clue, aloud, sound = null) {
  if (sound) return clue ? t("album.clue_sound", { clue: t("table.quoted_clue", { clue }) }) : t("album.sound_clue");
  if (!aloud) return t("table.quoted_clue", { clue });
  return clue ? t("album.clue_aloud", { clue: t("table.quoted_clue", { clue }) }) : t("album.said_aloud");
}

// "{name}'s clue: …" at the reveal and in the album.
export function clueBy(name, clue, aloud, sound = null) {
  return aloud || sound ? t("reveal.aloud_by", { name, clue: clueWords(clue, aloud, sound) }) : t("reveal.clue_by", { name, clue });
}

// Whether a view has a clue to show (said aloud without words, it has, though its text is empty).
export function hasClue(clue, aloud, sound = null) {
  return Boolean(clue) || Boolean(aloud) || Boolean(sound);
}

// The heading of a clue said aloud, on a phone (``tag`` "p.clue") or the TV ("p.board-clue"):
// "Listen to Mara's clue" (the storyteller reads "You said your clue aloud"), the words typed in
// smaller type under it, and — none typed, bots at the table — that bots cannot hear it. A sound:
// the heading is the button that plays it ("▶ Listen to Mara's clue").
export function aloudHeading(tag, { clue, name, own, bots, sound = null, code = undefined, extra = {} }) {
  const listen = sound
    ? soundPlayer(sound, { code, label: own ? t("sound.your_sound") : t("sound.listen", { name }), extra: "listen" })
    : h("span.listen", {}, own ? t("table.you_said_aloud") : t("table.listen", { name }));
  return h(
    tag,
    { ...extra, class: [extra.class || "", "aloud"].join(" ").trim() },
    listen,
    clue ? h("span.aloud-words", {}, t("table.quoted_clue", { clue })) : null,
    !clue && bots ? h("span.aloud-bots", {}, t("table.bots_cannot_hear")) : null,
  );
}
