"""Debian's WebKitGTK — Safari's engine: its WebCore, JavaScriptCore and MediaRecorder, which
records AAC in MP4 as Safari does — as one more browser of a browser test, driven through its
WebKitWebDriver with Selenium (Playwright's own WebKit builds cannot be downloaded here). Its
MiniBrowser needs a display: each window gets an Xvfb of its own, stopped with it. WebKit's mock
microphone stands in for one, allowed without asking; audible media waits for a tap, as in Safari.

    with webkit_window(1920, 1080) as tv:
        tv.go(f"{base}/rules")
        tv.wait_for(".rules")
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.webkitgtk.options import Options
from selenium.webdriver.webkitgtk.service import Service

from .driven import COLLECT_ERRORS, DrivenPage, Element

DRIVER = Path(os.environ.get("FABULA_WEBKIT_DRIVER", "/usr/bin/WebKitWebDriver"))
BROWSER_ARGUMENTS = [
    "--automation",
    "--enable-media-stream=true",
    "--enable-mock-capture-devices=true",  # a microphone that plays a tone
    "--autoplay-policy=allow-without-sound",  # Safari's: audible media waits for a tap
]


def mini_browser() -> Path | None:
    """WebKitGTK's MiniBrowser (package libwebkit2gtk-4.1-0), which WebKitWebDriver starts."""
    found = sorted(glob.glob("/usr/lib/*/webkit2gtk-4.*/MiniBrowser"))
    return Path(found[-1]) if found else None


class WebKitPage(DrivenPage):
    """The one window of a WebKitGTK MiniBrowser. Its window is at least some 450 px wide (its
    toolbar's width): ``width`` is what a page gets, known once one is open."""

    def __init__(self, driver: webdriver.WebKitGTK) -> None:
        self.driver = driver
        self.width = 0

    def go(self, url: str) -> None:
        self.driver.get(url)
        self.driver.execute_script(COLLECT_ERRORS)
        self.width = self.run("return document.documentElement.clientWidth")

    def run(self, script: str, *arguments: Any) -> Any:
        return self.driver.execute_script(script, *arguments)

    def find(self, using: str, value: str) -> WebElement:
        return self.driver.find_element(using, value)

    def hold(self, element: Element, milliseconds: int) -> None:
        assert isinstance(element, WebElement)
        ActionChains(self.driver).click_and_hold(element).pause(milliseconds / 1000).release().perform()

    def screenshot(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(self.driver.get_screenshot_as_png())


def required() -> tuple[Path, str]:
    """MiniBrowser and Xvfb, or the test is skipped (on CI: fails) saying what to install."""
    browser, xvfb = mini_browser(), shutil.which("Xvfb")
    if DRIVER.exists() and browser is not None and xvfb is not None:
        return browser, xvfb
    reason = (
        "this test needs WebKitGTK's driver and browser and an X server without a screen "
        "(apt install webkit2gtk-driver xvfb gstreamer1.0-plugins-good gstreamer1.0-libav)"
    )
    if os.environ.get("CI") == "true":
        pytest.fail(reason)
    pytest.skip(reason)


@contextmanager
def virtual_display(xvfb: str, width: int, height: int) -> Iterator[str]:
    """An Xvfb on the first free display (it says which on a pipe), stopped after."""
    readable, writable = os.pipe()
    server = subprocess.Popen(
        [
            xvfb,
            "-displayfd",
            str(writable),
            "-screen",
            "0",
            f"{max(width, 1024)}x{max(height, 768)}x24",
            "-nolisten",
            "tcp",
        ],
        pass_fds=(writable,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(writable)
    try:
        with os.fdopen(readable) as said:
            number = said.readline().strip()
        assert number, "Xvfb did not start"
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(timeout=10)


@contextmanager
def webkit_window(width: int, height: int) -> Iterator[WebKitPage]:
    """A MiniBrowser on a display of its own, its window ``width`` × ``height`` (or as narrow as it
    goes); closed after. Without WebKitGTK the test is skipped, except on CI, where that fails."""
    browser, xvfb = required()
    with virtual_display(xvfb, width, height) as display:
        options = Options()
        options.binary_location = str(browser)
        for argument in [*BROWSER_ARGUMENTS, f"--display={display}"]:
            options.add_argument(argument)
        service = Service(str(DRIVER), env={**os.environ, "DISPLAY": display}, log_output=subprocess.DEVNULL)
        driver = webdriver.WebKitGTK(options=options, service=service)
        try:
            driver.set_window_rect(width=width, height=height)
            yield WebKitPage(driver)
        finally:
            driver.quit()
