"""Language-model agents against a stand-in chat endpoint: replies read in every form, a retry
after a malformed reply, the fallback after garbage, every raw reply in the transcript, and whole
games in every mode with only legal moves."""

from __future__ import annotations

import io
import json
import random
import socket
import threading
from collections.abc import Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest

import fabula.research.agents
from fabula.bots.arena import SeatContext, run_arena
from fabula.bots.base import Bot
from fabula.bots.language.prompt import Message, prompt_messages
from fabula.cards.original import original_deck
from fabula.cli import main
from fabula.commands.arena import ENDPOINT_FAILED
from fabula.research.agents import (
    AgentSpecError,
    Ask,
    EndpointFailed,
    LLMAgent,
    OpenAIChat,
    ReplyError,
    Transcript,
    agent_from_spec,
    parse_openai_spec,
    parse_reply,
    what_is_asked,
)
from fabula.research.agents.standin import StandIn, naive_reply
from fabula.rules import Action, BlindClue, Game, Phase, Play, Propose, Tell, Vote

CARDS = {card.id: card for card in original_deck().cards}
DECK = list(CARDS)


def game_at(mode: str, seats: int, phase: Phase, seed: int = 1) -> Game:
    """A game of the original deck played at random up to ``phase``."""
    game = Game.new(mode, seats, seed=seed, deck=DECK)
    rng = random.Random(seed)
    while game.phase is not phase:
        seat = game.awaiting[0]
        move = rng.choice(game.legal_actions(seat))
        game.apply(move.with_clue("Far away") if isinstance(move, Tell | BlindClue) else move)
    return game


def ask_of(game: Game, seat: int | None = None) -> tuple[Ask, dict[str, Any], Sequence[Action]]:
    seat = game.awaiting[0] if seat is None else seat
    view, legal = game.view(seat).to_json(), game.legal_actions(seat)
    return what_is_asked(view, legal, CARDS), view, legal


class Scripted:
    """Replies in turn (the last one again once they run out); the messages of each request kept."""

    def __init__(self, *replies: str) -> None:
        self.replies, self.seen = list(replies), list[list[Message]]()

    def __call__(self, messages: list[Message]) -> str:
        self.seen.append(messages)
        return self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]


@pytest.fixture
def script() -> Scripted:
    return Scripted("3")


@pytest.fixture
def standin(script: Scripted) -> Iterator[StandIn]:
    with StandIn(script) as server:
        yield server


# ---------------------------------------------------------------- reading replies


def test_a_storytellers_reply_in_json_words_or_a_code_fence() -> None:
    ask, view, _ = ask_of(game_at("odyssey", 4, Phase.CLUE))
    second = view["hand"][1]
    title = CARDS[second].title
    for reply in (
        '{"card": 2, "clue": "Far from home"}',
        '```json\n{"card": "2", "clue": "Far from home"}\n```',
        f'{{"card": "{title}", "clue": "Far from home"}}',
        "Card 2\nClue: Far from home",
        'I choose card 2 with the clue "Far from home".',
        f"<think>card 5 is nice, or 1</think>{title}. Clue: “Far from home”",
        "I'd pick card 2, it's lovely: 'Far from home'",
    ):
        assert parse_reply(reply, ask) == Tell(ask.seat, second, "Far from home"), reply


def test_votes_by_number_title_and_sentence_and_the_own_card_refused() -> None:
    game = game_at("odyssey", 4, Phase.VOTE)
    seat = next(s for s in game.awaiting if s != game.view(s).to_json()["storyteller"])
    ask, view, _ = ask_of(game, seat)
    own = next(slot["slot"] for slot in view["table"] if slot["yours"])
    other = next(slot for slot in view["table"] if not slot["yours"])
    number, title = other["slot"], CARDS[other["card"]].title
    for reply in (str(number), f"I vote for {number}", f'{{"vote": {number}}}', f"Slot {number}: {title}", title):
        assert parse_reply(reply, ask) == Vote(seat, (number,)), reply
    with pytest.raises(ReplyError, match="your own card"):
        parse_reply(f'{{"vote": {own}}}', ask)
    with pytest.raises(ReplyError, match="no slot 9"):
        parse_reply("I vote for 9", ask)
    for garbage in ("", "   ", "I cannot decide.", "{}", "<think>3</think>"):
        with pytest.raises(ReplyError):
            parse_reply(garbage, ask)


def test_two_cards_at_three_players_and_two_tokens_at_eight() -> None:
    ask, view, _ = ask_of(game_at("odyssey", 3, Phase.PLAY))
    assert (ask.kind, ask.least, ask.most) == ("play", 2, 2)
    hand = view["hand"]
    assert parse_reply('{"cards": [4, 2]}', ask) == Play(ask.seat, (hand[1], hand[3])), "any order"
    with pytest.raises(ReplyError, match="exactly 2"):
        parse_reply('{"card": 4}', ask)

    game = game_at("odyssey", 8, Phase.VOTE)
    seat = next(s for s in game.awaiting if s != game.view(s).to_json()["storyteller"])
    ask, view, _ = ask_of(game, seat)
    assert (ask.kind, ask.least, ask.most) == ("vote", 1, 2)
    free = [slot["slot"] for slot in view["table"] if not slot["yours"]]
    assert parse_reply(f"{free[2]} and {free[0]}", ask) == Vote(seat, (free[0], free[2]))
    assert parse_reply(f'{{"vote": [{free[1]}]}}', ask) == Vote(seat, (free[1],))


def test_party_and_teams_questions() -> None:
    ask, _, _ = ask_of(game_at("party", 6, Phase.CLUE))
    assert ask.kind == "blind_clue"
    assert not ask.choices
    assert parse_reply("Lost in the fog", ask).clue == "Lost in the fog"  # type: ignore[union-attr]
    assert parse_reply('{"clue": "Lost"}', ask).clue == "Lost"  # type: ignore[union-attr]
    with pytest.raises(ReplyError, match="cannot be used"):
        parse_reply('{"clue": "' + "x" * 201 + '"}', ask)

    game = game_at("party", 6, Phase.VOTE)
    storyteller = game.view(0).to_json()["storyteller"]
    ask, _, _ = ask_of(game, storyteller)
    assert ask.kind == "red", "the red token first"

    game = game_at("teams", 6, Phase.PLAY)
    seat = next(s for s in game.awaiting if any(type(a) is Propose for a in game.legal_actions(s)))
    ask, view, _ = ask_of(game, seat)
    assert ask.kind == "play"
    assert ask.may_propose
    assert parse_reply('{"propose": 1}', ask) == Propose(seat, view["hand"][0])
    assert parse_reply('{"card": 1}', ask) == Play(seat, (view["hand"][0],))
    game.apply(Propose(seat, view["hand"][0]))
    ask, _, _ = ask_of(game, seat)
    assert not ask.may_propose, "one proposal a round: then the seat is asked to play"


def test_the_prompt_holds_the_rules_the_clue_the_cards_and_the_scores_and_no_secrets() -> None:
    game = game_at("odyssey", 4, Phase.VOTE)
    seat = next(s for s in game.awaiting if s != game.view(s).to_json()["storyteller"])
    view, legal = game.view(seat).to_json(), game.legal_actions(seat)
    system, user = prompt_messages(view, legal, CARDS)
    assert "30 points" in system["content"]
    text = user["content"]
    assert '"Far away"' in text
    assert "Scores: " in text
    assert "(your card)" in text
    for slot in view["table"]:
        assert CARDS[slot["card"]].description in text
    for other in range(4):  # another seat's hand is never shown
        if other != seat:
            hidden = set(game.view(other).to_json()["hand"]) - {slot["card"] for slot in view["table"]}
            assert not any(CARDS[card].description in text for card in hidden)
    assert '{"vote": <slot>}' in text


# ---------------------------------------------------------------- the endpoint, retries, fallback


def one_move(server: StandIn, retries: int = 2) -> tuple[LLMAgent, Action, list[dict[str, Any]]]:
    game = game_at("odyssey", 4, Phase.CLUE)
    seat = game.awaiting[0]
    out = io.StringIO()
    agent = LLMAgent(OpenAIChat(server.url, "tiny"), CARDS, retries=retries, transcript=Transcript(out), name="t")
    move = agent.choose(game.view(seat).to_json(), game.legal_actions(seat))
    assert isinstance(move, Tell)
    assert move.clue
    assert Tell(seat, move.card, None) in game.legal_actions(seat)
    return agent, move, [json.loads(line) for line in out.getvalue().splitlines()]


def test_a_good_reply_is_played_and_logged(standin: StandIn, script: Scripted) -> None:
    script.replies = ['{"card": 1, "clue": "Dawn"}']
    agent, move, lines = one_move(standin)
    assert isinstance(move, Tell)
    assert move.clue == "Dawn"
    assert (agent.moves, agent.attempts, agent.fallbacks) == (1, 1, 0)
    assert [line["reply"] for line in lines] == ['{"card": 1, "clue": "Dawn"}']
    assert lines[0]["action"] == move.to_json()
    assert lines[0]["prompt"][0]["role"] == "system"
    assert standin.requests[0]["model"] == "tiny"


def test_a_malformed_reply_is_corrected(standin: StandIn, script: Scripted) -> None:
    script.replies = ["a lighthouse, I think", '{"card": 2, "clue": "Dawn"}']
    agent, move, lines = one_move(standin)
    assert isinstance(move, Tell)
    assert move.clue == "Dawn"
    assert (agent.attempts, agent.fallbacks) == (2, 0)
    assert [line["reply"] for line in lines] == ["a lighthouse, I think", '{"card": 2, "clue": "Dawn"}']
    assert lines[0]["error"]
    assert "action" not in lines[0]
    retry = script.seen[1]
    assert retry[-2] == {"role": "assistant", "content": "a lighthouse, I think"}
    assert retry[-1]["role"] == "user"
    assert "cannot be played" in retry[-1]["content"]
    assert lines[1]["prompt"] == [retry[-1]], "a retry logs its corrective message"


def test_garbage_falls_back_to_a_random_legal_move(standin: StandIn, script: Scripted) -> None:
    script.replies = ["¯\\_(ツ)_/¯"]
    agent, move, lines = one_move(standin, retries=3)
    assert (agent.attempts, agent.fallbacks) == (4, 1)
    assert [line.get("reply") for line in lines[:4]] == ["¯\\_(ツ)_/¯"] * 4
    assert lines[4]["fallback"] == move.to_json()
    assert len(lines) == 5


def unused_port() -> int:
    """A local port nothing listens on (taken from the system, then let go)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


class Failing(BaseHTTPRequestHandler):
    """An endpoint that answers every request with HTTP 500."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        payload = b'{"error": {"message": "the model is not loaded"}}'
        self.send_response(500)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def failing() -> Iterator[str]:
    """The URL of a server that fails every request; stopped after the test."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), Failing)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def test_an_endpoint_that_fails_every_attempt_stops_the_agent_unless_it_falls_back_at_random() -> None:
    url = f"http://127.0.0.1:{unused_port()}/v1"
    game = game_at("odyssey", 4, Phase.CLUE)
    seat = game.awaiting[0]
    agent = LLMAgent(OpenAIChat(url, "none", timeout=2), CARDS, retries=1, name="llm:none")
    with pytest.raises(EndpointFailed, match=r"llm:none: the endpoint failed all 2 attempts of a move; the last: .*"):
        agent.choose(game.view(seat).to_json(), game.legal_actions(seat))
    assert (agent.failures, agent.fallbacks) == (2, 0)
    agent = LLMAgent(OpenAIChat(url, "none", timeout=2), CARDS, retries=1, fallback="random")
    move = agent.choose(game.view(seat).to_json(), game.legal_actions(seat))
    assert isinstance(move, Tell)
    assert move.clue
    assert (agent.failures, agent.fallbacks) == (2, 1)


def test_an_endpoint_that_fails_once_then_answers_is_not_stopped(failing: str) -> None:
    class Flaky:
        def __init__(self) -> None:
            self.calls = 0
            self.down = OpenAIChat(failing, "m", timeout=5)

        def complete(self, messages: Sequence[Message]) -> str:
            self.calls += 1
            return self.down.complete(messages) if self.calls == 1 else '{"card": 1, "clue": "Dawn"}'

    game = game_at("odyssey", 4, Phase.CLUE)
    seat = game.awaiting[0]
    agent = LLMAgent(Flaky(), CARDS)
    move = agent.choose(game.view(seat).to_json(), game.legal_actions(seat))
    assert isinstance(move, Tell)
    assert move.clue == "Dawn"
    assert (agent.failures, agent.fallbacks) == (1, 0)


def test_the_api_key_comes_from_the_environment(standin: StandIn, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FABULA_LLM_API_KEY", "sk-test")
    OpenAIChat(standin.url, "m").complete([{"role": "user", "content": "hi"}])
    monkeypatch.delenv("FABULA_LLM_API_KEY")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    OpenAIChat(standin.url, "m").complete([{"role": "user", "content": "hi"}])
    assert standin.authorizations == ["Bearer sk-test", ""]


# ---------------------------------------------------------------- specs and whole games


def test_openai_specs_split_where_the_url_ends() -> None:
    assert parse_openai_spec("openai:http://127.0.0.1:8080/v1:qwen2.5-0.5b") == (
        "http://127.0.0.1:8080/v1",
        "qwen2.5-0.5b",
    )
    assert parse_openai_spec("openai:http://localhost:11434/v1:llama3:8b") == ("http://localhost:11434/v1", "llama3:8b")
    assert parse_openai_spec("openai:http://[::1]:8000:m") == ("http://[::1]:8000", "m")
    assert parse_openai_spec("openai:http://127.0.0.1:8000/v1:meta-llama/Llama-3.1-8B") == (
        "http://127.0.0.1:8000/v1",
        "meta-llama/Llama-3.1-8B",
    )
    for wrong in ("openai:http://localhost:8080", "openai:localhost:m", "openai:http://h/v1"):
        with pytest.raises(AgentSpecError):
            parse_openai_spec(wrong)
    # a URL without a model: not the URL http://127.0.0.1 and the model "18080/v1"
    for wrong in ("openai:http://127.0.0.1:18080/v1", "openai:http://127.0.0.1:18080/", "openai:http://h:8080/v1/"):
        with pytest.raises(AgentSpecError, match=r"names no model: expected openai:URL:MODEL, e\.g\. openai:http"):
            parse_openai_spec(wrong)
    for wrong in ("nomodule", "no.such.module:X", "fabula.bots.base:Nothing", "fabula.bots.base:BOT_LEVELS"):
        with pytest.raises(AgentSpecError):
            agent_from_spec(wrong)


@pytest.mark.parametrize(
    ("mode", "seats"), [("odyssey", 3), ("odyssey", 8), ("classic", 4), ("party", 6), ("teams", 6)]
)
def test_whole_games_with_language_models_at_some_seats(mode: str, seats: int) -> None:
    out = io.StringIO()
    with StandIn() as server:  # the naive responder: a random numbered line, in the JSON asked for
        name, factory = agent_from_spec(f"openai:{server.url}:stand-in", transcript=Transcript(out))
        rounds: list[dict[str, Any]] = []
        # run_arena checks every move is legal (IllegalBotMove otherwise)
        report = run_arena(mode, seats, 1, ["random", name], seed=2, agents={name: factory}, record=rounds.append)
    assert report.levels[name].seats == seats // 2
    assert report.rounds == len(rounds)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert lines
    assert not [line for line in lines if "fallback" in line or line.get("error")]
    assert len(lines) == len(server.requests), "every raw reply logged"
    assert "winners" in rounds[-1]


class Recorder:
    """A player of one's own that asks for every piece of its seat's context."""

    made: ClassVar[list[tuple[int, int, str, int]]] = []

    def __init__(self, game: int, seat: int, rng: random.Random, cards: dict[str, Any], language: str) -> None:
        Recorder.made.append((game, seat, language, len(cards)))
        self.rng = rng

    def choose(self, view: dict[str, Any], legal: Sequence[Action]) -> Action:  # noqa: ARG002 - plays blind
        move = legal[self.rng.randrange(len(legal))]
        return move.with_clue("Dream") if isinstance(move, Tell | BlindClue) else move


def test_a_class_of_ones_own_is_given_the_context_it_asks_for() -> None:
    Recorder.made.clear()
    name, factory = agent_from_spec(f"{__name__}:Recorder")
    assert name == "Recorder"
    run_arena("odyssey", 4, 2, [name], seed=1, agents={name: factory}, language="zh-Hant")
    assert sorted(Recorder.made) == [(game, seat, "zh-Hant", 84) for game in (1, 2) for seat in range(4)]


def in_words(messages: list[Message], rng: random.Random) -> str:
    """The naive stand-in's choice said in prose, as a chatty model would."""
    data = json.loads(naive_reply(messages, rng))
    if "card" in data and "clue" in data:
        return f'I will tell with card {data["card"]}. Clue: "{data["clue"]}"'
    if "clue" in data:
        return data["clue"]  # type: ignore[no-any-return]
    if "cards" in data:
        return "I play " + " and ".join(f"card {n}" for n in data["cards"]) + "."
    if "vote" in data:
        return f"Hmm. I vote for {data['vote']}, it fits best."
    if "red" in data:
        return f"The red token goes on slot {data['red']}."
    return f"Card {data['card']}, I think."


@pytest.mark.parametrize(("mode", "seats"), [("odyssey", 3), ("odyssey", 8), ("party", 6), ("teams", 6)])
def test_whole_games_with_a_model_that_answers_in_words(mode: str, seats: int) -> None:
    rng = random.Random(4)
    with StandIn(lambda messages: in_words(messages, rng)) as server:
        name, factory = agent_from_spec(f"openai:{server.url}:chatty", retries=0)
        made: list[LLMAgent] = []

        def keep(context: SeatContext) -> Bot:
            agent = factory(context)
            assert isinstance(agent, LLMAgent)
            made.append(agent)
            return agent

        run_arena(mode, seats, 1, ["random", name], seed=3, agents={name: keep})
    assert sum(agent.moves for agent in made) > 0
    assert sum(agent.fallbacks for agent in made) == 0, "every answer in words read on the first try"


# ---------------------------------------------------------------- the arena's command fails loudly

ARENA = ["arena", "--players", "4", "--games", "2", "--bots", "random", "--json"]


def test_an_agent_without_a_model_is_refused_with_status_2_and_the_form_expected(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main([*ARENA, "--agent", f"openai:http://127.0.0.1:{unused_port()}/v1"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "names no model: expected openai:URL:MODEL, e.g. openai:http://127.0.0.1:8080/v1:my-model" in err


@pytest.mark.parametrize("down", ["nothing-listens", "http-500"])
def test_an_endpoint_that_fails_every_request_ends_the_run_unless_fallback_random(
    down: str, failing: str, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"http://127.0.0.1:{unused_port()}/v1" if down == "nothing-listens" else failing
    agent = ["--agent", f"openai:{url}:m", "--timeout", "5"]
    assert main([*ARENA, *agent]) == ENDPOINT_FAILED == 3
    out, err = capsys.readouterr()
    assert out == "", "no figures for a run that was stopped"
    assert "error: llm:m: the endpoint failed all 3 attempts of a move" in err
    assert ("HTTP 500" in err) == (down == "http-500")
    assert "--fallback random" in err
    # asked for, the old way: random moves, counted, and said aloud
    assert main([*ARENA, *agent, "--fallback", "random"]) == 0
    out, err = capsys.readouterr()
    counts = json.loads(out)["agents"]["llm:m"]
    assert counts["fallbacks"] == counts["moves"] > 0
    assert counts["failures"] == 3 * counts["moves"]
    assert f"warning: llm:m: its endpoint failed {counts['failures']} times" in err


def test_the_language_model_settings_reach_every_request(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    given: list[dict[str, Any]] = []
    clients: list[OpenAIChat] = []
    real = fabula.research.agents.agent_from_spec

    def spying(spec: str, **settings: Any) -> Any:
        given.append(settings)
        name, factory = real(spec, **settings)

        def make(context: SeatContext) -> Bot:
            agent = factory(context)
            assert isinstance(agent, LLMAgent)
            assert isinstance(agent.client, OpenAIChat)
            clients.append(agent.client)
            return agent

        return name, make

    monkeypatch.setattr(fabula.research.agents, "agent_from_spec", spying)
    settings = ["--temperature", "0.3", "--max-tokens", "64", "--seed", "5", "--timeout", "7", "--concurrency", "2"]
    with StandIn() as server:
        assert main([*ARENA, "--agent", f"openai:{server.url}:m", *settings]) == 0
    capsys.readouterr()
    assert {key: given[0][key] for key in ("temperature", "max_tokens", "seed", "timeout", "concurrency")} == {
        "temperature": 0.3,
        "max_tokens": 64,
        "seed": 5,
        "timeout": 7.0,
        "concurrency": 2,
    }
    assert given[0]["fallback"] == "stop"
    assert {(c.timeout, c.concurrency) for c in clients} == {(7.0, 2)}
    assert server.requests
    for body in server.requests:
        assert (body["temperature"], body["max_tokens"], body["seed"], body["model"]) == (0.3, 64, 5, "m")


@pytest.mark.parametrize(
    ("argv", "reason"),
    [
        (["--temperature", "0.5"], "--temperature: for a language model, and no --agent openai:URL:MODEL is seated"),
        (["--concurrency", "0"], "--concurrency must be at least 1"),
        (["--agent", "openai:http://127.0.0.1:1/v1:m", "--timeout", "0"], "--timeout must be more than 0"),
        (["--agent", "openai:http://127.0.0.1:1/v1:m", "--max-tokens", "0"], "--max-tokens must be at least 1"),
        (["--agent", "openai:http://127.0.0.1:1/v1:m", "--temperature", "-1"], "--temperature cannot be negative"),
    ],
)
def test_settings_out_of_range_or_for_no_model_exit_2(
    argv: list[str], reason: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*ARENA, *argv]) == 2
    assert reason in capsys.readouterr().err


def figures(out: str) -> dict[str, Any]:
    """An arena's --json figures, less the time it took."""
    found: dict[str, Any] = json.loads(out)
    del found["seconds"]
    return found


def test_the_stand_in_is_seeded_so_a_run_reproduces_its_figures_exactly(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["arena", "--players", "4", "--games", "3", "--bots", "random", "--json"]
    with StandIn() as server:
        agent = ["--agent", f"openai:{server.url}:stand-in"]
        assert main([*argv, *agent, "--seed", "1"]) == 0
        first = figures(capsys.readouterr().out)
        # the same server, having answered a run already, and several games at a time
        assert main([*argv, *agent, "--seed", "1", "--concurrency", "3"]) == 0
        assert figures(capsys.readouterr().out) == first
        assert main([*argv, *agent, "--seed", "2"]) == 0
        assert figures(capsys.readouterr().out) != first
    with StandIn() as fresh:
        assert main([*argv, "--agent", f"openai:{fresh.url}:stand-in", "--seed", "1"]) == 0
        assert figures(capsys.readouterr().out) == first


def test_games_played_at_once_give_the_figures_and_the_log_of_games_played_one_by_one() -> None:
    with StandIn() as server:
        name, factory = agent_from_spec(f"openai:{server.url}:stand-in", seed=3, concurrency=4)
        runs = []
        for concurrency in (1, 4):
            rounds: list[dict[str, Any]] = []
            report = run_arena(
                "odyssey",
                5,
                6,
                ["random", name],
                seed=3,
                agents={name: factory},
                record=rounds.append,
                concurrency=concurrency,
            ).to_json()
            del report["seconds"]
            runs.append((report, rounds))
    assert runs[0] == runs[1]
    games = [line["game"] for line in runs[1][1]]
    assert games == sorted(games)
    assert set(games) == set(range(1, 7))
