"""Viva: judge package."""
