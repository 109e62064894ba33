"""The import rules of docs/architecture.md: each layer imports only the layers below it, and each
part of the server only the parts it is said to use (so a new dependency is a decision, made
here and in the doc, not an accident)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src" / "fabula"

#: what each layer may import of ours (besides itself and the leaves every layer may use,
#: `fabula.text` and `fabula.errors`); the protocol is the contract clients and server share
LAYERS = {
    "rules": set(),
    "cards": {"rules"},
    "protocol": {"rules", "story"},
    "bots": {"rules", "cards", "client", "protocol"},
    "client": {"protocol"},
    "store": set(),
    "story": {"rules"},
    "server": {"rules", "cards", "bots", "store", "story", "protocol"},
}

#: modules of ours that import nothing of ours, so that any layer may use them
LEAVES = {"text", "errors"}

#: what each part of the server may import of the server (docs/architecture.md); a part is a
#: module, or a package (`cluster`) whose modules may also import each other
INFRASTRUCTURE = {"config", "metrics", "logs"}
PARTS: dict[str, set[str]] = {
    "__init__": set(),
    "heap": set(),
    "entries": set(),
    "errors": set(),
    "room_settings": {"entries", "errors"},
    "asks": {"entries", "errors"},
    "room": {"asks", "crowd", "entries", "errors", "room_games", "room_settings", "snapshots"},
    "crowd": {"entries", "errors"},
    "ballots": {"connections", "crowd", "entries", "errors", "live_room", "room", "room_settings", "rooms"},
    "room_clock": {"entries", "errors"},
    "room_games": {"crowd", "entries", "errors", "room_clock"},
    "snapshots": {"entries"},
    "connections": set(),
    "presence": {"connections", "room"},
    "live_room": {"entries", "errors", "presence", "room"},
    "holding": {"live_room", "room"},
    "rooms": {"entries", "errors", "holding", "live_room", "room"},
    "commands": {"entries", "errors", "room"},
    "fanout": {"connections", "entries", "errors", "live_room"},
    "scheduler": {"rooms", "autoplay", "entries", "errors", "live_room", "room"},
    "autoplay": {"room", "model_play"},
    "model_play": set(),
    "own_deck": set(),
    "sound_owners": set(),
    "sound_clips": set(),
    "sounds": {"pictures", "room", "sound_clips"},
    "seats": {"asks", "rooms", "holding", "room", "entries", "errors", "live_room", "room_settings"},
    "sweep": {"rooms", "autoplay"},
    "cluster": {"rooms", "errors", "live_room", "connections"},
    "conversation": {
        "ballots",
        "cluster",
        "commands",
        "connections",
        "entries",
        "errors",
        "fanout",
        "live_room",
        "own_deck",
        "room",
        "rooms",
        "seats",
        "sound_owners",
    },
    "backends": {"cluster"},
    "service": {
        "autoplay",
        "model_play",
        "backends",
        "cluster",
        "conversation",
        "entries",
        "fanout",
        "live_room",
        "own_deck",
        "rooms",
        "scheduler",
        "seats",
        "sound_owners",
        "sweep",
    },
    "responses": {"errors"},
    "headers": set(),
    "shared_deflate": set(),
    "local": {"shared_deflate"},
    "invite": set(),
    "pages": {"room_settings"},
    "card_routes": {"responses"},
    "operations": {"backends", "rooms"},
    "room_routes": {"errors", "invite", "responses", "room_settings", "seats", "service"},
    "play_socket": {"connections", "cluster", "service", "shared_deflate"},
    "pictures": {"responses", "live_room", "rooms", "seats"},
    "deck_sharing": {"pictures"},
    "history": {"entries", "errors", "live_room", "pictures", "rooms"},
    "app": {
        "backends",
        "card_routes",
        "deck_sharing",
        "headers",
        "history",
        "operations",
        "pages",
        "pictures",
        "play_socket",
        "room_routes",
        "seats",
        "service",
        "sounds",
    },
}


def parts_of_the_server() -> dict[str, list[Path]]:
    """Each part of the server, by name: its module, or the modules of its package."""
    found: dict[str, list[Path]] = {path.stem: [path] for path in (SRC / "server").glob("*.py")}
    for package in (SRC / "server").iterdir():
        if package.is_dir() and (package / "__init__.py").exists():
            found[package.name] = sorted(package.rglob("*.py"))
    return found


def imports_of(path: Path, package: str) -> set[str]:
    """The modules of ours ``path`` imports at run time (not those only for type checking), as
    dotted names below `fabula` (``server.room``, ``rules``)."""
    tree = ast.parse(path.read_text())
    type_only: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            type_only.update(id(child) for child in ast.walk(node))
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in type_only:
            continue
        if isinstance(node, ast.ImportFrom):
            if node.level:  # relative: within the package
                base = package if node.level == 1 else package.rsplit(".", node.level - 1)[0]
                if node.module:
                    found.add(f"{base}.{node.module}")
                else:
                    found.update(f"{base}.{alias.name}" for alias in node.names)
            elif node.module and node.module.startswith("fabula."):
                found.add(node.module.removeprefix("fabula."))
        elif isinstance(node, ast.Import):
            found.update(a.name.removeprefix("fabula.") for a in node.names if a.name.startswith("fabula."))
    return found


@pytest.mark.parametrize("layer", sorted(LAYERS))
def test_a_layer_imports_only_the_layers_below_it(layer: str) -> None:
    allowed = LAYERS[layer] | {layer} | LEAVES
    wrong = {
        f"{path.relative_to(SRC)} imports {name}"
        for path in (SRC / layer).rglob("*.py")
        for name in imports_of(path, layer + "." + ".".join(path.relative_to(SRC / layer).parts[:-1]))
        if not any(name == ok or name.startswith(ok + ".") for ok in allowed)
    }
    assert not wrong, sorted(wrong)


@pytest.mark.parametrize("leaf", sorted(LEAVES))
def test_a_leaf_imports_nothing_of_ours(leaf: str) -> None:
    assert imports_of(SRC / f"{leaf}.py", "") == set()


@pytest.mark.parametrize("part", sorted(PARTS))
def test_a_part_of_the_server_imports_only_the_parts_it_uses(part: str) -> None:
    used = set()
    for path in parts_of_the_server()[part]:
        below = path.relative_to(SRC / "server").parts[:-1]
        for name in imports_of(path, ".".join(("server", *below))):
            if name.startswith("server."):
                used.add(name.removeprefix("server.").split(".")[0])  # (a package's module: the package)
    assert used - PARTS[part] - INFRASTRUCTURE - {part} == set()


def test_every_part_of_the_server_is_in_the_map() -> None:
    """No module is exempt: the application and the wiring are parts too."""
    assert set(parts_of_the_server()) - INFRASTRUCTURE == set(PARTS)


def test_the_imports_are_read_as_written(tmp_path: Path) -> None:
    """The checker itself: a relative import, a package import, an absolute one, and a type-only
    one that does not count."""
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from typing import TYPE_CHECKING\n"
        "from .rooms import Rooms\n"
        "from . import protocol as p\n"
        "from fabula.rules import Game\n"
        "if TYPE_CHECKING:\n"
        "    from .room import Room\n"
    )
    assert imports_of(probe, "server") == {"server.rooms", "server.protocol", "rules"}
