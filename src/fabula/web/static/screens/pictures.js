// The group's own pictures, in the lobby: the host adds photos and drawings (several files or a
// .zip, from a phone's library too), sees them as thumbnails, captions or removes each, and
// chooses what the game is dealt from. Everyone else sees what the game will be dealt from.
// The server makes every file a card (or says why not); this only sends, shows and asks again.
// A picture refused as the same as one already taken is shown beside it: the host keeps both
// (the file is sent again, with keep_duplicates) or skips it.
import { CHOICES } from "../choices.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { ApiError, api } from "../net.js";
import { seeingModels } from "./room/models.js";

const OWN = "pictures"; // the deck name that stands for the room's own pictures (cards.library.OWN_DECK)
// A deck link opened in this browser (/#deck-link=…), waiting for a room this browser hosts.
export const DECK_LINK = "fabula.deckLink";
const ORIGINAL_CARDS = 84;

export function picturesState() {
  return { list: null, seq: -1, opened: false, loading: false, sending: null, results: [], error: "", captions: {}, link: "", confirming: null, pairs: [] };
}

// An upload through XMLHttpRequest: fetch cannot tell how much of the body has gone yet. ``keep``:
// no file is refused as the same picture as another (the host has seen the pair).
function upload(code, token, files, onProgress, keep = false) {
  return new Promise((resolve, reject) => {
    const form = new FormData();
    for (const file of files) form.append("files", file, file.name);
    if (keep) form.append("keep_duplicates", "1");
    const xhr = new XMLHttpRequest();
    xhr.open("POST", `/api/rooms/${code}/pictures`);
    xhr.setRequestHeader("Authorization", `Bearer ${token}`);
    xhr.upload.onprogress = (event) => onProgress(event.loaded, event.lengthComputable ? event.total : 0);
    xhr.upload.onload = () => onProgress(null, 0); // all sent: the server is making the cards
    xhr.onload = () => {
      let data = {};
      try {
        data = JSON.parse(xhr.responseText);
      } catch {}
      if (xhr.status === 201) resolve(data);
      else reject(new ApiError(data.error?.code || `http_${xhr.status}`, data.error?.message || ""));
    };
    xhr.onerror = () => reject(new ApiError("offline", ""));
    xhr.send(form);
  });
}

// The seat count a deck is checked for (the fewest the mode plays, until more are here) and the
// cards a game needs there.
// At most this many files, or this many bytes, a request (a larger file goes alone).
const BATCH_FILES = 10;
const BATCH_BYTES = 64 * 2 ** 20;

function inBatches(files) {
  const batches = [];
  let batch = [];
  let bytes = 0;
  for (const file of files) {
    if (batch.length && (batch.length === BATCH_FILES || bytes + file.size > BATCH_BYTES)) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(file);
    bytes += file.size;
  }
  if (batch.length) batches.push(batch);
  return batches;
}

// The pictures of an upload's ``results`` refused as copies of another, with the file each was
// (results come in the order of the files; a .zip's pictures cannot be sent alone again).
let pairsMade = 0;
function pairsOf(results, files) {
  const left = [...files];
  const pairs = [];
  for (const result of results) {
    const at = left.findIndex((file) => file.name === result.name);
    if (at < 0) continue; // one of a .zip's files
    const [file] = left.splice(at, 1);
    if (result.code === "duplicate" && result.twin?.url) {
      pairs.push({ id: ++pairsMade, result, file, twin: result.twin, canvas: null, sending: false });
    }
  }
  return pairs;
}

// The new picture of a pair, drawn once on a canvas the screen keeps (the page's policy lets no
// blob: URL be an image), cropped to the card's 2:3 as the server crops it.
const PREVIEW = { width: 240, height: 360 };
function preview(pair) {
  if (pair.canvas) return pair.canvas;
  pair.canvas = h("canvas.pair-new", { ...PREVIEW, "data-key": `pair-${pair.id}`, role: "img", "aria-label": pair.result.name });
  createImageBitmap(pair.file)
    .then((bitmap) => {
      const scale = Math.max(PREVIEW.width / bitmap.width, PREVIEW.height / bitmap.height);
      const [width, height] = [PREVIEW.width / scale, PREVIEW.height / scale];
      const [left, top] = [(bitmap.width - width) / 2, (bitmap.height - height) / 2];
      pair.canvas.getContext("2d")?.drawImage(bitmap, left, top, width, height, 0, 0, PREVIEW.width, PREVIEW.height);
      bitmap.close();
    })
    .catch(() => {}); // a file the browser cannot draw: the frame stays empty, its name says which
  return pair.canvas;
}

function cardsNeeded(mode, members) {
  const found = CHOICES.modes.find((m) => m.name === mode);
  if (!found) return { seats: members, needed: 0 };
  const counts = found.seat_counts;
  const seats = counts.find((n) => n >= members) ?? counts[counts.length - 1];
  return { seats, needed: found.cards_needed[counts.indexOf(seats)] };
}

/** How many more pictures the room's deck choice needs for its seats (0: enough, or not known). */
export function picturesShort(room, p) {
  const choice = choiceOf(room.settings.decks);
  if (choice === "original" || !p.list) return { short: 0, seats: 0 };
  const { seats, needed } = cardsNeeded(room.settings.mode, room.members.length);
  const dealt = (choice === "ours" ? 0 : ORIGINAL_CARDS) + p.list.pictures.length;
  return { short: Math.max(0, needed - dealt), seats };
}

// The decks the room is dealt from now, as one of three choices.
function choiceOf(decks) {
  const own = decks.includes(OWN);
  if (!own) return "original";
  return decks.length === 1 ? "ours" : "both";
}

function decksFor(choice, decks) {
  const base = decks.filter((d) => d !== OWN);
  const original = base.length ? base : ["fabula"];
  return choice === "original" ? original : choice === "ours" ? [OWN] : [...original, OWN];
}

/**
 * The panel. ``p``: this room's picture state (picturesState); ``redraw``: draw the screen again;
 * ``send``: a message to the table; ``token``: the seat's (null for a spectator).
 */
export function picturesPanel({ room, code, token, p, redraw, send, errorText }) {
  const host = Boolean(room.you?.host);
  const decks = room.settings.decks;
  const choice = choiceOf(decks);
  // The pictures are not part of the room's state: read them again whenever the room changes
  // (a new deck choice, someone joining) and when the panel is opened.
  if (token && !p.loading && (p.list === null || p.seq !== room.seq)) {
    p.seq = room.seq;
    refresh();
  }

  // Drawn again only if the pictures changed: a redraw just after the lobby's first paint would
  // put new buttons under a finger already on its way to one.
  function refresh() {
    p.loading = true;
    const before = JSON.stringify(p.list?.pictures ?? []);
    api(`/api/rooms/${code}/pictures`, undefined, { token })
      .then((found) => {
        p.list = found;
        p.loading = false;
        if (JSON.stringify(found.pictures) !== before) redraw();
      })
      .catch((error) => {
        p.loading = false;
        p.error = errorText(error);
        redraw();
      });
  }

  // The files go in batches, one request each: each answer says how many are made cards so far
  // (the processing's progress), a batch's upload shows its own.
  async function chosen(event) {
    const files = [...event.target.files];
    event.target.value = "";
    if (!files.length || p.sending) return;
    const batches = inBatches(files);
    p.results = [];
    p.pairs = [];
    p.error = "";
    p.sending = { loaded: 0, total: 0, done: 0, files: files.length, batch: 1, batches: batches.length, processing: false };
    redraw();
    try {
      for (const [index, batch] of batches.entries()) {
        p.sending = { ...p.sending, batch: index + 1, loaded: 0, total: batch.reduce((sum, f) => sum + f.size, 0), processing: false };
        redraw();
        const results = await upload(code, token, batch, (loaded, total) => {
          p.sending = loaded === null ? { ...p.sending, processing: true } : { ...p.sending, loaded, total: total || p.sending.total };
          redraw();
        });
        p.results = [...p.results, ...results];
        p.pairs = [...p.pairs, ...pairsOf(results, batch)];
        p.sending = { ...p.sending, done: p.sending.done + batch.length };
        redraw();
        if (!p.loading) refresh(); // the thumbnails come in batch by batch
      }
    } catch (error) {
      p.error = errorText(error);
    } finally {
      p.sending = null;
      redraw();
      refresh();
    }
  }

  // The host keeps both pictures of a pair: the new one is sent again, taken whatever it looks like
  // (if that fails, the pair stays, to try again or skip).
  async function keepBoth(pair) {
    pair.sending = true;
    p.error = "";
    redraw();
    try {
      const [result] = await upload(code, token, [pair.file], () => {}, true);
      if (result) p.results = p.results.map((r) => (r === pair.result ? result : r));
      p.pairs = p.pairs.filter((other) => other !== pair);
    } catch (error) {
      p.error = errorText(error);
    }
    pair.sending = false;
    redraw();
    refresh();
  }

  function skipPair(pair) {
    p.pairs = p.pairs.filter((other) => other !== pair);
    redraw();
  }

  function remove(card) {
    api(`/api/rooms/${code}/pictures/${card}`, undefined, { method: "DELETE", token })
      .catch((error) => {
        p.error = errorText(error);
      })
      .finally(refresh);
  }

  function caption(card, text) {
    api(`/api/rooms/${code}/pictures/${card}/caption`, { caption: text }, { method: "PUT", token })
      .then(() => {
        delete p.captions[card];
      })
      .catch((error) => {
        p.error = errorText(error);
      })
      .finally(refresh);
  }

  // A download needs the seat's token in a header, which a plain link cannot send.
  function download() {
    fetch(`/api/rooms/${code}/pictures.zip`, { headers: { Authorization: `Bearer ${token}` } })
      .then(async (response) => {
        if (!response.ok) throw new ApiError(`http_${response.status}`, "");
        const url = URL.createObjectURL(await response.blob());
        const a = h("a", { href: url, download: `fabula-${code}-pictures.zip` });
        document.body.append(a);
        a.click();
        a.remove();
        setTimeout(() => URL.revokeObjectURL(url), 10_000);
      })
      .catch((error) => {
        p.error = errorText(error);
        redraw();
      });
  }

  function makeLink() {
    api(`/api/rooms/${code}/pictures/link`, {}, { token })
      .then((made) => {
        p.link = new URL(made.url, location.origin).href;
      })
      .catch((error) => {
        p.error = errorText(error);
      })
      .finally(redraw);
  }

  function fromLink(link) {
    p.sending = { loaded: 0, total: 0, files: 0, processing: true };
    redraw();
    api(`/api/rooms/${code}/pictures/from-link`, { link }, { token })
      .then((results) => {
        p.results = results;
        localStorage.removeItem(DECK_LINK);
      })
      .catch((error) => {
        p.error = errorText(error);
        if (error.code === "no_deck_link") localStorage.removeItem(DECK_LINK);
      })
      .finally(() => {
        p.sending = null;
        redraw();
        refresh();
      });
  }

  // A picture goes at the second tap: the button sits right under a thumbnail a thumb scrolls past.
  function removeButton(card) {
    if (p.confirming !== card) {
      return h("button.small", { type: "button", onclick: () => ((p.confirming = card), redraw()) }, t("pictures.remove"));
    }
    return h(
      "span.confirm-inline",
      {},
      h("button.small.danger", { type: "button", "data-keep": `remove-${card}`, onclick: () => ((p.confirming = null), remove(card)) }, t("pictures.remove_now")),
      h("button.small", { type: "button", onclick: () => ((p.confirming = null), redraw()) }, t("app.cancel")),
    );
  }

  const pictures = p.list?.pictures ?? [];
  const count = pictures.length;
  const shortfall = picturesShort(room, p);

  const choices = h(
    "fieldset.deck-choice",
    {},
    h("legend", {}, t("pictures.dealt_from")),
    ["original", "ours", "both"].map((option) =>
      h(
        "label",
        {},
        h("input", {
          type: "radio",
          name: "deck-choice",
          value: option,
          checked: choice === option,
          disabled: !host || (option !== "original" && !count),
          onchange: () => send("settings", { settings: { ...room.settings, decks: decksFor(option, decks) } }),
        }),
        " ",
        { original: t("pictures.choice_original"), ours: t("pictures.choice_ours"), both: t("pictures.choice_both") }[option],
      ),
    ),
  );

  const sending = p.sending
    ? h(
        "div.upload-progress",
        { role: "status" },
        [
          p.sending.files ? h("progress.made", { max: p.sending.files, value: p.sending.done }) : h("progress", {}),
          p.sending.files ? h("span", {}, t("pictures.made", { done: p.sending.done, count: p.sending.files })) : null,
          p.sending.processing
            ? h("span", {}, t("pictures.processing"))
            : h("span", {}, t("pictures.sending", { percent: Math.round((100 * p.sending.loaded) / (p.sending.total || 1)) })),
        ],
      )
    : null;

  // One pair at a time: the new picture beside the one it was taken for.
  const pair = host ? p.pairs[0] : null;
  const pairBox = pair
    ? h(
        "section.duplicate-pair",
        { "data-keep": "duplicate-pair", role: "group", "aria-labelledby": "duplicate-pair-question" },
        h("p.pair-question", { id: "duplicate-pair-question" }, t("pictures.pair_question", { name: pair.result.name, twin: pair.twin.name })),
        h(
          "div.pair",
          {},
          h("figure", {}, preview(pair), h("figcaption", {}, t("pictures.pair_new", { name: pair.result.name }))),
          h(
            "figure",
            {},
            h("img", { src: pair.twin.url, alt: pair.twin.name, width: PREVIEW.width, height: PREVIEW.height }),
            h("figcaption", {}, t("pictures.pair_kept", { name: pair.twin.name })),
          ),
        ),
        h(
          "div.pair-actions",
          {},
          h("button.primary", { type: "button", disabled: pair.sending, onclick: () => keepBoth(pair) }, t("pictures.keep_both")),
          h("button", { type: "button", disabled: pair.sending, onclick: () => skipPair(pair) }, t("pictures.skip_copy")),
          p.pairs.length > 1 ? h("span.pairs-left", {}, t("pictures.pairs_left", { count: p.pairs.length - 1 })) : null,
        ),
      )
    : null;

  const results = p.results.length
    ? h(
        "ul.upload-results",
        {},
        p.results.map((r) =>
          h(
            "li",
            { class: r.status },
            r.status === "taken"
              ? t("pictures.taken", { name: r.name })
              : r.status === "captions"
                ? t("pictures.captions_read", { name: r.name, count: r.captions })
                : t("pictures.skipped", { name: r.name, reason: r.code ? t(`skip.${r.code}`) : r.reason }),
          ),
        ),
      )
    : null;

  const grid = count
    ? h(
        "ul.picture-grid",
        {},
        pictures.map((picture) =>
          h(
            "li.picture",
            {},
            h("img", { src: picture.url, alt: picture.caption || picture.name, loading: "lazy", width: 120, height: 180 }),
            host
              ? h("input.caption", {
                  name: `caption-${picture.card}`,
                  "data-keep": `caption-${picture.card}`,
                  maxlength: 500,
                  placeholder: t("pictures.caption_placeholder"),
                  "aria-label": t("pictures.caption_label", { name: picture.name }),
                  value: p.captions[picture.card] ?? picture.caption,
                  oninput: (event) => {
                    p.captions[picture.card] = event.target.value;
                  },
                  onchange: (event) => caption(picture.card, event.target.value),
                })
              : picture.caption
                ? h("span.caption", {}, picture.caption)
                : null,
            host ? removeButton(picture.card) : null,
          ),
        ),
      )
    : null;

  return h(
    "details.pictures",
    {
      open: host || choice !== "original" || p.opened ? true : undefined,
      "data-keep": "pictures-panel",
      // (a redrawn panel that is open says "toggle" too: only a closed one opening asks again)
      ontoggle: (event) => {
        const opening = event.target.open && !p.opened;
        p.opened = event.target.open;
        if (opening && token && !p.loading) refresh();
      },
    },
    h("summary", {}, token ? t("pictures.title", { count }) : t("pictures.title_watching")),
    host ? h("p.hint", {}, t("pictures.hint")) : null,
    host
      ? h(
          "label.button.upload",
          {},
          t("pictures.add"),
          h("input.sr-only", {
            type: "file",
            accept: "image/*,.zip,application/zip",
            multiple: true,
            disabled: Boolean(p.sending),
            onchange: chosen,
          }),
        )
      : null,
    sending,
    p.error ? h("p.error", { role: "alert" }, p.error) : null,
    pairBox,
    results,
    host && localStorage.getItem(DECK_LINK) && !p.sending
      ? h(
          "p.deck-link-pending",
          {},
          t("pictures.link_pending"),
          " ",
          h("button.small.primary", { type: "button", onclick: () => fromLink(localStorage.getItem(DECK_LINK)) }, t("pictures.link_use")),
        )
      : null,
    // (a model that sees is the exception: the line names it)
    p.list?.blind ? h("p.hint.blind", {}, seeingModels() ? t("pictures.blind_but_seen", { names: seeingModels() }) : t("pictures.blind")) : null,
    choices,
    shortfall.short ? h("p.start-problem", { role: "status" }, t("pictures.more_needed", { count: shortfall.short, seats: shortfall.seats })) : null,
    grid,
    count && token
      ? h(
          "div.deck-keep",
          {},
          h("button.small", { type: "button", onclick: download }, t("pictures.download")),
          host && !p.link ? h("button.small", { type: "button", onclick: makeLink }, t("pictures.make_link")) : null,
        )
      : null,
    p.link
      ? h(
          "p.deck-link",
          {},
          t("pictures.link_made"),
          " ",
          h("code.link-text", {}, p.link),
          " ",
          h("button.small", { type: "button", onclick: () => navigator.clipboard?.writeText(p.link) }, t("lobby.copy")),
        )
      : null,
  );
}
