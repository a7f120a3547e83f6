"""Viva: bench package."""
