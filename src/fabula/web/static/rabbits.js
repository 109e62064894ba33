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

function svg(tag, attrs) {
  const element = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) element.setAttribute(key, value);
  return element;
}

// A rabbit token: two ears, a round body, the player's initial on it.
export function rabbit(colour, name = "", { size = 32, lit = true } = {}) {
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
  letter.textContent = ([...(name || colour).trim()][0] || "?").toUpperCase();
  icon.append(letter);
  return h("span.rabbit", { class: lit ? "lit" : "dim", title: `${name} (${t(`colour.${colour}`)})` }, icon);
}
