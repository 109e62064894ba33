// The name a person types to take a seat or create a room, checked as they type: a name longer
// than the server takes is said to be (not silently cut), and not sent.

import { CHOICES } from "../choices.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";

const NAME_MAX = CHOICES.text_max.name;

// Whether ``name`` is longer than the server takes.
export function tooLongName(name) {
  return [...name.trim()].length > NAME_MAX;
}

// The name field: a name longer than the server takes is said to be, not silently cut. ``keep``:
// the input's key across redraws; ``onInput``: called after each change (a page that draws from it).
export function nameField(form, { keep = "name", onInput = null } = {}) {
  // (the page keeps its elements across redraws: the warning shown is found from the field typed in)
  const say = (warning) => {
    const length = [...form.name.trim()].length;
    warning.textContent = length > NAME_MAX ? t("start.name_too_long", { count: length, max: NAME_MAX }) : "";
    warning.classList.toggle("error", length > NAME_MAX);
    return warning;
  };
  const input = h("input", {
    name: "name",
    required: true,
    value: form.name,
    autocomplete: "nickname",
    "data-keep": keep,
    oninput: (event) => {
      form.name = event.target.value;
      const warning = event.target.closest("label")?.querySelector(".name-warning");
      if (warning) say(warning);
      onInput?.();
    },
  });
  return h("label.field", {}, h("span.label", {}, t("start.name")), input, say(h("span.hint.name-warning", { "aria-live": "polite" })));
}

// Whether the name in ``formElement`` is longer than the server takes: if so, the field (its
// warning under it already says why) gets the focus, and nothing is sent to be refused again.
export function nameTooLong(form, formElement) {
  if (!tooLongName(form.name)) return false;
  formElement.querySelector("input[name=name]")?.focus();
  return true;
}
