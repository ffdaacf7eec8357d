"""Browser tests: Playwright driving Debian's Chromium against `slapjack serve`."""
