"""Who recorded a sound a clue names: read from the sound store before a ``tell`` is made, so that
the room's commands (pure) can refuse a sound that is not the storyteller's in this room."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from fabula.store.sounds import SoundStore

#: (room code, sound id) → the member who recorded it there, or None if the room has no such sound
SoundOwner = Callable[[str, str], Awaitable[int | None]]


def sound_owners_of(store: SoundStore | None) -> SoundOwner:
    """The recorder of a room's sound in ``store`` (None for every sound without a store)."""

    async def sound_owner(code: str, sound: str) -> int | None:
        found = None if store is None else await store.sound(code, sound)
        return None if found is None else found.member

    return sound_owner


#: A server part without a sound store: no room has any sound.
no_sounds = sound_owners_of(None)
