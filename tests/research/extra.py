"""The research extra in tests: present in CI (which installs it), perhaps missing elsewhere."""

from __future__ import annotations

import importlib.util
import os

import pytest

#: The modules of ``fabula[research]``.
MODULES = ("gymnasium", "pettingzoo", "pyspiel")


def require_extra() -> None:
    """Skip the calling test module, with the reason, when the extra is not installed — except in
    CI, where a missing extra is a broken setup (dev.py installs it) and must fail, not skip."""
    missing = [name for name in MODULES if importlib.util.find_spec(name) is None]
    if not missing:
        return
    if os.environ.get("CI"):
        raise ImportError(f"CI installs fabula[research], yet {', '.join(missing)} cannot be imported")
    pytest.skip(
        f"the research extra is not installed ({', '.join(missing)} missing): pip install -e '.[research]'",
        allow_module_level=True,
    )
