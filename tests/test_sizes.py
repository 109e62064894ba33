"""One job per part: Python modules under src/fabula at most 500 lines (the drawing tables of
cards/art aside), classes 400, functions 80; the browser's modules 500. What is over today is
listed below, each a debt to pay (issue 33), and the list may only shrink: a new module, class or
function over its limit fails here, and so does one listed that is under its limit now."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "fabula"
WEB = SRC / "web" / "static"
MODULE_LINES, CLASS_LINES, FUNCTION_LINES, BROWSER_LINES = 500, 400, 80, 500

#: Over the limit today (path below src/fabula, and the class or function; "" for the module).
OVER_THE_LIMIT: set[tuple[str, str]] = set()


def over_the_limit() -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    for path in sorted(SRC.rglob("*.py")):
        name = path.relative_to(SRC).as_posix()
        if name.startswith("cards/art/"):
            continue
        text = path.read_text()
        if len(text.splitlines()) > MODULE_LINES:
            found.add((name, ""))
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.end_lineno is not None:
                size = node.end_lineno - node.lineno + 1
                limit = CLASS_LINES if isinstance(node, ast.ClassDef) else FUNCTION_LINES
                if size > limit:
                    found.add((name, node.name))
    return found


def test_nothing_new_is_over_its_limit_and_the_list_of_debts_is_true() -> None:
    found = over_the_limit()
    assert found - OVER_THE_LIMIT == set(), "over the limit: split it"
    assert OVER_THE_LIMIT - found == set(), "under the limit now: take it off OVER_THE_LIMIT"


def test_every_browser_module_is_at_most_500_lines() -> None:
    long = {
        path.relative_to(WEB).as_posix(): n
        for path in WEB.rglob("*.js")
        if (n := len(path.read_text().splitlines())) > BROWSER_LINES
    }
    assert long == {}
