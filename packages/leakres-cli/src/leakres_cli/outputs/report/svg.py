"""Small inline SVG charts for the HTML report: no plotting library, no network, no scripts.

Each function returns an SVG document fragment as a string; every text is escaped. Undefined
values (``None``) are drawn as grey "n/a" cells or left out of a chart, and listed under it by
the caller.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape

__all__ = ["PALETTE", "bars_with_ci", "diverging_color", "heatmap", "line_chart", "radar"]

# Okabe-Ito, a colour-blind-safe palette, for series (methods, runs).
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
FONT = "font-family:system-ui,-apple-system,Segoe UI,Roboto,Arial,sans-serif"

# ColorBrewer RdYlGn, the same scale as leak_metrics' FQ heatmap.
_RDYLGN = ((165, 0, 38), (215, 48, 39), (244, 109, 67), (253, 174, 97), (254, 224, 139),
           (255, 255, 191), (217, 239, 139), (166, 217, 106), (102, 189, 99), (26, 152, 80),
           (0, 104, 55))  # fmt: skip


def _t(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".")


def diverging_color(value: float | None, lo: float, hi: float, reverse: bool = False) -> str:
    """RdYlGn colour of ``value`` on [lo, hi] (red = low, green = high; ``reverse`` swaps)."""
    if value is None or math.isnan(value):
        return "#d0d0d0"
    x = min(1.0, max(0.0, (value - lo) / (hi - lo)))
    if reverse:
        x = 1 - x
    pos = x * (len(_RDYLGN) - 1)
    i = min(int(pos), len(_RDYLGN) - 2)
    f = pos - i
    a, b = _RDYLGN[i], _RDYLGN[i + 1]
    r, g, bl = (round(a[k] + f * (b[k] - a[k])) for k in range(3))
    return f"#{r:02x}{g:02x}{bl:02x}"


def _svg(width: float, height: float, body: str, label: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_t(width)} {_t(height)}" '
        f'width="{_t(width)}" height="{_t(height)}" role="img" aria-label="{escape(label)}" '
        f'style="{FONT};font-size:12px">{body}</svg>'
    )


def heatmap(
    rows: Sequence[str],
    cols: Sequence[str],
    values: Mapping[tuple[str, str], float | None],
    *,
    lo: float = -0.5,
    hi: float = 1.0,
    reverse: bool = False,
    label: str = "heatmap",
    legend: str = "",
    notes: dict[tuple[str, str], str] | None = None,
) -> str:
    """Rows x columns of coloured cells with the value in % (grey ``n/a`` when undefined);
    ``notes[(row, col)]`` is the tooltip of an undefined cell (why it is n/a) and marks it ``n/a*``."""
    notes = notes or {}
    cw, ch, left, top = 64, 30, max(60, 8 * max((len(r) for r in rows), default=4)), 24
    width = max(left + cw * len(cols) + 10, 7 * len(legend) + left)
    height = top + ch * len(rows) + (30 if legend else 8)
    parts = []
    for j, c in enumerate(cols):
        parts.append(
            f'<text x="{left + cw * j + cw / 2}" y="16" text-anchor="middle" font-weight="600">{escape(c)}</text>'
        )
    for i, r in enumerate(rows):
        y = top + ch * i
        parts.append(
            f'<text x="{left - 8}" y="{y + ch / 2 + 4}" text-anchor="end">{escape(r)}</text>'
        )
        for j, c in enumerate(cols):
            v = values.get((r, c))
            fill = diverging_color(v, lo, hi, reverse)
            text = "n/a" if v is None else _t(100 * v)
            note = notes.get((r, c)) if v is None else None
            tip = f"n/a: {note}" if note else text
            text = "n/a*" if note else text
            parts.append(
                f'<rect x="{left + cw * j}" y="{y}" width="{cw - 2}" height="{ch - 2}" rx="3" fill="{fill}">'
                f"<title>{escape(r)} · {escape(c)}: {escape(tip)}</title></rect>"
                f'<text x="{left + cw * j + cw / 2 - 1}" y="{y + ch / 2 + 3}" text-anchor="middle">{escape(text)}</text>'
            )
    if legend:
        parts.append(f'<text x="{left}" y="{height - 8}" fill="#555">{escape(legend)}</text>')
    return _svg(width, height, "".join(parts), label)


def bars_with_ci(
    groups: Sequence[tuple[str, Sequence[tuple[str, float | None, float | None, float | None]]]],
    *,
    label: str = "bars",
    y_label: str = "",
    series_colors: Mapping[str, str] | None = None,
) -> str:
    """Grouped bars in [0, 1] (shown in %), each ``(series, value, ci_low, ci_high)``; whiskers
    for the CI; an undefined value is a grey ``n/a`` mark at zero."""
    series = list(dict.fromkeys(s for _, bars in groups for s, *_ in bars))
    colors = dict(series_colors or {})
    for k, s in enumerate(series):
        colors.setdefault(s, PALETTE[k % len(PALETTE)])
    bw, gap, left, top, plot_h = 22, 18, 44, 14, 160
    # a group is as wide as its bars or its label, whichever is wider (about 7 px a character)
    slot = {name: max(len(bars) * bw, 7 * len(name)) for name, bars in groups}
    width = max(
        left + sum(slot.values()) + gap * (len(groups) + 1) + 10,
        left + 150 * min(4, len(series)),
    )
    height = top + plot_h + 46 + 18 * math.ceil(len(series) / 4)
    parts = _percent_axis(left, top, plot_h, width, y_label)
    x = left + gap
    for name, bars in groups:
        x0 = x
        x += (slot[name] - len(bars) * bw) / 2  # the bars sit in the middle of their slot
        for s, v, lo, hi in bars:
            parts += _bar(x, bw, top, plot_h, f"{escape(name)} · {escape(s)}", colors[s], v, lo, hi)
            x += bw
        parts.append(
            f'<text x="{x0 + slot[name] / 2}" y="{top + plot_h + 16}" text-anchor="middle">{escape(name)}</text>'
        )
        x = x0 + slot[name] + gap
    for k, s in enumerate(series):
        lx, ly = left + (k % 4) * 150, top + plot_h + 36 + 18 * (k // 4)
        parts.append(f'<rect x="{lx}" y="{ly - 9}" width="10" height="10" fill="{colors[s]}"/>')
        parts.append(f'<text x="{lx + 14}" y="{ly}">{escape(s)}</text>')
    return _svg(width, height, "".join(parts), label)


def _percent_axis(left: float, top: float, plot_h: float, width: float, y_label: str) -> list[str]:
    """Grid lines and labels at 0, 25, ..., 100 % (and the rotated y label when given)."""
    parts = []
    for tick in (0, 0.25, 0.5, 0.75, 1.0):
        y = top + plot_h * (1 - tick)
        parts.append(f'<line x1="{left}" x2="{width - 6}" y1="{y}" y2="{y}" stroke="#e3e3e3"/>')
        parts.append(
            f'<text x="{left - 6}" y="{y + 4}" text-anchor="end" fill="#555">{int(tick * 100)}</text>'
        )
    if y_label:
        parts.append(
            f'<text transform="translate(12 {top + plot_h / 2}) rotate(-90)" text-anchor="middle" fill="#555">{escape(y_label)}</text>'
        )
    return parts


def _bar(x: float, bw: float, top: float, plot_h: float, title: str, color: str,
         v: float | None, lo: float | None, hi: float | None) -> list[str]:  # fmt: skip
    """One bar with its CI whisker, or the grey ``n/a`` mark of an undefined value (``title``
    is already escaped)."""
    if v is None:
        return [
            f'<text x="{x + bw / 2}" y="{top + plot_h - 4}" text-anchor="middle" fill="#888" font-size="10">n/a</text>'
        ]
    h = plot_h * max(0.0, min(1.0, v))
    parts = [
        f'<rect x="{x}" y="{top + plot_h - h}" width="{bw - 3}" height="{max(h, 0.5)}" fill="{color}">'
        f"<title>{title}: {_t(100 * v)}%</title></rect>"
    ]
    if lo is not None and hi is not None:
        y1, y2 = top + plot_h * (1 - hi), top + plot_h * (1 - lo)
        cx = x + (bw - 3) / 2
        parts.append(
            f'<path d="M{cx} {y1}V{y2}M{cx - 4} {y1}H{cx + 4}M{cx - 4} {y2}H{cx + 4}" stroke="#222" fill="none"/>'
        )
    return parts


def radar(
    axes: Sequence[str],
    series: Sequence[tuple[str, Sequence[float | None]]],
    *,
    label: str = "radar",
) -> str:
    """One polygon per series on axes in [min(0, lowest), 1]; an undefined vertex sits at the
    centre with a hollow marker."""
    size, cx, cy, r = 360, 180, 170, 120
    values = [v for _, vs in series for v in vs if v is not None]
    centre = min(0.0, math.floor(min(values, default=0.0) * 10) / 10)
    span = 1.0 - centre

    def point(k: int, v: float) -> tuple[float, float]:
        a = -math.pi / 2 + 2 * math.pi * k / len(axes)
        rr = r * (v - centre) / span
        return cx + rr * math.cos(a), cy + rr * math.sin(a)

    parts = []
    for ring in (0.25, 0.5, 0.75, 1.0):
        v = centre + ring * span
        pts = " ".join(f"{x:.1f},{y:.1f}" for x, y in (point(k, v) for k in range(len(axes))))
        parts.append(f'<polygon points="{pts}" fill="none" stroke="#ddd"/>')
        x, y = point(0, v)
        parts.append(
            f'<text x="{x + 4:.1f}" y="{y + 4:.1f}" fill="#999" font-size="10">{_t(100 * v)}</text>'
        )
    for k, name in enumerate(axes):
        x, y = point(k, 1.0)
        parts.append(f'<line x1="{cx}" y1="{cy}" x2="{x:.1f}" y2="{y:.1f}" stroke="#ccc"/>')
        lx, ly = point(k, 1.0 + 0.16 * span)
        parts.append(
            f'<text x="{lx:.1f}" y="{ly + 4:.1f}" text-anchor="middle" font-weight="600">{escape(name)}</text>'
        )
    for idx, (name, vs) in enumerate(series):
        color = PALETTE[idx % len(PALETTE)]
        pts = [point(k, centre if v is None else v) for k, v in enumerate(vs)]
        poly = " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)
        parts.append(
            f'<polygon points="{poly}" fill="{color}" fill-opacity="0.12" stroke="{color}" stroke-width="2"><title>{escape(name)}</title></polygon>'
        )
        for (x, y), v in zip(pts, vs, strict=True):
            fill = "#fff" if v is None else color
            parts.append(
                f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="{fill}" stroke="{color}" stroke-width="2"/>'
            )
    lowest = max(point(k, 1.0 + 0.16 * span)[1] for k in range(len(axes)))
    legend_y = lowest + 30
    lx, ly = 10.0, legend_y
    for idx, (name, _) in enumerate(series):  # flow layout: long names take the room they need
        item_w = 14 + 7 * len(name) + 16
        if lx > 10 and lx + item_w > size - 6:
            lx, ly = 10.0, ly + 18
        parts.append(
            f'<rect x="{lx:.0f}" y="{ly - 9:.0f}" width="10" height="10" fill="{PALETTE[idx % len(PALETTE)]}"/>'
        )
        parts.append(f'<text x="{lx + 14:.0f}" y="{ly:.0f}">{escape(name)}</text>')
        lx += item_w
    height = ly + 10
    return _svg(size, height, "".join(parts), label)


def line_chart(
    series: Sequence[tuple[str, Sequence[tuple[float, float]]]],
    *,
    label: str = "line chart",
    x_label: str = "step",
    y_label: str = "loss",
) -> str:
    """Lines of (x, y) points with axis ticks; series with no finite points are skipped."""
    clean = [
        (n, [(x, y) for x, y in pts if math.isfinite(x) and math.isfinite(y)]) for n, pts in series
    ]
    clean = [(n, pts) for n, pts in clean if pts]
    rows = math.ceil(len(clean) / 4) if clean else 0
    width, height, left, right, top = 520, 250 + 16 * rows, 56, 12, 12
    bottom = 52 + 16 * rows
    if not clean:
        return _svg(
            width, 40, '<text x="8" y="24" fill="#888">no loss values recorded</text>', label
        )
    xs = [x for _, pts in clean for x, _ in pts]
    ys = [y for _, pts in clean for _, y in pts]
    x0, x1 = min(xs), max(xs)
    y0, y1 = min(ys), max(ys)
    if x1 == x0:
        x1 = x0 + 1
    if y1 == y0:
        y0, y1 = y0 - 1, y1 + 1
    pw, ph = width - left - right, height - top - bottom
    frame = _Frame(left, top, pw, ph, x0, x1, y0, y1)
    px, py = frame.px, frame.py
    parts = _line_axes(frame, xs, width - right, height - bottom, x_label, y_label)
    for idx, (name, pts) in enumerate(clean):
        color = PALETTE[idx % len(PALETTE)]
        d = " ".join(
            f"{'M' if k == 0 else 'L'}{px(x):.1f} {py(y):.1f}" for k, (x, y) in enumerate(pts)
        )
        parts.append(
            f'<path d="{d}" fill="none" stroke="{color}" stroke-width="2"><title>{escape(name)}</title></path>'
        )
        if len(pts) == 1:
            x, y = pts[0]
            parts.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="{color}"/>')
        lx = left + (idx % 4) * 120
        ly = height - bottom + 52 + 16 * (idx // 4)
        parts.append(f'<rect x="{lx}" y="{ly - 9}" width="10" height="10" fill="{color}"/>')
        parts.append(f'<text x="{lx + 14}" y="{ly}">{escape(name)}</text>')
    return _svg(width, height, "".join(parts), label)


@dataclass(frozen=True)
class _Frame:
    """A line chart's plot area (pixels) and the data range it shows."""

    left: float
    top: float
    pw: float
    ph: float
    x0: float
    x1: float
    y0: float
    y1: float

    def px(self, x: float) -> float:
        return self.left + self.pw * (x - self.x0) / (self.x1 - self.x0)

    def py(self, y: float) -> float:
        return self.top + self.ph * (1 - (y - self.y0) / (self.y1 - self.y0))


def _line_axes(frame: _Frame, xs: list[float], x_end: float, y_end: float, x_label: str,
               y_label: str) -> list[str]:  # fmt: skip
    """Five y grid lines with labels, the x ticks (none between two integer steps) and both axis
    labels; ``x_end``/``y_end``: the plot's right and bottom edges."""
    px, py = frame.px, frame.py
    left, top, pw, ph = frame.left, frame.top, frame.pw, frame.ph
    x0, x1, y0, y1 = frame.x0, frame.x1, frame.y0, frame.y1
    parts = []
    for k in range(5):
        yv = y0 + (y1 - y0) * k / 4
        parts.append(
            f'<line x1="{left}" x2="{x_end}" y1="{py(yv):.1f}" y2="{py(yv):.1f}" stroke="#eee"/>'
        )
        parts.append(
            f'<text x="{left - 6}" y="{py(yv) + 4:.1f}" text-anchor="end" fill="#555">{yv:.3g}</text>'
        )
    integer_x = all(float(x).is_integer() for x in xs)
    for k in range(5):
        xv = x0 + (x1 - x0) * k / 4
        if integer_x and k not in (0, 4) and not xv.is_integer():
            continue  # integer steps: no tick between two steps
        parts.append(
            f'<text x="{px(xv):.1f}" y="{y_end + 16}" text-anchor="middle" fill="#555">{xv:.3g}</text>'
        )
    parts.append(
        f'<text x="{left + pw / 2}" y="{y_end + 32}" text-anchor="middle" fill="#555">{escape(x_label)}</text>'
    )
    parts.append(
        f'<text transform="translate(12 {top + ph / 2}) rotate(-90)" text-anchor="middle" fill="#555">{escape(y_label)}</text>'
    )
    return parts
