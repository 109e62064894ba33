// The audience as every screen shows it: how many watch and how many voted (numbers, never a list
// of names), and — after a reveal — where the crowd's vote went: on each card a marker with its
// share of the audience's votes. The state's `room.audience` is {count, voted}; its `room.crowd`
// is {round, votes: {card: n}, total, found} for the round in `game.last_round`; an album's
// `audience` is {voters, leaders: [{name, points, votes}], rounds: [crowd, …]}.
import { h } from "../dom.js";
import { language, t } from "../i18n.js";

const SVG = "http://www.w3.org/2000/svg";

// The audience's mark: two heads (drawn, not an emoji: a TV may have no emoji font).
export function crowdIcon() {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("class", "crowd-icon");
  svg.setAttribute("viewBox", "0 0 20 16");
  svg.setAttribute("aria-hidden", "true");
  for (const [cx, cy, r] of [[6.5, 4.5, 3.2], [14, 5, 2.8]]) {
    const head = document.createElementNS(SVG, "circle");
    head.setAttribute("cx", cx);
    head.setAttribute("cy", cy);
    head.setAttribute("r", r);
    svg.append(head);
  }
  for (const d of ["M0.5 16c0-4 2.7-6.5 6-6.5s6 2.5 6 6.5z", "M13.5 16c0-2.6-0.7-4.6-2-5.9 0.8-0.5 1.6-0.7 2.5-0.7 3 0 5.5 2.3 5.5 6.6z"]) {
    const body = document.createElementNS(SVG, "path");
    body.setAttribute("d", d);
    svg.append(body);
  }
  return svg;
}

// 1234 → "1,234" as the reader's language writes it.
export function number(count) {
  return new Intl.NumberFormat(language).format(count);
}

// The crowd's vote on the revealed round ``last`` (null: nobody in the audience voted in it, or
// the state tells of another round).
export function crowdOf(room, last) {
  const crowd = room?.crowd;
  return crowd && last && crowd.round === last.round && crowd.total > 0 ? crowd : null;
}

// The crowd's vote on round ``number`` of an album (null: nobody in the audience voted in it).
export function albumCrowd(album, number) {
  return album?.audience?.rounds.find((crowd) => crowd.round === number && crowd.total > 0) ?? null;
}

// A card's share of the crowd's votes, in whole percent.
export function crowdShare(crowd, card) {
  return crowd.total ? Math.round(((crowd.votes[card] ?? 0) * 100) / crowd.total) : 0;
}

// The marker on a revealed card: "crowd 42%" (a bar under the words shows the share); null when
// the round has no crowd vote.
export function crowdMark(crowd, card) {
  if (!crowd) return null;
  const votes = crowd.votes[card] ?? 0;
  const share = crowdShare(crowd, card);
  const label = t("crowd.mark_label", { share, count: number(votes) });
  return h(
    "span.crowd-mark",
    { class: votes ? "" : "none", "data-share": share, "aria-label": label, title: label, style: { "--share": `${share}%` } },
    crowdIcon(),
    t("crowd.mark", { share }),
  );
}

// "42 of 60 in the crowd found it" for a revealed round (null: no crowd vote).
export function crowdFound(crowd) {
  if (!crowd) return null;
  return t("crowd.found", { found: number(crowd.found), total: number(crowd.total) });
}

// "👥 1,234 watching · 312 voted" (the votes during the vote only; with ``last``, a revealed round,
// how many of the crowd found the storyteller's card); null while nobody watches.
export function audienceLine(room, tag = "p.audience-line", last = null) {
  const audience = room?.audience;
  if (!audience?.count) return null;
  const voting = room.game?.phase === "vote" && !last;
  const found = crowdFound(crowdOf(room, last));
  return h(
    tag,
    { class: "audience-count", "data-count": audience.count },
    crowdIcon(),
    h("span.watching", {}, t("crowd.watching", { count: number(audience.count) })),
    voting ? [" · ", h("span.voted", {}, t("crowd.voted", { count: number(audience.voted) }))] : null,
    found ? [" · ", h("span.crowd-found", {}, found)] : null,
  );
}

// Put the crowd's markers on the cards of a drawn reveal (cards `li[data-card]`) and its line
// (`.crowd-line`), in place: the dialog is drawn once, and votes stored just after the reveal may
// still come with the next states.
export function fillCrowd(root, crowd) {
  const key = crowd ? JSON.stringify(crowd) + language : "";
  if (root.dataset.crowd === key) return;
  root.dataset.crowd = key;
  for (const card of root.querySelectorAll("li[data-card]")) {
    card.querySelector(":scope > .crowd-mark")?.remove();
    const mark = crowdMark(crowd, card.dataset.card);
    if (mark) card.insertBefore(mark, card.querySelector(":scope > .owner")); // (under the picture)
  }
  const line = root.querySelector(".crowd-line");
  if (line) {
    line.textContent = crowdFound(crowd) ?? "";
    line.hidden = !crowd;
  }
}

// The album's audience leaderboard: the top ten (1 point per round they found the storyteller's
// card) and how many voted; null for a game nobody in the audience voted in.
export function audienceBoard(album) {
  const audience = album?.audience;
  if (!audience) return null;
  // leaders alike (as many right, of as many votes) share a place, as in a sports table: 1, 1, 3
  const places = [];
  audience.leaders.forEach((leader, index) => {
    const before = audience.leaders[index - 1];
    places.push(before && before.points === leader.points && before.votes === leader.votes ? places[index - 1] : index + 1);
  });
  return h(
    "section.audience-board",
    { "aria-label": t("crowd.board_title") },
    h("h4", {}, crowdIcon(), t("crowd.board_title")),
    h("p.hint", {}, t("crowd.board_voters", { count: number(audience.voters) })),
    h(
      "ol.audience-leaders",
      {},
      audience.leaders.map((leader, index) =>
        h(
          "li",
          { "data-key": `leader-${index}` },
          h("span.leader-rank", {}, `${places[index]}`),
          h("span.leader-name", { title: leader.name }, leader.name),
          h("strong.leader-points", {}, t("crowd.points", { points: number(leader.points) })),
          h("span.leader-votes", {}, t("crowd.of_votes", { votes: number(leader.votes) })),
        ),
      ),
    ),
  );
}
