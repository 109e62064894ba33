// Pieces several screens share: card pictures, the full-screen card viewer, the scoring track.
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { rabbit } from "../rabbits.js";
import { api } from "../net.js";

const descriptions = new Map();
let trackOpen = null;

// A member's name as shown: a bot is named by its rabbit, in the player's language.
export function memberName(member) {
  if (!member) return undefined;
  return member.bot ? t("lobby.bot_name", { colour: t(`colour.${member.colour}`) }) : member.name;
}

// A server error code in the player's language; the server's own (English) message, or a
// generic one, for a code the client has no words for.
export function errorText(code, message = "") {
  const key = `error.${code}`;
  const known = t(key);
  return known !== key ? known : message || t("error.unknown");
}

// Card descriptions become the pictures' alt text (the original deck has them; imported decks
// may have captions).
export async function describeCards(code) {
  try {
    const found = await api(`/api/rooms/${code}/cards`);
    for (const card of found.cards) descriptions.set(card.id, card.description);
  } catch {
    /* pictures still show; alt text falls back to a generic one */
  }
}

export function cardImage(card, { width = 400 } = {}) {
  return h("img.card-img", {
    src: `/cards/${encodeURIComponent(card)}.svg`,
    alt: descriptions.get(card) || t("card.picture"),
    width: 400,
    height: 600,
    loading: "lazy",
    decoding: "async",
    draggable: "false",
    "data-width": width,
  });
}

// One card full-screen; arrow keys or swipes move between ``cards``; Escape or a tap closes.
export function cardViewer(cards, start) {
  let index = start;
  const image = h("img.viewer-img", {});
  const caption = h("p.viewer-caption", {});
  const place = () => {
    image.src = `/cards/${encodeURIComponent(cards[index])}.svg`;
    image.alt = descriptions.get(cards[index]) || t("card.picture");
    caption.textContent = `${index + 1} / ${cards.length}`;
  };
  const step = (by) => {
    index = (index + by + cards.length) % cards.length;
    place();
  };
  let touchX = null;
  const close = () => {
    viewer.remove();
    document.removeEventListener("keydown", keys);
    opener?.focus();
  };
  const keys = (event) => {
    if (event.key === "Escape") close();
    else if (event.key === "ArrowRight") step(1);
    else if (event.key === "ArrowLeft") step(-1);
  };
  const opener = document.activeElement;
  const viewer = h(
    "div.viewer",
    {
      role: "dialog",
      "aria-modal": "true",
      "aria-label": t("card.viewer"),
      ontouchstart: (event) => (touchX = event.touches[0].clientX),
      ontouchend: (event) => {
        if (touchX === null) return;
        const dx = event.changedTouches[0].clientX - touchX;
        touchX = null;
        if (Math.abs(dx) > 40) step(dx < 0 ? 1 : -1);
      },
    },
    image,
    caption,
    h("button.viewer-prev", { type: "button", "aria-label": t("card.previous"), onclick: () => step(-1) }, "‹"),
    h("button.viewer-next", { type: "button", "aria-label": t("card.next"), onclick: () => step(1) }, "›"),
    h("button.viewer-close", { type: "button", "aria-label": t("card.close"), onclick: close }, "✕"),
  );
  place();
  document.body.append(viewer);
  document.addEventListener("keydown", keys);
  viewer.querySelector(".viewer-close").focus();
}

// The scoring track 0–30 (a score past 30 stays on the last space, with its number shown).
export function scoreTrack(room, game, { nameOf, bySeat }, { board = false } = {}) {
  const top = Math.max(30, room.settings.options?.target_score ?? 30);
  const spaces = [];
  for (let space = 0; space <= 30; space += 1) {
    const here = game.scores
      .map((score, seat) => ({ score, seat }))
      .filter(({ score }) => Math.min(score, 30) === space);
    spaces.push(
      h(
        "li.space",
        { class: here.length ? "occupied" : "" },
        h("span.space-number", {}, space),
        h("span.space-rabbits", {}, here.map(({ seat }) => rabbit(bySeat(seat)?.colour, nameOf(seat), { size: board ? 34 : 18 }))),
      ),
    );
  }
  const list = h(
    "ol.scores",
    { "aria-label": t("track.scores") },
    game.scores
      .map((score, seat) => ({ score, seat }))
      .sort((a, b) => b.score - a.score)
      .map(({ score, seat }) =>
        h("li", {}, rabbit(bySeat(seat)?.colour, nameOf(seat), { size: board ? 30 : 20 }), h("span.name", {}, nameOf(seat)), h("span.score", {}, score)),
      ),
  );
  return h(
    "section.track",
    { "aria-label": t("track.title") },
    h("h3", {}, t("track.title"), top > 30 ? ` (${t("track.target", { target: top })})` : ""),
    list,
    board
      ? h("ol.track-spaces", { "aria-hidden": "true" }, spaces)
      : h(
          "details.track-board",
          // the full 0–30 board is open on a wide screen, a tap away on a phone; a player's
          // choice holds across the redraws
          { open: trackOpen ?? window.innerWidth >= 1000, ontoggle: (event) => (trackOpen = event.target.open) },
          h("summary", {}, t("track.show")),
          h("ol.track-spaces", { "aria-hidden": "true" }, spaces),
        ),
  );
}
