// Streamer mode, the newcomer's side: a join was a request (202), and this page waits for the
// host's answer — let in (the token it holds takes the seat: on to the room), turned away, or
// too late (the game started). The request is kept for the tab, so a reload waits on.
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { api, saveSeat } from "../net.js";

const POLL_MS = 2000;
const key = (code) => `fabula.asked.${code}`;

export function pendingAsk(code) {
  try {
    return JSON.parse(sessionStorage.getItem(key(code)) || "null");
  } catch {
    return null;
  }
}

export function keepAsk(code, asked) {
  sessionStorage.setItem(key(code), JSON.stringify(asked));
}

function forget(code) {
  sessionStorage.removeItem(key(code));
}

// ``asked``: {token, ask, name}.
export function waitingScreen(ctx, code, asked) {
  let status = "waiting";
  let timer = null;
  const watch = () => h("a.button", { href: `/room/${code}?watch=1`, onclick: ctx.link(`/room/${code}?watch=1`) }, t("join.watch"));
  const home = () => h("a.button", { href: "/", onclick: ctx.link("/") }, t("app.home"));
  const draw = () => {
    if (status === "refused" || status === "dropped") {
      const retry = status === "dropped" ? h("button.primary", { type: "button", onclick: () => (forget(code), ctx.go(`/join/${code}`, true)) }, t("wait.ask_again")) : null;
      ctx.render(h("section.card-panel.waiting", {}, h("h2", {}, status === "refused" ? t("wait.refused") : t("wait.dropped")), h("div.actions", {}, retry, watch(), home())));
      return;
    }
    ctx.render(
      h(
        "section.card-panel.waiting",
        { "aria-live": "polite" },
        h("h2", {}, t("wait.title")),
        h("p", {}, t("wait.hint", { name: asked.name })),
        h("p.waiting-dots", { "aria-hidden": "true" }, "• • •"),
        h("div.actions", {}, h("button", { type: "button", onclick: () => (forget(code), clearInterval(timer), ctx.go("/")) }, t("wait.stop"))),
      ),
    );
  };
  const poll = async () => {
    try {
      const answer = await api(`/api/rooms/${code}/ask`, undefined, { token: asked.token });
      status = answer.status;
      if (status === "approved") {
        clearInterval(timer);
        forget(code);
        saveSeat(code, { token: asked.token, member: answer.member });
        ctx.go(`/room/${code}`, true);
        return;
      }
      if (status !== "waiting") {
        clearInterval(timer);
        forget(code);
      }
    } catch {
      // offline for a moment, or the room forgot: ask again at the next beat
    }
    draw();
  };
  ctx.relabel = draw;
  draw();
  timer = setInterval(() => void poll(), POLL_MS);
  void poll();
  return () => clearInterval(timer);
}
