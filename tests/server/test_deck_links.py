"""A room's pictures taken elsewhere: the deck's zip (pictures and captions.csv) and its round trip
through an upload and `fabula deck import`; the deck's secret link, copying a linked deck into
another room, and how long a link works."""

from __future__ import annotations

import asyncio
import io
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import imagehash
import pytest
from PIL import Image

from fabula.cards.captions import read_captions
from fabula.cards.importer import DUPLICATE_DISTANCE, import_deck
from fabula.cards.intake import ImportLimits

from .harness import LiveServer, create_room, join_room, live_server
from .test_pictures import bearer, listing, png, upload, zipped

pytestmark = pytest.mark.anyio


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    with live_server(tmp_path / "data", max_deck_pictures=8, uploads_per_minute=50) as live:
        yield live


async def caption(server: LiveServer, code: str, token: str, card: str, text: str) -> None:
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        answer = await http.put(
            f"/api/rooms/{code}/pictures/{card}/caption", headers=bearer(token), json={"caption": text}
        )
    assert answer.status_code == 200, answer.text


async def download(server: LiveServer, code: str, token: str) -> httpx.Response:
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        return await http.get(f"/api/rooms/{code}/pictures.zip", headers=bearer(token))


async def make_link(server: LiveServer, code: str, token: str) -> httpx.Response:
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        return await http.post(f"/api/rooms/{code}/pictures/link", headers=bearer(token))


async def from_link(server: LiveServer, code: str, token: str, body: Any) -> httpx.Response:
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        return await http.post(f"/api/rooms/{code}/pictures/from-link", headers=bearer(token), json=body)


async def served(server: LiveServer, card: str) -> bytes:
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        answer = await http.get(f"/cards/{card}.webp")
    assert answer.status_code == 200
    return answer.content


def phash(webp: bytes) -> int:
    with Image.open(io.BytesIO(webp)) as image:
        return int(str(imagehash.phash(image)), 16)


async def captioned_room(server: LiveServer, seeds: tuple[int, ...] = (1, 2, 3)) -> tuple[dict[str, Any], list[str]]:
    """A room with pictures of ``seeds``; the first and the last captioned."""
    host = await create_room(server.url)
    results = (await upload(server, host["code"], host["token"], [(f"{n}.png", png(n)) for n in seeds])).json()
    cards = [r["card"] for r in results]
    await caption(server, host["code"], host["token"], cards[0], "A red door")
    await caption(server, host["code"], host["token"], cards[-1], 'A cat, "asleep"')
    return host, cards


def members(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {info.filename: archive.read(info) for info in archive.infolist()}


# ---------------------------------------------------------------------- who may


async def test_who_may_download_link_and_copy(server: LiveServer) -> None:
    host, _ = await captioned_room(server)
    code = host["code"]
    guest = (await join_room(server.url, code, "Guest", "blue")).json()
    other = await create_room(server.url, name="Elsewhere")
    link = (await make_link(server, code, host["token"])).json()["link"]
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:

        async def each(headers: dict[str, str]) -> list[tuple[int, str]]:
            base = f"/api/rooms/{code}/pictures"
            answers = [
                await http.get(base + ".zip", headers=headers),
                await http.post(base + "/link", headers=headers),
                await http.post(base + "/from-link", headers=headers, json={"link": link}),
                await http.delete(base + "/link", headers=headers),
            ]
            return [(a.status_code, a.json()["error"]["code"] if a.status_code >= 400 else "") for a in answers]

        nobody = await each({})
        stranger = await each(bearer("not-a-token"))
        elsewhere = await each(bearer(other["token"]))
        member = await each(bearer(guest["token"]))
        unknown_room = await http.get("/api/rooms/ZZZZZ/pictures.zip", headers=bearer(host["token"]))
    assert nobody == [(401, "no_token")] * 4
    assert stranger == [(403, "not_a_member")] * 4
    assert elsewhere == [(403, "not_a_member")] * 4, "another room's host is nobody here"
    assert member == [(200, "")] + [(403, "host_only")] * 3, "a member downloads; only the host links and copies"
    assert (unknown_room.status_code, unknown_room.json()["error"]["code"]) == (404, "no_room")
    assert (await make_link(server, code, host["token"])).json()["link"] == link, "not revoked by anybody"


# ---------------------------------------------------------------------- the zip


async def test_the_zip_holds_the_deck_s_pictures_in_order_and_a_captions_csv(
    server: LiveServer, tmp_path: Path
) -> None:
    host, cards = await captioned_room(server, (1, 2, 3, 4))
    code, token = host["code"], host["token"]
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        await http.delete(f"/api/rooms/{code}/pictures/{cards[1]}", headers=bearer(token))
    answer = await download(server, code, token)
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"] == "application/zip"
    assert answer.headers["content-disposition"] == f'attachment; filename="fabula-{code}-pictures.zip"'
    assert "no-store" in answer.headers["cache-control"]
    assert int(answer.headers["content-length"]) == len(answer.content)
    files = members(answer.content)
    assert list(files) == ["001.webp", "002.webp", "003.webp", "captions.csv"], "numbered by place: no gap"
    for name, card in zip(["001.webp", "002.webp", "003.webp"], [cards[0], cards[2], cards[3]], strict=True):
        assert files[name] == await served(server, card), "the stored bytes, as served"
    (tmp_path / "captions.csv").write_bytes(files["captions.csv"])
    assert read_captions(tmp_path / "captions.csv", ImportLimits()) == {
        "001.webp": "A red door",
        "002.webp": "",
        "003.webp": 'A cat, "asleep"',
    }


async def test_an_empty_deck_downloads_as_a_zip_of_no_pictures(server: LiveServer) -> None:
    host = await create_room(server.url)
    answer = await download(server, host["code"], host["token"])
    assert answer.status_code == 200
    assert members(answer.content) == {"captions.csv": b"file,description\r\n"}


async def test_the_zip_uploaded_into_another_room_gives_the_same_pictures_and_captions(server: LiveServer) -> None:
    host, _ = await captioned_room(server)
    original = await listing(server, host["code"], host["token"])
    archive = (await download(server, host["code"], host["token"])).content
    other = await create_room(server.url, name="Other")
    results = (await upload(server, other["code"], other["token"], [("deck.zip", archive)])).json()
    assert [(r["name"], r["status"]) for r in results] == [
        ("deck.zip/captions.csv", "captions"),
        ("deck.zip/001.webp", "taken"),
        ("deck.zip/002.webp", "taken"),
        ("deck.zip/003.webp", "taken"),
    ]
    assert results[0]["captions"] == 3, "the captions file is no skipped picture: it says what it holds"
    copy = await listing(server, other["code"], other["token"])
    assert [p["caption"] for p in copy["pictures"]] == [p["caption"] for p in original["pictures"]]
    assert [p["caption"] for p in copy["pictures"]] == ["A red door", "", 'A cat, "asleep"']
    for mine, theirs in zip(original["pictures"], copy["pictures"], strict=True):
        distance = phash(await served(server, mine["card"])) ^ phash(await served(server, theirs["card"]))
        assert distance.bit_count() <= DUPLICATE_DISTANCE, "the same picture (re-encoded once more)"
    again = (await upload(server, host["code"], host["token"], [("deck.zip", archive)])).json()
    assert [r["status"] for r in again] == ["captions"] + ["skipped"] * 3, "into its own room: copies, all of them"
    assert all("same picture" in r["reason"] for r in again[1:])


async def test_the_zip_imports_with_fabula_deck_import_with_its_captions(server: LiveServer, tmp_path: Path) -> None:
    host, _ = await captioned_room(server)
    zipped_deck = tmp_path / "downloaded.zip"
    zipped_deck.write_bytes((await download(server, host["code"], host["token"])).content)
    report = import_deck(zipped_deck, "From the room", tmp_path / "library")
    assert [card.description for card in report.deck.cards] == ["A red door", "", 'A cat, "asleep"']
    assert report.skipped == ()
    assert report.warnings == ()


async def test_a_zip_s_captions_csv_at_its_one_folder_captions_its_pictures(server: LiveServer) -> None:
    host = await create_room(server.url)
    archive = zipped(
        {
            "Holiday/captions.csv": b"file,description\nbeach.png,The beach\n",
            "Holiday/beach.png": png(11),
            "Holiday/more/hill.png": png(12),
        }
    )
    results = (await upload(server, host["code"], host["token"], [("h.zip", archive)])).json()
    assert [(r["name"], r["status"]) for r in results] == [
        ("h.zip/Holiday/captions.csv", "captions"),
        ("h.zip/Holiday/beach.png", "taken"),
        ("h.zip/Holiday/more/hill.png", "taken"),
    ]
    assert [p["caption"] for p in (await listing(server, host["code"], host["token"]))["pictures"]] == ["The beach", ""]


async def test_a_bad_captions_csv_is_skipped_and_its_pictures_taken_uncaptioned(server: LiveServer) -> None:
    host = await create_room(server.url)
    archive = zipped({"captions.csv": b"a.png,fine\njust-a-name\n", "a.png": png(13)})
    results = (await upload(server, host["code"], host["token"], [("bad.zip", archive)])).json()
    assert [(r["name"], r["status"]) for r in results] == [
        ("bad.zip/captions.csv", "skipped"),
        ("bad.zip/a.png", "taken"),
    ]
    assert "line 2: expected file,description" in results[0]["reason"]
    assert [p["caption"] for p in (await listing(server, host["code"], host["token"]))["pictures"]] == [""]


# ---------------------------------------------------------------------- the link


async def test_a_link_is_made_once_and_copies_the_deck_into_another_room(server: LiveServer) -> None:
    host, cards = await captioned_room(server)
    first = await make_link(server, host["code"], host["token"])
    assert first.status_code == 200, first.text
    link = first.json()["link"]
    assert len(link) >= 32, "192 random bits"
    assert first.json()["url"] == f"/#deck-link={link}", "in the fragment: never sent to a server, never logged"
    assert (await make_link(server, host["code"], host["token"])).json() == first.json(), "the same link again"
    friend = await create_room(server.url, name="Friend")
    copied = await from_link(server, friend["code"], friend["token"], {"link": link})
    assert copied.status_code == 201, copied.text
    results = copied.json()
    assert [(r["name"], r["status"]) for r in results] == [("1.png", "taken"), ("2.png", "taken"), ("3.png", "taken")]
    deck = await listing(server, friend["code"], friend["token"])
    assert [p["card"] for p in deck["pictures"]] == [r["card"] for r in results]
    assert [p["caption"] for p in deck["pictures"]] == ["A red door", "", 'A cat, "asleep"']
    assert deck["deck"] != (await listing(server, host["code"], host["token"]))["deck"], "a deck of its own"
    for mine, theirs in zip(cards, results, strict=True):
        assert await served(server, mine) == await served(server, theirs["card"]), "the very bytes, not re-encoded"
    twice = (await from_link(server, friend["code"], friend["token"], {"link": first.json()["url"]})).json()
    assert [r["status"] for r in twice] == ["skipped"] * 3, "the url works as the link; copies are skipped"
    assert all(r["reason"] == "same picture as a picture already in the deck" for r in twice)
    assert [r["twin"]["card"] for r in twice] == [r["card"] for r in results], "each names the picture it copies"


async def test_a_copy_stops_at_the_deck_s_limit(server: LiveServer) -> None:
    host, _ = await captioned_room(server, (1, 2, 3, 4))
    link = (await make_link(server, host["code"], host["token"])).json()["link"]
    full = await create_room(server.url, name="Full")
    await upload(server, full["code"], full["token"], [(f"{n}.png", png(30 + n)) for n in range(6)])
    results = (await from_link(server, full["code"], full["token"], {"link": link})).json()
    assert [r["status"] for r in results] == ["taken", "taken", "skipped", "skipped"]
    assert "full" in results[2]["reason"]
    assert len((await listing(server, full["code"], full["token"]))["pictures"]) == 8


async def test_an_unknown_revoked_or_malformed_link_is_refused(server: LiveServer) -> None:
    host, _ = await captioned_room(server)
    code, token = host["code"], host["token"]
    link = (await make_link(server, code, token)).json()["link"]
    other = await create_room(server.url, name="Other")
    unknown = await from_link(server, other["code"], other["token"], {"link": "x" * 32})
    not_a_link = await from_link(server, other["code"], other["token"], {"link": "<script>"})
    not_text = await from_link(server, other["code"], other["token"], {"link": 7})
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        revoked = await http.delete(f"/api/rooms/{code}/pictures/link", headers=bearer(token))
        again = await http.delete(f"/api/rooms/{code}/pictures/link", headers=bearer(token))
        not_json = await http.post(
            f"/api/rooms/{other['code']}/pictures/from-link", headers=bearer(other["token"]), content=b"{"
        )
    gone = await from_link(server, other["code"], other["token"], {"link": link})
    assert [(a.status_code, a.json()["error"]["code"]) for a in (unknown, not_a_link, gone)] == [
        (404, "no_deck_link")
    ] * 3
    assert [(a.status_code, a.json()["error"]["code"]) for a in (not_text, not_json)] == [(400, "malformed")] * 2
    assert (revoked.status_code, again.status_code) == (204, 204)
    assert (await listing(server, other["code"], other["token"]))["pictures"] == [], "nothing was copied"
    new = (await make_link(server, code, token)).json()["link"]
    assert new != link, "a new link after a revoked one"
    assert len((await listing(server, code, token))["pictures"]) == 3, "revoking removed no picture"


async def test_a_room_without_pictures_has_no_link(server: LiveServer) -> None:
    host = await create_room(server.url)
    answer = await make_link(server, host["code"], host["token"])
    assert (answer.status_code, answer.json()["error"]["code"]) == (404, "no_pictures")


async def test_a_linked_deck_outlives_its_room_for_a_while(tmp_path: Path) -> None:
    with live_server(tmp_path / "data", room_idle_seconds=600, linked_deck_seconds=1000) as server:

        async def sweep(seconds: float) -> list[str]:
            server.shift_clock(seconds)
            swept = asyncio.run_coroutine_threadsafe(server.service.sweep(), server.loop)
            return await asyncio.wrap_future(swept)

        host, cards = await captioned_room(server)
        plain = await create_room(server.url, name="Plain")
        (unlinked,) = (await upload(server, plain["code"], plain["token"], [("p.png", png(50))])).json()
        link = (await make_link(server, host["code"], host["token"])).json()["link"]
        assert sorted(await sweep(601)) == sorted([host["code"], plain["code"]])
        later = await create_room(server.url, name="Later")
        results = (await from_link(server, later["code"], later["token"], {"link": link})).json()
        assert [r["status"] for r in results] == ["taken"] * 3, "the link outlives its room"
        copied = (await listing(server, later["code"], later["token"]))["pictures"]
        assert [p["caption"] for p in copied] == ["A red door", "", 'A cat, "asleep"']
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
            assert (await http.get(f"/cards/{unlinked['card']}.webp")).status_code == 404, "no link: gone with its room"
        assert await sweep(1001) == [later["code"]]
        last = await create_room(server.url, name="Last")
        too_late = await from_link(server, last["code"], last["token"], {"link": link})
        assert (too_late.status_code, too_late.json()["error"]["code"]) == (404, "no_deck_link")
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
            assert (await http.get(f"/cards/{cards[0]}.webp")).status_code == 404, "its time is up"
