from __future__ import annotations

import pytest


@pytest.fixture
def anyio_backend() -> str:
    """Async tests (``@pytest.mark.anyio``) run on asyncio, the loop the server runs on."""
    return "asyncio"
