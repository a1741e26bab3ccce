"""Shared test helpers: where the copied corpus samples live."""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).parent / "data"
