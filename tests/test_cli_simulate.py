"""`fabula simulate`: random games, and figures that agree with what the rules predict."""

from __future__ import annotations

import json

import pytest

from fabula.cli import main
from fabula.simulation import simulate

KEYS = {"games", "games_per_second", "rounds_mean", "storyteller_scored_rate", "winners_mean", "score_mean"}


def test_json_output_has_the_agreed_keys(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--mode", "odyssey", "--players", "5", "--games", "30", "--seed", "4", "--json"]) == 0
    out, err = capsys.readouterr()
    figures = json.loads(out)
    assert set(figures) >= KEYS
    assert figures["games"] == 30
    assert figures["games_per_second"] > 0
    assert 1 <= figures["winners_mean"] <= 5
    assert err == "", "no progress bar when the output is not a terminal"


def test_text_output_names_every_figure(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--mode", "teams", "--players", "6", "--games", "20"]) == 0
    out = capsys.readouterr().out
    for words in ("games/s", "rounds per game", "storyteller scored", "final score per team", "winners per game"):
        assert words in out


def test_same_seed_same_figures() -> None:
    one = simulate("party", 7, 40, seed=9).to_json()
    two = simulate("party", 7, 40, seed=9).to_json()
    for changing in ("seconds", "games_per_second"):
        one.pop(changing), two.pop(changing)
    assert one == two


def test_random_odyssey_storytellers_score_as_often_as_the_rules_predict() -> None:
    # Six players voting at random among the five cards not their own: each finds the card with
    # probability 1/5, and the storyteller scores unless none or all five do.
    predicted = 1 - 0.8**5 - 0.2**5
    stats = simulate("odyssey", 6, 400, seed=1)
    assert abs(stats.storyteller_scored_rate - predicted) < 0.02


def test_party_and_teams_last_one_round_per_seat() -> None:
    assert simulate("party", 9, 10, seed=2).rounds_mean == 9
    assert simulate("teams", 10, 10, seed=2, options={"storyteller_cycles": 2}).rounds_mean == 20


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--mode", "teams", "--players", "7"], "6, 8, 10 or 12 players"),
        (["--options", "[1]"], "JSON object"),
        (["--options", "{nope"], "not JSON"),
        (["--options", '{"decoy_cap": -1}'], "decoy_cap"),
        (["--games", "0"], "at least 1"),
    ],
)
def test_bad_arguments_exit_2_with_a_reason(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--games", "3", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1
