// Fabula's browser client: one page, a screen per URL.
//   /                    home: create a room or join one by code
//   /join/CODE           name and rabbit for a room
//   /room/CODE           your seat: lobby, table, game over (?watch=1: as a spectator)
//   /room/CODE/board     the read-only board for a TV
//   /watch/CODE          the audience: watch the game and vote for the storyteller's card
//   /album/CODE/SECRET   a game's album and replay, for anyone with the share link
//   /rules               the rules
import { h, show } from "./dom.js";
import { LANGUAGES, language, preferredLanguage, setLanguage, t } from "./i18n.js";
import { homeScreen, joinScreen } from "./screens/start.js";
import { roomScreen } from "./screens/room.js";
import { boardScreen } from "./screens/board.js";
import { audienceScreen } from "./screens/audience.js";
import { rulesScreen } from "./screens/rules.js";
import { sharedAlbumScreen } from "./screens/album.js";
import { DECK_LINK } from "./screens/pictures.js";

const root = document.getElementById("app");
// A layer above the screen for a dialog that must outlive the screen's redraws (the reveal).
const layer = document.createElement("div");
layer.id = "layer";
document.body.append(layer);
let leave = null; // what the current screen does when it is left (close its WebSocket)

export function go(path, replace = false) {
  if (replace) history.replaceState(null, "", path);
  else history.pushState(null, "", path);
  route();
}

// The language menu: in the header, and on the TV's board (which has no header). The choice is
// kept in this browser, so a reload (a TV switched off and on) keeps it.
function languageMenu(extraClass = "") {
  return h(
    "select.language",
    {
      class: extraClass,
      "aria-label": t("app.language"),
      onchange: async (event) => {
        await setLanguage(event.target.value, true);
        // a screen with a connection redraws in the new words (leaving and coming back would
        // show its player away to everyone else for a moment); the others start again
        if (current?.relabel) current.relabel();
        else route();
      },
    },
    LANGUAGES.map((l) => h("option", { value: l.code, selected: l.code === language }, l.name)),
  );
}

function header(extra) {
  const select = languageMenu();
  return h(
    "header.top",
    {},
    h("a.brand", { href: "/", onclick: link("/") }, "Fabula"),
    h("div.top-extra", {}, extra || []),
    h("nav.top-links", {}, h("a.rules-link", { href: "/rules", onclick: link("/rules") }, t("app.rules")), select),
  );
}

export function link(path) {
  return (event) => {
    if (event.metaKey || event.ctrlKey || event.shiftKey) return;
    event.preventDefault();
    go(path);
  };
}

// What each screen gets: where to draw, how to draw the header, how to navigate. Each screen
// has its own: once it is left, whatever it still had on its way (a fetch that answers late)
// draws nothing over the next one.
let current = null;

function screenContext() {
  const context = {
    render(body, { headerExtra = null, wide = false, board = false } = {}) {
      if (current !== context) return;
      document.body.classList.toggle("board-mode", board);
      show(root, board ? null : header(headerExtra), h("main", { class: wide ? "wide" : "narrow" }, body));
    },
    // Show ``node`` in the layer above the screen (null: nothing); the same node again is left
    // as it is, with its scroll position and animations.
    overlay(node) {
      if (current !== context) return;
      if (node === null) layer.replaceChildren();
      else if (layer.firstChild !== node) layer.replaceChildren(node);
    },
    go,
    link,
    languageMenu,
    // set by a screen that can redraw itself in another language
    relabel: null,
  };
  return context;
}

// A part of the path as it was typed ("%20" is a space); a broken escape as it stands.
function fromPath(part) {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

function route() {
  leave?.();
  leave = null;
  layer.replaceChildren();
  document.title = "Fabula"; // (a screen that names its tab does so itself: none keeps the last one's)
  const context = screenContext();
  current = context;
  const path = location.pathname;
  let match;
  if ((match = path.match(/^\/room\/([A-Za-z0-9]+)\/board\/?$/))) {
    leave = boardScreen(context, match[1].toUpperCase());
  } else if ((match = path.match(/^\/room\/([A-Za-z0-9]+)\/?$/))) {
    const watch = new URLSearchParams(location.search).has("watch");
    leave = roomScreen(context, match[1].toUpperCase(), watch);
  } else if ((match = path.match(/^\/watch\/([A-Za-z0-9]+)\/?$/))) {
    leave = audienceScreen(context, match[1].toUpperCase());
  } else if ((match = path.match(/^\/join\/([A-Za-z0-9]+)\/?$/))) {
    leave = joinScreen(context, match[1].toUpperCase());
  } else if ((match = path.match(/^\/album\/([A-Za-z0-9]+)\/([A-Za-z0-9_-]+)\/?$/))) {
    leave = sharedAlbumScreen(context, match[1].toUpperCase(), match[2]);
  } else if ((match = path.match(/^\/(?:join|room)\/([^/]+)(?:\/board)?\/?$/))) {
    // a code that is not one (/join/zz9q!): the home page, the code in its field, saying why
    homeScreen(context, { code: fromPath(match[1]) });
  } else if (path.startsWith("/rules")) {
    rulesScreen(context);
  } else if (path === "/") {
    homeScreen(context);
  } else {
    // an address with no page (the server said 404): the start, saying so, a room's code kept
    const room = path.match(/^\/(?:room|join|watch|album)\/([A-Za-z0-9]+)\//);
    homeScreen(context, { code: room ? room[1].toUpperCase() : null, lost: fromPath(path) });
  }
}

window.addEventListener("popstate", route);

// A deck link (/#deck-link=…) is kept in this browser until a room it hosts takes the pictures;
// the secret leaves the address bar at once (it is never sent to the server in the URL).
function keepDeckLink() {
  const found = location.hash.match(/^#deck-link=([A-Za-z0-9_-]+)$/);
  if (!found) return;
  localStorage.setItem(DECK_LINK, found[1]);
  history.replaceState(null, "", location.pathname + location.search);
}
keepDeckLink();
window.addEventListener("hashchange", () => {
  keepDeckLink();
  route();
});
await setLanguage(preferredLanguage());
route();
