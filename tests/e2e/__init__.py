"""Browser tests: real Chromium pages (Playwright, sync API) against a live server."""
