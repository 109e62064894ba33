"""The browser client's strings: every language has every key, every key the client asks for exists,
no English string is dead, and the Chinese files are really translated.

The client (src/fabula/web/static) shows text only through ``t("key", params)``. Most keys are
literal in the JS; a few families are built at run time (``colour.${colour}``, ``mode.${mode}``…):
those are rebuilt here from the same sources the client uses. The server draws an album's picture
with a few of these words too (`fabula.story.picture` and its parts `page` and `rows`, mostly the
``png.*`` keys): the keys they ask for count as used, and must exist like the client's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from functools import cache
from pathlib import Path

import pytest

import fabula.story.page
import fabula.story.picture
import fabula.story.rows
import fabula.web
from fabula.cards.intake import SKIP_CODES
from fabula.rules import MODES
from fabula.server.pages import room_choices

STATIC = Path(fabula.web.__file__).resolve().parent / "static"
I18N = STATIC / "i18n"
ENGLISH = "en"
TRANSLATIONS = ("zh-Hant", "zh-Hans")
LANGUAGES = (ENGLISH, *TRANSLATIONS)

# Values that may stay in Latin letters in Chinese (a brand name, say), by key. Keep it short.
LATIN_ALLOWED: frozenset[str] = frozenset()

# The key families the client builds at run time, as "prefix.*.suffix" patterns. ``error.*`` is
# optional: the client falls back to the server's English message when the key is missing.
OPTIONAL_FAMILIES = frozenset({"error.*"})

PLACEHOLDER = re.compile(r"\{(\w+)\}")
CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
LATIN_LETTER = re.compile(r"[A-Za-z]")
# t("key"), t('key'), t(`key`) and t(`key.${part}`); never the definition `function t(key, …)`.
T_CALL = re.compile(
    r"""(?<![\w.$])(?<!function )t\(\s*(?:"([^"\\]*)"|'([^'\\]*)'|`([^`\\]*)`|([A-Za-z_$][\w$]*)\s*[,)])"""
)
# const key = `error.${error.code}`; … t(key)
TEMPLATE_CONST = re.compile(r"\b(?:const|let)\s+([A-Za-z_$][\w$]*)\s*=\s*`([^`\\]*)`")
INTERPOLATION = re.compile(r"\$\{[^}]*\}")

# The Python modules that show the client's words, each through ``say("key", …)`` or
# ``say(f"family.{part}")`` (a `fabula.story.words.Words`).
PYTHON_USERS = (
    Path(fabula.story.picture.__file__),
    Path(fabula.story.page.__file__),
    Path(fabula.story.rows.__file__),
)
SAY_CALL = re.compile(r"""\bsay\(\s*(f?)(?:"([^"\\]*)"|'([^'\\]*)')""")
PY_INTERPOLATION = re.compile(r"\{[^}]*\}")


# ---------------------------------------------------------------- loading


def _unique_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    keys = [key for key, _ in pairs]
    repeated = sorted({key for key in keys if keys.count(key) > 1})
    if repeated:
        raise ValueError(f"keys given twice: {repeated}")
    return dict(pairs)


@cache
def strings(language: str) -> dict[str, str]:
    """One language file, checked to be a flat object of strings without repeated keys."""
    path = I18N / f"{language}.json"
    loaded: object = json.loads(path.read_text(encoding="utf-8"), object_pairs_hook=_unique_keys)
    assert isinstance(loaded, dict), f"{path.name} is not a JSON object"
    result: dict[str, str] = {}
    for key, value in loaded.items():
        assert isinstance(key, str)
        assert isinstance(value, str), f"{path.name}: {key} is not a string"
        result[key] = value
    return result


def _strip_comments(source: str) -> str:
    source = re.sub(r"/\*.*?\*/", "", source, flags=re.DOTALL)
    return re.sub(r"(?m)(^|\s)//.*$", r"\1", source)  # "http://…" has no space before its //


@cache
def scripts() -> dict[str, str]:
    """Every client module, by path under static/, without its comments."""
    found = {
        path.relative_to(STATIC).as_posix(): _strip_comments(path.read_text(encoding="utf-8"))
        for path in sorted(STATIC.rglob("*.js"))
    }
    assert "app.js" in found
    assert "i18n.js" in found
    return found


def _family(template: str) -> str:
    return INTERPOLATION.sub("*", template)


@cache
def literal_keys() -> frozenset[str]:
    """Keys passed to t() as plain strings."""
    keys: set[str] = set()
    for source in scripts().values():
        for double, single, backtick, _ in T_CALL.findall(source):
            key = double or single or backtick
            if key and "${" not in key:
                keys.add(key)
    assert len(keys) > 50, "the t() scan found almost nothing: has the client's call changed?"
    return frozenset(keys)


@cache
def dynamic_calls() -> dict[str, set[str]]:
    """The key families built at run time ("colour.*"), with the files that build them."""
    found: dict[str, set[str]] = {}
    for name, source in scripts().items():
        templates = dict(TEMPLATE_CONST.findall(source))
        for _, _, backtick, variable in T_CALL.findall(source):
            if variable:
                assert variable in templates, (
                    f"{name}: t({variable}) with a key this test cannot follow; "
                    f"build it as const {variable} = `family.${{part}}` in the same file"
                )
                template = templates[variable]
            elif "${" in backtick:
                template = backtick
            else:
                continue
            found.setdefault(_family(template), set()).add(name)
    return found


@cache
def python_keys() -> dict[str, frozenset[str]]:
    """The keys the Python modules ask for: {"literal": keys, "families": run-time families}."""
    literal: set[str] = set()
    families: set[str] = set()
    for path in PYTHON_USERS:
        for formatted, double, single in SAY_CALL.findall(path.read_text(encoding="utf-8")):
            key = double or single
            if formatted and "{" in key:
                families.add(PY_INTERPOLATION.sub("*", key))
            else:
                literal.add(key)
    assert len(literal) > 5, "the say() scan found almost nothing: has the picture's call changed?"
    return {"literal": frozenset(literal), "families": frozenset(families)}


# ---------------------------------------------------------------- the sources of dynamic keys


def _js_object_keys(source: str, name: str) -> list[str]:
    match = re.search(rf"\b{name}\s*=\s*\{{(.*?)\}};", source, flags=re.DOTALL)
    assert match, f"no object {name} found"
    return [quoted or bare for quoted, bare in re.findall(r"""(?m)^\s*(?:"([^"]+)"|([A-Za-z_]\w*))\s*:""", match[1])]


def _js_string_array(pattern: str, source: str) -> list[str]:
    match = re.search(pattern, source, flags=re.DOTALL)
    assert match, f"no array matching {pattern!r}"
    return [double or single for double, single in re.findall(r""""([^"]*)"|'([^']*)'""", match[1])]


def rabbit_colours() -> list[str]:
    colours = _js_object_keys(scripts()["rabbits.js"], "RABBITS")
    assert len(colours) >= 12, f"fewer rabbits than seats: {colours}"
    return colours


def rule_sections() -> list[str]:
    sections = _js_string_array(r"\bSECTIONS\s*=\s*\[(.*?)\]", scripts()["screens/rules.js"])
    assert {"goal", "score"} <= set(sections), sections
    return sections


def modes() -> list[str]:
    # the start screen offers the modes /api/modes lists (written into the page as CHOICES)
    assert re.search(r"\bMODES\s*=\s*CHOICES\.modes\.map\(", scripts()["screens/start.js"])
    client = [mode["name"] for mode in room_choices()["modes"]]
    assert set(client) == set(MODES), f"the client offers {client}, the rules know {list(MODES)}"
    return list(MODES)


def connection_statuses() -> list[str]:
    statuses = re.findall(r"""onStatus\?\.\(\s*"(\w+)"\s*\)""", scripts()["net.js"])
    assert {"connecting", "online", "offline"} <= set(statuses), statuses
    return sorted(set(statuses))


def timer_phases() -> list[str]:
    phases = _js_string_array(r"\[([^\[\]]*)\]\.map\(\(phase\)", scripts()["screens/start.js"])
    assert {"clue", "play", "vote"} <= set(phases), phases
    return phases


def bot_levels() -> list[str]:
    """The levels the lobby offers: those the server sends the client (in /api/modes' answer,
    which the page carries); they must be every level a bot can have."""
    from fabula.bots.base import BOT_LEVELS

    lobby = scripts()["screens/room/lobby.js"]
    assert re.search(r"\bBOT_LEVELS = CHOICES\.bot_levels;", lobby), "the lobby's own list?"
    levels: list[str] = room_choices()["bot_levels"]
    assert sorted(levels) == sorted(BOT_LEVELS), levels
    return levels


def score_reasons() -> list[str]:
    """The reasons a reveal explains points with, as the client lists them; they must be the engine's."""
    from fabula.rules.scoring import REASONS

    assert re.search(r"\bREASONS = CHOICES\.reasons;", scripts()["screens/parts.js"]), "the reveal's own list?"
    reasons: list[str] = room_choices()["reasons"]
    assert reasons == list(REASONS), reasons
    return reasons


def family_keys() -> dict[str, frozenset[str]]:
    """Every key each run-time family can produce (optional families produce none that must exist)."""
    mode_names = modes()
    sections = rule_sections()
    return {
        "colour.*": frozenset(f"colour.{colour}" for colour in rabbit_colours()),
        "mode.*": frozenset(f"mode.{mode}" for mode in mode_names),
        "mode.*.summary": frozenset(f"mode.{mode}.summary" for mode in mode_names),
        "connection.*": frozenset(f"connection.{status}" for status in connection_statuses()),
        "start.timer.*": frozenset(f"start.timer.{phase}" for phase in timer_phases()),
        "rules.*.title": frozenset(f"rules.{section}.title" for section in sections),
        "rules.*.text": frozenset(f"rules.{section}.text" for section in sections),
        "bot.*": frozenset(f"bot.{level}" for level in bot_levels()),
        "bot.*.hint": frozenset(f"bot.{level}.hint" for level in bot_levels()),
        "reason.*": frozenset(f"reason.{reason}" for reason in score_reasons()),
        # why an uploaded file was passed over: every code the server can give
        "skip.*": frozenset(f"skip.{code}" for code in SKIP_CODES),
        "error.*": frozenset(),
    }


def _missing(keys: Iterable[str], language: str) -> list[str]:
    return sorted(set(keys) - set(strings(language)))


# ---------------------------------------------------------------- the files agree


def test_every_language_of_the_menu_has_a_file() -> None:
    assert re.search(r"\bLANGUAGES = CHOICES\.languages;", scripts()["i18n.js"]), "the menu's own list?"
    menu = [language["code"] for language in room_choices()["languages"]]
    files = sorted(path.stem for path in I18N.glob("*.json"))
    assert sorted(menu) == sorted(LANGUAGES) == files


@pytest.mark.parametrize("language", TRANSLATIONS)
def test_same_keys_as_english(language: str) -> None:
    english, translated = set(strings(ENGLISH)), set(strings(language))
    assert not english - translated, f"{language}.json lacks {sorted(english - translated)}"
    assert not translated - english, f"{language}.json has keys English does not: {sorted(translated - english)}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_values_are_not_empty(language: str) -> None:
    empty = [key for key, value in strings(language).items() if not value.strip()]
    assert not empty, f"{language}.json: empty strings for {empty}"


@pytest.mark.parametrize("language", TRANSLATIONS)
def test_placeholders_match_english(language: str) -> None:
    wrong = {
        key: (sorted(set(PLACEHOLDER.findall(english))), sorted(set(PLACEHOLDER.findall(translated))))
        for key, english in strings(ENGLISH).items()
        if (translated := strings(language).get(key)) is not None
        and set(PLACEHOLDER.findall(english)) != set(PLACEHOLDER.findall(translated))
    }
    assert not wrong, f"{language}.json: placeholders differ from English (english, translated): {wrong}"


@pytest.mark.parametrize("language", TRANSLATIONS)
def test_line_breaks_match_english(language: str) -> None:
    wrong = [
        key
        for key, english in strings(ENGLISH).items()
        if strings(language).get(key, english).count("\n") != english.count("\n")
    ]
    assert not wrong, f"{language}.json: not as many line breaks as in English for {wrong}"


# ---------------------------------------------------------------- the client and the files agree


@pytest.mark.parametrize("language", LANGUAGES)
def test_literal_keys_exist(language: str) -> None:
    missing = _missing(literal_keys(), language)
    assert not missing, f"{language}.json lacks keys the client uses: {missing}"


def test_every_run_time_key_belongs_to_a_known_family() -> None:
    known = family_keys()
    unknown = {family: sorted(files) for family, files in dynamic_calls().items() if family not in known}
    assert not unknown, f"keys built at run time that this test does not know how to check: {unknown}"
    unused = sorted(set(known) - set(dynamic_calls()))
    assert not unused, f"families no longer built by the client (drop them from this test): {unused}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_run_time_keys_exist(language: str) -> None:
    missing = {family: found for family, keys in family_keys().items() if (found := _missing(keys, language))}
    assert not missing, f"{language}.json lacks keys the client builds: {missing}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_keys_of_the_album_picture_exist(language: str) -> None:
    missing = _missing(python_keys()["literal"], language)
    assert not missing, f"{language}.json lacks keys the album's picture uses: {missing}"
    unknown = sorted(python_keys()["families"] - set(family_keys()))
    assert not unknown, f"the album's picture builds keys of families this test cannot check: {unknown}"


def test_no_english_string_is_unused() -> None:
    used = set(literal_keys()).union(*family_keys().values(), python_keys()["literal"])
    optional = [re.compile(re.escape(family).replace(r"\*", r"[^.]+") + "$") for family in OPTIONAL_FAMILIES]
    dead = sorted(
        key for key in strings(ENGLISH) if key not in used and not any(pattern.match(key) for pattern in optional)
    )
    assert not dead, f"en.json has strings the client never shows: {dead}"


# ---------------------------------------------------------------- really translated


@pytest.mark.parametrize("language", TRANSLATIONS)
def test_chinese_is_translated(language: str) -> None:
    assert set(strings(ENGLISH)) >= LATIN_ALLOWED, "LATIN_ALLOWED names keys en.json no longer has"
    untranslated = {
        key: translated
        for key, english in strings(ENGLISH).items()
        if key not in LATIN_ALLOWED
        and LATIN_LETTER.search(PLACEHOLDER.sub("", english))
        and not CJK.search(translated := strings(language).get(key, ""))
    }
    assert not untranslated, f"{language}.json: not translated: {untranslated}"


@pytest.mark.parametrize(("language", "opening", "closing"), [("zh-Hant", "「", "」"), ("zh-Hans", "“", "”")])
def test_chinese_quotation_marks(language: str, opening: str, closing: str) -> None:
    quoted = [key for key, english in strings(ENGLISH).items() if "“{clue}”" in english]
    assert quoted, "no English string quotes {clue} any more: update this test"
    wrong = [key for key in quoted if f"{opening}{{clue}}{closing}" not in strings(language)[key]]
    assert not wrong, f"{language}.json: quote {{clue}} as {opening}…{closing} in {wrong}"
    if language == "zh-Hant":
        western = [key for key, value in strings(language).items() if "“" in value or "”" in value]
        assert not western, f"zh-Hant.json: use 「」, not “”, in {western}"
