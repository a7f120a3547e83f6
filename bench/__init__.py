"""Benchmarks: ``viva bench NAME [--json]``; with --json the last stdout line is JSON."""
