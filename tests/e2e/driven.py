"""What the browser tests do with a browser that Playwright cannot drive here (Debian's Firefox
through Marionette, its WebKitGTK through WebDriver): one page, read like Playwright's. Each engine's
module says how its page runs a script and finds, presses and shows an element; the rest is here.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, Protocol

#: Collects the page's uncaught errors, as Chromium's tests do (neither driver has a hook that runs
#: before a page's scripts: this one is added after each navigation).
COLLECT_ERRORS = """
if (!window.fabulaErrors) {
  window.fabulaErrors = [];
  window.addEventListener("error", (event) => window.fabulaErrors.push(String(event.message)));
  window.addEventListener("unhandledrejection", (event) => window.fabulaErrors.push(String(event.reason)));
}
"""


class Element(Protocol):
    """An element as either driver gives it."""

    def click(self) -> None: ...


class DrivenPage(ABC):
    """The one window of a driven browser."""

    @abstractmethod
    def go(self, url: str) -> None:
        """Open ``url`` and wait until the page is as wide as the window is meant to be."""

    @abstractmethod
    def run(self, script: str, *arguments: Any) -> Any:
        """The result of ``script`` (a function body: ``arguments`` are its arguments)."""

    @abstractmethod
    def find(self, using: str, value: str) -> Element:
        """The element WebDriver's locator strategy ``using`` ("css selector", "xpath") finds."""

    @abstractmethod
    def hold(self, element: Element, milliseconds: int) -> None:
        """Press ``element`` with the mouse (pointer events, as a finger sends), hold, release."""

    @abstractmethod
    def screenshot(self, path: Path) -> None: ...

    def errors(self) -> list[str]:
        found: list[str] = self.run("return window.fabulaErrors || []")
        return found

    def wait_for(self, selector: str, timeout: float = 15) -> Element:
        """The first visible element ``selector`` finds, once there is one."""
        self.until(
            "const e = document.querySelector(arguments[0]); return !!e && !!e.offsetParent", selector, timeout=timeout
        )
        return self.find("css selector", selector)

    def until(self, script: str, *arguments: Any, timeout: float = 15) -> Any:
        """Poll ``script`` until it returns something true; that."""
        deadline = time.monotonic() + timeout
        while True:
            result = self.run(script, *arguments)
            if result:
                return result
            assert time.monotonic() < deadline, f"not in {timeout} s: {script}"
            time.sleep(0.05)

    def count(self, selector: str) -> int:
        found: int = self.run("return document.querySelectorAll(arguments[0]).length", selector)
        return found

    def text(self, selector: str) -> str:
        found: str = self.run("return document.querySelector(arguments[0]).innerText", selector)
        return found

    def button(self, label: str, timeout: float = 15) -> Element:
        """The enabled button that reads ``label``, once there is one."""
        there = (
            "return [...document.querySelectorAll('button')]"
            ".some((b) => b.innerText.trim() === arguments[0] && !b.disabled)"
        )
        self.until(there, label, timeout=timeout)
        return self.find("xpath", f"//button[normalize-space()='{label}' and not(@disabled)]")
