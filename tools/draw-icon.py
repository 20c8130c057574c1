#!/usr/bin/env python3
"""Draws the app's icon (issue 45) as assets/agui-replay.svg and
assets/agui-replay.png (256x256), from one list of shapes, with nothing but
Python's standard library: a dark rounded square, a play triangle, and under
it a timeline with three events and the cursor on the second.

    tools/draw-icon.py [OUT_DIR]    (default: assets/ of this checkout)

The output is the same on every run; the files are committed, and the app
(window icon) and `agui-replay desktop install` embed them.
"""

import math
import os
import struct
import sys
import zlib

SIZE = 256
# Samples per pixel along each axis (anti-aliasing).
SUPER = 4

BACKGROUND = "#1e293b"
PLAY = "#38bdf8"
TRACK = "#64748b"
EVENT = "#f59e0b"
CURSOR = "#f8fafc"

# (kind, colour, geometry) in a 256-unit square, drawn in order.
SHAPES = [
    ("rrect", BACKGROUND, (16, 16, 240, 240, 52)),
    ("poly", PLAY, ((96, 58), (96, 158), (180, 108))),
    ("rrect", TRACK, (52, 190, 204, 202, 6)),
    ("circle", EVENT, (76, 196, 11)),
    ("circle", EVENT, (180, 196, 11)),
    ("rrect", CURSOR, (122, 174, 134, 218, 6)),
]


def rgb(colour):
    return tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))


def inside(kind, geometry, x, y):
    if kind == "circle":
        cx, cy, r = geometry
        return (x - cx) ** 2 + (y - cy) ** 2 <= r * r
    if kind == "rrect":
        x0, y0, x1, y1, r = geometry
        if not (x0 <= x <= x1 and y0 <= y <= y1):
            return False
        # The distance to the inner rectangle the corners are rounded from.
        dx = max(x0 + r - x, 0, x - (x1 - r))
        dy = max(y0 + r - y, 0, y - (y1 - r))
        return dx * dx + dy * dy <= r * r
    if kind == "poly":
        points = geometry
        sign = None
        for (ax, ay), (bx, by) in zip(points, points[1:] + points[:1]):
            cross = (bx - ax) * (y - ay) - (by - ay) * (x - ax)
            if cross != 0:
                if sign is None:
                    sign = cross > 0
                elif (cross > 0) != sign:
                    return False
        return True
    raise ValueError(kind)


def bounds(kind, geometry):
    if kind == "circle":
        cx, cy, r = geometry
        return cx - r, cy - r, cx + r, cy + r
    if kind == "rrect":
        return geometry[:4]
    xs = [p[0] for p in geometry]
    ys = [p[1] for p in geometry]
    return min(xs), min(ys), max(xs), max(ys)


def raster():
    """RGBA rows, premultiplied by coverage and composited in order."""
    pixels = [[(0.0, 0.0, 0.0, 0.0)] * SIZE for _ in range(SIZE)]
    step = 1.0 / SUPER
    offsets = [(i + 0.5) * step for i in range(SUPER)]
    for kind, colour, geometry in SHAPES:
        r, g, b = rgb(colour)
        x0, y0, x1, y1 = bounds(kind, geometry)
        for py in range(max(0, math.floor(y0)), min(SIZE, math.ceil(y1) + 1)):
            row = pixels[py]
            for px in range(max(0, math.floor(x0)), min(SIZE, math.ceil(x1) + 1)):
                hits = sum(
                    inside(kind, geometry, px + ox, py + oy)
                    for oy in offsets
                    for ox in offsets
                )
                if not hits:
                    continue
                a = hits / (SUPER * SUPER)
                pr, pg, pb, pa = row[px]
                # "Over", in premultiplied colour.
                row[px] = (
                    r * a + pr * (1 - a),
                    g * a + pg * (1 - a),
                    b * a + pb * (1 - a),
                    a + pa * (1 - a),
                )
    out = []
    for row in pixels:
        line = bytearray()
        for pr, pg, pb, pa in row:
            if pa == 0:
                line += b"\0\0\0\0"
            else:
                line += bytes(
                    round(min(255, c / pa)) for c in (pr, pg, pb)
                ) + bytes([round(pa * 255)])
        out.append(bytes(line))
    return out


def png(rows):
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", SIZE, SIZE, 8, 6, 0, 0, 0)
    raw = b"".join(b"\0" + row for row in rows)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


def svg():
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{SIZE}" height="{SIZE}" '
        f'viewBox="0 0 {SIZE} {SIZE}">',
        "  <title>agui-replay</title>",
    ]
    for kind, colour, geometry in SHAPES:
        if kind == "circle":
            cx, cy, r = geometry
            parts.append(f'  <circle cx="{cx}" cy="{cy}" r="{r}" fill="{colour}"/>')
        elif kind == "rrect":
            x0, y0, x1, y1, r = geometry
            parts.append(
                f'  <rect x="{x0}" y="{y0}" width="{x1 - x0}" height="{y1 - y0}" '
                f'rx="{r}" fill="{colour}"/>'
            )
        else:
            points = " ".join(f"{x},{y}" for x, y in geometry)
            parts.append(f'  <polygon points="{points}" fill="{colour}"/>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def main():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "assets")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "agui-replay.svg"), "w", encoding="utf-8") as f:
        f.write(svg())
    with open(os.path.join(out, "agui-replay.png"), "wb") as f:
        f.write(png(raster()))


if __name__ == "__main__":
    main()
