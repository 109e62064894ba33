// The rules, in the chosen language, reachable from every screen.
import { h } from "../dom.js";
import { t } from "../i18n.js";

const SECTIONS = ["goal", "turn", "clue", "play", "vote", "score", "end", "odyssey", "party", "teams", "classic"];

export function rulesScreen(ctx) {
  ctx.render(
    h(
      "article.rules",
      {},
      h("h1", {}, t("rules.title")),
      SECTIONS.map((section) => h("section", {}, h("h2", {}, t(`rules.${section}.title`)), h("p", {}, t(`rules.${section}.text`)))),
      h("p", {}, h("a", { href: "/", onclick: ctx.link("/") }, t("app.home"))),
    ),
  );
}
