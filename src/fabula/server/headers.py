"""The security headers on every HTTP answer, as a careful operator would set them in front of the
table: set here once, so that a deployment without a proxy that adds them has them too.

- **Content-Security-Policy**: the client is Fabula's own files only — its scripts (no inline
  script, no ``eval``), its style sheet, its pictures (cards, QR codes), its WebSocket (``'self'``
  covers ``ws:``/``wss:`` to the same host) — and no other site may frame it (``frame-ancestors``:
  a table cannot be dressed up inside someone else's page to steal taps).
- **Referrer-Policy: no-referrer**: room codes, seat tokens in links, deck and album links never
  leave in a Referer.
- **X-Content-Type-Options: nosniff**: an uploaded picture or a JSON answer is never run as a script.
- **Permissions-Policy**: none of the powerful features the table does not use (the microphone
  only for its own pages: a storyteller records a sound as the clue).

>>> "frame-ancestors 'none'" in CONTENT_SECURITY_POLICY
True
"""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self'",
        "connect-src 'self'",
        # blob: the storyteller listens back to a recorded clue before sending it
        "media-src 'self' blob:",
        "font-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)

#: Only features Chromium knows (an unknown one is a warning on every page's console: Chromium 156
#: knows no `bluetooth`). The microphone for the table's own pages alone: a storyteller records a
#: sound as the clue.
PERMISSIONS_POLICY = "microphone=(self), " + ", ".join(
    f"{feature}=()"
    for feature in (
        "camera",
        "geolocation",
        "payment",
        "usb",
        "serial",
        "hid",
        "midi",
        "display-capture",
        "browsing-topics",
    )
)

HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Permissions-Policy": PERMISSIONS_POLICY,
    # frame-ancestors' forerunner, for browsers older than CSP 2
    "X-Frame-Options": "DENY",
    # a page this one opens (a shared album link) cannot reach back into the table's window
    "Cross-Origin-Opener-Policy": "same-origin",
}


class SecurityHeaders:
    """ASGI middleware: `HEADERS` on every HTTP response (a route's own value of one wins)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in HEADERS.items():
                    headers.setdefault(name, value)
            await send(message)

        await self.app(scope, receive, send_with_headers)
