"""A room's own pictures over HTTP: who may upload, list, caption and remove them; what an upload
answers per file; what the served pictures hold (no metadata); and every limit."""

from __future__ import annotations

import asyncio
import io
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from PIL import Image

from fabula.server.config import Config

from ..cards.test_importer import encoded, picture, sideways_jpeg, webp_chunks
from ..cards.test_likeness import TEMPLATE, template_drawing, template_png
from .harness import Client, LiveServer, create_room, join_room, live_server

pytestmark = pytest.mark.anyio


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    with live_server(tmp_path / "data", max_deck_pictures=8, uploads_per_minute=50) as live:
        yield live


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def png(seed: int) -> bytes:
    return encoded(picture(seed), "PNG")


def zipped(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


async def upload(
    server: LiveServer,
    code: str,
    token: str | None,
    files: list[tuple[str, bytes]],
    *,
    fields: dict[str, str] | None = None,
    query: dict[str, str] | None = None,
) -> httpx.Response:
    headers = {} if token is None else bearer(token)
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        return await http.post(
            f"/api/rooms/{code}/pictures",
            headers=headers,
            params=query,
            data=fields,
            files=[("files", (name, data, "application/octet-stream")) for name, data in files],
        )


async def listing(server: LiveServer, code: str, token: str) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        response = await http.get(f"/api/rooms/{code}/pictures", headers=bearer(token))
    assert response.status_code == 200, response.text
    found: dict[str, Any] = response.json()
    return found


async def test_the_host_uploads_pictures_and_a_zip_and_gets_a_result_per_file(server: LiveServer) -> None:
    host = await create_room(server.url)
    archive = zipped({"holiday/beach.png": png(2), "holiday/notes.txt": b"not a picture", "copy.png": png(1)})
    response = await upload(server, host["code"], host["token"], [("cat.png", png(1)), ("trip.zip", archive)])
    assert response.status_code == 201, response.text
    results = response.json()
    assert [(r["name"], r["status"]) for r in results] == [
        ("cat.png", "taken"),
        ("trip.zip/copy.png", "skipped"),
        ("trip.zip/holiday/beach.png", "taken"),
        ("trip.zip/holiday/notes.txt", "skipped"),
    ]
    assert "same picture" in results[1]["reason"]
    assert (results[1]["code"], results[3]["code"]) == ("duplicate", "not_image"), "the browser says it in its language"
    assert "not" in results[3]["reason"]
    assert "image" in results[3]["reason"]
    cards = [r["card"] for r in results if r["status"] == "taken"]
    assert all("card" not in r for r in results if r["status"] == "skipped")
    deck = await listing(server, host["code"], host["token"])
    assert [p["card"] for p in deck["pictures"]] == cards
    assert deck["blind"] is True, "no caption yet: the bots would play these blind"
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        served = await http.get(deck["pictures"][0]["url"])
    assert served.status_code == 200
    assert served.headers["content-type"] == "image/webp"
    assert "public" not in served.headers["cache-control"], "a private picture is never kept by a shared cache"


async def test_twelve_drawings_on_one_template_are_twelve_cards(tmp_path: Path) -> None:
    """Issue 34: a group drew on one template (a white page, a shape, a label under it), each a
    shape, a colour and a label of their own; 4 of the 12 were refused as "the same picture" (a
    purple circle as the red one) when only the grey pHash was compared."""
    with live_server(tmp_path / "data", max_deck_pictures=20) as server:
        host = await create_room(server.url)
        code, token = host["code"], host["token"]
        drawings = [(f"{label}.png", template_png(n)) for n, (_, _, label) in enumerate(TEMPLATE)]
        results = (await upload(server, code, token, drawings)).json()
        again = (await upload(server, code, token, drawings[:2])).json()
        listed = await listing(server, code, token)
    assert [(r["name"], r["status"]) for r in results] == [(name, "taken") for name, _ in drawings]
    assert len(listed["pictures"]) == 12
    assert [r["code"] for r in again] == ["duplicate", "duplicate"], "the very same drawings again are copies"
    assert [r["twin"]["card"] for r in again] == [r["card"] for r in results[:2]]


async def test_a_copy_names_the_picture_it_copies_and_the_host_may_keep_both(server: LiveServer) -> None:
    host = await create_room(server.url)
    code, token = host["code"], host["token"]
    red, purple, photo = template_drawing(*TEMPLATE[0]), template_drawing(*TEMPLATE[4]), picture(90, size=(640, 960))
    first = (await upload(server, code, token, [("red.png", encoded(red, "PNG")), ("photo.png", png(90))])).json()
    assert [r["status"] for r in first] == ["taken", "taken"]
    red_card, photo_card = first[0]["card"], first[1]["card"]
    copies = [
        ("red.jpg", encoded(red, "JPEG", quality=60)),
        ("red-half.jpg", encoded(red.resize((300, 450)), "JPEG", quality=80)),
        ("photo.jpg", encoded(photo, "JPEG", quality=40)),
        ("photo-half.png", encoded(photo.resize((320, 480)), "PNG")),
        ("purple.png", encoded(purple, "PNG")),
        ("purple.webp", encoded(purple, "WEBP", quality=80)),
    ]
    results = (await upload(server, code, token, copies)).json()
    assert [(r["name"], r["status"], r.get("code")) for r in results] == [
        ("red.jpg", "skipped", "duplicate"),
        ("red-half.jpg", "skipped", "duplicate"),
        ("photo.jpg", "skipped", "duplicate"),
        ("photo-half.png", "skipped", "duplicate"),
        ("purple.png", "taken", None),
        ("purple.webp", "skipped", "duplicate"),
    ]
    purple_card = results[4]["card"]

    def twin(name: str, card: str) -> dict[str, str]:
        return {"name": name, "card": card, "url": f"/cards/{card}.webp"}

    assert [r["twin"] for r in results[:4]] == [twin("red.png", red_card)] * 2 + [twin("photo.png", photo_card)] * 2
    assert results[5]["twin"] == twin("purple.png", purple_card), "a copy of a picture of the same upload"
    assert "twin" not in results[4]
    # the host saw the pair and keeps both: the file again, with keep_duplicates (a field, or in the query)
    kept = (await upload(server, code, token, copies[:1], fields={"keep_duplicates": "1"})).json()
    also = (await upload(server, code, token, copies[5:], query={"keep_duplicates": "1"})).json()
    assert [(r["name"], r["status"]) for r in kept + also] == [("red.jpg", "taken"), ("purple.webp", "taken")]
    listed = [p["card"] for p in (await listing(server, code, token))["pictures"]]
    assert listed == [red_card, photo_card, purple_card, kept[0]["card"], also[0]["card"]]
    refused = (await upload(server, code, token, copies[1:2], fields={"keep_duplicates": "0"})).json()
    assert refused[0]["code"] == "duplicate", "only a yes keeps a copy"


async def test_a_served_picture_keeps_nothing_of_the_photo_s_metadata(server: LiveServer) -> None:
    host = await create_room(server.url)
    photo = sideways_jpeg()
    assert b"SpyCam" in photo
    assert b"xmpmeta" in photo
    response = await upload(server, host["code"], host["token"], [("IMG_0001.jpg", photo)])
    (result,) = response.json()
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        data = (await http.get(f"/cards/{result['card']}.webp")).content
    assert webp_chunks(data) in ([b"VP8 "], [b"VP8L"]), "a chunk besides the picture: metadata"
    assert b"SpyCam" not in data
    assert b"xmpmeta" not in data
    assert b"Exif" not in data
    with Image.open(io.BytesIO(data)) as image:
        assert not image.getexif()
        assert {"exif", "icc_profile", "xmp"}.isdisjoint(image.info)


async def test_an_svg_is_refused_and_never_served_as_svg(server: LiveServer) -> None:
    host = await create_room(server.url)
    svg = b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>'
    response = await upload(server, host["code"], host["token"], [("drawing.svg", svg)])
    assert response.status_code == 201
    (result,) = response.json()
    assert result["status"] == "skipped"
    assert "SVG" in result["reason"]
    assert result["code"] == "unsupported_format"
    assert (await listing(server, host["code"], host["token"]))["pictures"] == []


async def test_who_may_do_what(server: LiveServer) -> None:
    host = await create_room(server.url)
    code = host["code"]
    guest = (await join_room(server.url, code, "Guest", "blue")).json()
    other = await create_room(server.url, name="Elsewhere")
    (taken,) = (await upload(server, code, host["token"], [("a.png", png(3))])).json()
    card = taken["card"]
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:

        async def each(headers: dict[str, str]) -> list[tuple[int, str]]:
            answers = [
                await http.post(f"/api/rooms/{code}/pictures", headers=headers, files=[("files", ("b.png", png(4)))]),
                await http.put(f"/api/rooms/{code}/pictures/{card}/caption", headers=headers, json={"caption": "x"}),
                await http.delete(f"/api/rooms/{code}/pictures/{card}", headers=headers),
                await http.get(f"/api/rooms/{code}/pictures", headers=headers),
            ]
            return [(a.status_code, a.json()["error"]["code"] if a.status_code >= 400 else "") for a in answers]

        nobody = await each({})
        stranger = await each(bearer("not-a-token"))
        elsewhere = await each(bearer(other["token"]))
        member = await each(bearer(guest["token"]))
        unknown_room = await http.get("/api/rooms/ZZZZZ/pictures", headers=bearer(host["token"]))
    assert nobody == [(401, "no_token")] * 4
    assert stranger == [(403, "not_a_member")] * 4
    assert elsewhere == [(403, "not_a_member")] * 4, "another room's host is nobody here"
    assert member == [(403, "host_only")] * 3 + [(200, "")], "a member sees the pictures, only the host changes them"
    assert unknown_room.status_code == 404
    assert unknown_room.json()["error"]["code"] == "no_room"
    assert [p["card"] for p in (await listing(server, code, host["token"]))["pictures"]] == [card], "nothing changed"


async def test_captions_are_edited_and_tell_the_bots_what_they_see(server: LiveServer) -> None:
    host = await create_room(server.url)
    code, token = host["code"], host["token"]
    results = (await upload(server, code, token, [("a.png", png(5)), ("b.png", png(6))])).json()
    card = results[0]["card"]
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        url = f"/api/rooms/{code}/pictures/{card}/caption"
        first = await http.put(url, headers=bearer(token), json={"caption": "  A red\nkite over the dunes "})
        again = await http.put(url, headers=bearer(token), json={"caption": "A kite"})
        too_long = await http.put(url, headers=bearer(token), json={"caption": "k" * 501})
        not_text = await http.put(url, headers=bearer(token), json={"caption": 7})
        no_such = await http.put(
            f"/api/rooms/{code}/pictures/{card}9/caption", headers=bearer(token), json={"caption": "x"}
        )
    assert first.status_code == 200
    assert first.json()["caption"] == "A red kite over the dunes"
    assert again.json()["caption"] == "A kite"
    assert (too_long.status_code, too_long.json()["error"]["code"]) == (400, "bad_caption")
    assert (not_text.status_code, not_text.json()["error"]["code"]) == (400, "malformed")
    assert (no_such.status_code, no_such.json()["error"]["code"]) == (404, "no_picture")
    deck = await listing(server, code, token)
    assert [p["caption"] for p in deck["pictures"]] == ["A kite", ""]
    assert deck["blind"] is False


async def test_a_removed_picture_is_gone_from_the_deck_and_its_url(server: LiveServer) -> None:
    host = await create_room(server.url)
    code, token = host["code"], host["token"]
    first, second = (await upload(server, code, token, [("a.png", png(7)), ("b.png", png(8))])).json()
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        removed = await http.delete(f"/api/rooms/{code}/pictures/{first['card']}", headers=bearer(token))
        twice = await http.delete(f"/api/rooms/{code}/pictures/{first['card']}", headers=bearer(token))
        gone = await http.get(f"/cards/{first['card']}.webp")
    assert removed.status_code == 204
    assert (twice.status_code, twice.json()["error"]["code"]) == (404, "no_picture")
    assert gone.status_code == 404
    assert [p["card"] for p in (await listing(server, code, token))["pictures"]] == [second["card"]]


async def test_a_picture_url_is_not_guessable_from_another(server: LiveServer) -> None:
    one = await create_room(server.url)
    two = await create_room(server.url, name="Two")
    (a,) = (await upload(server, one["code"], one["token"], [("a.png", png(9))])).json()
    (b,) = (await upload(server, two["code"], two["token"], [("b.png", png(10))])).json()
    deck_a, deck_b = a["card"].rsplit("-", 1)[0], b["card"].rsplit("-", 1)[0]
    assert deck_a != deck_b
    assert len(deck_a) >= 27, "at least 26 random characters: 130 bits"


async def test_the_deck_holds_at_most_its_limit(server: LiveServer) -> None:
    host = await create_room(server.url)
    code, token = host["code"], host["token"]
    first = (await upload(server, code, token, [(f"{n}.png", png(20 + n)) for n in range(6)])).json()
    second = (await upload(server, code, token, [(f"{n}.png", png(40 + n)) for n in range(4)])).json()
    assert [r["status"] for r in first] == ["taken"] * 6
    assert [r["status"] for r in second] == ["taken", "taken", "skipped", "skipped"]
    assert "full" in second[2]["reason"]
    assert second[2]["code"] == "deck_full"
    assert len((await listing(server, code, token))["pictures"]) == 8


async def test_limits_on_bytes_and_uploads_are_answered_with_their_codes(tmp_path: Path) -> None:
    limits = {"max_upload_bytes": 400_000, "max_picture_bytes": 150_000, "uploads_per_minute": 3}
    with live_server(tmp_path / "data", **limits) as server:
        host = await create_room(server.url)
        code, token = host["code"], host["token"]
        big = encoded(Image.effect_noise((400, 400), 100).convert("RGB"), "PNG")
        assert 150_000 < len(big) < 400_000
        too_big_file = (await upload(server, code, token, [("big.png", big)])).json()
        too_big_request = await upload(server, code, token, [("a.png", big), ("b.png", big)])

        async def streamed() -> Any:  # no Content-Length: the limit is found while reading
            yield b"--xyz\r\nContent-Disposition: form-data; name=files; filename=a.png\r\n\r\n"
            for _ in range(100):
                yield b"\0" * 10_000

        async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
            chunked = await http.post(
                f"/api/rooms/{code}/pictures",
                headers={**bearer(token), "Content-Type": "multipart/form-data; boundary=xyz"},
                content=streamed(),
            )
        fourth = await upload(server, code, token, [("c.png", png(60))])
    assert too_big_file[0]["status"] == "skipped"
    assert "too large" in too_big_file[0]["reason"]
    assert (too_big_request.status_code, too_big_request.json()["error"]["code"]) == (413, "upload_too_large")
    assert (chunked.status_code, chunked.json()["error"]["code"]) == (413, "upload_too_large")
    assert (fourth.status_code, fourth.json()["error"]["code"]) == (429, "too_many_uploads")
    assert Config().max_deck_pictures >= 84, "a whole deck's worth by default"


async def test_bad_uploads_are_answered_and_change_nothing(server: LiveServer) -> None:
    host = await create_room(server.url)
    code, token = host["code"], host["token"]
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        as_json = await http.post(f"/api/rooms/{code}/pictures", headers=bearer(token), json={"files": []})
        no_files = await http.post(  # multipart with a plain field and no file
            f"/api/rooms/{code}/pictures", headers=bearer(token), files={"other": (None, "x")}
        )
        broken = await http.post(
            f"/api/rooms/{code}/pictures",
            headers={**bearer(token), "Content-Type": "multipart/form-data; boundary=b"},
            content=b"--b\r\nContent-Disposition: form-data; name=files; filename=a.png\r\n\r\nabc",
        )
    assert (as_json.status_code, as_json.json()["error"]["code"]) == (400, "malformed")
    assert (no_files.status_code, no_files.json()["error"]["code"]) == (400, "no_files")
    assert broken.status_code == 400
    assert (await listing(server, code, token))["pictures"] == []


async def test_a_deleted_room_takes_its_pictures_with_it(tmp_path: Path) -> None:
    with live_server(tmp_path / "data", room_idle_seconds=600) as server:
        host = await create_room(server.url)
        (taken,) = (await upload(server, host["code"], host["token"], [("a.png", png(70))])).json()
        server.shift_clock(601)
        expired = await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(server.service.sweep(), server.loop))
        assert expired == [host["code"]]
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
            gone = await http.get(f"/cards/{taken['card']}.webp")
        assert gone.status_code == 404


async def test_a_game_is_dealt_from_the_group_s_pictures_and_the_original_deck(server: LiveServer) -> None:
    host_seat = await create_room(server.url)
    code, token = host_seat["code"], host_seat["token"]
    host = Client(server.url, code, token)
    await host.connect()
    none_yet = await host.request({"type": "settings", "settings": {"decks": ["pictures"]}})
    assert (none_yet["type"], none_yet["code"]) == ("error", "bad_decks")
    results = (await upload(server, code, token, [("a.png", png(80)), ("b.png", png(81))])).json()
    ours = [r["card"] for r in results]
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        await http.put(
            f"/api/rooms/{code}/pictures/{ours[0]}/caption", headers=bearer(token), json={"caption": "A kite"}
        )
    alone = await host.request({"type": "settings", "settings": {"decks": ["pictures"]}})
    assert alone["type"] == "ack", "two pictures may be chosen; the start says they are too few"
    for _ in range(2):
        await host.request({"type": "add_bot", "level": "random"})
    too_few = await host.request({"type": "start"})
    assert (too_few["type"], too_few["code"]) == ("error", "deck_too_small")
    both = await host.request({"type": "settings", "settings": {"decks": ["fabula", "pictures"]}})
    assert both["type"] == "ack"
    assert (await host.request({"type": "start"}))["type"] == "ack"
    game = server.service.rooms.held[code].room.game
    assert game is not None
    assert set(ours) <= set(game.deck)
    assert len(game.deck) == 84 + 2
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        cards = (await http.get(f"/api/rooms/{code}/cards")).json()["cards"]
    described = {card["id"]: card["description"] for card in cards}
    assert described[ours[0]] == "A kite", "the caption is what the bots (and alt text) read"
    assert described[ours[1]] == ""
    await host.close()


def test_an_upload_killed_halfway_leaves_nothing_behind(tmp_path: Path) -> None:
    """The server dies (SIGKILL) while it is making the cards of an upload: after a restart the
    room's deck holds none of that upload's pictures, and the next upload works."""
    import threading

    from .harness import ServeProcess

    process = ServeProcess(["--data", str(tmp_path / "data")], tmp_path / "serve.log")
    process.start()
    try:
        with httpx.Client(base_url=process.url, timeout=60) as http:
            host = http.post("/api/rooms", json={"name": "Ana", "colour": "red"}).json()
            code, headers = host["code"], bearer(host["token"])
            big = [(f"big{n}.png", encoded(picture(200 + n, size=(3000, 4000)), "PNG")) for n in range(12)]
            outcome: list[object] = []
            built = httpx.Request("POST", "/", files=[("files", f) for f in big])
            body, sent = built.read(), threading.Event()

            def chunks() -> Iterator[bytes]:
                for start in range(0, len(body), 2**16):
                    yield body[start : start + 2**16]
                sent.set()

            def send() -> None:
                try:
                    url = f"/api/rooms/{code}/pictures"
                    kind = {"Content-Type": built.headers["Content-Type"]}
                    outcome.append(http.post(url, headers={**headers, **kind}, content=chunks()))
                except httpx.HTTPError as error:
                    outcome.append(error)

            sending = threading.Thread(target=send)
            sending.start()
            assert sent.wait(30)
            time.sleep(0.5)  # the body is in: the server is making the cards (12 of 12 MP take seconds)
            process.kill()
            sending.join()
            assert isinstance(outcome[0], httpx.HTTPError), "the upload was not answered: the server died"
        process.start()
        with httpx.Client(base_url=process.url, timeout=60) as http:
            listed = http.get(f"/api/rooms/{code}/pictures", headers=headers).json()
            assert listed["pictures"] == []
            again = http.post(f"/api/rooms/{code}/pictures", headers=headers, files=[("files", ("a.png", png(1)))])
            assert again.status_code == 201
            assert [r["status"] for r in again.json()] == ["taken"]
    finally:
        process.stop()
