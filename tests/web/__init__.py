"""Tests of the browser client package (static files, replay steps)."""
