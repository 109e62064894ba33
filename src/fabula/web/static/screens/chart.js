// An album read (its game, its people, its lines of scores), and its score chart drawn as SVG.
import { language, listText, t } from "../i18n.js";
import { RABBITS } from "../rabbits.js";
import { memberName, sideName } from "./parts.js";

const SVG = "http://www.w3.org/2000/svg";

// ---------------------------------------------------------------- reading an album

// What the round drawing needs of a game, from an album: its mode, options, teams and tokens.
export function albumGame(album) {
  const most = Math.max(1, ...album.rounds.flatMap((round) => round.votes.map((slots) => slots.length)));
  return { mode: album.mode, options: album.options || {}, teams: album.teams, tokens: most };
}

// Who played each seat in round ``round`` (null: the last to sit in each, `album.players`): a
// seat taken over keeps, for the rounds before, who played it then (the server's `players_in`).
export function albumPlayers(album, round = null) {
  const players = [...album.players];
  if (round === null) return players;
  for (const change of [...(album.takeovers ?? [])].reverse()) {
    const at = players.findIndex((p) => p.seat === change.seat);
    if (change.round > round && at >= 0) players[at] = change.former;
  }
  return players;
}

// Everyone who sat at the table: those at the start, then each newcomer (to mark their rabbits).
export function albumEveryone(album) {
  return [...albumPlayers(album, 0), ...(album.takeovers ?? []).map((change) => change.player)];
}

// Names and rabbits of an album's seats (a bot is named by its rabbit, as in the room), as they
// were in round ``round`` (null: the last to sit in each).
export function albumPeople(album, round = null) {
  const players = albumPlayers(album, round);
  const bySeat = (seat) => players.find((p) => p.seat === seat);
  const nameOf = (seat) => memberName(bySeat(seat)) ?? `#${seat + 1}`;
  return { bySeat, nameOf };
}

// The same for the game being played, from its room's state: its members, and the take-overs of its
// album (`room.takeovers`) — a round shown again names who played it then, not who sits there now.
export function roomPeople(room, round) {
  const players = (room.members ?? []).filter((m) => m.seat !== null && m.seat !== undefined);
  return albumPeople({ players, takeovers: room.takeovers ?? [] }, round);
}

// "Leo took over Hal's seat from round 4": a line per take-over (those starting in ``round``
// only, when given).
export function takeoverLines(album, round = null) {
  return (album.takeovers ?? [])
    .filter((change) => round === null || change.round === round)
    .map((change) => t("album.took_over", { name: memberName(change.player), former: memberName(change.former), round: change.round }));
}

// A seat's name in a final ranking: its last player's, and — taken over — from whom, from when
// ("Leo (took over from Hal in round 4)"): the seat's points are not all the last player's.
export function finalNameOf(album) {
  const { nameOf } = albumPeople(album);
  return (seat) => {
    const last = (album.takeovers ?? []).filter((change) => change.seat === seat).at(-1);
    return last ? t("album.took_over_ranked", { name: nameOf(seat), former: memberName(last.former), round: last.round }) : nameOf(seat);
  };
}

// The sides of a game (seats, or teams) in seat order.
export function albumSides(album) {
  if (album.teams) return album.teams.map((seats, team) => ({ team, seats }));
  return album.players.map((p) => ({ team: null, seats: [p.seat] }));
}

// Each side's score after every round, from 0 before the first (the server's `score_lines`).
export function scoreLines(album) {
  return albumSides(album).map((side) => [0, ...album.rounds.map((round) => round.scores[side.seats[0]])]);
}

export function winnersText(album, nameOf) {
  const outcome = album.outcome;
  if (!outcome) return "";
  let names;
  if (album.teams && outcome.winning_teams?.length) {
    names = listText(outcome.winning_teams.map((team) => sideName({ seats: album.teams[team] }, nameOf)));
  } else {
    names = listText(outcome.winners.map(nameOf));
  }
  const shared = album.teams ? (outcome.winning_teams?.length ?? 1) > 1 : outcome.winners.length > 1;
  if (shared) return t("over.shared", { names });
  return album.teams ? t("over.team_wins", { name: names }) : t("over.winner", { name: names });
}

export function dateText(seconds) {
  if (!seconds) return "";
  try {
    return new Intl.DateTimeFormat(language, { dateStyle: "medium", timeStyle: "short" }).format(new Date(seconds * 1000));
  } catch {
    return new Date(seconds * 1000).toLocaleString();
  }
}

// ---------------------------------------------------------------- the score chart

function svg(tag, attrs = {}, text = null) {
  const element = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) element.setAttribute(key, String(value));
  if (text !== null) element.textContent = text; // text, never markup
  return element;
}

// How wide ``text`` is set in the chart's labels (bold, ``font`` px, the page's font).
let measurer = null;
function labelWidthOf(text, font) {
  measurer ??= document.createElement("canvas").getContext("2d");
  if (!measurer) return [...text].length * font * 0.62; // no canvas: a Latin letter's width
  measurer.font = `700 ${font}px ${getComputedStyle(document.body).fontFamily || "sans-serif"}`;
  return measurer.measureText(text).width;
}

// ``name`` cut (with …) until ``name + after`` fits ``room`` px.
function fitName(name, after, room, font) {
  const chars = [...name];
  if (labelWidthOf(name + after, font) <= room) return name;
  for (let keep = chars.length - 1; keep > 1; keep -= 1) {
    const cut = `${chars.slice(0, keep).join("")}…`;
    if (labelWidthOf(cut + after, font) <= room) return cut;
  }
  return `${chars[0]}…`;
}

// Each side's score after every round as lines in the rabbits' colours, the names and scores at
// the ends (colour is never the only cue), the rounds along the bottom. ``upTo``: draw the
// rounds up to this one only (the replay); ``width`` and ``font`` in CSS pixels.
export function scoreChart(album, { upTo = null, width = 640, font = 14, dark = false } = {}) {
  // (the replay names each line by who played its seat in the round it has reached)
  const { bySeat, nameOf } = albumPeople(album, upTo === null || upTo >= album.rounds.length ? null : Math.max(1, upTo));
  const sides = albumSides(album);
  const lines = scoreLines(album);
  const rounds = album.rounds.length;
  const shown = upTo === null ? rounds : Math.min(upTo, rounds);
  const top = Math.max(5, ...lines.flat());
  const stepY = top > 40 ? 10 : 5;
  const maxY = Math.ceil(top / stepY) * stepY;
  // room at the right for the names and scores: as wide as the widest label needs, but no more
  // than 40 % of the chart (a longer name is cut to fit, never clipped at the chart's edge)
  const most = Math.max(font * 4, width * 0.4);
  const labelTexts = sides.map((side, index) => {
    const last = lines[index][rounds]; // (the final score: the room stays as the replay goes on)
    const names = side.seats.map((seat) => nameOf(seat));
    return names.length > 1 ? [`${names[0]} &`, `${names[1]} ${last}`] : [`${names[0]} ${last}`];
  });
  const widest = Math.max(0, ...labelTexts.flat().map((text) => labelWidthOf(text, font)));
  const labelWidth = Math.min(most, Math.max(font * 5, widest + font * 0.6));
  const height = Math.round(Math.max(font * 14, Math.min(width * 0.55, font * 24)));
  const left = font * 2.2;
  const right = width - labelWidth;
  const topY = font;
  const bottom = height - font * 2.4;
  const x = (r) => left + ((right - left - font) * r) / Math.max(1, rounds);
  const y = (score) => bottom - ((bottom - topY) * score) / maxY;
  const chart = svg("svg", {
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    class: `score-chart${dark ? " dark" : ""}`,
    role: "img",
    "aria-label": t("album.chart"),
    "font-size": font,
  });
  chart.append(svg("title", {}, t("album.chart")));
  // the grid: a line every few points, the round numbers along the bottom
  for (let score = 0; score <= maxY; score += stepY) {
    chart.append(
      svg("line", { x1: left, x2: right - font, y1: y(score), y2: y(score), class: "chart-grid" }),
      svg("text", { x: left - font * 0.4, y: y(score) + font * 0.35, "text-anchor": "end", class: "chart-axis" }, score),
    );
  }
  const every = rounds > 16 ? Math.ceil(rounds / 12) : 1;
  for (let r = 0; r <= rounds; r += 1) {
    if (r % every && r !== rounds) continue;
    chart.append(svg("text", { x: x(r), y: bottom + font * 1.2, "text-anchor": "middle", class: "chart-axis" }, r));
  }
  chart.append(svg("text", { x: (left + right) / 2, y: height - font * 0.2, "text-anchor": "middle", class: "chart-axis" }, t("album.chart_rounds")));
  if (upTo !== null && shown > 0) {
    chart.append(svg("line", { x1: x(shown), x2: x(shown), y1: topY, y2: bottom, class: "chart-now" }));
  }
  // the lines, each over a darker edge (a white or yellow rabbit shows on a light page too)
  const ends = [];
  // Sides with the very same scores so far would hide one another: each is moved a few pixels
  // off the shared line, so every colour shows.
  const series = lines.map((line) => line.slice(0, shown + 1).join(","));
  const nudge = series.map((key, index) => {
    const same = series.flatMap((other, at) => (other === key ? [at] : []));
    return (same.indexOf(index) - (same.length - 1) / 2) * font * 0.3;
  });
  sides.forEach((side, index) => {
    const colour = bySeat(side.seats[0])?.colour;
    const fill = RABBITS[colour] || "#999";
    const points = lines[index].slice(0, shown + 1).map((score, r) => `${x(r).toFixed(1)},${(y(score) + nudge[index]).toFixed(1)}`);
    const group = svg("g", { class: "chart-line" });
    group.append(
      svg("polyline", { points: points.join(" "), fill: "none", stroke: dark ? "#000" : "#2b2420", "stroke-width": font * 0.42, "stroke-linejoin": "round", "stroke-linecap": "round", opacity: 0.55 }),
      svg("polyline", { points: points.join(" "), fill: "none", stroke: fill, "stroke-width": font * 0.26, "stroke-linejoin": "round", "stroke-linecap": "round" }),
    );
    const last = lines[index][shown];
    group.append(svg("circle", { cx: x(shown), cy: y(last) + nudge[index], r: font * 0.38, fill, stroke: dark ? "#000" : "#2b2420", "stroke-width": 1.5 }));
    chart.append(group);
    // a team's two names on two lines: "Mara &", "Ben 12"; each cut to the room at the right
    const room = width - (x(rounds) + font * 0.8) - font * 0.2;
    const names = side.seats.map((seat) => nameOf(seat));
    const labelLines =
      names.length > 1
        ? [`${fitName(names[0], " &", room, font)} &`, `${fitName(names[1], ` ${last}`, room, font)} ${last}`]
        : [`${fitName(names[0], ` ${last}`, room, font)} ${last}`];
    ends.push({ y: y(last), lines: labelLines, fill });
  });
  // the names at the ends, pushed apart where lines end together
  ends.sort((a, b) => a.y - b.y);
  const gap = font * 1.15;
  for (let i = 1; i < ends.length; i += 1) {
    ends[i].label = Math.max(ends[i].y, (ends[i - 1].label ?? ends[i - 1].y) + gap * ends[i - 1].lines.length);
  }
  if (ends.length) ends[0].label = ends[0].y;
  const overflow = (ends.at(-1)?.label ?? 0) + gap * ((ends.at(-1)?.lines.length ?? 1) - 1) - (height - font * 0.9);
  if (overflow > 0) for (const end of ends) end.label -= overflow;
  // (at the right whatever round the lines have reached: the labels never cover the lines or
  // the round numbers; a thin line leads from each line's end to its name)
  const labelX = x(rounds) + font * 0.8;
  for (const end of ends) {
    if (Math.abs(end.label - end.y) > 1 || shown < rounds) {
      chart.append(svg("line", { x1: x(shown), y1: end.y, x2: labelX - font * 0.2, y2: end.label, class: "chart-lead" }));
    }
    const label = svg("text", { x: labelX, y: end.label + font * 0.35, class: "chart-label" });
    end.lines.forEach((line, row) => label.append(svg("tspan", { x: labelX, dy: row ? gap : 0 }, line)));
    chart.append(label);
  }
  return chart;
}

// The chart's width for this window (``dark``: the TV's replay).
export function chartWidth(dark) {
  if (dark) return Math.max(480, Math.min(900, Math.round(window.innerWidth * 0.42)));
  return Math.max(300, Math.min(760, window.innerWidth - 40));
}
