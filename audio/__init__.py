"""Viva: audio package."""
