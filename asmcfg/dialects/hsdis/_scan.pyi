def scan(texts: list[str], start: int, first: int, instructions: list[object], comments: dict[int, list[str]]) -> int:
    """Read the instruction and comment lines from `start` on; the index of the first line left to Python."""
