"""A model's reply → one legal move, or a `ReplyError` saying what to fix.

Models answer in many forms, so several are read, in this order:

1. a JSON object anywhere in the reply (in a code fence or not): ``{"card": 2, "clue": "Home"}``,
   ``{"vote": [3, 5]}``, ``{"red": 4}``, ``{"propose": 1}``; the choices as numbers, numeric
   strings, card titles or card ids;
2. otherwise the words: card titles named in the reply (for a vote, the slot showing that card),
   then card ids, then numbers (``"I vote for 3"``, ``"Card 2"``, ``"3"``); a clue after
   ``clue:`` or in quotes (for a blind clue, else the whole reply).

A ``<think>…</think>`` block (reasoning models) is dropped first. The choice must be legal: a
vote for one's own card, a card not in the hand, a clue of over 200 characters are refused with a
message the agent sends back to the model.

>>> from fabula.rules import Game
>>> from fabula.bots.language.asks import what_is_asked
>>> game = Game.new("odyssey", seats=4, seed=1)
>>> ask = what_is_asked(game.view(0).to_json(), game.legal_actions(0))
>>> parse_reply('{"card": 2, "clue": "Far from home"}', ask)
Tell(seat=0, card='c41', clue='Far from home', aloud=False, sound=None)
>>> parse_reply("Card 2. Clue: Far from home", ask)
Tell(seat=0, card='c41', clue='Far from home', aloud=False, sound=None)
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from fabula.rules import Action, BlindClue, IllegalAction, PlaceRed, Play, Propose, Tell, Vote, clean_clue

from .asks import Ask, Choice

#: keys a JSON reply may name its choice by, per kind of question (the first is the one asked for)
_KEYS = {
    "tell": ("card", "cards", "choice", "number", "answer"),
    "blind_clue": (),
    "play": ("card", "cards", "choice", "number", "answer", "play"),
    "propose": ("propose", "card", "choice", "number", "answer"),
    "vote": ("vote", "votes", "slot", "slots", "choice", "number", "answer"),
    "red": ("red", "slot", "choice", "number", "answer"),
}
_THINKING = re.compile(r"<think>.*?(</think>|$)", re.DOTALL | re.IGNORECASE)
_CLUE_LINE = re.compile(r"\bclue\s*[:=]\s*(.+)", re.IGNORECASE)
# Single quotes only around words (not "it's … I'm", apostrophes).
_QUOTED = re.compile(r'"([^"\n]+)"|“([^”\n]+)”|(?<!\w)\'([^\'\n]{2,})\'(?!\w)')
_NUMBER = re.compile(r"(?<![\w.])\d+(?![\w.]\d)")


class ReplyError(ValueError):
    """A reply that names no legal move; the message tells the model what to fix."""


def _objects(text: str) -> Iterator[dict[str, Any]]:
    """Every JSON object in ``text``, first to last."""
    decoder = json.JSONDecoder()
    start = text.find("{")
    while start != -1:
        try:
            value, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            start = text.find("{", start + 1)
            continue
        if isinstance(value, dict):
            yield value
        start = text.find("{", end)


def _name(value: object, ask: Ask) -> Choice:
    """The choice a JSON value names: its number, or a card's title or id."""
    if isinstance(value, bool):
        raise ReplyError(f"{json.dumps(value)} names no choice")
    if isinstance(value, int | float) and value == int(value):
        return _numbered(int(value), ask)
    if isinstance(value, str):
        text = value.strip().strip("#").strip()
        if text.isdigit():
            return _numbered(int(text), ask)
        for choice in ask.choices:
            if text.casefold() in (choice.title.casefold(), choice.card.casefold()):
                return choice
        found = _named(text, ask)
        if len(found) == 1:
            return found[0]
    raise ReplyError(f"{json.dumps(value, ensure_ascii=False)} is not one of the numbers listed")


def _numbered(number: int, ask: Ask) -> Choice:
    for choice in ask.choices:
        if choice.number == number:
            return choice
    where = "slot" if ask.on_table else "card of your hand"
    numbers = ", ".join(str(choice.number) for choice in ask.choices)
    raise ReplyError(f"there is no {where} {number} (the numbers are {numbers})")


def _named(text: str, ask: Ask) -> list[Choice]:
    """Choices whose title or card id ``text`` mentions, in the order mentioned."""
    folded = text.casefold()
    spots = []
    for choice in ask.choices:
        for name in (choice.title, choice.card):
            if len(name) >= 3:
                match = re.search(rf"(?<!\w){re.escape(name.casefold())}(?!\w)", folded)
                if match:
                    spots.append((match.start(), choice))
                    break
    return [choice for _, choice in sorted(spots, key=lambda spot: spot[0])]


def _from_words(text: str, ask: Ask) -> list[Choice]:
    named = _named(text, ask)
    if named:
        return named
    numbers = [int(found) for found in _NUMBER.findall(text)]
    if not numbers:
        raise ReplyError("the reply names no number")
    known = {choice.number: choice for choice in ask.choices}
    picked = [known[number] for number in numbers if number in known]
    if not picked:
        return [_numbered(numbers[0], ask)]  # raises, naming the numbers there are
    return picked


def _unquote(text: str) -> str:
    text = text.strip().rstrip(",").strip()
    for left, right in ('""', "“”", "''", "«»", "「」"):
        if len(text) >= 2 and text[0] == left and text[-1] == right:
            return text[1:-1].strip()
    return text


def _clue_from_words(text: str, ask: Ask) -> tuple[str | None, str]:
    """The clue in ``text``, and the rest of the text (where the choice is)."""
    line = _CLUE_LINE.search(text)
    if line:
        return _unquote(line.group(1)), text[: line.start()] + text[line.end() :]
    quoted = _QUOTED.search(text)
    if quoted:
        clue = next(group for group in quoted.groups() if group)
        return clue.strip(), text[: quoted.start()] + text[quoted.end() :]
    if ask.kind == "blind_clue":
        first = next((line for line in text.splitlines() if line.strip()), "")
        return _unquote(first), ""
    return None, text


def _clue(clue: object) -> str:
    if not isinstance(clue, str) or not clue.strip():
        raise ReplyError("a clue is needed: give one as text")
    try:
        return clean_clue(clue)
    except IllegalAction as error:
        raise ReplyError(f"that clue cannot be used: {error.message}") from None


def _read(text: str, ask: Ask) -> tuple[list[Choice], str | None, bool]:
    """The choices named, the clue (if any) and whether the reply proposes rather than plays."""
    for data in _objects(text):
        keys = [key for key in _KEYS[ask.kind] if key in data]
        if not keys and not (ask.needs_clue and "clue" in data):
            continue
        propose = ask.kind == "propose" or (ask.may_propose and "propose" in data and "card" not in data)
        picked: list[Choice] = []
        if keys:
            value = data[keys[0]]
            values = value if isinstance(value, list) else [value]
            picked = [_name(item, ask) for item in values]
        return picked, data.get("clue") if ask.needs_clue else None, propose
    clue, rest = _clue_from_words(text, ask) if ask.needs_clue else (None, text)
    propose = ask.kind == "propose" or (ask.may_propose and re.search(r"\bpropos", rest, re.IGNORECASE) is not None)
    picked = _from_words(rest, ask) if ask.choices else []
    return picked, clue, propose


def _distinct(picked: list[Choice], ask: Ask) -> list[Choice]:
    unique = list({choice.number: choice for choice in picked}.values())
    if ask.most == 1:
        return unique[:1]  # "I vote for 3 … slot 3 fits best": the first one named
    # `Game.legal_actions` lists a pair of cards (or of slots) once, in hand (slot) order.
    return sorted(unique, key=lambda choice: choice.number)


def _move(ask: Ask, picked: list[Choice], clue: str | None, propose: bool) -> Action:
    seat = ask.seat
    if ask.kind == "blind_clue":
        return BlindClue(seat, _clue(clue))
    if not picked:
        raise ReplyError("the reply names no choice")
    if ask.kind == "tell":
        return Tell(seat, picked[0].card, _clue(clue))
    if propose:
        return Propose(seat, picked[0].card)
    if ask.kind == "play":
        if len(picked) != ask.most:
            raise ReplyError(f"play exactly {ask.most} different cards of your hand")
        return Play(seat, tuple(choice.card for choice in picked))
    if ask.kind == "red":
        return PlaceRed(seat, picked[0].number)
    if not ask.least <= len(picked) <= ask.most:
        raise ReplyError(f"vote for {ask.least} to {ask.most} different slots")
    return Vote(seat, tuple(choice.number for choice in picked))


def _blank(action: Action) -> Action:
    if isinstance(action, Tell):
        return Tell(action.seat, action.card, None)
    if isinstance(action, BlindClue):
        return BlindClue(action.seat, None)
    return action


def _why_not(action: Action, ask: Ask) -> str:
    if isinstance(action, Vote):
        for choice in ask.choices:
            if choice.number in action.slots and (choice.yours or choice.barred):
                whose = "your own" if choice.yours else "your team's"
                return f"slot {choice.number} holds {whose} card: vote for another slot"
    return "that is not a move you may make now"


def parse_reply(reply: str, ask: Ask) -> Action:
    """The legal move ``reply`` names for the question ``ask``; `ReplyError` otherwise."""
    text = _THINKING.sub("", reply or "").strip()
    if not text:
        raise ReplyError("the reply is empty")
    picked, clue, propose = _read(text, ask)
    action = _move(ask, _distinct(picked, ask), clue, propose)
    if _blank(action) not in ask.legal:
        raise ReplyError(_why_not(action, ask))
    return action
