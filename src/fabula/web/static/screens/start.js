// Home (create a room, join one by code, get back to your rooms, open a board) and the join
// screen (name and rabbit; during a game, the seat of a bot to take over).
import { CHOICES } from "../choices.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { RABBITS, rabbit } from "../rabbits.js";
import { api, removedToken, requestId, saveSeat, savedSeat, savedSeats } from "../net.js";
import { errorText as codeText, markRabbits, memberName } from "./parts.js";
import { DECK_LINK } from "./pictures.js";
import { keepAsk, pendingAsk, waitingScreen } from "./waiting.js";
import { audienceButton } from "./audience.js";
import { nameField, nameTooLong } from "./name_field.js";

const MODES = CHOICES.modes.map((mode) => mode.name);
const SEAT_COUNTS = Object.fromEntries(CHOICES.modes.map((mode) => [mode.name, mode.seat_counts]));
const [TIMER_MIN, TIMER_MAX] = CHOICES.timer_seconds;
const statusText = (status) => ({ lobby: t("home.status_lobby"), playing: t("home.status_playing"), over: t("home.status_over") })[status];
// "3–12" for a run of counts, "6, 8, 10, 12" (in the reader's language) for a mode that skips some
const seatsOf = (mode) => {
  const counts = SEAT_COUNTS[mode];
  const [low, high] = [counts[0], counts[counts.length - 1]];
  return counts.length === high - low + 1 ? `${low}–${high}` : counts.join(t("app.list_separator"));
};

// What is wrong with a room code (typed in the field, or in the address bar: /join/zz9q!), or "".
// (spaces anywhere are dropped, as a code read out or copied as "KX7 PQ" comes)
const cleanCode = (code) => code.replace(/\s+/g, "").toUpperCase();

function codeProblem(code) {
  const typed = cleanCode(code);
  const wrong = [...new Set(typed.replace(/[A-Z0-9]/g, ""))].join(" ");
  if (wrong) return t("home.code_letters", { chars: wrong });
  return typed ? "" : t("home.code_first");
}

function errorText(error) {
  if (error.code === "too_many_rooms" && error.details?.retry_after) {
    return t("error.too_many_rooms_wait", { minutes: Math.max(1, Math.round(error.details.retry_after / 60)) });
  }
  return codeText(error.code, error.message);
}

// One tap of a button that sends a request: a second tap while it is on its way does nothing,
// and a retry after a lost answer carries the same request id (the server makes it once).
function oneTap() {
  let busy = false;
  let id = requestId();
  return {
    get busy() {
      return busy;
    },
    async run(work) {
      if (busy) return;
      busy = true;
      try {
        await work(id);
        id = requestId();
      } catch (error) {
        // refused: the next try is a new request; not sent (offline): the same one again
        if (error.code !== "offline") id = requestId();
        throw error;
      } finally {
        busy = false;
      }
    },
  };
}

function colourPicker(name, colours, chosen, onPick) {
  return h(
    "fieldset.colours",
    {},
    h("legend", {}, t("start.colour")),
    Object.keys(RABBITS).map((colour) => {
      const free = colours.includes(colour);
      const id = `${name}-${colour.replace(" ", "-")}`;
      return h(
        "label.colour",
        { for: id, class: free ? "" : "taken" },
        h("input", {
          type: "radio",
          name,
          id,
          value: colour,
          disabled: !free,
          checked: colour === chosen,
          onchange: () => onPick(colour),
        }),
        rabbit(colour, t(`colour.${colour}`), { size: 28, lit: free, byFirst: true }),
        h("span.colour-name", {}, t(`colour.${colour}`)),
      );
    }),
  );
}

function field(label, input, hint) {
  return h("label.field", {}, h("span.label", {}, label), input, hint ? h("span.hint", {}, hint) : null);
}

function numberInput(key, value, min, max, placeholder) {
  return h("input", { type: "number", min, max, value: value ?? "", placeholder: placeholder ?? "", "data-keep": key, name: key });
}

// ``code``: a room code from the address bar that is not one (/join/zz9q!): it is in the field,
// and what is wrong with it is said.
export function homeScreen(ctx, { code: given = null, lost = null } = {}) {
  const form = { name: localStorage.getItem("fabula.name") || "", colour: "blue", mode: "odyssey", decks: ["fabula"] };
  if (given !== null) form.code = given;
  let decks = [{ name: "fabula", title: "Fabula", cards: 84, described: true }];
  let message = "";
  // the code whose problem is said under the field (said in the page's language at each draw)
  let wrongCode = given;
  let mine = []; // the rooms whose seat this browser holds, as the server describes them
  const creating = oneTap();

  const draw = () => {
    const code = h("input.code-input", {
      name: "code",
      autocomplete: "off",
      autocapitalize: "characters",
      maxlength: 8,
      placeholder: "KX7PQ",
      "aria-label": t("home.code"),
      "data-keep": "code",
      // kept across redraws (the decks and your rooms arrive while someone types)
      value: form.code ?? "",
      oninput: (event) => {
        form.code = event.target.value;
        if (wrongCode !== null) {
          wrongCode = null;
          draw();
        }
      },
    });
    const typed = () => cleanCode(form.code ?? "");
    // Go to the room the typed code names (`path` from it), or say what is wrong with the code.
    const goTo = (path) => {
      if (!codeProblem(typed())) {
        ctx.go(path(typed()));
        return;
      }
      wrongCode = typed();
      draw();
    };
    const joinMessage = wrongCode === null ? "" : codeProblem(wrongCode);
    const joinForm = h(
      "form.card-panel.join-panel",
      {
        onsubmit: (event) => {
          event.preventDefault();
          goTo((code) => `/join/${code}`);
        },
      },
      h("h2", {}, t("home.join_title")),
      h(
        "div.row",
        {},
        code,
        h("button.primary", { type: "submit" }, t("home.join")),
        h(
          "button",
          {
            type: "button",
            onclick: () => goTo((code) => `/room/${code}/board`),
          },
          t("home.board"),
        ),
      ),
      joinMessage ? h("p.error", { role: "alert" }, joinMessage) : null,
      h("p.hint", {}, t("home.board_hint")),
    );
    const yours = mine.length
      ? h(
          "section.card-panel.your-rooms",
          {},
          h("h2", {}, t("home.your_rooms")),
          h(
            "ul",
            {},
            mine.map((room) =>
              h(
                "li",
                {},
                h("span.your-room", {}, t("room.code", { code: room.code }), " · ", t(`mode.${room.mode}`), " · ", statusText(room.status)),
                h("a.button.small.primary", { href: `/room/${room.code}`, onclick: ctx.link(`/room/${room.code}`) }, t("home.back_to_room")),
              ),
            ),
          ),
        )
      : null;

    const modes = h(
      "fieldset.modes",
      {},
      h("legend", {}, t("start.mode")),
      MODES.map((mode) =>
        h(
          "label.mode",
          { class: form.mode === mode ? "chosen" : "" },
          h("input", {
            type: "radio",
            name: "mode",
            value: mode,
            "data-keep": `mode-${mode}`,
            checked: form.mode === mode,
            onchange: () => {
              form.mode = mode;
              draw();
            },
          }),
          h("span.mode-name", {}, t(`mode.${mode}`)),
          h("span.mode-seats", {}, t("mode.players", { count: seatsOf(mode) })),
          h("span.mode-summary", {}, t(`mode.${mode}.summary`)),
        ),
      ),
    );
    const advanced = h(
      "details.advanced",
      { open: form.advancedOpen, ontoggle: (event) => (form.advancedOpen = event.target.open) },
      h("summary", {}, t("start.advanced")),
      field(t("start.target_score"), numberInput("target", form.target, 5, 1000, ["odyssey", "classic"].includes(form.mode) ? "30" : ""), t("start.target_hint")),
      field(t("start.cycles"), numberInput("cycles", form.cycles, 1, 50, ""), t("start.cycles_hint")),
      h(
        "div.timers",
        {},
        h("span.label", {}, t("start.timers")),
        ["clue", "play", "vote"].map((phase) =>
          field(t(`start.timer.${phase}`), numberInput(`timer-${phase}`, form[`${phase}Seconds`], TIMER_MIN, TIMER_MAX, t("start.no_timer"))),
        ),
      ),
      h(
        "fieldset.decks",
        {},
        h("legend", {}, t("start.decks")),
        decks.map((deck) =>
          h(
            "label.deck",
            {},
            h("input", {
              type: "checkbox",
              name: "deck",
              value: deck.name,
              checked: form.decks.includes(deck.name),
              onchange: (event) => {
                form.decks = event.target.checked ? [...form.decks, deck.name] : form.decks.filter((d) => d !== deck.name);
              },
            }),
            ` ${deck.title} (${t("start.cards", { count: deck.cards })})`,
            deck.described ? null : h("span.hint", {}, ` — ${t("start.blind_deck")}`),
          ),
        ),
      ),
    );
    const createForm = h(
      "form.card-panel.create-panel",
      {
        onsubmit: (event) => {
          event.preventDefault();
          if (nameTooLong(form, event.target)) return;
          const data = new FormData(event.target);
          const number = (key) => (data.get(key) ? Number(data.get(key)) : null);
          form.target = number("target");
          form.cycles = number("cycles");
          for (const phase of ["clue", "play", "vote"]) form[`${phase}Seconds`] = number(`timer-${phase}`);
          const options = {};
          if (form.target !== null) options.target_score = form.target;
          if (form.cycles !== null) options.storyteller_cycles = form.cycles;
          const settings = {
            mode: form.mode,
            options,
            decks: form.decks,
            clue_seconds: form.clueSeconds ?? null,
            play_seconds: form.playSeconds ?? null,
            vote_seconds: form.voteSeconds ?? null,
          };
          creating
            .run(async (request) => {
              draw(); // the button shows that it is busy
              localStorage.setItem("fabula.name", form.name);
              const seat = await api("/api/rooms", { name: form.name, colour: form.colour, settings, request });
              saveSeat(seat.code, { token: seat.token, member: seat.member });
              ctx.go(`/room/${seat.code}`);
            })
            .catch((error) => {
              message = errorText(error);
              draw();
            });
        },
      },
      h("h2", {}, t("home.create_title")),
      nameField(form),
      colourPicker("colour", Object.keys(RABBITS), form.colour, (colour) => (form.colour = colour)),
      modes,
      advanced,
      message ? h("p.error", { role: "alert" }, message) : null,
      h("div.actions", {}, h("button.primary", { type: "submit", disabled: creating.busy }, t("home.create"))),
    );
    const deckLink = localStorage.getItem(DECK_LINK) ? h("p.notice.deck-link-pending", { role: "status" }, t("home.deck_link")) : null;
    const noSuchPage = lost === null ? null : h("p.notice.no-such-page", { role: "status" }, t("home.no_such_page", { path: lost }));
    if (lost !== null) document.title = `${t("home.no_such_page_title")} · Fabula`; // (else "Fabula", as route() left it)
    ctx.render([h("section.hero", {}, h("h1", {}, "Fabula"), h("p.tagline", {}, t("home.tagline"))), noSuchPage, deckLink, yours, joinForm, createForm]);
  };
  ctx.relabel = draw; // another language: the same form, what was typed and chosen kept
  draw();
  api("/api/decks")
    .then((found) => {
      decks = found.decks;
      draw();
    })
    .catch(() => {});
  // The rooms this browser holds a seat in, newest first; a room that is gone is forgotten.
  Promise.all(
    Object.keys(savedSeats())
      .reverse()
      .slice(0, 6)
      .map((code) =>
        api(`/api/rooms/${code}`).catch((error) => {
          if (error.code === "no_room") saveSeat(code, null);
          return null;
        }),
      ),
  ).then((found) => {
    mine = found.filter(Boolean);
    if (mine.length) draw();
  });
}

const JOIN_POLL_MS = 3000;

export function joinScreen(ctx, code) {
  if (savedSeat(code)) {
    ctx.go(`/room/${code}`, true);
    return;
  }
  if (pendingAsk(code)) return waitingScreen(ctx, code, pendingAsk(code)); // (streamer mode: a reload waits on)
  let summary = null;
  let stopWaiting = null;
  let message = "";
  const wanted = Number(new URLSearchParams(location.search).get("seat"));
  const form = { name: localStorage.getItem("fabula.name") || "", colour: null, replaces: Number.isInteger(wanted) ? wanted : null };
  const joining = oneTap();

  const submit = (event) => {
    event.preventDefault();
    if (nameTooLong(form, event.target)) return;
    joining
      .run(async (request) => {
        draw();
        localStorage.setItem("fabula.name", form.name);
        const body = { name: form.name, colour: form.colour, request };
        const former = removedToken(code);
        if (former) body.former_token = former;
        if (summary.status === "playing") body.replaces = form.replaces;
        const seat = await api(`/api/rooms/${code}/join`, body);
        if (seat.ask !== undefined) {
          clearInterval(polling); // streamer mode: a request, which waits for the host
          keepAsk(code, { token: seat.token, ask: seat.ask, name: form.name });
          stopWaiting = waitingScreen(ctx, code, pendingAsk(code));
          return;
        }
        saveSeat(code, { token: seat.token, member: seat.member });
        ctx.go(`/room/${code}`);
      })
      .catch(async (error) => {
        message = errorText(error);
        await refresh();
      });
  };

  const draw = () => {
    if (summary === null) {
      ctx.render(
        message
          ? h("section.card-panel", {}, h("p.error", { role: "alert" }, message), h("a.button.primary", { href: "/", onclick: ctx.link("/") }, t("app.home")))
          : h("p.notice", {}, t("app.loading")),
      );
      return;
    }
    markRabbits(summary.members);
    // the audience (watch and vote), beside a seat and first once the seats are taken; or just watch
    const justWatch = h("a.button", { href: `/room/${code}?watch=1`, onclick: ctx.link(`/room/${code}?watch=1`) }, t("join.watch"));
    const watch = [audienceButton(ctx, code, summary.full || summary.status === "over", () => form.name), justWatch];
    const seated = h(
      "ul.seated",
      {},
      summary.members.map((m) => h("li", {}, rabbit(m.colour, memberName(m), { size: 24 }), " ", memberName(m))),
    );
    const heading = h("h2", {}, t("join.title", { code }));
    if (summary.full || summary.status === "over") {
      // say it before anyone types a name: there is no seat to take now
      const why = summary.status === "over" ? t("join.over") : summary.status === "playing" ? t("join.started") : t("join.full");
      const bots = summary.status === "lobby" && summary.members.some((m) => m.bot);
      ctx.render(
        h(
          "section.card-panel.join-closed",
          {},
          heading,
          h("p", {}, why, bots ? ` ${t("join.full_bots")}` : ""),
          seated,
          h("div.actions", {}, watch),
        ),
      );
      return;
    }
    let seatChoice;
    if (summary.status === "playing") {
      // during a game: take over a bot's seat (its rabbit comes with it)
      const open = summary.open_seats;
      if (!open.some((s) => s.member === form.replaces)) form.replaces = open[0].member;
      form.colour = open.find((s) => s.member === form.replaces).colour;
      seatChoice = h(
        "fieldset.take-over",
        {},
        h("legend", {}, t("join.take_over")),
        open.map((s) =>
          h(
            "label.colour",
            {},
            h("input", {
              type: "radio",
              name: "replaces",
              value: s.member,
              checked: s.member === form.replaces,
              onchange: () => {
                form.replaces = s.member;
                draw();
              },
            }),
            rabbit(s.colour, memberName(s), { size: 28 }),
            h("span.colour-name", {}, memberName(s)),
          ),
        ),
      );
    } else {
      const free = summary.free_colours;
      if (!free.includes(form.colour)) form.colour = free[0] ?? null;
      seatChoice = colourPicker("colour", free, form.colour, (colour) => (form.colour = colour));
    }
    ctx.render(
      h(
        "form.card-panel",
        { onsubmit: submit },
        heading,
        h("p", {}, t(`mode.${summary.mode}`), " · ", summary.status === "playing" ? t("join.playing") : t("join.here", { count: summary.members.length })),
        seated,
        nameField(form),
        seatChoice,
        summary.streamer ? h("p.hint.streamer-note", {}, t("join.streamer")) : null,
        message ? h("p.error", { role: "alert" }, message) : null,
        h("div.actions", {}, h("button.primary", { type: "submit", disabled: joining.busy }, summary.status === "playing" ? t("join.sit_in") : t("join.sit")), watch),
      ),
    );
  };
  const refresh = async () => {
    try {
      summary = await api(`/api/rooms/${code}`);
    } catch (error) {
      message = errorText(error);
    }
    draw();
  };
  ctx.relabel = draw; // another language: the same form, what was typed and chosen kept
  draw();
  refresh();
  // Who is there and which rabbits are free change while a newcomer types a name (a seat taken,
  // a bot removed to make room): read again every few seconds while the page is shown.
  const polling = setInterval(() => {
    if (!document.hidden && !joining.busy) void refresh();
  }, JOIN_POLL_MS);
  return () => {
    clearInterval(polling);
    stopWaiting?.();
  };
}
