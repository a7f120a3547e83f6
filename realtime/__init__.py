"""Viva: realtime package."""
