"""docs/protocol.md is what tools/protocol_doc.py writes from the code today."""

from __future__ import annotations

import difflib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "tools" / "protocol_doc.py"
DOC = ROOT / "docs" / "protocol.md"


def load_script() -> ModuleType:
    """tools/ is not a package: load the script from its path."""
    spec = importlib.util.spec_from_file_location("protocol_doc", SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    return module


def test_protocol_doc_is_current() -> None:
    expected: str = load_script().render()
    current = DOC.read_text(encoding="utf-8")
    if current != expected:
        diff = difflib.unified_diff(
            current.splitlines(), expected.splitlines(), "docs/protocol.md", "generated", lineterm="", n=1
        )
        shown = "\n".join(list(diff)[:80])
        raise AssertionError(f"docs/protocol.md is out of date: run python tools/protocol_doc.py\n{shown}")


def test_render_is_reproducible() -> None:
    script = load_script()
    assert script.render() == script.render()


def test_template_placeholders_and_values_match() -> None:
    fill = load_script().fill
    assert fill("$name costs $$${price}.", {"name": "A map", "price": 5}) == "A map costs $5."
    with pytest.raises(ValueError, match=r"no value \['price'\]"):
        fill("$name costs $price", {"name": "A map"})
    with pytest.raises(ValueError, match=r"no placeholder \['price'\]"):
        fill("$name", {"name": "A map", "price": 5})
    with pytest.raises(ValueError, match="line 2"):
        fill("$name\ncosts $5", {"name": "A map"})
