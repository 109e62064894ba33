"""A live server (one per test process) and Chromium (one per test module) for the browser tests.

The tests need Chromium at /usr/bin/chromium (Debian's package; another path with
FABULA_CHROMIUM). Without it they are skipped, except on CI (CI=true), where that is a failure.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Dialog, Page, sync_playwright

from ..server.harness import LiveServer, live_server
from .ui import watch_sockets

CHROMIUM = Path(os.environ.get("FABULA_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One server for every browser test of this process; each test makes its own rooms."""
    data = tmp_path_factory.mktemp("e2e") / "data"
    with live_server(
        data,
        bot_delay_seconds=0.05,
        max_rooms_per_address=10_000,
        max_connections_per_address=10_000,
    ) as running:
        yield running


@pytest.fixture(scope="module")
def browser(request: pytest.FixtureRequest) -> Iterator[Browser]:
    """Chromium for one test module, with the module's ``CHROMIUM_EXTRA_ARGS`` if it has them (a
    fake microphone, say). Not for the whole session: while Playwright's sync API is running, its
    event loop counts as running in this thread, and the async tests that share the process
    (pytest -n) could not start theirs."""
    if not CHROMIUM.exists():
        reason = f"the browser tests need Chromium at {CHROMIUM} (apt install chromium, or set FABULA_CHROMIUM)"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    with sync_playwright() as playwright:
        extra: list[str] = getattr(request.module, "CHROMIUM_EXTRA_ARGS", [])
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=[*CHROMIUM_ARGS, *extra])
        yield launched
        launched.close()


#: Reports each Content-Security-Policy violation on the console, where `Players` hears it (Chromium
#: logs most itself, but not every kind in every version).
REPORT_CSP_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", (event) => {
  console.error(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI || "inline"}`);
});
"""


def is_csp_violation(text: str) -> bool:
    return text.startswith("CSP violation:") or "Content Security Policy" in text


class Players:
    """Browser pages for one test, each in its own context (its own localStorage: its own seat).
    Any uncaught script error on a page, and any breach of the server's Content-Security-Policy,
    fails the test."""

    def __init__(self, browser: Browser, base: str) -> None:
        self.browser, self.base = browser, base
        self.contexts: list[BrowserContext] = []
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.csp_violations: list[str] = []

    def open(self, width: int = DESKTOP["width"], height: int = DESKTOP["height"], *, mobile: bool = False) -> Page:
        """A page of ``width`` × ``height`` CSS pixels (``mobile``: a phone's, with touch)."""
        context = self.browser.new_context(
            viewport={"width": width, "height": height},
            base_url=self.base,
            is_mobile=mobile,
            has_touch=mobile,
            locale="en-US",  # the tests read English labels, whatever the machine's language
        )
        context.set_default_timeout(15_000)
        self.contexts.append(context)
        context.add_init_script(REPORT_CSP_VIOLATIONS)
        page = context.new_page()
        watch_sockets(page)
        page.on("pageerror", lambda error: self.errors.append(f"{page.url}: {error}"))

        def console(message: ConsoleMessage) -> None:
            if is_csp_violation(message.text):
                self.csp_violations.append(f"{page.url}: {message.text}")

        page.on("console", console)

        def dialog_opened(dialog: Dialog) -> None:
            self.dialogs.append(dialog.message)
            dialog.dismiss()

        page.on("dialog", dialog_opened)
        return page

    def phone(self) -> Page:
        return self.open(PHONE["width"], PHONE["height"], mobile=True)

    def close(self) -> None:
        for context in self.contexts:
            context.close()


@pytest.fixture
def players(browser: Browser, server: LiveServer) -> Iterator[Players]:
    opened = Players(browser, server.url)
    yield opened
    opened.close()
    assert not opened.errors, f"script errors in the page: {opened.errors}"
    assert not opened.csp_violations, f"the page broke its Content-Security-Policy: {opened.csp_violations}"
    assert not opened.dialogs, f"the page opened dialogs: {opened.dialogs}"
