// Pieces several screens share: card pictures, the full-screen card viewer, the scoring track.
import { CHOICES } from "../choices.js";
import { h } from "../dom.js";
import { language, listText, onLanguage, t } from "../i18n.js";
import { rabbit, setMarks } from "../rabbits.js";
import { api } from "../net.js";

// the descriptions of the cards of the room last described, in the page's language
let descriptions = new Map();
let described = null; // that room's code
let trackOpen = null;

// A member's name as shown: a bot is named by its rabbit, in the player's language.
export function memberName(member) {
  if (!member) return undefined;
  if (!member.bot) return member.name;
  const name = t("lobby.bot_name", { colour: t(`colour.${member.colour}`) });
  return name.charAt(0).toUpperCase() + name.slice(1); // a name, also at the start of a sentence
}

// The join link, its QR code, and — when no phone can open it — what the host should do.
// ``invite``: the server's (`GET /api/rooms/CODE`), or null while it is on its way.
export function inviteBlock(code, invite, { board = false } = {}) {
  const url = invite?.url ?? `${location.origin}/join/${code}`;
  const copy = h(
    "button.small",
    {
      type: "button",
      onclick: async (event) => {
        try {
          await navigator.clipboard.writeText(url);
          event.target.textContent = t("lobby.copied");
        } catch {
          event.target.textContent = url;
        }
      },
    },
    t("lobby.copy"),
  );
  const problem = invite && !invite.reachable ? invite.problem : null;
  return h(
    "div.invite-link",
    {},
    problem
      ? h("div.invite-problem", { role: "alert" }, h("strong", {}, t("invite.unreachable")), " ", problem === "no_network" ? t("invite.no_network") : t("invite.loopback_only"))
      : null,
    board ? h("p.board-url", {}, url) : h("p.join-url", {}, h("code", {}, url), " ", copy),
    h("img", { class: board ? "board-qr" : "qr", src: `/api/rooms/${code}/qr.svg`, alt: t("lobby.qr_alt", { code }), width: 200, height: 200 }),
    !problem && !board ? h("p.hint", {}, t("invite.same_network")) : null,
  );
}

// Every rabbit of the room gets its own mark: a bot's from its colour's name, a person's from theirs.
export function markRabbits(members) {
  setMarks(members.map((m) => ({ name: memberName(m), label: m.bot ? t(`colour.${m.colour}`) : m.name, byFirst: Boolean(m.bot) })));
}

// ---------------------------------------------------------------- countdowns

export function clockText(seconds) {
  const left = Math.max(0, Math.round(seconds));
  return `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
}

// A countdown to ``deadline`` (Unix seconds), worded by ``words(time)``; the screen's ticker
// keeps every one of them current, each with the words of the screen's newest drawing (a
// countdown kept across a redraw takes the new one's, as a handler does).
export function countdown(deadline, words) {
  const left = deadline - Date.now() / 1000;
  return h("span.countdown", { "data-deadline": deadline, _words: words }, words(clockText(left), left));
}

export function tickCountdowns() {
  for (const element of document.querySelectorAll(".countdown[data-deadline]")) {
    const left = Number(element.dataset.deadline) - Date.now() / 1000;
    if (element._words) element.textContent = element._words(clockText(left), left);
  }
}

export const timeLeft = (time) => t("table.time_left", { time });

// Who the table waits for but is not here: a bot plays for them, now or once their grace ends.
export function awayLines(game, { bySeat, nameOf, mine = null }) {
  const lines = [];
  for (const s of game.awaiting) {
    const member = bySeat(s);
    if (!member || member.bot || s === mine) continue;
    const name = nameOf(s);
    if (member.stand_in_at && member.stand_in_at > Date.now() / 1000 && !member.away) {
      lines.push(h("p.away-line", {}, countdown(member.stand_in_at, (time) => t("table.stand_in", { name, time }))));
    } else if (member.away || member.stand_in_at) {
      lines.push(h("p.away-line", {}, t("table.bot_plays_for", { name })));
    }
  }
  return lines;
}

// ---------------------------------------------------------------- how the game ends

// How this game ends, as the engine decides it (`Ruleset.game_ends`): after seats × cycles rounds
// when the storytellers go round a set number of times, at the target score, when the draw pile
// runs out — any of them that is on. "of 6" reads after "Round 1"; "" when nothing more is to say.
export function gameEnd(game) {
  const options = game.options || {};
  const target = options.target_score ?? null;
  const cycles = options.storyteller_cycles ?? null;
  const deck = Boolean(options.end_on_empty_deck);
  const left = game.draw_pile;
  if (cycles !== null) {
    const rounds = game.seats * cycles;
    if (target !== null && deck) return t("table.end_of_both", { rounds, target, left });
    if (target !== null) return t("table.end_of_points", { rounds, target });
    if (deck) return t("table.end_of_deck", { rounds, left });
    return t("table.end_of", { rounds });
  }
  if (target !== null && deck) return t("table.end_both", { target, left });
  if (target !== null) return t("table.end_points", { target });
  if (deck) return t("table.end_deck", { left });
  return "";
}

// "Round 2 of 6", "Round 2 · ends when someone reaches 30 points": the round (`.round`, as it
// always was) and how the game ends (`.game-end`).
export function roundLine(game) {
  const end = gameEnd(game);
  return h("span.round-line", {}, h("span.round", {}, t("table.round", { round: game.round })), end ? [" ", h("span.game-end", {}, end)] : null);
}

// ---------------------------------------------------------------- who plays: seats, or teams

// The rows of a ranking, a track or a reveal: one per seat, or — in teams — one per team, with
// both seats (the team's rabbit is its first member's). Sorted by score, best first, with ranks.
export function sides(game) {
  const rows = game.teams
    ? game.teams.map((seats, team) => ({ team, seats, score: game.scores[seats[0]] }))
    : game.scores.map((score, seat) => ({ team: null, seats: [seat], score }));
  rows.sort((a, b) => b.score - a.score || a.seats[0] - b.seats[0]);
  let rank = 0;
  rows.forEach((row, index) => {
    if (index === 0 || row.score !== rows[index - 1].score) rank = index + 1;
    row.rank = rank;
  });
  return rows;
}

// "Mara & Ben" for a team, the name for a seat.
export function sideName(side, nameOf) {
  if (side.seats.length === 1) return nameOf(side.seats[0]);
  return t("team.name", { first: nameOf(side.seats[0]), second: nameOf(side.seats[1]) });
}

// The rabbit of a side: a team's is its first member's (with that member's mark).
export function sideRabbit(side, nameOf, bySeat, options = {}) {
  return rabbit(bySeat(side.seats[0])?.colour, nameOf(side.seats[0]), { ...options, title: sideName(side, nameOf) });
}

// The side (seat or team) a seat plays for.
export function sideOf(game, seat) {
  if (!game.teams) return { team: null, seats: [seat] };
  const team = game.teams.findIndex((seats) => seats.includes(seat));
  return { team, seats: game.teams[team] };
}

// ---------------------------------------------------------------- what a reveal says

// why a round's points are given, as the server lists them (the page carries its choices)
const REASONS = CHOICES.reasons;

// Why a seat (or team) got its points this round, as the engine gives them: "found the card ·
// 2 votes on their card".
export function reasonsText(parts) {
  return parts
    .filter((part) => REASONS.includes(part.reason))
    .map((part) => {
      if (part.reason === "decoys" && part.points < part.count) {
        return t("reason.decoys_capped", { count: part.count, points: part.points });
      }
      if (part.reason === "decoys" && part.count === 1) return t("reason.decoys_one");
      const reasonKey = `reason.${part.reason}`;
      return t(reasonKey, { count: part.count, points: part.points });
    })
    .join(t("reason.separator"));
}

export function votesText(count) {
  return count === 1 ? t("reveal.votes_one") : t("reveal.votes", { count });
}

// The sentence that says what scored this round, in the words of the mode and its options.
export function revealHeadline(last, game, nameOf) {
  const options = game.options || {};
  if (game.mode === "party") {
    return options.party_score_basis === "owner" ? t("reveal.party_owners") : t("reveal.party_voters");
  }
  const teller = game.teams ? sideName(sideOf(game, last.storyteller), nameOf) : nameOf(last.storyteller);
  const finders = last.finders.map((seat) => (game.teams ? sideName(sideOf(game, seat), nameOf) : nameOf(seat)));
  const teams = Boolean(game.teams);
  let sentence;
  // (teams: the storyteller's teammate laid a card too, and the votes on it count for the team)
  const votesOnTeammate = teams ? last.points[last.storyteller] : 0;
  if (!last.finders.length && votesOnTeammate > 0) {
    const partner = sideOf(game, last.storyteller).seats.find((seat) => seat !== last.storyteller);
    sentence = t("reveal.none_found_teams_votes", { name: teller, partner: nameOf(partner), points: votesOnTeammate });
  } else if (!last.finders.length) {
    sentence = teams ? t("reveal.none_found_teams", { name: teller }) : t("reveal.none_found", { name: teller });
  } else if (last.finders.length === last.voters.length) {
    sentence = teams ? t("reveal.all_found_teams", { name: teller }) : t("reveal.all_found", { name: teller });
  } else if (last.finders.length === 1 && options.lone_finder_bonus) {
    sentence = t("reveal.lone_finder", { name: teller, finders: finders[0] });
  } else {
    sentence = t("reveal.some_found", { name: teller, finders: listText(finders) });
  }
  // said only in a round where someone earned it (it was said whenever the option was on)
  if (singleTokenFound(last, game)) {
    sentence = t("reveal.with_bonus", { sentence, bonus: t("reveal.single_token") });
  }
  return sentence;
}

// Whether someone got the one-token bonus this round: as the round's reasons say (a record kept
// before reasons existed: a finder whose only token was on the card, with the option on).
function singleTokenFound(last, game) {
  if (last.reasons?.length) return last.reasons.some((parts) => parts.some((part) => part.reason === "single_token"));
  return game.tokens === 2 && Boolean(game.options?.single_token_bonus) && last.finders.some((seat) => last.votes[seat]?.length === 1);
}

// A server error code in the player's language; the server's own (English) message, or a
// generic one, for a code the client has no words for.
export function errorText(code, message = "") {
  const key = `error.${code}`;
  const known = t(key);
  return known !== key ? known : message || t("error.unknown");
}

// Card descriptions become the pictures' alt text, in the page's language (the original deck has
// them in each; a caption someone wrote, for their own pictures or an imported deck, is as written).
export async function describeCards(code) {
  described = code;
  const asked = language;
  try {
    const found = await api(`/api/rooms/${code}/cards?lang=${encodeURIComponent(asked)}`);
    if (described !== code || asked !== language) return; // (another room, or language, since)
    descriptions = new Map(found.cards.map((card) => [card.id, card.description]));
  } catch {
    /* pictures still show; alt text falls back to a generic one */
  }
}

// Another language: the pictures shown say what they show in it as soon as it has come (the
// screens draw their words at once, the descriptions a moment later).
onLanguage(async () => {
  if (described === null) return;
  await describeCards(described);
  for (const image of document.querySelectorAll("img[data-card]")) {
    image.alt = descriptions.get(image.dataset.card) || t("card.picture");
  }
});

// The original deck is drawn (SVG, sharp at any size); every other card — an imported deck's, a
// room's own pictures — is a stored WebP, the only form the server has of it.
export function cardSource(card) {
  return `/cards/${encodeURIComponent(card)}.${card.startsWith("fabula-") ? "svg" : "webp"}`;
}

export function cardImage(card, { width = 400 } = {}) {
  return h("img.card-img", {
    src: cardSource(card),
    alt: descriptions.get(card) || t("card.picture"),
    "data-card": card,
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
    image.src = cardSource(cards[index]);
    image.dataset.card = cards[index];
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

// The scoring track 0–30 (a score past 30 stays on the last space, with its number shown), the
// game's target in its title and, up to 30, marked ★ on its space; in teams one rabbit per team.
export function scoreTrack(room, game, { nameOf, bySeat }, { board = false } = {}) {
  const target = game.options?.target_score ?? null;
  const rows = sides(game);
  const rabbitOf = (side, size) => sideRabbit(side, nameOf, bySeat, { size });
  const spaces = [];
  for (let space = 0; space <= 30; space += 1) {
    const here = rows.filter((side) => Math.min(side.score, 30) === space);
    spaces.push(
      h(
        "li.space",
        { class: [here.length ? "occupied" : "", space === target ? "goal" : ""].join(" ").trim() },
        h("span.space-number", {}, space === target ? `★${space}` : space),
        h("span.space-rabbits", {}, here.map((side) => rabbitOf(side, board ? 34 : 18))),
      ),
    );
  }
  const list = h(
    "ol.scores",
    { "aria-label": t("track.scores") },
    rows.map((side) =>
      h("li", {}, rabbitOf(side, board ? 30 : 20), h("span.name", {}, sideName(side, nameOf)), h("span.score", {}, side.score)),
    ),
  );
  return h(
    "section.track",
    { "aria-label": t("track.title") },
    h("h3", {}, target !== null ? t("track.title_target", { target }) : t("track.title")),
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
