#!/usr/bin/env python3
"""How much of each rectangle of a PNG screenshot is near each named colour.

usage: png_colors.py FILE.png NAME=x,y,w,h ... COLOUR=rrggbb ...
prints one JSON object: {rectangle: {colour: fraction of its pixels within 40 of it on every channel}}.
Reads 8-bit RGB and RGBA PNGs (what Chromium writes) with the standard library only.
"""
import json
import struct
import sys
import zlib


def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"{path} is not a PNG")
    offset, idat, width, height, channels = 8, b"", 0, 0, 0
    while offset < len(data):
        length, kind = struct.unpack(">I4s", data[offset:offset + 8])
        body = data[offset + 8:offset + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            if depth != 8 or colour not in (2, 6):
                raise SystemExit(f"unsupported PNG: depth {depth}, colour type {colour}")
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        offset += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        rows.append(line)
        previous = line
    return width, height, channels, rows


def main():
    path, arguments = sys.argv[1], sys.argv[2:]
    rectangles = {k: [int(float(v)) for v in value.split(",")] for k, value in (a.split("=") for a in arguments) if "," in value}
    colours = {k: bytes.fromhex(value) for k, value in (a.split("=") for a in arguments) if "," not in value}
    width, height, channels, rows = read_png(path)
    result = {}
    for name, (x, y, w, h) in rectangles.items():
        x0, y0, x1, y1 = max(0, x), max(0, y), min(width, x + w), min(height, y + h)
        counts, total = {c: 0 for c in colours}, max(1, (x1 - x0) * (y1 - y0))
        for row in rows[y0:y1]:
            for px in range(x0, x1):
                pixel = row[px * channels:px * channels + 3]
                for colour, rgb in colours.items():
                    if all(abs(pixel[i] - rgb[i]) <= 40 for i in range(3)):
                        counts[colour] += 1
        result[name] = {c: round(n / total, 4) for c, n in counts.items()}
    print(json.dumps(result))


main()
