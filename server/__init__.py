"""Viva: server package."""
