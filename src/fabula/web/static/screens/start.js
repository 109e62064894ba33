// Home (create a room, or join one by code) and the join screen (name and rabbit).
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { RABBITS, rabbit } from "../rabbits.js";
import { api, saveSeat, savedSeat } from "../net.js";
import { errorText as codeText, memberName } from "./parts.js";

const MODES = ["odyssey", "party", "teams", "classic"];
const SEATS = { odyssey: "3–12", party: "6–12", teams: null, classic: "3–6" };
const seatsOf = (mode) => SEATS[mode] ?? [6, 8, 10, 12].join(t("app.list_separator"));

function errorText(error) {
  return codeText(error.code, error.message);
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
        rabbit(colour, t(`colour.${colour}`), { size: 28, lit: free }),
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

export function homeScreen(ctx) {
  const form = { name: localStorage.getItem("fabula.name") || "", colour: "blue", mode: "odyssey", decks: ["fabula"] };
  let decks = [{ name: "fabula", title: "Fabula", cards: 84, described: true }];
  let message = "";

  const draw = () => {
    const code = h("input.code-input", {
      name: "code",
      autocomplete: "off",
      autocapitalize: "characters",
      maxlength: 8,
      placeholder: "KX7PQ",
      "aria-label": t("home.code"),
      "data-keep": "code",
    });
    const joinForm = h(
      "form.card-panel.join-panel",
      {
        onsubmit: (event) => {
          event.preventDefault();
          const value = code.value.trim().toUpperCase();
          if (value) ctx.go(`/join/${value}`);
        },
      },
      h("h2", {}, t("home.join_title")),
      h("div.row", {}, code, h("button.primary", { type: "submit" }, t("home.join"))),
    );

    const name = h("input", {
      name: "name",
      maxlength: 24,
      required: true,
      value: form.name,
      autocomplete: "nickname",
      "data-keep": "name",
      oninput: (event) => (form.name = event.target.value),
    });
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
      field(t("start.target_score"), numberInput("target", form.target, 5, 60, ["odyssey", "classic"].includes(form.mode) ? "30" : ""), t("start.target_hint")),
      field(t("start.cycles"), numberInput("cycles", form.cycles, 1, 10, ""), t("start.cycles_hint")),
      h(
        "div.timers",
        {},
        h("span.label", {}, t("start.timers")),
        ["clue", "play", "vote"].map((phase) =>
          field(t(`start.timer.${phase}`), numberInput(`timer-${phase}`, form[`${phase}Seconds`], 10, 3600, t("start.no_timer"))),
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
                form.decks = event.target.checked
                  ? [...form.decks, deck.name]
                  : form.decks.filter((d) => d !== deck.name);
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
        onsubmit: async (event) => {
          event.preventDefault();
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
          try {
            localStorage.setItem("fabula.name", form.name);
            const seat = await api("/api/rooms", { name: form.name, colour: form.colour, settings });
            saveSeat(seat.code, { token: seat.token, member: seat.member });
            ctx.go(`/room/${seat.code}`);
          } catch (error) {
            message = errorText(error);
            draw();
          }
        },
      },
      h("h2", {}, t("home.create_title")),
      field(t("start.name"), name),
      colourPicker("colour", Object.keys(RABBITS), form.colour, (colour) => (form.colour = colour)),
      modes,
      advanced,
      message ? h("p.error", { role: "alert" }, message) : null,
      h("div.actions", {}, h("button.primary", { type: "submit" }, t("home.create"))),
    );
    ctx.render([h("section.hero", {}, h("h1", {}, "Fabula"), h("p.tagline", {}, t("home.tagline"))), joinForm, createForm]);
  };
  draw();
  api("/api/decks")
    .then((found) => {
      decks = found.decks;
      draw();
    })
    .catch(() => {});
}

export function joinScreen(ctx, code) {
  if (savedSeat(code)) {
    ctx.go(`/room/${code}`, true);
    return;
  }
  let summary = null;
  let message = "";
  const form = { name: localStorage.getItem("fabula.name") || "", colour: null };

  const draw = () => {
    if (summary === null) {
      ctx.render(
        message
          ? h("section.card-panel", {}, h("p.error", { role: "alert" }, message), h("a.button.primary", { href: "/", onclick: ctx.link("/") }, t("app.home")))
          : h("p.notice", {}, t("app.loading")),
      );
      return;
    }
    const free = summary.free_colours;
    if (!free.includes(form.colour)) form.colour = free[0] ?? null;
    const watch = h("a.button", { href: `/room/${code}?watch=1`, onclick: ctx.link(`/room/${code}?watch=1`) }, t("join.watch"));
    if (summary.status !== "lobby" || !free.length) {
      ctx.render(
        h(
          "section.card-panel",
          {},
          h("h2", {}, t("join.title", { code })),
          h("p", {}, summary.status !== "lobby" ? t("join.started") : t("join.full")),
          watch,
        ),
      );
      return;
    }
    const seated = h(
      "ul.seated",
      {},
      summary.members.map((m) => h("li", {}, rabbit(m.colour, memberName(m), { size: 24 }), " ", memberName(m))),
    );
    ctx.render(
      h(
        "form.card-panel",
        {
          onsubmit: async (event) => {
            event.preventDefault();
            try {
              localStorage.setItem("fabula.name", form.name);
              const seat = await api(`/api/rooms/${code}/join`, { name: form.name, colour: form.colour });
              saveSeat(code, { token: seat.token, member: seat.member });
              ctx.go(`/room/${code}`);
            } catch (error) {
              message = errorText(error);
              await refresh();
            }
          },
        },
        h("h2", {}, t("join.title", { code })),
        h("p", {}, t(`mode.${summary.mode}`), " · ", t("join.here", { count: summary.members.length })),
        seated,
        field(
          t("start.name"),
          h("input", {
            name: "name",
            maxlength: 24,
            required: true,
            value: form.name,
            autocomplete: "nickname",
            "data-keep": "name",
            oninput: (event) => (form.name = event.target.value),
          }),
        ),
        colourPicker("colour", free, form.colour, (colour) => (form.colour = colour)),
        message ? h("p.error", { role: "alert" }, message) : null,
        h("div.actions", {}, h("button.primary", { type: "submit" }, t("join.sit")), watch),
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
  draw();
  refresh();
}
