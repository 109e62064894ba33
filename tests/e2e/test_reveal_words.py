"""What the reveal says, as a group found it wrong after issue 34: with two tokens it promised "1 more"
for finding the card with one token alone in every round, earned or not; in teams it said the
storyteller's team "scores nothing" when votes on the teammate's card gave it points. The other
seats are played over the protocol, move by move as each test says (a bot's moves are its own), so
each round is the one the test needs. Each test failed on the client as it was before its fix."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from contextlib import ExitStack
from typing import Any

import httpx
from playwright.sync_api import Page, expect
from websockets.sync.client import connect

from .conftest import Players
from .test_album import TV, shot
from .ui import close_reveal, create_room_by_api, enabled_table_cards, open_seat, play_cards, start_game, tell, vote

PHONE_360 = (360, 800)  # (the screenshots' size)
BONUS = "Found with one token alone: 1 more."
COLOURS = ("red", "pink", "yellow", "orange", "brown", "purple", "black")


class Scripted:
    """A seat played over the protocol: it moves when the test says, as the test says."""

    def __init__(self, stack: ExitStack, base: str, code: str, name: str, colour: str) -> None:
        joined = httpx.post(f"{base}/api/rooms/{code}/join", json={"name": name, "colour": colour})
        assert joined.status_code == 201, joined.text
        self.name, self.colour, self.member = name, colour, joined.json()["member"]
        self.socket = stack.enter_context(connect(base.replace("http", "ws", 1) + f"/ws/{code}"))
        self.ids = itertools.count()
        self.room: dict[str, Any] | None = None
        assert self.send({"type": "hello", "token": joined.json()["token"]})["type"] == "welcome"

    def _receive(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.socket.recv(timeout=15))
        if data.get("type") == "state":
            self.room = data["room"]
        return data

    def send(self, message: dict[str, Any]) -> dict[str, Any]:
        message_id = f"{self.name}{next(self.ids)}"
        self.socket.send(json.dumps({**message, "id": message_id}))
        while (data := self._receive()).get("id") != message_id:
            pass
        return data

    def game(self, test: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """This seat's view of the game once ``test`` holds for it."""
        while self.room is None or self.room["game"] is None or not test(self.room["game"]):
            self._receive()
        game: dict[str, Any] = self.room["game"]
        return game

    def act(self, action: dict[str, Any]) -> None:
        reply = self.send({"type": "act", "action": action})
        assert reply["type"] == "ack", reply

    def play_first_card(self) -> None:
        game = self.game(lambda game: game["phase"] == "play" and game["cards_to_play"] > 0)
        self.act({"type": "play", "cards": game["hand"][: game["cards_to_play"]]})

    def tell(self, clue: str) -> str:
        game = self.game(lambda game: game["phase"] == "clue")
        card: str = game["hand"][0]
        self.act({"type": "tell", "card": card, "clue": clue})
        return card

    def vote(self, pick: Callable[[dict[str, Any]], list[int]]) -> None:
        """Vote for the slots ``pick`` chooses from this seat's view of the laid table."""
        game = self.game(lambda game: game["phase"] == "vote" and game["seat"] in game["awaiting"])
        self.act({"type": "vote", "slots": pick(game)})


def slot_of(game: dict[str, Any], card: str) -> int:
    slot: int = next(entry["slot"] for entry in game["table"] if entry["card"] == card)
    return slot


def others(game: dict[str, Any], *but: int) -> list[int]:
    """The slots this seat may vote for, but ``but``."""
    return [entry["slot"] for entry in game["table"] if not entry["yours"] and entry["slot"] not in but]


def storytellers_card(seats: list[Scripted]) -> str:
    """The card on the table that none of ``seats`` laid (the storyteller is not among them)."""
    games = [seat.game(lambda game: game["phase"] == "vote") for seat in seats]
    laid: set[str] = {entry["card"] for entry in games[0]["table"]}
    (card,) = laid - {card for game in games for card in game["my_cards"]}
    return card


def scripted(stack: ExitStack, base: str, code: str, names: list[str]) -> list[Scripted]:
    return [Scripted(stack, base, code, name, colour) for name, colour in zip(names, COLOURS, strict=False)]


def settled(page: Page) -> None:
    """Wait until the cards have flipped in (for a screenshot of the whole reveal)."""
    page.wait_for_function("() => document.getAnimations().every((a) => a.playState !== 'running')")


def headlines(phone: Page, tv: Page) -> tuple[str, str]:
    expect(phone.locator(".overlay .reveal-headline")).to_be_visible()
    expect(tv.locator(".board-headline")).to_be_visible()
    settled(phone)
    return phone.locator(".overlay .reveal-headline").inner_text(), tv.locator(".board-headline").inner_text()


# ---------------------------------------------------------------- 1. the one-token bonus, when earned


def test_the_one_token_bonus_is_said_only_in_a_round_where_someone_earned_it(players: Players) -> None:
    seat = create_room_by_api(players.base, "Mara", options={"first_storyteller": 0})
    code = seat["code"]
    mara = players.open(*PHONE_360, mobile=True)
    open_seat(mara, players.base, code, seat)
    with ExitStack() as stack:
        ben, cleo, dan, eve, fay, gus = scripted(stack, players.base, code, ["Ben", "Cleo", "Dan", "Eve", "Fay", "Gus"])
        tv = players.open(*TV)
        tv.goto(f"/room/{code}/board")
        expect(tv.locator(".board-lobby")).to_be_visible()
        start_game(mara)

        # Round 1: Ben, Cleo and Dan find Mara's card, each with a second token on another card;
        # Eve, Fay and Gus put both on other cards. Nobody found it with one token alone.
        tell(mara, "Lanterns")
        for player in (ben, cleo, dan, eve, fay, gus):
            player.play_first_card()
        told = storytellers_card([ben, cleo, dan, eve, fay, gus])
        for finder in (ben, cleo, dan):
            finder.vote(lambda game: [slot_of(game, told), others(game, slot_of(game, told))[0]])
        for misser in (eve, fay, gus):
            misser.vote(lambda game: others(game, slot_of(game, told))[:2])
        phone_line, tv_line = headlines(mara, tv)
        expected = "Ben, Cleo and Dan found Mara's card, but not everyone: they and Mara score 3."
        assert (phone_line, tv_line) == (expected, expected)
        expect(mara.locator(".overlay .reasons", has_text="one token")).to_have_count(0)
        shot(mara, "reveal-no-single-token-360")
        shot(tv, "reveal-no-single-token-tv")

        # Round 2: Ben tells; Cleo finds his card with one token alone: now it is said.
        close_reveal(mara)
        bens = ben.tell("Harbour")
        play_cards(mara)
        for player in (cleo, dan, eve, fay, gus):
            player.play_first_card()
        cleo.vote(lambda game: [slot_of(game, bens)])
        for misser in (dan, eve, fay, gus):
            misser.vote(lambda game: others(game, slot_of(game, bens))[:2])
        expect(enabled_table_cards(mara)).not_to_have_count(0)
        vote(mara)
        phone_line, tv_line = headlines(mara, tv)
        assert phone_line.endswith(BONUS), phone_line
        assert tv_line.endswith(BONUS), tv_line
        expect(mara.locator(".overlay .reasons", has_text="found it with one token alone")).not_to_have_count(0)
        shot(mara, "reveal-single-token-360")
        shot(tv, "reveal-single-token-tv")


# ---------------------------------------------------------------- 2. teams: what the storyteller's team got


def test_a_teams_reveal_says_the_storytellers_team_scored_the_votes_on_the_teammates_card(players: Players) -> None:
    seat = create_room_by_api(players.base, "Mara", mode="teams", options={"first_storyteller": 0})
    code = seat["code"]
    mara = players.open(*PHONE_360, mobile=True)
    open_seat(mara, players.base, code, seat)
    with ExitStack() as stack:
        # teams in joining order: Mara & Ben (seats 0 and 3), Cleo & Dan, Eve & Fay
        ben, cleo, dan, eve, fay = scripted(stack, players.base, code, ["Ben", "Cleo", "Dan", "Eve", "Fay"])
        tv = players.open(*TV)
        tv.goto(f"/room/{code}/board")
        expect(tv.locator(".board-lobby")).to_be_visible()
        start_game(mara)
        tell(mara, "Far from home")
        for player in (ben, cleo, eve):  # Ben, Mara's teammate, plays; so do Cleo and Eve for theirs
            player.play_first_card()
        teammates = ben.game(lambda game: game["phase"] == "vote")["my_cards"][0]
        # Dan and Fay, their teams' voters, both miss Mara's card and vote for Ben's
        for voter in (dan, fay):
            voter.vote(lambda game: [slot_of(game, teammates)])
        expected = (
            "No voter found the card of Mara & Ben: they score only the votes on Ben's card (+2), every other team 2."
        )
        assert headlines(mara, tv) == (expected, expected)
        points = mara.locator(".overlay .points li", has_text="Mara & Ben")
        expect(points.locator(".gain")).to_have_text("+2")
        expect(points.locator(".reasons")).to_have_text("no one found the card · 2 votes on their card")
        shot(mara, "reveal-teams-votes-360")
        shot(tv, "reveal-teams-votes-tv")
        close_reveal(mara)

        # the album at the game's end says it too
        mara.get_by_role("button", name="End the game now").click()
        mara.get_by_role("button", name="End the game", exact=True).click()
        close_reveal(mara)
        album = mara.locator(".game-over .album")
        expect(album.locator(".album-where")).to_have_text("Round 1 of 1")
        expect(album.locator(".reveal-headline")).to_have_text(expected)


# ---------------------------------------------------------------- 3. a seat taken over: past rounds keep their names


def test_a_past_round_shown_again_names_who_played_it_not_who_took_the_seat_over(players: Players) -> None:
    seat = create_room_by_api(players.base, "Mara", options={"first_storyteller": 2})
    code = seat["code"]
    mara = players.open(*PHONE_360, mobile=True)
    open_seat(mara, players.base, code, seat)
    with ExitStack() as stack:
        hal, fay = scripted(stack, players.base, code, ["Hal", "Fay"])
        tv = players.open(*TV)
        tv.goto(f"/room/{code}/board")
        expect(tv.locator(".board-lobby")).to_be_visible()
        start_game(mara)

        # Round 1: Fay tells, Hal plays two cards and votes
        fays = fay.tell("Lighthouse")
        play_cards(mara)
        hal.play_first_card()
        hal.vote(lambda game: [slot_of(game, fays)])
        vote(mara)
        expect(mara.locator(".overlay .owner-name", has_text="Hal")).to_have_count(2)
        close_reveal(mara)

        # Round 2, Mara to tell: Hal leaves for good, Leo takes his seat over
        assert hal.send({"type": "leave", "for_good": True})["type"] == "ack"
        leo = httpx.post(
            f"{players.base}/api/rooms/{code}/join", json={"name": "Leo", "colour": hal.colour, "replaces": hal.member}
        )
        assert leo.status_code == 201, leo.text
        expect(mara.locator(".scores")).to_contain_text("Leo")

        # round 1, shown again on the phone, is Hal's still: his cards, his vote, his points
        mara.get_by_role("button", name="Show the last round").click()
        reveal = mara.locator(".overlay .reveal")
        expect(reveal.locator(".owner-name", has_text="Hal")).to_have_count(2)
        expect(reveal.locator(".owner-name", has_text="Leo")).to_have_count(0)
        expect(reveal.locator(".points")).to_contain_text("Hal")
        expect(reveal.locator(".points")).not_to_contain_text("Leo")
        expect(reveal.locator(".voters .rabbit[title^='Hal ']")).to_have_count(1)
        settled(mara)
        shot(mara, "reveal-after-takeover-360")
        # and on the TV, which shows round 1 until Mara tells: Hal's cards and vote
        cards = tv.locator(".board-cards")
        expect(cards.locator(".owner .rabbit[title^='Hal ']")).to_have_count(3)
        expect(cards.locator(".owner .rabbit[title^='Leo ']")).to_have_count(0)
        expect(tv.locator(".board-players")).to_contain_text("Leo")  # who plays the seat now
        shot(tv, "reveal-after-takeover-tv")
