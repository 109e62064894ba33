// Every visible string goes through t(key): English, 繁體中文 (Taiwan edition's words) and
// 简体中文. The language comes from the browser unless the player picked one.

import { CHOICES } from "./choices.js";

// [{code: "en", name: "English"}, …]: each language named in itself
export const LANGUAGES = CHOICES.languages;
const CHOSEN = "fabula.language";
let strings = {};
let fallback = {};
export let language = "en";
// what follows a change of language besides the screen's words (the pictures' descriptions)
const followers = [];
export function onLanguage(follow) {
  followers.push(follow);
}

export function preferredLanguage() {
  const chosen = localStorage.getItem(CHOSEN);
  if (LANGUAGES.some((l) => l.code === chosen)) return chosen;
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    const lower = tag.toLowerCase();
    if (lower.startsWith("zh")) {
      return /hant|tw|hk|mo/.test(lower) ? "zh-Hant" : "zh-Hans";
    }
    if (lower.startsWith("en")) return "en";
  }
  return "en";
}

async function load(code) {
  try {
    const response = await fetch(`/static/i18n/${code}.json`);
    return await response.json();
  } catch {
    return {}; // t() falls back to English, then to the key: the page still works
  }
}

export async function setLanguage(code, remember = false) {
  if (remember) localStorage.setItem(CHOSEN, code);
  if (!Object.keys(fallback).length) fallback = await load("en");
  strings = code === "en" ? fallback : await load(code);
  const changed = code !== language;
  language = code;
  document.documentElement.lang = code;
  if (changed) for (const follow of followers) follow(code);
}

const CJK = /[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]/; // ideographs and kana, not full-width punctuation
const LATIN = /[A-Za-z0-9]/;

// t("vote.pick", {clue: "Freedom"}) → the string with {clue} filled in (as text, never markup).
// In Chinese a Latin name gets a space from the Chinese beside it ("Ben 獲勝", "小美獲勝").
export function t(key, params = {}) {
  const template = strings[key] ?? fallback[key] ?? key;
  const spaced = language !== "en";
  return template.replace(/\{(\w+)\}/g, (whole, name, at) => {
    if (!(name in params)) return whole;
    let value = String(params[name]);
    if (spaced && value) {
      if (LATIN.test(value[0]) && CJK.test(template[at - 1] || "")) value = ` ${value}`;
      if (LATIN.test(value[value.length - 1]) && CJK.test(template[at + whole.length] || "")) value = `${value} `;
    }
    return value;
  });
}

// ["Ana", "Ben", "Cleo"] → "Ana, Ben and Cleo" (Chinese: "Ana、Ben和Cleo").
export function listText(items) {
  if (items.length < 2) return items.join("");
  return items.slice(0, -1).join(t("app.list_separator")) + t("app.list_and", {}) + items[items.length - 1];
}
