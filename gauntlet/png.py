"""A line chart as a PNG, in pure Python (zlib + struct): the Gauntlet's
learning curve as a file, with no imaging library to install."""

from __future__ import annotations

import itertools
import struct
import zlib
from collections.abc import Sequence
from pathlib import Path

Color = tuple[int, int, int]
INK: Color = (29, 39, 51)
LINE: Color = (47, 111, 176)
GRID: Color = (213, 219, 225)
TOKENS: Color = (194, 87, 26)

# 3x5 digits, for the axis labels.
DIGITS = {
    "0": "111101101101111", "1": "010110010010111", "2": "111001111100111",
    "3": "111001111001111", "4": "101101111001001", "5": "111100111001111",
    "6": "111100111101111", "7": "111001001001001", "8": "111101111101111",
    "9": "111101111001111",
}  # fmt: skip


class Canvas:
    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.pixels = [[(255, 255, 255)] * width for _ in range(height)]

    def dot(self, x: int, y: int, color: Color, size: int = 1) -> None:
        for dy in range(-(size // 2), size - size // 2):
            for dx in range(-(size // 2), size - size // 2):
                if 0 <= x + dx < self.width and 0 <= y + dy < self.height:
                    self.pixels[y + dy][x + dx] = color

    def line(self, a: tuple[int, int], b: tuple[int, int], color: Color, size: int = 1) -> None:
        (x0, y0), (x1, y1) = a, b
        steps = max(abs(x1 - x0), abs(y1 - y0), 1)
        for i in range(steps + 1):
            self.dot(round(x0 + (x1 - x0) * i / steps), round(y0 + (y1 - y0) * i / steps),
                     color, size)  # fmt: skip

    def number(self, x: int, y: int, text: str, scale: int = 2) -> None:
        for n, char in enumerate(text):
            for i, bit in enumerate(DIGITS.get(char, "0" * 15)):
                if bit == "1":
                    self.dot(x + (n * 4 + i % 3) * scale, y + (i // 3) * scale, INK, scale)

    def png(self) -> bytes:
        raw = b"".join(b"\x00" + bytes(c for pixel in row for c in pixel) for row in self.pixels)

        def chunk(kind: bytes, data: bytes) -> bytes:
            body = kind + data
            return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

        header = struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0)
        return (
            b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
        )  # fmt: skip


def line_chart_png(
    values: Sequence[float],
    path: Path,
    width: int = 480,
    height: int = 240,
    tokens: Sequence[float] | None = None,
) -> Path:
    """Steps per generation (blue): x = generation 1…n, y from 0 to the
    maximum; ``tokens`` per generation (orange, thinner) on a scale of its
    own, its maximum written on the right."""
    canvas = Canvas(width, height)
    left, right, top, bottom = 40, width - 20, 20, height - 30
    peak = max(max(values, default=1), 1)
    canvas.line((left, bottom), (right, bottom), INK)
    canvas.line((left, top), (left, bottom), INK)
    canvas.line((left, top), (right, top), GRID)
    canvas.number(6, top - 4, str(round(peak)))
    canvas.number(6, bottom - 8, "0")
    step = (right - left) / max(len(values) - 1, 1)
    points = [
        (round(left + i * step), round(bottom - (bottom - top) * v / peak))
        for i, v in enumerate(values)
    ]
    if tokens:
        most = max(max(tokens), 1)
        canvas.number(right - 20, top - 14, str(round(most)))
        spent = [
            (round(left + i * step), round(bottom - (bottom - top) * t / most))
            for i, t in enumerate(tokens)
        ]
        for a, b in itertools.pairwise(spent):
            canvas.line(a, b, TOKENS, 2)
        for x, y in spent:
            canvas.dot(x, y, TOKENS, 5)
    for a, b in itertools.pairwise(points):
        canvas.line(a, b, LINE, 3)
    for i, (x, y) in enumerate(points):
        canvas.dot(x, y, LINE, 7)
        canvas.number(x - 3, bottom + 8, str(i + 1))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(canvas.png())
    return path
