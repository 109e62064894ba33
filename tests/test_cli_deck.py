"""`fabula deck import` and `fabula deck list`: what they print, where they store, how they fail."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from fabula.cards.importer import RESERVED_NAMES
from fabula.cli import main
from fabula.commands.deck import builtin_decks
from tests.cards.test_importer import encoded, make_folder, picture


def source(root: Path, count: int = 3, junk: bool = True) -> Path:
    files: dict[str, bytes | None] = {f"{n}.png": encoded(picture(n, size=(60, 90)), "PNG") for n in range(count)}
    if junk:
        files["notes.jpg"] = b"not a picture"
    return make_folder(root, files)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture(autouse=True)
def no_data_folder_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FABULA_DATA", raising=False)


def test_import_prints_skipped_files_and_a_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(
        capsys, "deck", "import", str(source(tmp_path / "src")), "--name", "Holiday", "--data", str(tmp_path / "data")
    )
    assert (status, err) == (0, "")
    assert out.splitlines() == ["skipped notes.jpg: not an image", 'imported 3 pictures into deck "holiday"']
    assert (tmp_path / "data" / "decks" / "holiday" / "003.webp").is_file()


def test_import_with_captions_warns_about_unmatched_ones(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "captions.csv").write_text("0.png,A door.\nmissing.png,Nothing.\n")
    status, out, _ = run(
        capsys,
        "deck",
        "import",
        str(source(tmp_path / "src", 1, junk=False)),
        "--name",
        "One",
        "--captions",
        str(tmp_path / "captions.csv"),
        "--data",
        str(tmp_path / "data"),
    )
    assert status == 0
    assert out.splitlines() == [
        'warning: The caption for "missing.png" matched no imported picture.',
        'imported 1 picture into deck "one"',
    ]


def test_a_failed_import_exits_2_with_the_reasons(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    make_folder(tmp_path / "src", {"notes.jpg": b"not a picture"})
    status, out, err = run(
        capsys, "deck", "import", str(tmp_path / "src"), "--name", "Holiday", "--data", str(tmp_path / "data")
    )
    assert status == 2
    assert out == "skipped notes.jpg: not an image\n"
    assert err.startswith("error: No picture could be imported from ")
    assert err.count("\n") == 1
    assert not (tmp_path / "data").exists()


def test_a_reserved_name_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(
        capsys, "deck", "import", str(source(tmp_path / "src")), "--name", "fabula", "--data", str(tmp_path / "data")
    )
    assert (status, out) == (2, "")
    assert err == 'error: The name "fabula" belongs to the built-in deck; choose another name.\n'


def test_the_data_folder_comes_from_the_environment_then_defaults_to_data(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FABULA_DATA", str(tmp_path / "env"))
    assert run(capsys, "deck", "import", str(source(tmp_path / "a")), "--name", "A")[0] == 0
    assert (tmp_path / "env" / "decks" / "a" / "deck.json").is_file()
    monkeypatch.delenv("FABULA_DATA")
    monkeypatch.chdir(tmp_path)
    assert run(capsys, "deck", "import", str(source(tmp_path / "b")), "--name", "B")[0] == 0
    assert (tmp_path / "data" / "decks" / "b" / "deck.json").is_file()


def test_list_counts_cards_and_descriptions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = str(tmp_path / "data")
    (tmp_path / "half.json").write_text('{"0.png": "A door.", "1.png": "A kite."}')
    (tmp_path / "all.json").write_text('{"0.png": "A door."}')
    run(capsys, "deck", "import", str(source(tmp_path / "s1", 4)), "--name", "Holiday 2024", "--data", data)
    run(
        capsys,
        "deck",
        "import",
        str(source(tmp_path / "s2", 4)),
        "--name",
        "Half",
        "--data",
        data,
        "--captions",
        str(tmp_path / "half.json"),
    )
    run(
        capsys,
        "deck",
        "import",
        str(source(tmp_path / "s3", 1)),
        "--name",
        "All",
        "--data",
        data,
        "--captions",
        str(tmp_path / "all.json"),
    )
    status, out, err = run(capsys, "deck", "list", "--data", data)
    assert (status, err) == (0, "")
    assert out.splitlines() == [
        "fabula        84 cards  all described     built-in  Fabula",
        "all            1 card   all described     imported  All",
        "half           4 cards  2 of 4 described  imported  Half",
        "holiday-2024   4 cards  no descriptions   imported  Holiday 2024",
    ]


def test_list_with_no_imported_deck_shows_the_original_deck(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "deck", "list", "--data", str(tmp_path / "nothing"))
    assert status == 0
    assert out.splitlines() == ["fabula  84 cards  all described  built-in  Fabula"]
    assert not (tmp_path / "nothing").exists(), "listing creates nothing"


def test_sheet_shows_every_card_of_a_deck(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "deck", "sheet", "--out", str(tmp_path / "fabula.png"), "--width", "40")
    assert status == 0
    assert out == f'wrote 84 cards of deck "fabula" to {tmp_path / "fabula.png"}\n'
    with Image.open(tmp_path / "fabula.png") as sheet:
        # 12 columns of 40 px with 6 px gaps; 7 rows of 60 px, a 16 px label and a gap
        assert sheet.size == (12 * 46 + 6, 7 * 82 + 6)
    data = str(tmp_path / "data")
    run(capsys, "deck", "import", str(source(tmp_path / "src")), "--name", "Attic", "--data", data)
    status, out, _ = run(capsys, "deck", "sheet", "--deck", "attic", "--out", str(tmp_path / "a.png"), "--data", data)
    assert status == 0
    assert 'wrote 3 cards of deck "attic"' in out


def test_sheet_of_an_unknown_deck_fails_and_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "deck", "sheet", "--deck", "nope", "--out", str(tmp_path / "x.png"))
    assert (status, out) == (2, "")
    assert err.startswith("error: ")
    assert not (tmp_path / "x.png").exists()


def test_list_names_a_damaged_deck(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "decks" / "attic").mkdir(parents=True)
    (tmp_path / "decks" / "attic" / "deck.json").write_text("{")
    status, out, err = run(capsys, "deck", "list", "--data", str(tmp_path))
    assert (status, out) == (2, "")
    assert err.startswith("error: ")
    assert "attic/deck.json cannot be read" in err


def test_deck_needs_a_subcommand_and_import_a_name(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["deck"])
    assert exited.value.code == 2
    with pytest.raises(SystemExit):
        main(["deck", "import", "somewhere"])
    assert "--name" in capsys.readouterr().err


def test_the_real_original_deck_is_listed_under_the_reserved_name() -> None:
    (deck,) = builtin_decks()
    assert deck.builtin
    assert deck.name in RESERVED_NAMES
