"""The `fabula` command: argument parsing only; the work is in `fabula.commands` and below."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from tqdm import tqdm

from fabula.bots.base import BOT_LANGUAGES, BOT_LEVELS
from fabula.rules import MODES, RulesError


def _score(args: argparse.Namespace) -> int:
    from fabula.commands.score import run

    if args.file in (None, "-"):
        text = sys.stdin.buffer.read()
    else:
        try:
            with open(args.file, "rb") as handle:
                text = handle.read()
        except OSError as error:
            print(f"error: cannot read {args.file}: {error.strerror}", file=sys.stderr)
            return 2
    status, line = run(text)
    print(line, file=sys.stderr if status else sys.stdout)
    return status


def _simulate(args: argparse.Namespace) -> int:
    from fabula.simulation import simulate

    options = _games_and_options(args)
    if options is None:
        return 2
    # disable=None: a bar only when stderr is a terminal.
    with tqdm(total=args.games, unit="game", disable=None, leave=False) as bar:
        try:
            stats = simulate(args.mode, args.players, args.games, seed=args.seed, options=options, progress=bar.update)
        except RulesError as error:
            bar.close()
            print(f"error: {error.code}: {error.message}", file=sys.stderr)
            return 2
    if args.json:
        print(json.dumps(stats.to_json()))
        return 0
    who = "team" if args.mode == "teams" else "player"
    print(
        f"{stats.games:,} random {stats.mode} games, {stats.players} players, "
        f"in {stats.seconds:.2f} s ({stats.games_per_second:,.0f} games/s)"
    )
    for label, value in [
        ("rounds per game", f"{stats.rounds_mean:.2f}"),
        ("storyteller scored", f"{stats.storyteller_scored_rate:.1%} of rounds"),
        (f"final score per {who}", f"{stats.score_mean:.2f} on average"),
        ("winning score", f"{stats.winning_score_mean:.2f} on average"),
        ("winners per game", f"{stats.winners_mean:.3f} (shared victory in {stats.tie_rate:.1%} of games)"),
    ]:
        print(f"  {label:<22} {value}")
    return 0


def _deck_import(args: argparse.Namespace) -> int:
    from fabula.commands.deck import run_import

    return run_import(args.path, args.name, args.captions, args.data).emit()


def _deck_list(args: argparse.Namespace) -> int:
    from fabula.commands.deck import run_list

    return run_list(args.data).emit()


def _deck_sheet(args: argparse.Namespace) -> int:
    from fabula.commands.deck import run_sheet

    if args.columns < 1 or args.width < 20:
        print("error: --columns must be at least 1 and --width at least 20", file=sys.stderr)
        return 2
    return run_sheet(args.out, args.deck, args.data, args.columns, args.width).emit()


def _add_deck_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`fabula deck import | list | sheet`: one sub-command each."""
    deck = commands.add_parser("deck", help="import, list and look at picture decks")
    actions = deck.add_subparsers(dest="deck_command", required=True, metavar="DECK_COMMAND")
    data_help = "the data folder (default: $FABULA_DATA, else ./data)"

    importing = actions.add_parser("import", help="import a folder or .zip of pictures as a new deck")
    importing.add_argument("path", help="a folder of pictures (sub-folders included) or a .zip file")
    importing.add_argument("--name", required=True, help='the new deck\'s name, e.g. "Holiday 2024"')
    importing.add_argument(
        "--captions",
        metavar="FILE",
        help="descriptions: CSV (file,description) or a JSON object {file: description} "
        "(default: the source's own captions.csv, if it has one)",
    )
    importing.add_argument("--data", metavar="DIR", help=data_help)
    importing.set_defaults(run=_deck_import)

    listing = actions.add_parser("list", help="list every deck with its card count")
    listing.add_argument("--data", metavar="DIR", help=data_help)
    listing.set_defaults(run=_deck_list)

    sheet = actions.add_parser("sheet", help="render every card of a deck on one PNG contact sheet")
    sheet.add_argument("--out", required=True, metavar="FILE.png", help="where to write the sheet")
    sheet.add_argument("--deck", default="fabula", help="which deck (default: fabula, the original deck)")
    sheet.add_argument("--columns", type=int, default=12, help="cards per row (default 12)")
    sheet.add_argument("--width", type=int, default=160, help="width of one card in pixels (default 160)")
    sheet.add_argument("--data", metavar="DIR", help=data_help)
    sheet.set_defaults(run=_deck_sheet)


def _arena(args: argparse.Namespace) -> int:
    from fabula.commands.arena import run

    options = _games_and_options(args)
    if options is None:
        return 2
    bots = [level.strip() for level in args.bots.split(",") if level.strip()]
    return run(
        args.mode,
        args.players,
        args.games,
        bots,
        seed=args.seed,
        options=options,
        language=args.language,
        as_json=args.json,
        agents=args.agent,
        log=args.log,
        trajectories=args.trajectories,
        transcript=args.transcript,
        retries=args.retries,
        fallback=args.fallback,
        temperature=args.temperature,
        max_tokens=args.max_tokens,
        timeout=args.timeout,
        concurrency=args.concurrency,
    )


def _games_and_options(args: argparse.Namespace) -> dict[str, object] | None:
    """``--options`` of a command that plays ``--games`` games, or None after printing what is wrong."""
    options = _options(args.options)
    if options is not None and args.games < 1:
        print("error: --games must be at least 1", file=sys.stderr)
        return None
    return options


def _options(text: str | None) -> dict[str, object] | None:
    """``--options`` as a dict, or None after printing why it is not a JSON object."""
    try:
        options = json.loads(text) if text else {}
    except json.JSONDecodeError as error:
        print(f"error: --options is not JSON: {error}", file=sys.stderr)
        return None
    if not isinstance(options, dict):
        print("error: --options must be a JSON object", file=sys.stderr)
        return None
    return options


def _add_arena_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`fabula arena`: bots of several levels against each other."""
    arena = commands.add_parser(
        "arena",
        help="bots of several levels play each other; print how each level did",
        description="Play games between bots and print, per level: win rate (a shared victory counts as 1/k "
        "of a win for each of the k tied winners; 95% Wilson interval), how often it scored as storyteller, "
        "how often its votes found the storyteller's card, the votes its decoys drew per round, and its mean "
        "final score; overall: how often every voter or no voter found the card. Each game has its own seed "
        "(from --seed), uses the original deck, and gives the levels to the seats in a fresh random order.",
    )
    arena.add_argument("--mode", choices=sorted(MODES), default="odyssey")
    arena.add_argument("--players", type=int, default=4)
    arena.add_argument("--games", type=int, default=20)
    arena.add_argument(
        "--bots",
        default="hard,random",
        help="one bot level per seat, comma-separated, cycled when shorter than --players (default: hard,random)",
    )
    arena.add_argument(
        "--seed",
        type=int,
        default=0,
        help="the games' seeds come from it; language-model agents send it with every request (default 0)",
    )
    arena.add_argument("--options", help="options as a JSON object, e.g. '{\"target_score\": 20}'")
    arena.add_argument(
        "--language", choices=BOT_LANGUAGES, default="en", help="the language of every bot's clues (default en)"
    )
    arena.add_argument(
        "--concurrency",
        type=int,
        default=1,
        metavar="N",
        help="games played at a time, so that N requests to a language model's endpoint are in flight "
        "(default 1; the figures are the same at any N)",
    )
    arena.add_argument("--json", action="store_true", help="print one JSON object")
    arena.add_argument(
        "--agent",
        action="append",
        default=[],
        metavar="SPEC",
        help="also seat this player beside the --bots levels (repeatable): module:Class (a Bot of your own; "
        "seated as Class) or openai:URL:MODEL (a language model on an OpenAI-compatible endpoint, e.g. "
        "openai:http://127.0.0.1:8080/v1:my-model; seated as llm:MODEL; API key from FABULA_LLM_API_KEY or "
        "OPENAI_API_KEY if set); --bots '' seats agents alone",
    )
    arena.add_argument("--log", metavar="FILE.jsonl", help="write one JSON line per round (docs/research.md)")
    arena.add_argument(
        "--trajectories",
        metavar="FILE.jsonl",
        help="write one JSON line per move of every seat: its observation, legal action ids, action and reward "
        "as the research env gives them (docs/research.md)",
    )
    _add_llm_arguments(arena)
    arena.set_defaults(run=_arena)


def _add_llm_arguments(arena: argparse.ArgumentParser) -> None:
    """`fabula arena`'s settings of language-model agents."""
    arena.add_argument(
        "--transcript", metavar="FILE.jsonl", help="language-model agents: append every prompt and raw reply here"
    )
    arena.add_argument(
        "--retries",
        type=int,
        default=2,
        help="language-model agents: corrective messages after an unusable reply before a random move (default 2)",
    )
    arena.add_argument(
        "--fallback",
        choices=("stop", "random"),
        default="stop",
        help="language-model agents, when the endpoint fails every attempt of a move (unreachable, HTTP "
        "errors): stop the run with an error and exit status 3 (default), or play a random legal move",
    )
    arena.add_argument(
        "--temperature", type=float, metavar="T", help="language-model agents: the sampling temperature sent"
    )
    arena.add_argument(
        "--max-tokens", type=int, metavar="N", help="language-model agents: the most tokens a reply may take"
    )
    arena.add_argument(
        "--timeout",
        type=float,
        metavar="SECONDS",
        help="language-model agents: how long one request may take (default 120)",
    )


def _ai_eval(args: argparse.Namespace) -> int:
    from fabula.commands.ai import run_eval

    return run_eval(args.rounds, args.cards, args.memory, args.online, args.json)


def _ai_split(args: argparse.Namespace) -> int:
    from fabula.commands.ai import run_split

    return run_split(args.rounds, args.out)


def _ai_export(args: argparse.Namespace) -> int:
    from fabula.commands.ai import run_export

    return run_export(
        args.logs, albums=args.album, data=args.data, out=args.out, cards_out=args.cards_out, party=args.party
    )


def _add_ai_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`fabula ai eval`: the AI players measured against human play; `fabula ai split`: its tuning and
    held-out rounds; `fabula ai export`: data for it."""
    ai = commands.add_parser("ai", help="measure the AI players against rounds of human play; export played rounds")
    actions = ai.add_subparsers(dest="ai_command", required=True, metavar="AI_COMMAND")
    evaluation = actions.add_parser("eval", help="how often the guesser finds the storyteller's card")
    evaluation.add_argument("rounds", metavar="ROUNDS.jsonl", help="rounds, one JSON object a line")
    evaluation.add_argument("--cards", required=True, metavar="CARDS.json", help="the cards: id, description, tags")
    evaluation.add_argument("--memory", metavar="PAST.jsonl", help="earlier rounds (same format) to remember")
    evaluation.add_argument("--online", action="store_true", help="remember each round once it is guessed")
    evaluation.add_argument("--json", action="store_true", help="print one JSON object")
    evaluation.set_defaults(run=_ai_eval)
    split = actions.add_parser(
        "split",
        help="part rounds into those the guesser was tuned on and the held-out others",
        description="Write DIR/tuning.jsonl (the rounds the shipped guesser was tuned on: the first half of the "
        "shared val.jsonl) and DIR/heldout.jsonl (every other round), each line as it was, in file order "
        '(docs/ai.md, "Measured").',
    )
    split.add_argument("rounds", metavar="ROUNDS.jsonl", help="rounds, one JSON object a line")
    split.add_argument("--out", required=True, metavar="DIR", help="the folder to write the two files in")
    split.set_defaults(run=_ai_split)
    export = actions.add_parser(
        "export",
        help="played rounds (arena logs, a server's finished games) as rounds for `fabula ai eval`",
        description="Write one JSON line per round (clue, cards, storyteller_card, vote_share, players, mode, "
        "source) from `fabula arena --log` files, albums saved from GET /api/rooms/{code}/games/{n}, and the "
        "finished games of the rooms in a data folder. Party rounds are left out unless --party.",
    )
    export.add_argument("logs", nargs="*", metavar="LOG.jsonl", help="`fabula arena --log` files")
    export.add_argument("--album", action="append", default=[], metavar="FILE.json", help="a saved album (repeatable)")
    export.add_argument("--data", metavar="DIR", help="a server's data folder: every finished game in rooms.sqlite3")
    export.add_argument("--out", metavar="ROUNDS.jsonl", help="where to write the rounds (default: standard output)")
    export.add_argument("--cards-out", metavar="CARDS.json", help="also write the cards they name (for --cards)")
    export.add_argument("--party", action="store_true", help="include party-mode rounds")
    export.set_defaults(run=_ai_export)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="fabula", description="A digital table for Dixit Odyssey.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    score = commands.add_parser("score", help="score one round given as JSON (RULES.md format)")
    score.add_argument("file", nargs="?", help="the round as JSON (default: standard input)")
    score.set_defaults(run=_score)

    sim = commands.add_parser("simulate", help="play many random games and print statistics")
    sim.add_argument("--mode", choices=sorted(MODES), default="odyssey")
    sim.add_argument("--players", type=int, default=6)
    sim.add_argument("--games", type=int, default=1000)
    sim.add_argument("--seed", type=int, default=0)
    sim.add_argument("--options", help="options as a JSON object, e.g. '{\"target_score\": 20}'")
    sim.add_argument("--json", action="store_true", help="print one JSON object")
    sim.set_defaults(run=_simulate)

    _add_deck_commands(commands)
    _add_ai_commands(commands)
    _add_arena_command(commands)

    from fabula.server.config import add_arguments

    serve = commands.add_parser(
        "serve",
        help="run the multiplayer server (prints the URL to open)",
        description="Run the Fabula server. Every option can also be set by an environment variable "
        "FABULA_<OPTION> (e.g. FABULA_PORT=9000); the command line wins.",
    )
    add_arguments(serve)
    serve.set_defaults(run=_serve)

    bot = commands.add_parser("bot", help="take a seat in a room over the network and play to the end")
    bot.add_argument("--server", required=True, help="the server's URL, e.g. http://127.0.0.1:8000")
    bot.add_argument("--room", required=True, help="the room code")
    bot.add_argument("--name", default=None, help="display name (default: Bot and the colour)")
    bot.add_argument("--colour", default=None, help="rabbit colour (default: the first free one)")
    bot.add_argument("--token", default=None, help="a seat token to take back a seat instead of joining")
    bot.add_argument("--seed", type=int, default=None, help="seed of the bot's random choices")
    bot.add_argument(
        "--level",
        default="normal",
        help="how the bot plays: random plays blind; easy, normal and hard read the clue and the cards' "
        "descriptions; model:NAME plays on the --model-bot named NAME (default: normal)",
    )
    bot.add_argument(
        "--model-bot",
        action="append",
        default=[],
        metavar="NAME=openai:URL:MODEL",
        help="a language model for --level model:NAME, as `fabula serve --model-bot` takes it (its key from "
        "FABULA_MODEL_BOT_KEY_<NAME>, FABULA_LLM_API_KEY or OPENAI_API_KEY)",
    )
    bot.add_argument(
        "--model-bot-vision", action="append", default=[], metavar="NAME", help="a --model-bot that sees pictures"
    )
    bot.add_argument(
        "--model-bot-fallback",
        default="normal",
        choices=BOT_LEVELS,
        help="the level that moves when the model gives no legal move (default normal)",
    )
    bot.add_argument(
        "--model-bot-seconds", type=float, default=20.0, help="how long one request to the model may take (default 20)"
    )
    bot.add_argument(
        "--language", choices=BOT_LANGUAGES, default="en", help="the language of the bot's clues (default en)"
    )
    bot.set_defaults(run=_bot)
    return parser


def _serve(args: argparse.Namespace) -> int:
    from fabula.commands.serve import run
    from fabula.server.config import from_arguments

    try:
        config = from_arguments(args)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return run(config)


def _bot(args: argparse.Namespace) -> int:
    import asyncio

    from fabula.bots.base import is_bot_level
    from fabula.bots.client import BotClientError, play
    from fabula.bots.language.models import AgentSpecError, model_bots

    try:
        models = model_bots(args.model_bot, args.model_bot_vision)
    except AgentSpecError as error:
        print(f"error: --model-bot: {error}", file=sys.stderr)
        return 2
    if not is_bot_level(args.level):
        print(f"error: --level is random, easy, normal, hard or model:NAME; got {args.level!r}", file=sys.stderr)
        return 2
    try:
        result = asyncio.run(
            play(
                args.server,
                args.room,
                name=args.name,
                colour=args.colour,
                token=args.token,
                seed=args.seed,
                level=args.level,
                language=args.language,
                models=models,
                fallback=args.model_bot_fallback,
                model_seconds=args.model_bot_seconds,
            )
        )
    except BotClientError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    print(json.dumps(result))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    status: int = args.run(args)
    return status


if __name__ == "__main__":
    sys.exit(main())
