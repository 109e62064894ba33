"""Debian's Firefox ESR as one more browser of a browser test, driven through Marionette with
Mozilla's own client (marionette-driver): Playwright drives only its own builds of Firefox, which
cannot be downloaded here. Headless, with a fake microphone allowed without asking, and Firefox's
own autoplay policy (audible media waits for a tap).

    with firefox_window(360, 800) as phone:
        phone.go(f"{base}/rules")
        phone.wait_for(".rules")
"""

from __future__ import annotations

import math
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from marionette_driver.marionette import Marionette, WebElement

from ..server.harness import free_port
from .driven import COLLECT_ERRORS, DrivenPage, Element

FIREFOX = Path(os.environ.get("FABULA_FIREFOX", "/usr/bin/firefox-esr"))

PREFERENCES = {
    "media.navigator.streams.fake": True,  # a microphone that plays a tone
    "media.navigator.permission.disabled": True,
    "media.autoplay.default": 1,  # Firefox's own default, said aloud: audible media waits for a tap
    "ui.useOverlayScrollbars": 1,  # as a phone's: they take no width
    "intl.accept_languages": "en-US",  # the tests read English labels, whatever the machine's language
}

NARROWEST_WINDOW = 500


class FirefoxPage(DrivenPage):
    """The one window of a Firefox."""

    def __init__(self, client: Marionette, width: int, zoom: float) -> None:
        self.client, self.width, self.zoom = client, width, zoom

    def go(self, url: str) -> None:
        self.client.navigate(url)
        self.client.execute_script(COLLECT_ERRORS)
        if self.zoom != 1:
            with self.client.using_context("chrome"):
                self.client.execute_script(
                    "gBrowser.selectedBrowser.browsingContext.fullZoom = arguments[0]", script_args=[self.zoom]
                )
            # (a zoom is a whole number of device pixels per CSS pixel's 60ths: widen the window
            # by what that rounding took)
            short = self.width - self.run("return innerWidth")
            if short > 0:
                rect = self.client.window_rect
                self.client.set_window_rect(width=rect["width"] + math.ceil(short * self.zoom), height=rect["height"])
        self.until("return document.documentElement.clientWidth === arguments[0]", self.width)

    def run(self, script: str, *arguments: Any) -> Any:
        return self.client.execute_script(script, script_args=list(arguments))

    def find(self, using: str, value: str) -> WebElement:
        found: WebElement = self.client.find_element(using, value)
        return found

    def hold(self, element: Element, milliseconds: int) -> None:
        finger = self.client.actions.sequence("pointer", "finger", {"pointerType": "mouse"})
        finger.pointer_move(0, 0, origin=element)
        finger.pointer_down()
        finger.pause(milliseconds)
        finger.pointer_up()
        finger.perform()

    def screenshot(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(self.client.screenshot(format="binary"))


@contextmanager
def firefox_window(width: int, height: int) -> Iterator[FirefoxPage]:
    """A headless Firefox with a new profile, its window ``width`` × ``height``; closed (and its
    profile removed) after. Without Firefox the test is skipped, except on CI, where that fails."""
    if not FIREFOX.exists():
        reason = f"this test needs Firefox at {FIREFOX} (apt install firefox-esr, or set FABULA_FIREFOX)"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    # Firefox's own log goes to a folder of the test's: the client removes the log file it is
    # given before it starts (os.devnull here once replaced /dev/null with a file).
    logs = Path(tempfile.mkdtemp(prefix="fabula-firefox-"))
    client = Marionette(
        host="127.0.0.1",
        port=free_port(),
        bin=str(FIREFOX),
        headless=True,
        prefs=PREFERENCES,
        startup_timeout=90,
        gecko_log=str(logs / "gecko.log"),
    )
    try:
        client.start_session()
        # Firefox's windows are at least 500 px wide: a narrower phone is the page zoomed in (as a
        # phone's pixel ratio does) until it is ``width`` CSS pixels wide.
        zoom = max(1.0, NARROWEST_WINDOW / width)
        client.set_window_rect(width=round(width * zoom), height=round(height * zoom))
        yield FirefoxPage(client, width, zoom)
    finally:
        profile = client.instance.profile if client.instance is not None else None
        client.cleanup()  # (stops Firefox and removes its profile)
        if profile is not None:
            # Removed already: its finaliser would remove it again at the interpreter's exit, when
            # it can no longer import what that takes, and print a traceback.
            profile.restore = False
        shutil.rmtree(logs, ignore_errors=True)
