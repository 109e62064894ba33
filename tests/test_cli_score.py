"""`fabula score`: one round as JSON in (a file or stdin), the points out — as RULES.md specifies.

Expected points are worked by hand from RULES.md.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from fabula.cli import main
from fabula.commands.score import run

#: The input example of RULES.md, verbatim.
EXAMPLE_TEXT = b"""{"mode": "odyssey",
 "seats": ["anna", "ben", "carla", "dora"],
 "storyteller": "anna",
 "played": {"anna": ["k1"], "ben": ["k2"], "carla": ["k3"], "dora": ["k4"]},
 "votes":  {"ben": ["k1"], "carla": ["k1"], "dora": ["k2"]},
 "red": null,
 "teams": null,
 "options": {}}
"""
#: The output RULES.md gives for it.
EXAMPLE_OUTPUT = '{"points": {"anna": 3, "ben": 4, "carla": 3, "dora": 0}}'
EXAMPLE_POINTS = {"anna": 3, "ben": 4, "carla": 3, "dora": 0}


def example(**changes: Any) -> dict[str, Any]:
    """The RULES.md example with some fields replaced."""
    data: dict[str, Any] = json.loads(EXAMPLE_TEXT)
    data.update(changes)
    return data


def encode(data: dict[str, Any] | bytes) -> bytes:
    return data if isinstance(data, bytes) else json.dumps(data).encode()


def score_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], data: dict[str, Any] | bytes
) -> tuple[int, str, str]:
    """Run ``fabula score FILE``: (exit status, stdout, stderr)."""
    path = tmp_path / "round.json"
    path.write_bytes(encode(data))
    status = main(["score", str(path)])
    out, err = capsys.readouterr()
    return status, out, err


def points_of(out: str) -> dict[str, int]:
    """The points on stdout, which is exactly one line of JSON."""
    assert out.endswith("\n")
    assert out.count("\n") == 1
    result = json.loads(out)
    assert set(result) == {"points"}
    points: dict[str, int] = result["points"]
    return points


class FakeStdin:
    """Enough of `sys.stdin` for the command: a binary ``buffer``."""

    def __init__(self, data: bytes) -> None:
        self.buffer = io.BytesIO(data)


# ---------------------------------------------------------------- the RULES.md example


def test_example_from_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = score_file(tmp_path, capsys, EXAMPLE_TEXT)
    assert status == 0
    assert err == ""
    assert points_of(out) == EXAMPLE_POINTS


def test_example_output_text_is_exactly_as_in_rules_md(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = score_file(tmp_path, capsys, EXAMPLE_TEXT)
    assert status == 0
    assert out == EXAMPLE_OUTPUT + "\n"


def test_example_through_run() -> None:
    status, line = run(EXAMPLE_TEXT)
    assert status == 0
    assert "\n" not in line
    assert json.loads(line) == {"points": EXAMPLE_POINTS}


def test_points_are_listed_for_every_seat_in_seat_order() -> None:
    _, line = run(EXAMPLE_TEXT)
    assert list(json.loads(line)["points"]) == ["anna", "ben", "carla", "dora"]


@pytest.mark.parametrize("argv", [["score"], ["score", "-"]])
def test_example_from_stdin(
    argv: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", FakeStdin(EXAMPLE_TEXT))
    status = main(argv)
    out, err = capsys.readouterr()
    assert status == 0
    assert err == ""
    assert points_of(out) == EXAMPLE_POINTS


def test_optional_fields_may_be_left_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = example()
    for name in ("red", "teams", "options"):
        del data[name]
    status, out, _ = score_file(tmp_path, capsys, data)
    assert status == 0
    assert points_of(out) == EXAMPLE_POINTS


def test_card_ids_and_seat_names_are_any_strings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the same round as the example, other names: the storyteller and one voter find it (some
    # but not all: 3 each), the third voter's vote on the finder's card gives it +1
    data = {
        "mode": "odyssey",
        "seats": ["Ана", "李 雷", "o'brien", "7"],
        "storyteller": "Ана",
        "played": {"Ана": ["card one"], "李 雷": ["🂡"], "o'brien": ["{}"], "7": ["42"]},
        "votes": {"李 雷": ["card one"], "o'brien": ["card one"], "7": ["🂡"]},
    }
    status, out, _ = score_file(tmp_path, capsys, data)
    assert status == 0
    assert points_of(out) == {"Ана": 3, "李 雷": 4, "o'brien": 3, "7": 0}


def test_options_are_applied(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # ben the only finder: with lone_finder_bonus anna and ben score 4; ben +2 decoy votes
    votes = {"ben": ["k1"], "carla": ["k2"], "dora": ["k2"]}
    status, out, _ = score_file(tmp_path, capsys, example(votes=votes, options={"lone_finder_bonus": True}))
    assert status == 0
    assert points_of(out) == {"anna": 4, "ben": 6, "carla": 0, "dora": 0}


def test_seven_players_two_tokens(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # 7 players: b finds with one token (3 + 1), c with two (3), one of c's tokens on d's card
    # (+1), e f g on b's card (+3); F = 2 of 6 → storyteller 3
    seats = list("abcdefg")
    data = {
        "mode": "odyssey",
        "seats": seats,
        "storyteller": "a",
        "played": {s: [f"k{s}"] for s in seats},
        "votes": {"b": ["ka"], "c": ["ka", "kd"], "d": ["kc"], "e": ["kb"], "f": ["kb"], "g": ["kb"]},
    }
    status, out, _ = score_file(tmp_path, capsys, data)
    assert status == 0
    assert points_of(out) == {"a": 3, "b": 7, "c": 4, "d": 1, "e": 0, "f": 0, "g": 0}


def test_three_players_two_cards_each(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # ben finds (3) and carla's vote on his second card gives him +1; carla 0; anna 3
    data = {
        "mode": "odyssey",
        "seats": ["anna", "ben", "carla"],
        "storyteller": "anna",
        "played": {"anna": ["k1"], "ben": ["k2", "k3"], "carla": ["k4", "k5"]},
        "votes": {"ben": ["k1"], "carla": ["k3"]},
    }
    status, out, _ = score_file(tmp_path, capsys, data)
    assert status == 0
    assert points_of(out) == {"anna": 3, "ben": 4, "carla": 0}


# ---------------------------------------------------------------- teams and party

TEAMS_ROUND: dict[str, Any] = {
    "mode": "teams",
    "seats": ["a", "b", "c", "d", "e", "f"],
    "storyteller": "a",
    "teams": [["a", "d"], ["b", "e"], ["c", "f"]],
    # the storyteller a and teammate d play; b plays for team 1 (e votes), f for team 2 (c votes)
    "played": {"a": ["k1"], "d": ["k4"], "b": ["k2"], "f": ["k6"]},
    "votes": {"e": ["k1"], "c": ["k2"]},
}


def test_teams_points_by_team_index(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # one of two voters finds: storyteller's team 3; team 1 (e found) 3 + 1 (c's vote on k2);
    # team 2 (c did not) 0
    status, out, _ = score_file(tmp_path, capsys, TEAMS_ROUND)
    assert status == 0
    assert points_of(out) == {"0": 3, "1": 4, "2": 0}


def test_teams_named_by_their_index_in_the_list(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # pairs that are not "opposite" in the seats list; storyteller c (team 1), teammate d.
    # a plays for team 0 (b votes), f for team 2 (e votes). Nobody finds k1: team 1 0 + 1 (b's
    # vote on d's k2), team 0 2 + 1 (e's vote on k3), team 2 2.
    data = {
        "mode": "teams",
        "seats": ["a", "b", "c", "d", "e", "f"],
        "storyteller": "c",
        "teams": [["a", "b"], ["c", "d"], ["e", "f"]],
        "played": {"c": ["k1"], "d": ["k2"], "a": ["k3"], "f": ["k4"]},
        "votes": {"b": ["k2"], "e": ["k3"]},
    }
    status, out, _ = score_file(tmp_path, capsys, data)
    assert status == 0
    assert points_of(out) == {"0": 3, "1": 1, "2": 2}


def test_teams_vote_own_card_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # e votes for its teammate b's card: refused by default, allowed with the option;
    # then c is the only finder → team 0 3, team 2 3, team 1 0 + 1
    data = dict(TEAMS_ROUND, votes={"e": ["k2"], "c": ["k1"]})
    status, _, err = score_file(tmp_path, capsys, data)
    assert status == 2
    assert err.startswith("error: ")
    status, out, _ = score_file(tmp_path, capsys, dict(data, options={"team_vote_own_card": True}))
    assert status == 0
    assert points_of(out) == {"0": 3, "1": 1, "2": 3}


PARTY_ROUND: dict[str, Any] = {
    "mode": "party",
    "seats": ["a", "b", "c", "d", "e", "f"],
    "storyteller": "a",
    "played": {s: [f"k{s}"] for s in "abcdef"},
    # kb: 3 green votes (b's own included); kd: 1; kf: 2 but red
    "votes": {"a": ["kb"], "b": ["kb"], "c": ["kb"], "d": ["kd"], "e": ["kf"], "f": ["kf"]},
    "red": "kf",
}


def test_party_with_red(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # voters score: kb's voters 3 (the storyteller a too), d alone 0, kf's voters 0 (red)
    status, out, _ = score_file(tmp_path, capsys, PARTY_ROUND)
    assert status == 0
    assert points_of(out) == {"a": 3, "b": 3, "c": 3, "d": 0, "e": 0, "f": 0}


def test_party_owner_basis(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # owners score: b owns kb (3 votes) → 3; kd single → 0; kf red → 0
    status, out, _ = score_file(tmp_path, capsys, dict(PARTY_ROUND, options={"party_score_basis": "owner"}))
    assert status == 0
    assert points_of(out) == {"a": 0, "b": 3, "c": 0, "d": 0, "e": 0, "f": 0}


def test_party_red_on_own_card(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # by default the red token may go on the storyteller's own card (ka, no votes: nothing changes
    # but kf now scores: e and f 2 each)
    status, out, _ = score_file(tmp_path, capsys, dict(PARTY_ROUND, red="ka"))
    assert status == 0
    assert points_of(out) == {"a": 3, "b": 3, "c": 3, "d": 0, "e": 2, "f": 2}
    # party_red_target = not_own_card forbids it
    status, _, err = score_file(
        tmp_path, capsys, dict(PARTY_ROUND, red="ka", options={"party_red_target": "not_own_card"})
    )
    assert status == 2
    assert err.startswith("error: ")


# ---------------------------------------------------------------- rule-breaking input

BAD_INPUTS = [
    # a vote on one's own card
    pytest.param(example(votes={"ben": ["k1"], "carla": ["k1"], "dora": ["k4"]}), "own_card", id="own-card"),
    # a storyteller who votes in odyssey
    pytest.param(
        example(votes={"anna": ["k2"], "ben": ["k1"], "carla": ["k1"], "dora": ["k2"]}),
        "storyteller",
        id="storyteller-votes",
    ),
    # two tokens with fewer than 7 players
    pytest.param(
        example(votes={"ben": ["k1", "k3"], "carla": ["k1"], "dora": ["k2"]}), "token", id="two-tokens-4-players"
    ),
    # an unknown card
    pytest.param(example(votes={"ben": ["k1"], "carla": ["k1"], "dora": ["k9"]}), "unknown_card", id="unknown-card"),
    # a wrong number of played cards: two cards in a 4-player game, none, one in a 3-player game
    pytest.param(
        example(played={"anna": ["k1"], "ben": ["k2"], "carla": ["k3"], "dora": ["k4", "k5"]}),
        "card_count",
        id="two-cards-4-players",
    ),
    pytest.param(
        example(played={"anna": ["k1"], "ben": ["k2"], "carla": ["k3"]}, votes={"ben": ["k1"], "carla": ["k1"]}),
        "card_count",
        id="missing-card",
    ),
    pytest.param(
        example(
            seats=["anna", "ben", "carla"],
            played={"anna": ["k1"], "ben": ["k2"], "carla": ["k3"]},
            votes={"ben": ["k1"], "carla": ["k2"]},
        ),
        "card_count",
        id="one-card-3-players",
    ),
    # malformed JSON
    pytest.param(b'{"mode": "odyssey",', "malformed", id="truncated-json"),
    pytest.param(b"", "malformed", id="empty-input"),
    pytest.param(b"not json at all", "malformed", id="not-json"),
    pytest.param(b"[1, 2, 3]", "malformed", id="not-an-object"),
    # a wrong type
    pytest.param(example(seats="anna ben carla dora"), "malformed", id="seats-not-a-list"),
    pytest.param(example(votes={"ben": "k1", "carla": ["k1"], "dora": ["k2"]}), "malformed", id="vote-not-a-list"),
    pytest.param(example(mode=1), "malformed", id="mode-not-a-string"),
    pytest.param(example(unknown_field=1), "malformed", id="unknown-field"),
    # an unknown option, an ill-typed option, an option for another mode
    pytest.param(example(options={"house_rule": True}), "option", id="unknown-option"),
    pytest.param(example(options={"decoy_cap": "three"}), "option", id="bad-option-value"),
    pytest.param(example(options={"party_score_basis": "owner"}), "option", id="option-for-another-mode"),
    # teams with 7 seats
    pytest.param(
        {
            "mode": "teams",
            "seats": list("abcdefg"),
            "storyteller": "a",
            "teams": [["a", "d"], ["b", "e"], ["c", "f"], ["g", "g"]],
            "played": {"a": ["k1"], "d": ["k4"], "b": ["k2"], "f": ["k6"]},
            "votes": {"e": ["k1"], "c": ["k2"]},
        },
        "seat",
        id="teams-7-seats",
    ),
    # missing teams list in teams mode
    pytest.param(dict(TEAMS_ROUND, teams=None), "teams", id="teams-missing"),
    pytest.param({k: v for k, v in TEAMS_ROUND.items() if k != "teams"}, "teams", id="teams-absent"),
    # teams that do not pair every seat
    pytest.param(dict(TEAMS_ROUND, teams=[["a", "d"], ["b", "e"], ["c", "c"]]), "teams", id="teams-bad-pairs"),
    # an unknown mode, an unknown seat, a red token outside party, party without red
    pytest.param(example(mode="poker"), "mode", id="unknown-mode"),
    pytest.param(example(storyteller="zoe"), "seat", id="unknown-storyteller"),
    pytest.param(example(red="k2"), "red", id="red-in-odyssey"),
    pytest.param(dict(PARTY_ROUND, red=None), "red", id="party-without-red"),
    # a voter who did not vote
    pytest.param(example(votes={"ben": ["k1"], "carla": ["k1"]}), "vote", id="missing-vote"),
]


def check_error(status: int, out: str, err: str, names: str) -> None:
    """Exit 2, nothing on stdout, exactly one line on stderr, starting 'error: ' and naming the rule."""
    assert status == 2
    assert out == ""
    assert err.endswith("\n")
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ")
    assert names in lines[0]


@pytest.mark.parametrize(("data", "names"), BAD_INPUTS)
def test_rule_breaking_input_from_a_file(
    data: dict[str, Any] | bytes, names: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = score_file(tmp_path, capsys, data)
    check_error(status, out, err, names)


@pytest.mark.parametrize(("data", "names"), BAD_INPUTS)
def test_rule_breaking_input_from_stdin(
    data: dict[str, Any] | bytes, names: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", FakeStdin(encode(data)))
    status = main(["score"])
    out, err = capsys.readouterr()
    check_error(status, out, err, names)


@pytest.mark.parametrize(("data", "names"), BAD_INPUTS)
def test_rule_breaking_input_through_run(data: dict[str, Any] | bytes, names: str) -> None:
    status, line = run(encode(data))
    assert status == 2
    assert "\n" not in line
    assert line.startswith("error: ")
    assert names in line


def test_error_is_one_line_even_with_a_newline_in_a_seat_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name = "anna\nlee"
    data = {
        "mode": "odyssey",
        "seats": [name, "ben", "carla", "dora"],
        "storyteller": name,
        "played": {name: ["k1"], "ben": ["k2"], "carla": ["k3"], "dora": ["k4"]},
        "votes": {name: ["k2"], "ben": ["k1"], "carla": ["k1"], "dora": ["k2"]},
    }
    status, out, err = score_file(tmp_path, capsys, data)
    check_error(status, out, err, "storyteller")


def test_unreadable_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["score", str(tmp_path / "missing.json")])
    out, err = capsys.readouterr()
    check_error(status, out, err, "missing.json")
