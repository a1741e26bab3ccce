"""Figures derived from an analysis for the renderers: counts, the report rows, heat per loop and block."""
