// Stepping through rounds (the album, the replay): ←/→ on the page and a swipe on the pictures.

// ``element`` shows ``children`` (null, false and "" are nothing; Node.replaceChildren would say "null").
export function fill(element, ...children) {
  element.replaceChildren(...children.flat().filter((child) => child !== null && child !== undefined && child !== false && child !== ""));
}

function typing(event) {
  return event.target?.closest?.("input, textarea, select, [contenteditable]");
}

// ←/→ on the page while ``element`` is shown (and no other dialog is over it), and a swipe on
// ``area``; ``extra(event)``: other keys. The listener's remover.
export function stepKeys(element, step, extra = null) {
  const keys = (event) => {
    if (!element.isConnected || typing(event) || event.altKey || event.ctrlKey || event.metaKey) return;
    const dialog = document.querySelector(".viewer, #layer .overlay");
    if (dialog && !dialog.contains(element)) return;
    if (event.key === "ArrowRight") step(1);
    else if (event.key === "ArrowLeft") step(-1);
    else if (extra?.(event) !== true) return;
    event.preventDefault();
  };
  document.addEventListener("keydown", keys);
  return () => document.removeEventListener("keydown", keys);
}

export function swipeable(area, step) {
  let start = null;
  area.addEventListener("pointerdown", (event) => {
    if (event.pointerType === "mouse") return;
    start = { x: event.clientX, y: event.clientY };
  });
  area.addEventListener("pointerup", (event) => {
    if (!start) return;
    const dx = event.clientX - start.x;
    const dy = event.clientY - start.y;
    start = null;
    if (Math.abs(dx) > 50 && Math.abs(dx) > Math.abs(dy) * 1.5) step(dx < 0 ? 1 : -1);
  });
  area.addEventListener("pointercancel", () => (start = null));
}
