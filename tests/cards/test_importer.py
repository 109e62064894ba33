"""Custom decks from a host's pictures: what is kept, what is skipped and why, and that a failed
import leaves nothing behind. Every picture is drawn here with Pillow; no binary fixtures.
"""

from __future__ import annotations

import io
import json
import random
import struct
import zipfile
import zlib
from pathlib import Path
from typing import Any

import msgspec
import pytest
from PIL import ExifTags, Image, ImageCms, ImageDraw, ImageStat

from fabula.cards import importer
from fabula.cards.importer import (
    DUPLICATE_DISTANCE,
    PICTURE_SIZE,
    ImportFailed,
    ImportLimits,
    ImportReport,
    import_deck,
)
from fabula.cards.library import DeckFile, DeckLibrary
from fabula.rules import Game, InvalidSetup, Ruleset

#: Low limits, so that a test can cross them with small files.
LIMITS = ImportLimits(max_bytes=400_000, max_pixels=1_000_000)

# ---------------------------------------------------------------- drawing fixtures


def picture(
    seed: int, size: tuple[int, int] = (320, 480), background: tuple[int, int, int] | None = None, shapes: int = 12
) -> Image.Image:
    """A picture of random rectangles and ellipses: every seed gives a picture of its own shape
    (not just colour), so that perceptual hashes tell them apart."""
    rng = random.Random(seed)
    fill = background or (rng.randrange(256), rng.randrange(256), rng.randrange(256))
    image = Image.new("RGB", size, fill)
    draw = ImageDraw.Draw(image)
    width, height = size
    for _ in range(shapes):
        x, y = rng.randrange(width), rng.randrange(height)
        box = (x, y, x + rng.randrange(width // 8, width // 2), y + rng.randrange(height // 8, height // 2))
        colour = (rng.randrange(256), rng.randrange(256), rng.randrange(256))
        (draw.ellipse if rng.random() < 0.5 else draw.rectangle)(box, fill=colour)
    return image


def encoded(image: Image.Image, format: str, **options: Any) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format, **options)
    return buffer.getvalue()


def png_header(width: int, height: int) -> bytes:
    """A PNG that only declares its size: enough for a decoder to decide whether to go on."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(b"\x00" * 64))
        + chunk(b"IEND", b"")
    )


def sideways_jpeg() -> bytes:
    """A landscape JPEG that EXIF says to turn a quarter clockwise: red on the left (the top once
    upright), blue on the right; with a camera make, a GPS position, an ICC profile and XMP."""
    image = Image.new("RGB", (480, 320), (0, 0, 230))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, 239, 319), fill=(230, 0, 0))
    draw.ellipse((300, 100, 420, 220), fill=(250, 250, 250))
    exif = Image.Exif()
    exif[ExifTags.Base.Orientation] = 6
    exif[ExifTags.Base.Make] = "SpyCam"
    gps = exif.get_ifd(ExifTags.IFD.GPSInfo)
    gps[ExifTags.GPS.GPSLatitudeRef] = "N"
    gps[ExifTags.GPS.GPSLatitude] = (52.0, 22.0, 12.0)
    icc = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    return encoded(image, "JPEG", quality=92, exif=exif, icc_profile=icc, xmp=b"<x:xmpmeta>home</x:xmpmeta>")


def transparent_png() -> bytes:
    """Shapes with the top-left quarter fully transparent."""
    image = picture(1).convert("RGBA")
    image.paste((0, 0, 0, 0), (0, 0, 160, 240))
    return encoded(image, "PNG")


def animated_gif() -> bytes:
    """Two frames: shapes on red, then shapes on green."""
    first = picture(4, background=(220, 0, 0), shapes=4)
    second = picture(5, background=(0, 220, 0), shapes=4)
    buffer = io.BytesIO()
    first.save(buffer, "GIF", save_all=True, append_images=[second], duration=100, loop=0)
    return buffer.getvalue()


def noise_png(size: tuple[int, int]) -> bytes:
    """Random pixels: a PNG that cannot be compressed, so many bytes for few pixels."""
    return encoded(Image.frombytes("RGB", size, random.Random(0).randbytes(size[0] * size[1] * 3)), "PNG")


#: The fixture folder: file name → content, or None for a symbolic link (made by `make_folder`).
def fixture_files() -> dict[str, bytes | None]:
    webp = picture(3)
    good_jpeg = encoded(picture(2), "JPEG", quality=90)
    return {
        "a.png": transparent_png(),
        "b-rotated.jpg": sideways_jpeg(),
        "broken.jpg": good_jpeg[: len(good_jpeg) // 2],
        "c.webp": encoded(webp, "WEBP", quality=90),
        "d-animated.gif": animated_gif(),
        "f.bmp": encoded(picture(6, size=(100, 150)), "BMP"),
        "heavy.png": noise_png((420, 420)),
        "huge.png": encoded(picture(7, size=(1200, 1000)), "PNG"),
        "link.png": None,
        "more/e.png": encoded(picture(8), "PNG"),
        "notes.jpg": b"Shopping list: eggs, flour, a new deck of cards.\n",
        "zz-copy.jpg": encoded(webp.resize((160, 240)), "JPEG", quality=70),
        ".hidden.png": encoded(picture(9), "PNG"),
    }


#: What the fixture folder gives: the pictures kept, in order…
ACCEPTED = ["a.png", "b-rotated.jpg", "c.webp", "d-animated.gif", "more/e.png"]
#: …and why each other file is skipped (the start of its reason).
SKIPPED = {
    ".hidden.png": "hidden file",
    "broken.jpg": "damaged or truncated image",
    "f.bmp": "unsupported image format (BMP",
    "heavy.png": "too large: ",
    "huge.png": "too many pixels: 1,200 × 1,000 (limit 1,000,000)",
    "link.png": "symbolic link",
    "notes.jpg": "not an image",
    "zz-copy.jpg": "same picture as c.webp",
}


def make_folder(root: Path, files: dict[str, bytes | None]) -> Path:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if content is None:
            path.symlink_to(root / "a.png")
        else:
            path.write_bytes(content)
    return root


def reasons(report: ImportReport | ImportFailed) -> dict[str, str]:
    """The skipped lines as {file: reason}."""
    found: dict[str, str] = {}
    for line in report.skipped:
        assert line.startswith("skipped "), line
        name, _, reason = line.removeprefix("skipped ").partition(": ")
        assert name not in found, f"{name} reported twice"
        found[name] = reason
    return found


def assert_reasons(found: dict[str, str], expected: dict[str, str]) -> None:
    assert sorted(found) == sorted(expected)
    for name, start in expected.items():
        assert found[name].startswith(start), (name, found[name])


def leftovers(data: Path) -> list[str]:
    """Everything under ``data``, as relative paths."""
    return sorted(str(path.relative_to(data)) for path in data.rglob("*")) if data.exists() else []


def webp_chunks(data: bytes) -> list[bytes]:
    """The chunk names of a WebP (RIFF) file."""
    assert data[:4] == b"RIFF"
    assert data[8:12] == b"WEBP"
    chunks, offset = [], 12
    while offset < len(data):
        kind, size = data[offset : offset + 4], struct.unpack("<I", data[offset + 4 : offset + 8])[0]
        chunks.append(kind)
        offset += 8 + size + size % 2
    return chunks


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> tuple[ImportReport, Path]:
    """The fixture folder imported once as "Fixture deck": (report, data folder)."""
    root = tmp_path_factory.mktemp("import")
    source = make_folder(root / "source", fixture_files())
    data = root / "data"
    return import_deck(source, "Fixture deck", data, limits=LIMITS), data


# ---------------------------------------------------------------- the fixture folder


def test_the_good_pictures_are_kept_in_sorted_order(imported: tuple[ImportReport, Path]) -> None:
    report, data = imported
    stored = msgspec.json.decode((data / "decks/fixture-deck/deck.json").read_bytes(), type=DeckFile)
    assert [card.source for card in stored.cards] == ACCEPTED
    assert [card.id for card in report.deck.cards] == [f"fixture-deck-{n:03d}" for n in range(1, 6)]
    assert [card.file for card in stored.cards] == [f"{n:03d}.webp" for n in range(1, 6)]
    assert report.deck.name == stored.name == "fixture-deck"
    assert report.deck.title == stored.title == "Fixture deck"
    assert not report.deck.builtin
    assert report.folder == data / "decks" / "fixture-deck"
    assert report.warnings == ()
    assert sorted(path.name for path in report.folder.iterdir()) == [*(card.file for card in stored.cards), "deck.json"]
    assert all(len(card.phash) == 16 for card in stored.cards)
    assert all(card.description == "" and card.tags == () for card in report.deck.cards)


def test_every_other_file_is_skipped_once_with_its_reason(imported: tuple[ImportReport, Path]) -> None:
    report, _ = imported
    assert_reasons(reasons(report), SKIPPED)
    assert "skipped notes.jpg: not an image" in report.skipped
    assert "skipped zz-copy.jpg: same picture as c.webp" in report.skipped
    assert "(limit 400,000)" in reasons(report)["heavy.png"]


def test_pictures_are_webp_2_by_3_at_one_size_without_metadata(imported: tuple[ImportReport, Path]) -> None:
    report, _ = imported
    assert PICTURE_SIZE == (600, 900)
    for path in sorted(report.folder.glob("*.webp")):
        data = path.read_bytes()
        assert webp_chunks(data) in ([b"VP8 "], [b"VP8L"]), "a chunk besides the picture: metadata"
        assert b"SpyCam" not in data
        assert b"xmpmeta" not in data
        with Image.open(path) as image:
            assert image.format == "WEBP"
            assert image.size == PICTURE_SIZE
            assert image.mode == "RGB"
            assert not image.getexif()
            assert {"exif", "icc_profile", "xmp"}.isdisjoint(image.info)


def card_image(report: ImportReport, number: int) -> Image.Image:
    with Image.open(report.folder / f"{number:03d}.webp") as image:
        return image.convert("RGB")


def test_exif_orientation_is_applied(imported: tuple[ImportReport, Path]) -> None:
    upright = card_image(imported[0], 2)  # b-rotated.jpg: red was on the left, so it is on top
    top = ImageStat.Stat(upright.crop((0, 0, 600, 300))).mean
    bottom = ImageStat.Stat(upright.crop((0, 600, 600, 900))).mean
    assert top[0] > 180 > top[2]
    assert bottom[2] > 180 > bottom[0]


def test_transparency_is_laid_on_neutral_grey(imported: tuple[ImportReport, Path]) -> None:
    corner = card_image(imported[0], 1).crop((20, 20, 200, 300))  # a.png: top-left quarter transparent
    mean = ImageStat.Stat(corner).mean
    assert all(abs(channel - 128) < 4 for channel in mean)


def test_an_animated_gif_gives_its_first_frame(imported: tuple[ImportReport, Path]) -> None:
    red, green, _ = ImageStat.Stat(card_image(imported[0], 4)).mean  # d-animated.gif: red, then green
    assert red > green + 60


def test_a_cropped_picture_keeps_its_centre(tmp_path: Path) -> None:
    wide = Image.new("RGB", (900, 300), (0, 0, 0))
    ImageDraw.Draw(wide).rectangle((400, 0, 499, 299), fill=(255, 255, 255))  # a white band in the middle
    ImageDraw.Draw(wide).ellipse((100, 50, 300, 250), fill=(200, 30, 30))
    make_folder(tmp_path / "wide", {"wide.png": encoded(wide, "PNG")})
    report = import_deck(tmp_path / "wide", "Wide", tmp_path / "data")
    card = card_image(report, 1)
    assert card.size == PICTURE_SIZE
    # 2:3 of a 300-high picture is 200 wide: columns 350–549, the band in its middle half.
    assert ImageStat.Stat(card.crop((200, 0, 400, 900))).mean[0] > 240
    assert ImageStat.Stat(card.crop((0, 0, 100, 900))).mean[0] < 15
    red, green, _ = ImageStat.Stat(card).mean
    assert abs(red - green) < 3, "the red disc on the left was cropped away"


# ---------------------------------------------------------------- limits and damaged input


def test_declared_size_is_checked_before_decoding(tmp_path: Path) -> None:
    files: dict[str, bytes | None] = {
        "big.png": png_header(10_000, 6_000),  # over the default 50 million pixels
        "bomb.png": png_header(30_000, 30_000),  # over twice Pillow's own limit: it refuses to open
        "ok.png": encoded(picture(1), "PNG"),
    }
    report = import_deck(make_folder(tmp_path / "src", files), "Bombs", tmp_path / "data")
    assert_reasons(
        reasons(report),
        {"big.png": "too many pixels: 10,000 × 6,000 (limit 50,000,000)", "bomb.png": "too many pixels"},
    )
    assert [card.id for card in report.deck.cards] == ["bombs-001"]


def test_the_duplicate_threshold_holds_copies_and_parts_pictures() -> None:
    def bits(data: bytes) -> int:
        import imagehash

        return int(str(imagehash.phash(importer._card_picture(data, ImportLimits()))), 16)

    for seed in range(8):
        original = bits(encoded(picture(seed), "PNG"))
        copy = bits(encoded(picture(seed).resize((160, 240)), "JPEG", quality=60))
        other = bits(encoded(picture(seed + 100), "PNG"))
        assert (original ^ copy).bit_count() <= DUPLICATE_DISTANCE
        assert (original ^ other).bit_count() > 2 * DUPLICATE_DISTANCE


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"", "not an image"),
        (b"BMW service notes", "not an image"),
        (b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00", "unsupported image format (HEIC"),
        (b'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"/>', "unsupported image format (SVG"),
        (b"\x89PNG\r\n\x1a\nnot really", "damaged or truncated image"),
        (b"\xff\xd8\xff\xe0 and then nothing", "damaged or truncated image"),
    ],
)
def test_what_is_not_a_usable_image_is_named(tmp_path: Path, content: bytes, reason: str) -> None:
    files: dict[str, bytes | None] = {"good.png": encoded(picture(1), "PNG"), "odd.jpg": content}
    report = import_deck(make_folder(tmp_path / "src", files), "Odd", tmp_path / "data")
    assert_reasons(reasons(report), {"odd.jpg": reason})


def test_limits_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_files"):
        ImportLimits(max_files=0)


# ---------------------------------------------------------------- zip files


def make_zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in members.items():
            archive.writestr(zipfile.ZipInfo(name), content, zipfile.ZIP_DEFLATED)
    return path


#: What a deck of three pictures holds.
STORED_FILES = ("001.webp", "002.webp", "003.webp", "deck.json")


def test_a_zip_is_read_in_memory_and_unsafe_names_are_refused(tmp_path: Path) -> None:
    png = encoded(picture(1), "PNG")
    archive = make_zip(
        tmp_path / "deck.zip",
        {
            "pics/": b"",
            "pics/one.png": png,
            "pics/two.webp": encoded(picture(2), "WEBP"),
            "./pics/three.png": encoded(picture(7), "PNG"),
            "../evil.png": encoded(picture(3), "PNG"),
            "pics/../../evil2.png": encoded(picture(4), "PNG"),
            "/etc/evil3.png": encoded(picture(5), "PNG"),
            "C:/Windows/evil4.png": encoded(picture(6), "PNG"),
            "__MACOSX/pics/._one.png": b"\x00\x05\x16\x07",
            "pics/readme.txt": b"hello",
        },
    )
    data = tmp_path / "data"
    report = import_deck(archive, "Zipped", data)
    stored = msgspec.json.decode((report.folder / "deck.json").read_bytes(), type=DeckFile)
    assert [card.source for card in stored.cards] == ["./pics/three.png", "pics/one.png", "pics/two.webp"]
    assert_reasons(
        reasons(report),
        {
            "../evil.png": "unsafe path in archive",
            "pics/../../evil2.png": "unsafe path in archive",
            "/etc/evil3.png": "unsafe path in archive",
            "C:/Windows/evil4.png": "unsafe path in archive",
            "__MACOSX/pics/._one.png": "hidden file",
            "pics/readme.txt": "not an image",
        },
    )
    assert not list(tmp_path.rglob("evil*")), "nothing is ever extracted"
    assert leftovers(data) == ["decks", "decks/zipped", *(f"decks/zipped/{name}" for name in STORED_FILES)]


def test_a_zip_with_too_many_files_is_refused_unread(tmp_path: Path) -> None:
    members = {f"{n}.png": encoded(picture(n, size=(30, 45)), "PNG") for n in range(4)}
    archive = make_zip(tmp_path / "many.zip", members)
    with pytest.raises(ImportFailed, match="more than 3 files"):
        import_deck(archive, "Many", tmp_path / "data", limits=ImportLimits(max_files=3))
    assert not (tmp_path / "data").exists()


def test_a_zip_bomb_is_refused_before_reading(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    archive = make_zip(tmp_path / "bomb.zip", {"a.png": b"\x00" * 3_000_000, "b.png": b"\x00" * 3_000_000})
    assert archive.stat().st_size < 20_000
    opened: list[str] = []
    real_open = zipfile.ZipFile.open

    def spy(self: zipfile.ZipFile, name: Any, *args: Any, **kwargs: Any) -> Any:
        opened.append(getattr(name, "filename", name))
        return real_open(self, name, *args, **kwargs)

    monkeypatch.setattr(zipfile.ZipFile, "open", spy)
    with pytest.raises(ImportFailed, match="6,000,000 bytes; the limit is 5,000,000"):
        import_deck(archive, "Bomb", tmp_path / "data", limits=ImportLimits(max_total_bytes=5_000_000))
    assert opened == []
    # Each member over the per-file limit: both skipped unread, so no picture is left.
    with pytest.raises(ImportFailed, match="No picture") as failed:
        import_deck(archive, "Bomb", tmp_path / "data", limits=ImportLimits(max_bytes=1_000_000))
    assert_reasons(reasons(failed.value), {"a.png": "too large: 3,000,000 bytes", "b.png": "too large"})
    assert opened == []
    assert not (tmp_path / "data").exists()


def test_a_file_that_is_not_a_zip_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "photo.png"
    path.write_bytes(encoded(picture(1), "PNG"))
    with pytest.raises(ImportFailed, match=r"neither a folder nor a readable \.zip"):
        import_deck(path, "Single", tmp_path / "data")
    with pytest.raises(ImportFailed, match="does not exist"):
        import_deck(tmp_path / "nowhere", "Nowhere", tmp_path / "data")
    assert not (tmp_path / "data").exists()


# ---------------------------------------------------------------- captions


def small_folder(root: Path, count: int = 3) -> Path:
    """``count`` pictures: 1.png … and one more in a sub-folder."""
    files: dict[str, bytes | None] = {f"{n}.png": encoded(picture(n, size=(60, 90)), "PNG") for n in range(1, count)}
    files[f"sub/{count}.jpg"] = encoded(picture(count, size=(60, 90)), "JPEG")
    return make_folder(root, files)


def descriptions(report: ImportReport) -> list[str]:
    return [card.description for card in report.deck.cards]


@pytest.mark.parametrize(
    "text",
    [
        'file,description\n1.png,A red door.\n3.jpg,"A cat, asleep."\nghost.png,Nobody.\n',
        '1.png,A red door.\n3.jpg,A cat, asleep.\n\nghost.png,"Nobody."\n',  # no header; a bare comma
        "\ufefffile,description\r\n1.png,A red   door.\r\nsub/3.jpg,A cat, asleep.\r\nghost.png,Nobody.\r\n",
    ],
)
def test_captions_from_csv(tmp_path: Path, text: str) -> None:
    (tmp_path / "captions.csv").write_text(text, encoding="utf-8", newline="")
    report = import_deck(small_folder(tmp_path / "src"), "Csv", tmp_path / "data", captions=tmp_path / "captions.csv")
    assert descriptions(report) == ["A red door.", "", "A cat, asleep."]
    assert report.warnings == ('The caption for "ghost.png" matched no imported picture.',)
    assert not report.deck.described


def test_captions_from_json(tmp_path: Path) -> None:
    captions = {"1.png": "A red door.", "2.png": "A kite.\nOn a string.", "3.jpg": "A cat asleep."}
    (tmp_path / "captions.json").write_text(json.dumps(captions), encoding="utf-8")
    report = import_deck(small_folder(tmp_path / "src"), "Json", tmp_path / "data", captions=tmp_path / "captions.json")
    assert descriptions(report) == ["A red door.", "A kite. On a string.", "A cat asleep."]
    assert report.warnings == ()
    assert report.deck.described
    library = DeckLibrary(tmp_path / "data")
    assert library.deck("json") == report.deck


@pytest.mark.parametrize(
    ("name", "text", "error"),
    [
        ("captions.json", '[["1.png", "A door."]]', "must be one JSON object"),
        ("captions.json", '{"1.png": 3}', "must be one JSON object"),
        ("captions.json", '{"1.png": "A door.", "1.png": "A gate."}', "has a caption already"),
        ("captions.json", "{", "not JSON"),
        ("captions.csv", "1.png,A door.\njust-a-name.png\n", "line 2: expected file,description"),
        ("captions.csv", "1.png,A door.\nsub/1.png,Again.\n", "has a caption already"),
        ("captions.csv", f"1.png,{'very ' * 200}long\n", "the limit is 500"),
        ("captions.txt", "1.png,A door.\n", "must be a .csv or a .json file"),
    ],
)
def test_bad_captions_are_refused_before_anything_is_read(tmp_path: Path, name: str, text: str, error: str) -> None:
    (tmp_path / name).write_text(text, encoding="utf-8")
    with pytest.raises(ImportFailed, match=error):
        import_deck(small_folder(tmp_path / "src"), "Bad", tmp_path / "data", captions=tmp_path / name)
    assert not (tmp_path / "data").exists()


def test_captions_that_are_not_utf8_are_refused(tmp_path: Path) -> None:
    (tmp_path / "captions.csv").write_bytes("1.png,Une porte très rouge.\n".encode("latin-1"))
    with pytest.raises(ImportFailed, match="not UTF-8"):
        import_deck(small_folder(tmp_path / "src"), "Latin", tmp_path / "data", captions=tmp_path / "captions.csv")


def test_a_folder_s_own_captions_csv_is_read_when_none_is_given(tmp_path: Path) -> None:
    folder = small_folder(tmp_path / "src")
    (folder / "captions.csv").write_text("file,description\n1.png,A red door.\n3.jpg,A cat.\n", encoding="utf-8")
    report = import_deck(folder, "Own", tmp_path / "data")
    assert descriptions(report) == ["A red door.", "", "A cat."]
    assert report.skipped == (), "the captions file is not a skipped picture"


@pytest.mark.parametrize("top", ["", "Holiday/"])
def test_a_zip_s_own_captions_csv_is_read_at_its_root_or_its_one_folder(tmp_path: Path, top: str) -> None:
    members = {f"{top}{n}.png": encoded(picture(n, size=(60, 90)), "PNG") for n in (1, 2)}
    members[f"{top}captions.csv"] = b"file,description\r\n2.png,A kite.\r\n"
    members["__MACOSX/._1.png"] = b"resource fork"
    report = import_deck(make_zip(tmp_path / "src.zip", members), "Zipped", tmp_path / "data")
    assert descriptions(report) == ["", "A kite."]
    assert all("captions" not in line for line in report.skipped)


def test_a_captions_csv_deeper_down_is_not_the_source_s_own(tmp_path: Path) -> None:
    folder = small_folder(tmp_path / "src")
    (folder / "other").mkdir()
    (folder / "other" / "captions.csv").write_text("1.png,A red door.\n", encoding="utf-8")
    report = import_deck(folder, "Deep", tmp_path / "data")
    assert descriptions(report) == ["", "", ""]
    assert report.skipped == ("skipped other/captions.csv: not an image",), "as before: not a picture"


def test_given_captions_win_over_the_source_s_own(tmp_path: Path) -> None:
    folder = small_folder(tmp_path / "src")
    (folder / "captions.csv").write_text("1.png,Inside.\n", encoding="utf-8")
    (tmp_path / "given.csv").write_text("1.png,Given.\n", encoding="utf-8")
    report = import_deck(folder, "Given", tmp_path / "data", captions=tmp_path / "given.csv")
    assert descriptions(report) == ["Given.", "", ""]
    assert report.skipped == ("skipped captions.csv: not read: the captions file given is used instead",)


def test_a_bad_own_captions_csv_fails_the_import_and_leaves_nothing(tmp_path: Path) -> None:
    folder = small_folder(tmp_path / "src")
    (folder / "captions.csv").write_text("1.png,A door.\njust-a-name.png\n", encoding="utf-8")
    with pytest.raises(ImportFailed, match=r"captions\.csv line 2: expected file,description"):
        import_deck(folder, "Bad", tmp_path / "data")
    assert not (tmp_path / "data").exists()


# ---------------------------------------------------------------- names


@pytest.mark.parametrize(
    ("name", "error"),
    [
        ("fabula", "belongs to the built-in deck"),
        ("  FABULA! ", "belongs to the built-in deck"),
        ("", "no letter a–z or digit"),
        ("假期", "no letter a–z or digit"),
        ("x" * 41, "too long"),
        ("Holiday\x1b[31m", "control characters"),
    ],
)
def test_unusable_names_are_refused(tmp_path: Path, name: str, error: str) -> None:
    with pytest.raises(ImportFailed, match=error):
        import_deck(small_folder(tmp_path / "src"), name, tmp_path / "data")
    assert not (tmp_path / "data").exists()


def test_a_name_gives_a_slug_and_keeps_its_title(tmp_path: Path) -> None:
    report = import_deck(small_folder(tmp_path / "src"), "  Été 2024 —\tCrète ", tmp_path / "data")
    assert report.deck.name == "ete-2024-crete"
    assert report.deck.title == "Été 2024 — Crète"
    assert report.deck.cards[0].id == "ete-2024-crete-001"
    assert report.deck.cards[0].title == "Été 2024 — Crète 1"


def test_an_existing_deck_is_never_replaced(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = import_deck(small_folder(tmp_path / "src"), "Holiday", data)
    before = {path.name: path.read_bytes() for path in first.folder.iterdir()}
    with pytest.raises(ImportFailed, match='A deck named "holiday" exists already'):
        import_deck(small_folder(tmp_path / "other", 4), "HOLIDAY", data)
    assert {path.name: path.read_bytes() for path in first.folder.iterdir()} == before
    assert leftovers(data / "decks") == sorted(["holiday", *(f"holiday/{name}" for name in before)])


# ---------------------------------------------------------------- nothing left behind


def test_a_failure_halfway_undoes_everything(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = tmp_path / "data"
    import_deck(small_folder(tmp_path / "first"), "First", data)
    before = leftovers(data)
    real_webp, calls = importer._webp, []

    def failing(image: Image.Image) -> bytes:
        calls.append(1)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        return real_webp(image)

    monkeypatch.setattr(importer, "_webp", failing)
    with pytest.raises(ImportFailed, match=r"stopped and was undone: .*No space left on device"):
        import_deck(small_folder(tmp_path / "src"), "Second", data)
    assert len(calls) == 2
    assert leftovers(data) == before, "no .import- folder, no half deck"


def test_an_interruption_undoes_everything(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(image: Image.Image) -> bytes:
        raise KeyboardInterrupt

    monkeypatch.setattr(importer, "_webp", interrupted)
    with pytest.raises(KeyboardInterrupt):
        import_deck(small_folder(tmp_path / "src"), "Stopped", tmp_path / "data")
    assert not (tmp_path / "data").exists()


def test_no_usable_picture_fails_and_says_why(tmp_path: Path) -> None:
    files: dict[str, bytes | None] = {"notes.jpg": b"not a picture", ".DS_Store": b"\x00\x00\x00\x01Bud1"}
    data = tmp_path / "data"
    (data / "decks").mkdir(parents=True)
    with pytest.raises(ImportFailed, match="No picture could be imported") as failed:
        import_deck(make_folder(tmp_path / "src", files), "Empty", data)
    assert failed.value.skipped == ("skipped .DS_Store: hidden file", "skipped notes.jpg: not an image")
    assert leftovers(data) == ["decks"], "a decks folder made by someone else stays"


# ---------------------------------------------------------------- into a game


def test_a_small_imported_deck_cannot_start_a_game(tmp_path: Path) -> None:
    report = import_deck(small_folder(tmp_path / "src", 5), "Tiny", tmp_path / "data")
    cards = DeckLibrary(tmp_path / "data").cards(["tiny"])
    assert len(cards) == 5
    needed = Ruleset.create("odyssey", 6, None).cards_needed
    with pytest.raises(InvalidSetup) as refused:
        Game.new("odyssey", 6, deck=[card.id for card in cards])
    assert refused.value.code == "deck_too_small"
    assert f"the deck has 5: {needed - 5} missing" in refused.value.message
    assert report.deck.cards == cards
