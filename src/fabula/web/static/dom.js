// A tiny DOM builder. Strings become text nodes, never markup: player text is always data.

export function h(tag, attrs = {}, ...children) {
  const [name, ...classes] = tag.split(".");
  const element = document.createElement(name || "div");
  if (classes.length) element.className = classes.join(" ");
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) element.addEventListener(key.slice(2).toLowerCase(), value);
    else if (key === "class") element.className += ` ${value}`;
    else if (key === "style" && typeof value === "object") Object.assign(element.style, value);
    else if (key in element && typeof value !== "string") element[key] = value;
    else element.setAttribute(key, value === true ? "" : value);
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

// A finger (or mouse button) that is down on a button: a redraw now would put a new button under
// it, and the tap would land on nothing (a click needs its press and release on one element).
// While it is down, redraws wait — for the release, or at most HOLD_MS (a long press, or a release
// the page never heard of).
const HOLD_MS = 3000;
const waiting = new Map(); // root -> the newest children it should show
let pressing = false;
let holdTimer = 0;

function release() {
  if (!pressing) return;
  pressing = false;
  clearTimeout(holdTimer);
  // after the click that the release makes (a click handler's own redraw comes first and wins)
  setTimeout(() => {
    for (const [root, children] of [...waiting]) render(root, children);
    waiting.clear();
  }, 0);
}

if (typeof document !== "undefined") {
  document.addEventListener(
    "pointerdown",
    (event) => {
      if (!event.target?.closest?.("button, a, input, select, label")) return;
      pressing = true;
      clearTimeout(holdTimer);
      holdTimer = setTimeout(release, HOLD_MS);
    },
    true,
  );
  for (const type of ["pointerup", "pointercancel"]) document.addEventListener(type, release, true);
}

// Replace what `root` shows, keeping the focused field (and what was typed in it), and where each
// list marked `data-scroll` was scrolled to, across the re-render that every new state causes.
export function show(root, ...children) {
  if (pressing) {
    waiting.set(root, children);
    return;
  }
  waiting.delete(root);
  render(root, children);
}

function render(root, children) {
  const active = document.activeElement;
  const key = active?.dataset?.keep;
  const selection = key && "selectionStart" in active ? [active.selectionStart, active.selectionEnd] : null;
  // a list that scrolls on its own (a phone's hand) stays where its reader left it
  const scrolled = [...root.querySelectorAll("[data-scroll]")].map((e) => [e.dataset.scroll, e.scrollLeft, e.scrollTop]);
  root.replaceChildren();
  append(root, children);
  for (const [name, left, top] of scrolled) {
    const again = root.querySelector(`[data-scroll="${CSS.escape(name)}"]`);
    if (again) again.scrollTo({ left, top, behavior: "instant" });
  }
  if (key) {
    const again = root.querySelector(`[data-keep="${CSS.escape(key)}"]`);
    if (again) {
      again.focus({ preventScroll: true });
      if (selection && "setSelectionRange" in again) {
        try {
          again.setSelectionRange(...selection);
        } catch {
          /* not a text field */
        }
      }
    }
  }
}
