"""Browser app tests: build checks, node unit tests, and real-Chromium tests."""
