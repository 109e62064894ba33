import { CHOICES } from "../../choices.js";
import { h } from "../../dom.js";
import { listText, t } from "../../i18n.js";
import { finalNameOf } from "../chart.js";
import { sideName, sideRabbit, sides } from "../parts.js";

export function overPart(v) {
  const { ui, ctx, send, draw, nameOf, bySeat, albumView, history, hostLine, leaveButton, me, partnerOnly } = v;

  function gameOver(room) {
    const game = room.game;
    const rows = sides(game);
    const winners = rows.filter((row) => row.rank === 1);
    const names = listText(winners.map((row) => sideName(row, nameOf)));
    // a seat taken over: "Leo (took over from Hal in round 4)", once this game's album is here
    const album = albumView().album;
    const rankedName = album?.number === room.games_started ? finalNameOf(album) : nameOf;
    const ranking = rows.map((row) =>
      h(
        "li",
        { class: row.rank === 1 ? "winner" : "" },
        h("span.rank", {}, row.rank),
        sideRabbit(row, nameOf, bySeat, { size: 30 }),
        h("span.name", {}, sideName(row, rankedName)),
        h("span.score", {}, row.score),
      ),
    );
    return h(
      "section.game-over",
      {},
      h("h2", {}, winners.length > 1 ? t("over.shared", { names }) : game.teams ? t("over.team_wins", { name: names }) : t("over.winner", { name: names })),
      h("ol.ranking", {}, ranking),
      room.you?.host
        ? h("div.actions", {}, h("button.primary", { type: "button", disabled: ui.sending, onclick: () => send("rematch") }, t("over.rematch")))
        : h("p.hint", {}, room.you ? t("over.rematch_wait") : t("over.watching")),
      ui.message ? h("p.error", { role: "alert" }, ui.message) : null,
      hostLine(room),
      albumView().element,
      history(),
      h("p", {}, h("a", { href: "/", onclick: ctx.link("/") }, t("app.home"))),
      h("div.leave-row", {}, leaveButton(room)),
      chatPanel(room),
    );
  }

  // From the clue until the reveal the table is quiet (the rules: no discussion before the votes
  // are final; the state says when, `table_chat`): the field is closed and says why, and opens again
  // at the reveal. In mode teams a line still goes to the partner, who may be talked to all along.
  function chatPanel(room) {
    if (me() === null && room.you === null && !ui.chat.length) return null;
    const teams = room.settings.mode === "teams";
    const quiet = room.table_chat === false;
    const closed = quiet && !teams;
    const toPartner = teams && (quiet || partnerOnly());
    const input = h("input", {
      name: "chat",
      maxlength: CHOICES.text_max.chat,
      placeholder: closed ? t("chat.closed_placeholder") : toPartner ? t("chat.team_placeholder") : t("chat.placeholder"),
      "aria-label": t("chat.label"),
      "aria-describedby": quiet ? "chat-quiet" : null,
      disabled: closed,
      "data-keep": "chat",
    });
    return h(
      "details.chat",
      { open: ui.chatOpen, ontoggle: (event) => (ui.chatOpen = event.target.open) },
      h("summary", {}, t("chat.title"), ui.chat.length ? ` (${ui.chat.length})` : "", closed ? h("span.chat-state", {}, ` · ${t("chat.quiet")}`) : null),
      h(
        "ol.chat-lines",
        { "aria-live": "polite" },
        ui.chat.slice(-30).map((line) => h("li", { class: line.team_only ? "team" : "" }, h("strong", {}, line.name, ": "), line.text)),
      ),
      room.you
        ? h(
            "form.chat-form",
            {
              onsubmit: async (event) => {
                event.preventDefault();
                const field = event.target.elements.chat; // (the live field, kept across redraws)
                const text = field.value.trim();
                if (!text || field.disabled) return;
                field.value = "";
                const reply = await send("say", { text, team_only: toPartner });
                // (closed on its way: the line is the player's still, to send at the reveal)
                if (reply.code === "chat_closed" && !field.value) field.value = text;
              },
            },
            input,
            teams
              ? h(
                  "label.small.team-only",
                  {},
                  h("input", {
                    type: "checkbox",
                    checked: toPartner,
                    disabled: quiet,
                    onchange: (e) => {
                      ui.teamChat = e.target.checked;
                      draw();
                    },
                  }),
                  ` ${t("chat.team_only")}`,
                )
              : null,
            h("button", { type: "submit", disabled: closed }, t("chat.send")),
            quiet ? h("p.chat-quiet", { id: "chat-quiet" }, teams ? t("chat.quiet_team") : t("chat.quiet_reason")) : null,
          )
        : null,
    );
  }

  return { gameOver, chatPanel };
}
