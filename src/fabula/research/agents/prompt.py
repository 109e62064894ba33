"""The chat messages of one move: a system message (the game and its mode's rules in brief) and a
user message (the seat's situation and the question).

A model never sees a picture: each card is its title and its one-sentence description
(`fabula.cards.model.Card`), which is all a person's view holds besides the art. The message holds
only what the seat's view holds — its own hand, the public table, the scores — never another
seat's secrets.

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
from typing import Any

from fabula.cards.model import Card
from fabula.rules import Action

from .asks import Ask, Choice, what_is_asked

#: A chat message as the chat-completions API takes it.
Message = dict[str, str]

_GAME = (
    "You are playing Dixit, the storytelling card game, at a digital table. The cards are dreamlike "
    "pictures; you are given each picture's title and description instead of the picture. Each round one "
    "player, the storyteller, gives a clue for a card of their hand; the others each add a card of their own "
    "that fits the clue; the cards are shuffled onto numbered slots, and the players vote for the card they "
    "think is the storyteller's."
)

RULES = {
    "odyssey": (
        "Scoring: if some but not all voters find the storyteller's card, the storyteller and each finder "
        "score 3; if all or none find it, the storyteller scores 0 and everyone else 2. Each other player "
        "also scores 1 per vote on their card (at most 3). So a clue should be neither too plain nor too "
        "obscure. The storyteller does not vote; nobody votes for their own card. With 7 or more players "
        "each voter has a second, optional token for a different slot. First to 30 points wins."
    ),
    "classic": (
        "Scoring: if some but not all voters find the storyteller's card, the storyteller and each finder "
        "score 3; if all or none find it, the storyteller scores 0 and everyone else 2. Each other player "
        "also scores 1 per vote on their card. So a clue should be neither too plain nor too obscure. The "
        "storyteller does not vote; nobody votes for their own card. First to 30 points wins."
    ),
    "party": (
        "Party rules: the storyteller gives the clue before seeing their hand; then everyone, the storyteller "
        "included, plays a card, and everyone votes for the image that best fits the clue (your own card is "
        "allowed). A voter whose image got c votes scores c (at most 5), but 0 if c is 1, and 0 if the "
        "storyteller put the red token on that image. So vote for the image most others will choose."
    ),
    "teams": (
        "Team rules: players are in pairs. The storyteller's teammate plays a card; every other team plays one "
        "card and its other member votes. The storyteller's team scores 3 if some but not all voters find the "
        "card; every other team scores 2 if all or none found it, else 3 if its voter found it; every team "
        "also scores 1 per vote on its card (at most 3). Highest team score wins."
    ),
}


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


def _question(ask: Ask, view: Mapping[str, Any]) -> str:
    clue = view.get("clue")
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
        own = "your own clue" if view.get("storyteller") == ask.seat else f'the clue "{clue}"'
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
        text = f'Vote for the image that best fits the clue "{clue}" — the one most others will choose.'
    else:
        never = "your own or your team's card" if view.get("teams") else "your own card"
        text = f'Vote for the slot you think holds the storyteller\'s card for the clue "{clue}" (never {never}).'
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


def situation(view: Mapping[str, Any], ask: Ask) -> str:
    """The user message: the round, the seats, the clue, the cards, the scores and the question."""
    seat, storyteller = view.get("seat"), view.get("storyteller")
    lines = [
        f"Round {view.get('round')}. You are seat {seat} of {view.get('seats')}; the storyteller is "
        + ("you." if storyteller == seat else f"seat {storyteller}.")
    ]
    if view.get("teams"):
        mate = next((s for team in view["teams"] if seat in team for s in team if s != seat), None)
        lines.append(f"Your teammate is seat {mate}.")
    lines.append(f"Scores: {_scores(view)}.")
    if view.get("clue"):
        lines.append(f"The clue: {json.dumps(view['clue'], ensure_ascii=False)}")
    if not ask.on_table and ask.choices:
        lines.append("Your hand:")
        lines.extend(_line(choice, "  ") for choice in ask.choices)
    if ask.on_table:
        lines.append("The table:")
        lines.extend(_line(choice, "  slot ") for choice in ask.choices)
    lines.append("")
    lines.append(_question(ask, view))
    return "\n".join(lines)


def system_message(mode: str) -> str:
    return f"{_GAME}\n{RULES.get(mode, RULES['odyssey'])}\nAnswer in the exact format asked, with no other text."


def prompt_messages(
    view: Mapping[str, Any],
    legal: Sequence[Action],
    cards: Mapping[str, Card] | None = None,
    ask: Ask | None = None,
) -> list[Message]:
    """The system and user messages of one move (``ask``: `what_is_asked`, if already known)."""
    ask = ask or what_is_asked(view, legal, cards)
    return [
        {"role": "system", "content": system_message(str(view.get("mode")))},
        {"role": "user", "content": situation(view, ask)},
    ]
