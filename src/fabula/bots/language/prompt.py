"""The chat messages of one move: a system message (the game and its mode's rules in brief) and a
user message (the seat's situation and the question).

A model that does not see is shown each card as its title and its one-sentence description
(`fabula.cards.model.Card`: the original deck's descriptions, a group's captions); a model that
sees (``pictures``) is shown each card's picture after its number (a small JPEG data URL,
`fabula.bots.language.pictures`), with its title when it has one. The message holds only what
the seat's view holds — its own hand, the public table, the scores — never another seat's
secrets. The system message is in the table's language (`rules_text`).

>>> from fabula.rules import Game
>>> game = Game.new("odyssey", seats=4, seed=1)
>>> system, user = prompt_messages(game.view(0).to_json(), game.legal_actions(0))
>>> system["role"], user["role"]
('system', 'user')
>>> "You are the storyteller" in user["content"]
True
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from fabula.cards.model import Card
from fabula.rules import Action

from .asks import Ask, Choice, what_is_asked
from .rules_text import system_message

#: A chat message as the chat-completions API takes it: ``content`` is text, or (a message with
#: pictures) a list of ``{"type": "text", "text": …}`` and ``{"type": "image_url", "image_url":
#: {"url": …}}`` parts.
Message = dict[str, Any]
#: A line of a user message, or a picture there (a 1-tuple: its data URL).
_Part = str | tuple[str]


def _line(choice: Choice, prefix: str) -> str:
    text = f"{prefix}{choice.number}: {choice.title}"
    if choice.description and choice.description != choice.title:
        text += f" — {choice.description}"
    if choice.yours:
        return text + " (your card)"
    # In teams the teammate's card is barred too: the seat knows it (the browser greys it out).
    return text + (" (your team's card)" if choice.barred else "")


def _scores(view: Mapping[str, Any]) -> str:
    seat, teams = view.get("seat"), view.get("teams")
    parts = []
    for other, score in enumerate(view.get("scores") or []):
        name = "you" if other == seat else f"seat {other}"
        if teams:
            pair = next((team for team in teams if other in team), None)
            if pair is not None and other != pair[0]:
                continue  # a team's members share one score: name it once
            name = " & ".join("you" if s == seat else f"seat {s}" for s in pair or [other])
        parts.append(f"{name}: {score}")
    return ", ".join(parts)


def _the_clue(view: Mapping[str, Any]) -> str:
    """How the question names the clue: its words, or — said aloud without words — a clue the
    model could not hear (a mystery clue: any card may fit); a recorded sound alike."""
    clue = view.get("clue")
    if not clue and view.get("sound"):
        return "the sound the storyteller recorded as the clue (you could not hear it: guess)"
    if not clue and view.get("aloud"):
        return "the clue the storyteller said aloud (you could not hear it: guess)"
    return f'the clue "{clue}"'


def _question(ask: Ask, view: Mapping[str, Any]) -> str:
    the_clue = _the_clue(view)
    if ask.kind == "tell":
        return (
            "You are the storyteller. Choose one card of your hand and give a clue for it (a word, a phrase "
            "or a sentence, at most 200 characters) that some, but not all, of the others will match with it.\n"
            'Reply with JSON only: {"card": <hand number>, "clue": "<your clue>"}'
        )
    if ask.kind == "blind_clue":
        return (
            "You are the storyteller. Give the clue now, before seeing your hand (a word, a phrase or a "
            "sentence, at most 200 characters).\n"
            'Reply with JSON only: {"clue": "<your clue>"}'
        )
    if ask.kind in ("play", "propose"):
        own = "your own clue" if view.get("storyteller") == ask.seat else the_clue
        if ask.most == 2:
            what = (
                'two cards of your hand that fit {own}, to draw votes.\nReply with JSON only: {{"cards": [<n>, <n>]}}'
            )
        else:
            what = 'the card of your hand that best fits {own}, to draw votes.\nReply with JSON only: {{"card": <n>}}'
        text = "Play " + what.format(own=own)
        if ask.may_propose:
            text += '\n(Or, to only propose a card to your teammate instead: {"propose": <n>}.)'
        if ask.kind == "propose":
            text = f"Propose to your teammate the card of your hand that best fits {own}.\n"
            text += 'Reply with JSON only: {"propose": <n>}'
        return text
    if ask.kind == "red":
        return (
            "You are the storyteller: put the red token on one slot (its image's voters will score nothing).\n"
            'Reply with JSON only: {"red": <slot>}'
        )
    if view.get("mode") == "party":
        text = f"Vote for the image that best fits {the_clue} — the one most others will choose."
    else:
        never = "your own or your team's card" if view.get("teams") else "your own card"
        text = f"Vote for the slot you think holds the storyteller's card for {the_clue} (never {never})."
    if ask.most == 2:
        return (
            text + '\nReply with JSON only: {"vote": [<slot>]}, or with your optional second token {"vote": [<a>, <b>]}'
        )
    return text + '\nReply with JSON only: {"vote": <slot>}'


def format_hint(ask: Ask) -> str:
    """The reply format the question asks for, repeated in a corrective message."""
    if ask.kind == "tell":
        return '{"card": <hand number>, "clue": "<your clue>"}'
    if ask.kind == "blind_clue":
        return '{"clue": "<your clue>"}'
    if ask.kind == "propose":
        return '{"propose": <hand number>}'
    if ask.kind == "play":
        return '{"cards": [<n>, <n>]}' if ask.most == 2 else '{"card": <hand number>}'
    if ask.kind == "red":
        return '{"red": <slot>}'
    return '{"vote": [<slot>, <slot>]}' if ask.most == 2 else '{"vote": <slot>}'


def situation(view: Mapping[str, Any], ask: Ask, pictures: Mapping[str, str] | None = None) -> list[_Part]:
    """The user message: the round, the seats, the clue, the cards, the scores and the question —
    as lines of text, with a card's picture after its line where ``pictures`` (card id → data
    URL) holds one."""
    seat, storyteller = view.get("seat"), view.get("storyteller")
    lines: list[_Part] = [
        f"Round {view.get('round')}. You are seat {seat} of {view.get('seats')}; the storyteller is "
        + ("you." if storyteller == seat else f"seat {storyteller}.")
    ]
    if view.get("teams"):
        mate = next((s for team in view["teams"] if seat in team for s in team if s != seat), None)
        lines.append(f"Your teammate is seat {mate}.")
    lines.append(f"Scores: {_scores(view)}.")
    if view.get("clue"):
        said = " (said aloud at the table; these are the words typed for it)" if view.get("aloud") else ""
        if view.get("sound"):
            said = " (a recorded sound you cannot hear; these are the words typed with it)"
        lines.append(f"The clue{said}: {json.dumps(view['clue'], ensure_ascii=False)}")
    elif view.get("sound"):
        lines.append("The clue is a sound the storyteller recorded, and you could not hear it: no words to go by.")
    elif view.get("aloud"):
        lines.append("The clue was said aloud at the table, and you could not hear it: no words to go by.")
    if ask.choices:
        lines.append("The table:" if ask.on_table else "Your hand:")
        prefix = "  slot " if ask.on_table else "  "
        for choice in ask.choices:
            url = (pictures or {}).get(choice.card)
            if url is None:
                lines.append(_line(choice, prefix))
            else:  # its picture says what a description would: the title only (a caption, if any)
                lines += [_line(replace(choice, description=""), prefix), (url,)]
    lines.append("")
    lines.append(_question(ask, view))
    return lines


def _content(parts: Sequence[_Part]) -> str | list[dict[str, Any]]:
    """The message's content: plain text when it holds no picture (as a model that does not see
    takes it), else text and image parts."""
    if all(isinstance(part, str) for part in parts):
        return "\n".join(part for part in parts if isinstance(part, str))
    content: list[dict[str, Any]] = []
    text: list[str] = []
    for part in parts:
        if isinstance(part, str):
            text.append(part)
            continue
        content.append({"type": "text", "text": "\n".join(text)})
        content.append({"type": "image_url", "image_url": {"url": part[0]}})
        text = []
    content.append({"type": "text", "text": "\n".join(text)})
    return content


def text_of(message: Message) -> str:
    """A message's text, its pictures left out."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(part.get("text", "") for part in content or [] if isinstance(part, dict))


def pictures_of(message: Message) -> list[str]:
    """The data URLs of a message's pictures, in order."""
    content = message.get("content")
    if isinstance(content, str):
        return []
    return [
        part["image_url"]["url"] for part in content or [] if isinstance(part, dict) and part.get("type") == "image_url"
    ]


def prompt_messages(
    view: Mapping[str, Any],
    legal: Sequence[Action],
    cards: Mapping[str, Card] | None = None,
    ask: Ask | None = None,
    *,
    pictures: Mapping[str, str] | None = None,
    language: str = "en",
) -> list[Message]:
    """The system and user messages of one move (``ask``: `what_is_asked`, if already known);
    ``pictures``: card id → data URL, for a model that sees (a card without one is shown by its
    words); ``language``: the table's, of the rules and the clues."""
    ask = ask or what_is_asked(view, legal, cards)
    shown = {choice.card: (pictures or {})[choice.card] for choice in ask.choices if choice.card in (pictures or {})}
    return [
        {"role": "system", "content": system_message(str(view.get("mode")), language, pictures=bool(shown))},
        {"role": "user", "content": _content(situation(view, ask, shown))},
    ]
