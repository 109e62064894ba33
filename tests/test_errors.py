"""Error codes: one enum per layer, each code string in exactly one of them, with one status and
one meaning — and the statuses HTTP has always sent."""

from __future__ import annotations

import collections
import json

import msgspec

from fabula.errors import CommonCode, ErrorCode, Reach
from fabula.protocol import Error, ProtocolCode, encode
from fabula.rules import IllegalAction
from fabula.rules.errors import RuleCode
from fabula.server.card_routes import HttpCode
from fabula.server.errors import RoomCode
from fabula.server.pictures import PictureCode
from fabula.server.responses import ROUTE_STATUS
from fabula.server.sounds import SoundCode

ENUMS = (CommonCode, RuleCode, ProtocolCode, RoomCode, HttpCode, PictureCode, SoundCode)
CODES = [code for cls in ENUMS for code in cls]


def test_every_layer_enum_is_known_here() -> None:
    assert set(ErrorCode.__subclasses__()) == set(ENUMS)


def test_a_code_string_belongs_to_one_enum_only() -> None:
    counts = collections.Counter(code.value for code in CODES)
    assert [value for value, count in counts.items() if count > 1] == []


def test_every_code_is_snake_case_with_a_meaning() -> None:
    for code in CODES:
        assert code.value.isidentifier(), code
        assert code.value == code.value.lower(), code
        assert code.meaning.endswith("."), code
        assert code.meaning[0].isupper(), code


def test_statuses_are_client_errors_but_the_servers_own_failure() -> None:
    allowed = {400, 401, 403, 404, 409, 413, 429}
    # the server failing, and the server's picture store full (Insufficient Storage)
    assert {code for code in CODES if code.status not in allowed} == {ProtocolCode.INTERNAL, PictureCode.STORE_FULL}
    assert PictureCode.STORE_FULL.status == 507
    assert ProtocolCode.INTERNAL.status == 500
    assert Reach.HTTP not in ProtocolCode.INTERNAL.reach


def test_over_http_a_refusal_is_a_400_but_what_is_not_there_and_too_many() -> None:
    """The statuses clients have always been sent (they once came from prefix rules in the app)."""
    sent = {code.value: code.status for code in CODES if Reach.HTTP in code.reach}
    not_400 = {value: status for value, status in sent.items() if status != 400}
    assert not_400 == {
        "no_room": 404,
        "no_game": 404,
        "removed_here": 403,  # (a join from the browser of a player the host removed)
        "no_card": 404,
        "too_many_rooms": 429,
        "too_many_asks": 429,  # (streamer mode: a network asking to join again and again)
        # the picture routes': who asks (401, 403), what is not there, too much
        "no_token": 401,
        "not_a_member": 403,
        "host_only": 403,
        "no_picture": 404,
        "no_pictures": 404,
        "no_deck_link": 404,
        "upload_too_large": 413,
        "too_many_uploads": 429,
        "store_full": 507,
        # the sound routes': not the storyteller (403), no such sound (404), a recording too big (413)
        "not_storyteller": 403,
        "no_sound": 404,
        "sound_too_big": 413,
    }
    assert ROUTE_STATUS == {("/api/rooms/{code}/cards", RoomCode.BAD_DECKS): 404}


def test_a_code_is_its_string_on_the_wire() -> None:
    code = RuleCode.WRONG_PHASE
    assert code == "wrong_phase"
    assert f"{code}" == str(code) == "wrong_phase"
    assert json.dumps({"code": code}) == '{"code": "wrong_phase"}'
    assert msgspec.json.decode(encode(Error("m1", code, "Not now.")))["code"] == "wrong_phase"
    refused = IllegalAction(code, "Not now.")
    assert repr(refused) == "IllegalAction('wrong_phase', 'Not now.')"
    assert refused.to_json() == {"code": "wrong_phase", "message": "Not now."}
