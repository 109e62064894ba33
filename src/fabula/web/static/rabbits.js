// The twelve rabbits: colour, and an initial on each so colour is never the only cue.
import { h } from "./dom.js";
import { t } from "./i18n.js";

export const RABBITS = {
  red: "#D7263D",
  pink: "#F49AC2",
  yellow: "#F2C14E",
  blue: "#2E86DE",
  "dark green": "#1B7F3B",
  "light green": "#8BD35B",
  orange: "#F28C28",
  brown: "#8B5A2B",
  purple: "#7D3C98",
  black: "#222222",
  white: "#F5F5F5",
  grey: "#9AA0A6",
};
const DARK_TEXT = new Set(["pink", "yellow", "light green", "white", "grey", "orange"]);
const SVG = "http://www.w3.org/2000/svg";
const CJK = /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]/;
const LETTER = /[\p{L}\p{N}]/u;

// The marks a name could carry, best first. A Chinese name is told apart by its last character
// (小美 and 小明: 美 and 明); a Latin one by its initial, then two initials or two letters.
function candidates(label, byFirst = false) {
  const chars = [...label.trim()];
  if (!chars.length) return ["?"];
  if (CJK.test(chars[0])) {
    return byFirst ? [chars[0], ...chars.slice(1)] : [chars[chars.length - 1], chars[0], ...chars.slice(1, -1)];
  }
  const letters = chars.filter((c) => LETTER.test(c));
  const first = (letters[0] || chars[0]).toUpperCase();
  const words = label.trim().split(/\s+/).filter((word) => LETTER.test(word));
  const found = [first];
  if (words.length > 1) found.push(first + [...words[1]].find((c) => LETTER.test(c)).toUpperCase());
  if (letters.length > 1) found.push(first + letters[1].toLowerCase());
  return found;
}

let marks = new Map(); // shown name → the mark on its rabbit

// Give every member of a room a different mark: ``members`` as [{name: shown name, label: what
// the mark is taken from, byFirst: its first character first (a colour: 深綠色 → 深)}], in seat
// or joining order (the first keeps the best mark).
export function setMarks(members) {
  marks = new Map();
  const used = new Set();
  for (const { name, label, byFirst } of members) {
    if (marks.has(name)) continue;
    const options = candidates(label || name, byFirst);
    const mark = options.find((option) => !used.has(option)) ?? options[0];
    used.add(mark);
    marks.set(name, mark);
  }
}

function svg(tag, attrs) {
  const element = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) element.setAttribute(key, value);
  return element;
}

// A rabbit token: two ears, a round body, the player's initial on it.
// ``title``: what it stands for, when not just ``name`` (a team: "Mara & Ben", marked as Mara);
// ``byFirst``: a name that is told apart by its first character (a colour's: 深綠色 → 深).
export function rabbit(colour, name = "", { size = 32, lit = true, title = null, byFirst = false } = {}) {
  const fill = RABBITS[colour] || "#999";
  const icon = svg("svg", { viewBox: "0 0 40 48", width: size, height: size * 1.2, class: "rabbit-svg" });
  const stroke = colour === "white" ? "#888" : "rgba(0,0,0,.35)";
  icon.append(
    svg("ellipse", { cx: 13, cy: 12, rx: 5, ry: 12, fill, stroke }),
    svg("ellipse", { cx: 27, cy: 12, rx: 5, ry: 12, fill, stroke }),
    svg("circle", { cx: 20, cy: 31, r: 15, fill, stroke }),
  );
  const letter = svg("text", {
    x: 20,
    y: 36,
    "text-anchor": "middle",
    "font-size": 15,
    "font-weight": 700,
    fill: DARK_TEXT.has(colour) ? "#222" : "#fff",
  });
  const mark = marks.get(name) ?? candidates(name || colour, byFirst)[0];
  if ([...mark].length > 1) letter.setAttribute("font-size", 12);
  letter.textContent = mark;
  icon.append(letter);
  return h("span.rabbit", { class: lit ? "lit" : "dim", title: `${title ?? name} (${t(`colour.${colour}`)})` }, icon);
}
