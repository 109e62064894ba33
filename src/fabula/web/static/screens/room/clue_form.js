// The storyteller's clue form: the clue typed, or said aloud at the table ("I said it aloud"),
// or a recorded sound (screens/sound.js) — then the words are optional: kept for the album and the
// bots, which cannot hear.
import { CHOICES } from "../../choices.js";
import { h } from "../../dom.js";
import { t } from "../../i18n.js";
import { dropRecording, recorderPart } from "../sound.js";

// ``blind``: party's clue before the hand (no card chosen); ``awayHint``: the action bar's line
// while the connection is away.
export function clueForm(v, { blind, awayHint }) {
  const { ui, send, draw } = v;
  // The field stops at the server's limit, counted as the server counts (characters, not the
  // UTF-16 units of a maxlength: an emoji is one), and says so: what went past it is cut and
  // the hint says that the rest did not fit; a key pressed at the limit, that it is the limit.
  const max = CHOICES.text_max.clue;
  const limit = (field, event) => {
    const chars = [...field.value];
    if (chars.length > max) {
      const end = field.selectionEnd ?? field.value.length;
      const kept = chars.slice(0, max).join("");
      field.value = kept;
      field.setSelectionRange(Math.min(end, kept.length), Math.min(end, kept.length));
      ui.clueLimit = "cut";
    } else if (chars.length < max) {
      ui.clueLimit = "";
    } else if (event.type === "keydown" || !ui.clueLimit) {
      ui.clueLimit = "full";
    }
    ui.clue = field.value;
  };
  // near the limit, the clue says how long it is; at the limit, that it can be no longer, or
  // that what was pasted past it was left out
  const showLength = (hint) => {
    const count = [...ui.clue].length;
    let text = "";
    if (count >= max) text = ui.clueLimit === "cut" ? t("table.clue_cut", { count, max }) : t("table.clue_full", { count, max });
    else if (count >= max * 0.75) text = t("table.clue_length", { count, max });
    hint.textContent = text;
    hint.classList.toggle("full", count >= max);
    return hint;
  };
  const typed = (event) => {
    const field = event.target;
    if (!event.isComposing) limit(field, event); // (an IME's word is measured once it is chosen)
    else ui.clue = field.value;
    // (the page keeps its elements across redraws: the hint shown is found from the field)
    const shown = field.closest("form")?.querySelector(".clue-length");
    if (shown) showLength(shown);
    if (ui.message === t("error.clue_empty") && ui.clue.trim()) {
      ui.message = "";
      draw();
    }
  };
  const input = h("input.clue-input", {
    name: "clue",
    // said aloud, the same field (the same element: a redraw keeps what is typed and the focus)
    // asks for the optional words
    placeholder: ui.aloud ? t("table.aloud_placeholder") : t("table.clue_placeholder"),
    "aria-label": ui.aloud ? t("table.aloud_label") : t("table.clue_label"),
    value: ui.clue,
    "data-keep": "clue",
    oninput: typed,
    oncompositionend: typed,
    // a character typed at the limit goes nowhere: say why
    onkeydown: (event) => {
      const field = event.target;
      const replacing = field.selectionStart !== field.selectionEnd;
      if (event.key.length === 1 && !event.ctrlKey && !event.metaKey && !replacing && [...field.value].length >= max) {
        event.preventDefault();
        limit(field, event);
        const shown = field.closest("form")?.querySelector(".clue-length");
        if (shown) showLength(shown);
      }
    },
  });
  const toggleAloud = () => {
    ui.aloud = !ui.aloud;
    if (ui.message === t("error.clue_empty")) ui.message = "";
    draw();
  };
  const aloudButton = h(
    "button.small.aloud-toggle",
    { type: "button", "aria-pressed": ui.aloud ? "true" : "false", "data-key": "aloud-toggle", onclick: toggleAloud },
    t("table.said_aloud"),
  );
  const length = showLength(h("span.hint.clue-length", { "aria-live": "polite" }));
  const ready = blind ? true : ui.hand.length === 1;
  const submit = async (event) => {
    event.preventDefault();
    const clue = ui.clue.trim();
    const recorded = ui.recorded ?? {};
    if (["starting", "recording", "sending"].includes(recorded.state)) {
      ui.message = t("sound.wait");
      draw();
      return;
    }
    const sound = recorded.state === "ready" ? recorded.id : null;
    if (!clue && !ui.aloud && !sound) {
      ui.message = t("error.clue_empty");
      draw();
      document.querySelector(".clue-input")?.focus();
      return;
    }
    if (!blind && ui.hand.length !== 1) {
      ui.message = t("table.pick_card_first");
      draw();
      return;
    }
    // said aloud or with a sound, the words go only if some were typed
    const said = { ...(clue ? { clue } : {}), ...(ui.aloud ? { aloud: true } : {}), ...(sound ? { sound } : {}) };
    const reply = blind ? await send("act", { action: { type: "blind_clue", ...said } }) : await send("act", { action: { type: "tell", card: ui.hand[0], ...said } });
    if (reply.type === "ack") {
      ui.clue = "";
      ui.clueLimit = "";
      ui.aloud = false;
      dropRecording(ui);
    }
    draw();
  };
  return h(
    "form.action-bar",
    { onsubmit: submit },
    input,
    h("button.primary", { type: "submit", disabled: ui.sending }, blind ? t("table.give_clue") : t("table.tell")),
    length,
    aloudButton,
    ui.aloud ? h("span.hint.aloud-hint", {}, t("table.aloud_hint")) : null,
    recorderPart(v),
    !blind && !ready ? h("span.hint", {}, t("table.pick_card_first")) : null,
    awayHint(),
  );
}
