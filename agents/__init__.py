"""Viva: agents package."""
