"""The audience: spectators who join in with a name and vote, each round, for the card they think
is the storyteller's — never changing the players' scores.

An audience member says hello with `AudienceHello` (and no seat token); they get their own
standing (`AudienceYou`) in ``welcome`` and in ``audience`` messages, never in the shared state:
the state every audience connection receives is the spectator's, encoded once for all of them,
with the audience's size and votes as numbers (`AudienceCount`) and, after a reveal, where the
crowd's votes went (`fabula.story.CrowdRound`).
"""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import Meta

#: What an audience token is: 22–64 characters of base64url, made once per room by the browser.
AUDIENCE_TOKEN_PATTERN = r"^[A-Za-z0-9_-]{22,64}$"
#: A card id, as a client names one.
CARD_ID_MAX = 64


class AudienceHello(msgspec.Struct, forbid_unknown_fields=True):
    """``hello``'s ``audience``: join the room's audience (with ``token`` null)."""

    token: Annotated[
        str,
        Meta(
            pattern=AUDIENCE_TOKEN_PATTERN,
            description="random, 22–64 characters of base64url, made once per room by the client and kept: the "
            "same token is the same audience member (vote, points) after a reload; never shown to anyone",
        ),
    ]
    name: Annotated[
        str,
        Meta(max_length=200, description="display name, cleaned and checked as a player's (at most 24 characters)"),
    ]


class AudienceYou(msgspec.Struct, kw_only=True):
    """An audience member's own standing: told only to them."""

    id: Annotated[str, Meta(description="your audience id (from your token; only you are told it)")]
    name: Annotated[str, Meta(description="your name as cleaned")]
    round: Annotated[int, Meta(description="the round of the game being played (0: no game yet)")]
    vote: Annotated[str | None, Meta(description="the card you voted for in `round`; null: no vote yet")]
    points: Annotated[
        int, Meta(description="your points in the room's latest game: 1 per round you found the storyteller's card")
    ]
    place: Annotated[
        int | None,
        Meta(
            description="your place on that game's audience leaderboard (by points, then votes; members alike share "
            "a place, as on the album's board); null before your first vote in it"
        ),
    ] = None
    voters: Annotated[int, Meta(description="audience members who voted in that game")] = 0


class AudienceCount(msgspec.Struct, kw_only=True):
    """How many watch as the audience, and how many of them voted: numbers, never a list."""

    count: Annotated[
        int,
        Meta(
            description="audience connections in the room now (updated at most about once a second, and with "
            "every other state)"
        ),
    ] = 0
    voted: Annotated[
        int, Meta(description="audience votes stored for the round being voted now; 0 outside a vote phase")
    ] = 0
