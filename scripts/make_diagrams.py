#!/usr/bin/env python3
"""Draws the documentation's diagrams as SVG files (pure Python: no GPU, no plotting library).

  tile-transpose.svg  A 32 x 32 tile on its way through shared memory (step 03): which warp
                      reads which input row, where it lands in the shared tile, which tile
                      column a warp reads back, and which output row it writes.
  block-order.svg     The tile each block of a 5 x 3 grid moves in row order, diagonal order
                      (y = b mod gy, x = (b / gy + y) mod gx) and column order (step 08).
  block-walks.svg     The walk of consecutive blocks over the input tiles and over the output
                      tiles, in row order and in column order.
  grid-blocks.svg     A grid of 4 blocks of 32 x 2 threads (step 01's example launch): each
                      block's two warps, and the numbers a thread is given.
  all-to-all.svg      A 7 x 10 matrix spread by rows over 3 GPUs and its 10 x 7 transpose
                      spread the same way (step 18): the block each GPU sends each other, and
                      where it lands.
  warp-sectors.svg    One warp of step 02: its access to 32 neighbours along a row (4 sectors
                      of 32 bytes, all used) against its access to 32 elements down a column
                      (32 sectors, an eighth of each used).

Usage: scripts/make_diagrams.py [--out DIR]     (default: docs/images next to this script)
       scripts/make_diagrams.py --print NAME    one diagram on standard output

The output is deterministic: running it twice gives the same bytes, so the committed SVGs
only change when the drawing code does.
"""
import argparse
import os
import sys
from xml.sax.saxutils import escape

FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"
MONO = "DejaVu Sans Mono, Menlo, Consolas, monospace"
INK = "#222222"
GRID = "#ffffff"
MUTED = "#666666"
ACCENT = "#d62728"   # the warp we follow
ACCENT2 = "#1f4e9c"  # a second warp, for contrast
MAX_WIDTH = 900      # displayed width limit, pixels


class Svg:
    """A minimal SVG writer: shapes and text appended in drawing order."""

    def __init__(self, width, height, title):
        self.width, self.height, self.title = width, height, title
        self.items = []

    def add(self, s):
        self.items.append(s)

    def rect(self, x, y, w, h, fill, stroke="none", sw=0, extra=""):
        self.add(f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" fill="{fill}" '
                 f'stroke="{stroke}" stroke-width="{sw:g}"{extra}/>')

    def line(self, x1, y1, x2, y2, stroke=INK, sw=1, extra=""):
        self.add(f'<line x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}" stroke="{stroke}" '
                 f'stroke-width="{sw:g}"{extra}/>')

    def text(self, x, y, s, size=13, anchor="start", fill=INK, weight="normal", family=FONT):
        self.add(f'<text x="{x:g}" y="{y:g}" font-family="{family}" font-size="{size:g}" '
                 f'text-anchor="{anchor}" fill="{fill}" font-weight="{weight}">{escape(s)}</text>')

    def polyline(self, pts, stroke, sw=2, extra=""):
        p = " ".join(f"{x:g},{y:g}" for x, y in pts)
        self.add(f'<polyline points="{p}" fill="none" stroke="{stroke}" stroke-width="{sw:g}" '
                 f'stroke-linejoin="round"{extra}/>')

    def render(self):
        # Drawn in its own units (the viewBox), displayed at most MAX_WIDTH pixels wide so
        # that it fits the documentation's content column beside the navigation tree.
        scale = min(1.0, MAX_WIDTH / self.width)
        shown_w, shown_h = round(self.width * scale), round(self.height * scale)
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{shown_w}" '
                f'height="{shown_h}" viewBox="0 0 {self.width} {self.height}">\n'
                f'<title>{escape(self.title)}</title>\n'
                '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" '
                'markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
                f'<path d="M0,0 L10,5 L0,10 z" fill="{INK}"/></marker>'
                '<marker id="arrow-accent" viewBox="0 0 10 10" refX="9" refY="5" '
                'markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
                f'<path d="M0,0 L10,5 L0,10 z" fill="{ACCENT}"/></marker></defs>\n'
                f'<rect width="100%" height="100%" fill="#ffffff"/>\n')
        return head + "\n".join(self.items) + "\n</svg>\n"


def hsl(h, s=0.55, l=0.72):
    """#rrggbb from hue in [0, 1), saturation and lightness (standard HSL)."""
    def f(n):
        k = (n + h * 12) % 12
        a = s * min(l, 1 - l)
        return l - a * max(-1, min(k - 3, 9 - k, 1))
    return "#" + "".join(f"{round(255 * f(n)):02x}" for n in (0, 8, 4))


def column_colour(c, n=32):
    """The colour of input tile column c (a hue wheel over the columns)."""
    return hsl((c / n) * 0.85)


# --- tile-transpose.svg -------------------------------------------------------------------

def tile_transpose():
    n, cell = 32, 7
    side = n * cell
    top, left, gap = 70, 40, 112
    width = left * 2 + 3 * side + 2 * gap
    height = top + side + 165
    svg = Svg(width, height, "A 32 x 32 tile transposed through shared memory")
    panels = [left, left + side + gap, left + 2 * (side + gap)]
    titles = ["input tile (global memory)", "tile in shared memory", "output tile (global memory)"]
    subtitles = ["element (r, c) coloured by its column c",
                 "stored row by row: tile[r][c] = in(r, c)",
                 "out(r, c) = in(c, r): rows of one colour"]
    for x0, t, st in zip(panels, titles, subtitles):
        svg.text(x0 + side / 2, 30, t, size=15, anchor="middle", weight="bold")
        svg.text(x0 + side / 2, 50, st, size=12, anchor="middle", fill=MUTED)

    # Input and shared tile: colour by input column. Output: out(r, c) = in(c, r), whose
    # input column is r: rows of one colour.
    for r in range(n):
        for c in range(n):
            for p, colour in ((0, column_colour(c)), (1, column_colour(c)),
                              (2, column_colour(r))):
                svg.rect(panels[p] + c * cell, top + r * cell, cell, cell, colour, GRID, 0.5)
    for x0 in panels:
        svg.rect(x0, top, side, side, "none", INK, 1.2)

    # Warp 0 (threadIdx.y = 0) and warp 1: load rows 0 and 1, store them as shared rows 0 and
    # 1; read shared columns 0 and 1; store output rows 0 and 1.
    for w, colour in ((0, ACCENT), (1, ACCENT2)):
        y = top + w * cell
        svg.rect(panels[0], y, side, cell, "none", colour, 2)
        svg.rect(panels[1], y, side, cell, "none", colour, 2)
        svg.rect(panels[1] + w * cell, top, cell, side, "none", colour, 2.5,
                 ' stroke-dasharray="5,3"')
        svg.rect(panels[2], y, side, cell, "none", colour, 2)
        for x0 in (panels[0], panels[2]):
            svg.text(x0 - 4, y + cell - 1, f"warp {w}", size=9, anchor="end", fill=colour)
        svg.text(panels[1] + w * cell + cell / 2, top + side + 14 + 12 * w, f"warp {w}",
                 size=9, anchor="start" if w else "end", fill=colour)

    # Lane labels on warp 0's load.
    svg.text(panels[0], top - 6, "lane 0", size=10, fill=ACCENT)
    svg.text(panels[0] + side, top - 6, "lane 31", size=10, anchor="end", fill=ACCENT)
    # Arrows between panels.
    mid = top + side / 2
    for a, b, label in ((0, 1, "load"), (1, 2, "store")):
        x1, x2 = panels[a] + side + 10, panels[b] - 10
        svg.line(x1, mid, x2, mid, INK, 1.5, ' marker-end="url(#arrow)"')
        svg.text((x1 + x2) / 2, mid - 22, label, size=12, anchor="middle", weight="bold")
        svg.text((x1 + x2) / 2, mid - 8, "coalesced", size=11, anchor="middle")
        if b == 2:
            svg.text((x1 + x2) / 2, mid + 18, "after", size=11, anchor="middle", fill=MUTED)
            svg.text((x1 + x2) / 2, mid + 32, "__syncthreads()", size=10, anchor="middle",
                     family=MONO, fill=MUTED)

    notes = [
        ("Block of 32 x 32 threads; warp w is the 32 threads with threadIdx.y = w, lane = "
         "threadIdx.x.", INK),
        ("Warp 0 (red) loads input row 0: lane x reads in(0, x), 32 consecutive elements, "
         "and stores them in shared row 0.", ACCENT),
        ("After the barrier, warp 0 reads shared column 0 (dashed): lane x reads tile[x][0], "
         "input column 0 ...", ACCENT),
        ("... and writes it as output row 0: 32 consecutive elements again. Warp 1 (blue) "
         "does the same with row and column 1.", ACCENT2),
        ("Both global sides are coalesced; the transpose happens in the column read of "
         "shared memory (see the bank page).", INK),
    ]
    for i, (s, colour) in enumerate(notes):
        svg.text(left, top + side + 52 + 22 * i, s, size=12.5, fill=colour)
    return svg.render()


# --- grid-blocks.svg ----------------------------------------------------------------------

def grid_blocks():
    blocks, tx, ty, cell = 4, 32, 2, 7
    bw, bh, gap, left, top = tx * cell, ty * cell, 26, 30, 84
    width = left * 2 + blocks * bw + (blocks - 1) * gap
    height = top + bh + 150
    svg = Svg(width, height, "A grid of 4 blocks of 32 x 2 threads")
    svg.text(width / 2, 28, "hello<<<dim3(4), dim3(32, 2)>>>(): a grid of 4 blocks of 32 x 2 "
             "threads", size=15, anchor="middle", weight="bold")
    svg.text(width / 2, 50, "every thread runs the same kernel; blockIdx and threadIdx tell "
             "them apart", size=12, anchor="middle", fill=MUTED)
    for b in range(blocks):
        x0 = left + b * (bw + gap)
        svg.text(x0 + bw / 2, top - 10, f"blockIdx.x = {b}", size=12, anchor="middle",
                 weight="bold")
        for y in range(ty):
            colour = hsl((b * ty + y) / (blocks * ty) * 0.85)
            for x in range(tx):
                svg.rect(x0 + x * cell, top + y * cell, cell, cell, colour, GRID, 0.5)
            svg.text(x0 + bw / 2, top + bh + 16 + 14 * y, f"warp {y}: threadIdx.y = {y}",
                     size=10.5, anchor="middle", fill=MUTED)
        svg.rect(x0, top, bw, bh, "none", INK, 1.2)
    # One thread followed: block 2, thread (5, 1).
    b, x, y = 2, 5, 1
    x0 = left + b * (bw + gap)
    svg.rect(x0 + x * cell, top + y * cell, cell, cell, "none", ACCENT, 2.5)
    notes = [
        ("Each block is 32 x 2 threads; the 32 threads with one threadIdx.y form a warp, "
         "which issues each instruction for all 32 at once.", INK),
        (f"The outlined thread has threadIdx = ({x}, {y}) and blockIdx.x = {b}: it is thread "
         f"{y * 32 + x} of its block and thread {b * 64 + y * 32 + x} of the grid", ACCENT),
        ("(blockIdx.x * 64 + threadIdx.y * 32 + threadIdx.x).", ACCENT),
        ("Blocks run in any order, on any SM, and cannot wait for each other: the order of "
         "the printed lines is not fixed.", INK),
    ]
    for i, (t, colour) in enumerate(notes):
        svg.text(left, top + bh + 62 + 22 * i, t, size=12.5, fill=colour)
    return svg.render()


# --- warp-sectors.svg ---------------------------------------------------------------------

def warp_sectors():
    lanes, per_sector, cell = 32, 8, 14          # 8 floats (32 bytes) a sector
    left, top, gap = 40, 80, 90
    row_w = lanes * cell
    col_w = per_sector * cell
    width = left * 2 + row_w + gap + col_w + 240
    height = top + lanes * (cell + 2) + 120
    svg = Svg(width, height, "Step 02: the sectors of one warp's access along a row and down "
              "a column")
    svg.text(left + row_w / 2, 30, "along a row: 32 neighbours", size=15,
             anchor="middle", weight="bold")
    svg.text(left + row_w / 2, 50, "4 sectors of 32 bytes, every byte used", size=12,
             anchor="middle", fill=MUTED)
    for lane in range(lanes):
        svg.rect(left + lane * cell, top, cell, cell, column_colour(lane), GRID, 0.5)
    for k in range(lanes // per_sector):
        svg.rect(left + k * col_w, top, col_w, cell, "none", INK, 1.5)
        svg.text(left + k * col_w + col_w / 2, top + cell + 16, f"sector {k}", size=11,
                 anchor="middle")
    svg.text(left, top - 6, "lane 0", size=10, fill=ACCENT)
    svg.text(left + row_w, top - 6, "lane 31", size=10, anchor="end", fill=ACCENT)
    svg.text(left, top + cell + 48, "128 bytes asked for, 128 bytes of sectors touched",
             size=12.5)

    x0 = left + row_w + gap
    svg.text(x0 + col_w / 2 + 100, 30, "down a column: 32 elements, one a row", size=15,
             anchor="middle", weight="bold")
    svg.text(x0 + col_w / 2 + 100, 50, "one sector an element: 32 sectors, 4 of 32 bytes "
             "used in each", size=12, anchor="middle", fill=MUTED)
    for lane in range(lanes):
        y = top + lane * (cell + 2)
        for k in range(per_sector):
            fill = column_colour(lane) if k == 0 else "#eeeeee"
            svg.rect(x0 + k * cell, y, cell, cell, fill, GRID, 0.5)
        svg.rect(x0, y, col_w, cell, "none", INK, 1)
        if lane in (0, 1, 31):
            svg.text(x0 + col_w + 8, y + cell - 3, f"lane {lane}: row {lane}, its own sector",
                     size=10.5, fill=MUTED)
    svg.text(x0 + col_w + 8, top + 15 * (cell + 2) + cell - 3, "...", size=12, fill=MUTED)
    svg.text(x0, top + lanes * (cell + 2) + 24, "128 bytes asked for, 1,024 bytes of sectors "
             "touched", size=12.5)
    svg.text(left, top + lanes * (cell + 2) + 60, "Step 02 gives a warp 32 neighbouring "
             "elements of one matrix and the same 32 elements' places in the other: one side "
             "is along a row,", size=12.5)
    svg.text(left, top + lanes * (cell + 2) + 80, "4 sectors; the other down a column, 4 "
             "bytes in each of 32 sectors (grey: the bytes of a sector this warp does not "
             "use).", size=12.5)
    return svg.render()


# --- block-order.svg ----------------------------------------------------------------------

def order_row(b, gx, gy):
    return b % gx, b // gx


def order_diagonal(b, gx, gy):
    y = b % gy
    return (b // gy + y) % gx, y


def order_column(b, gx, gy):
    return b // gy, b % gy


def block_order():
    gx, gy, cell = 5, 3, 54
    gw, gh = gx * cell, gy * cell
    left, top, gap = 30, 92, 60
    running = gx  # blocks that run "together" in the picture: the first gx ones
    width = left * 2 + 3 * gw + 2 * gap
    height = top + gh + 150
    svg = Svg(width, height, "Which tile each block of a 5 x 3 grid moves, in three orders")
    orders = [
        ("row order", "tile (x, y) = (b mod gx, b / gx)", order_row),
        ("diagonal order", "y = b mod gy,  x = (b / gy + y) mod gx", order_diagonal),
        ("column order", "tile (x, y) = (b / gy, b mod gy)", order_column),
    ]
    for i, (name, formula, fn) in enumerate(orders):
        x0 = left + i * (gw + gap)
        svg.text(x0 + gw / 2, 32, name, size=16, anchor="middle", weight="bold")
        svg.text(x0 + gw / 2, 54, formula, size=12, anchor="middle", family=MONO)
        for c in range(gx):
            svg.text(x0 + c * cell + cell / 2, top - 8, f"x={c}", size=10, anchor="middle",
                     fill=MUTED)
        for r in range(gy):
            svg.text(x0 - 6, top + r * cell + cell / 2 + 4, f"y={r}", size=10, anchor="end",
                     fill=MUTED)
        seen = set()
        for b in range(gx * gy):
            tx, ty = fn(b, gx, gy)
            assert 0 <= tx < gx and 0 <= ty < gy and (tx, ty) not in seen, (name, b)
            seen.add((tx, ty))
            fill = "#f4a582" if b < running else "#e8eef7"
            svg.rect(x0 + tx * cell, top + ty * cell, cell, cell, fill, INK, 1)
            svg.text(x0 + tx * cell + cell / 2, top + ty * cell + cell / 2 + 6, str(b), size=17,
                     anchor="middle", weight="bold" if b < running else "normal")
    notes = [
        f"Grid of gx x gy = {gx} x {gy} tiles of the input; the number in a tile is the linear "
        "block number b = blockIdx.x + gx * blockIdx.y",
        "of the block that moves it. Blocks start roughly in the order of b: the shaded tiles "
        f"are the first {running} blocks, which run together.",
        "Row order: they read one band of input rows and write one band of output columns. "
        "Diagonal order: they are spread along a diagonal",
        "of tiles, so their reads and writes fall in different address ranges. Column order: "
        "they write neighbouring pieces of the same output rows.",
        "All three are one-to-one for any grid, square or not (each tile is moved exactly "
        "once); the diagonal formula inverts as b / gy = (x - y) mod gx.",
    ]
    for i, s in enumerate(notes):
        svg.text(left, top + gh + 36 + 21 * i, s, size=12)
    return svg.render()


# --- block-walks.svg ----------------------------------------------------------------------

def block_walks():
    gx, gy, cell = 5, 3, 40
    left, top = 40, 100
    in_w, in_h = gx * cell, gy * cell      # input: gy tile rows, gx tile columns
    out_w, out_h = gy * cell, gx * cell    # output: transposed
    pair_gap, panel_gap = 70, 90
    panel_w = in_w + pair_gap + out_w
    width = left * 2 + 2 * panel_w + panel_gap
    height = top + out_h + 130
    svg = Svg(width, height, "Row-order and column-order block walks over input and output")
    walks = [("row order", order_row), ("column order", order_column)]
    for i, (name, fn) in enumerate(walks):
        x0 = left + i * (panel_w + panel_gap)
        xo = x0 + in_w + pair_gap
        svg.text(x0 + panel_w / 2, 30, name, size=16, anchor="middle", weight="bold")
        svg.text(x0 + in_w / 2, top - 14, "input tiles (reads)", size=12, anchor="middle")
        svg.text(xo + out_w / 2, top - 14, "output tiles (writes)", size=12, anchor="middle")
        for r in range(gy):
            for c in range(gx):
                svg.rect(x0 + c * cell, top + r * cell, cell, cell, "#eef2f8", INK, 1)
        for r in range(gx):
            for c in range(gy):
                svg.rect(xo + c * cell, top + r * cell, cell, cell, "#eef2f8", INK, 1)
        in_pts, out_pts = [], []
        for b in range(gx * gy):
            tx, ty = fn(b, gx, gy)
            # Input tile (tx, ty) is output tile (ty, tx): column ty, row tx of the output.
            ci = (x0 + tx * cell + cell / 2, top + ty * cell + cell / 2)
            co = (xo + ty * cell + cell / 2, top + tx * cell + cell / 2)
            in_pts.append(ci)
            out_pts.append(co)
            for (px, py) in (ci, co):
                svg.text(px + cell / 2 - 3, py - cell / 2 + 11, str(b), size=9, anchor="end",
                         fill=MUTED)
        svg.polyline(in_pts, ACCENT, 2, ' marker-end="url(#arrow-accent)" opacity="0.85"')
        svg.polyline(out_pts, ACCENT, 2, ' marker-end="url(#arrow-accent)" opacity="0.85"')
        for pts in (in_pts, out_pts):
            svg.add(f'<circle cx="{pts[0][0]:g}" cy="{pts[0][1]:g}" r="4" fill="{ACCENT}"/>')
        svg.text(x0 + panel_w / 2, 52, "blocks b = 0, 1, 2, ... in launch order; small numbers "
                 "give b", size=11, anchor="middle", fill=MUTED)
    notes = [
        "Row order: consecutive blocks walk along a row of input tiles (reads of the same input "
        "rows) and down a column of output tiles:",
        "their writes land at the same column offset of many different output rows.",
        "Column order: consecutive blocks walk down a column of input tiles and along a row of "
        "output tiles: their writes are neighbouring",
        "pieces of the same output rows, which matters when an output row does not start on a "
        "32-byte sector (the pieces share sectors).",
    ]
    for i, s in enumerate(notes):
        svg.text(left, top + out_h + 34 + 21 * i, s, size=12)
    return svg.render()


# --- all-to-all.svg -----------------------------------------------------------------------

def split(rows, parts):
    """[(first, count)] of each part: step 18's Split (steps/18-all-to-all/plan.hpp), the first
    rows % parts parts one row longer."""
    base, extra = divmod(rows, parts)
    return [(p * base + min(p, extra), base + (1 if p < extra else 0)) for p in range(parts)]


def all_to_all():
    m, n, gpus, cell = 7, 10, 3, 30
    ins, outs = split(m, gpus), split(n, gpus)  # input rows, output rows (input columns)
    hue = [hsl(h, 0.55, 0.75) for h in (0.58, 0.08, 0.33)]
    left, top, gap = 90, 84, 150
    width, height = left + n * cell + gap + m * cell + 60, top + n * cell + 120
    svg = Svg(width, height, "A 7 x 10 matrix over 3 GPUs, transposed by an all-to-all")
    x_out = left + n * cell + gap
    svg.text(left + n * cell / 2, 30, f"input, {m} x {n}: rows split over {gpus} GPUs",
             size=15, anchor="middle", weight="bold")
    svg.text(x_out + m * cell / 2, 30, f"output, {n} x {m}: split the same way", size=15,
             anchor="middle", weight="bold")
    svg.text(left + n * cell / 2, 52, "colour: the GPU that holds the input row", size=12,
             anchor="middle", fill=MUTED)
    svg.text(x_out + m * cell / 2, 52, "blocks from each GPU, transposed", size=12,
             anchor="middle", fill=MUTED)
    for f, (r0, rc) in enumerate(ins):  # the input: slab f, cut where the output rows split
        for r in range(r0, r0 + rc):
            for c in range(n):
                svg.rect(left + c * cell, top + r * cell, cell, cell, hue[f], GRID, 1)
        svg.text(left - 10, top + (r0 + rc / 2) * cell + 5, f"GPU {f}", size=13, anchor="end",
                 weight="bold")
    for q, (c0, cc) in enumerate(outs):
        svg.text(left + (c0 + cc / 2) * cell, top - 8, f"to GPU {q}", size=12, anchor="middle")
        svg.rect(left + c0 * cell, top, cc * cell, m * cell, "none", INK, 1.5)
    for f, (r0, rc) in enumerate(ins):
        svg.line(left, top + r0 * cell, left + n * cell, top + r0 * cell, INK, 2.5)
    for q, (c0, cc) in enumerate(outs):  # the output: GPU q's rows, a block from each GPU
        for f, (r0, rc) in enumerate(ins):
            for c in range(c0, c0 + cc):
                for r in range(r0, r0 + rc):
                    svg.rect(x_out + r * cell, top + c * cell, cell, cell, hue[f], GRID, 1)
            svg.rect(x_out + r0 * cell, top + c0 * cell, rc * cell, cc * cell, "none", INK, 1.5)
        svg.line(x_out, top + c0 * cell, x_out + m * cell, top + c0 * cell, INK, 2.5)
        svg.text(x_out + m * cell + 10, top + (c0 + cc / 2) * cell + 5, f"GPU {q}", size=13,
                 weight="bold")
    f, q = 0, 1  # one block followed: GPU 0's rows, GPU 1's columns
    (r0, rc), (c0, cc) = ins[f], outs[q]
    svg.rect(left + c0 * cell, top + r0 * cell, cc * cell, rc * cell, "none", ACCENT, 3.5)
    svg.rect(x_out + r0 * cell, top + c0 * cell, rc * cell, cc * cell, "none", ACCENT, 3.5)
    svg.polyline([(left + (c0 + cc) * cell + 4, top + (r0 + rc / 2) * cell),
                  (x_out - 8, top + (c0 + cc / 2) * cell)], ACCENT, 2,
                 ' marker-end="url(#arrow-accent)"')
    notes = [
        f"Rows split as evenly as they go: {m} = 3 + 2 + 2 input rows, {n} = 4 + 3 + 3 output "
        "rows.",
        "GPU f sends GPU q the block of its rows in q's columns; it lands transposed, as "
        "columns of f",
        "in q's output rows (red: GPU 0's block for GPU 1). Every GPU sends a block to every "
        "other.",
    ]
    for i, t in enumerate(notes):
        svg.text(20, top + n * cell + 40 + 21 * i, t, size=12)
    return svg.render()


DIAGRAMS = {
    "tile-transpose.svg": tile_transpose,
    "block-order.svg": block_order,
    "block-walks.svg": block_walks,
    "grid-blocks.svg": grid_blocks,
    "warp-sectors.svg": warp_sectors,
    "all-to-all.svg": all_to_all,
}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(here, "..", "docs", "images"),
                    help="folder to write the SVG files into (default: docs/images)")
    ap.add_argument("--print", metavar="NAME", choices=sorted(DIAGRAMS),
                    help="print one diagram on standard output instead")
    args = ap.parse_args()
    if args.print:
        sys.stdout.write(DIAGRAMS[args.print]())
        return
    os.makedirs(args.out, exist_ok=True)
    for name, fn in DIAGRAMS.items():
        path = os.path.join(args.out, name)
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(fn())
        print(os.path.relpath(path))


if __name__ == "__main__":
    main()
