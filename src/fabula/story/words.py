"""The few words a picture of an album says, from the client's own i18n files (one source of words).

The picture uses keys of the ``png.*`` family, and a few the client shows too (``mode.*``,
``reveal.title_round``…); `tests/web/test_i18n.py` counts the keys the picture's modules
(`picture`, `page`, `rows`) ask for as used.

>>> Words("zh-Hant")("reveal.title_round", round=3)
'第 3 輪'
>>> Words("xx").language, Words("en")("png.no_such_key")
('en', 'png.no_such_key')
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources

LANGUAGES = ("en", "zh-Hant", "zh-Hans")
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


@cache
def strings(language: str) -> dict[str, str]:
    """One language's file of the browser client, as it is shipped in the package."""
    path = resources.files("fabula.web").joinpath("static", "i18n", f"{language}.json")
    loaded: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


class Words:
    """``words(key, **params)``: the string of ``key`` in ``language`` (English, then the key itself,
    when it is missing), with ``{name}`` placeholders filled as the client fills them."""

    def __init__(self, language: str) -> None:
        self.language = language if language in LANGUAGES else "en"
        self._strings = strings(self.language)
        self._english = strings("en")

    def __call__(self, key: str, **params: object) -> str:
        template = self._strings.get(key) or self._english.get(key) or key
        # not str.format: a stray brace in a translation must not raise
        return _PLACEHOLDER.sub(lambda m: str(params.get(m[1], m[0])), template)
