"""Small server-rendered SVG charts (no JavaScript, no CDN): horizontal
bars for counts, a line for a series. Labels are escaped; the SVG is
marked safe only after that."""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

PALETTE = ("#2f6fb0", "#c2571a", "#2e8b57", "#8a3ab9", "#b8860b", "#607d8b")


def _open(title: str, width: int, height: int) -> str:
    return (
        f'<svg class="chart" role="img" aria-label="{escape(title)}" '
        f'viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'xmlns="http://www.w3.org/2000/svg"><title>{escape(title)}</title>'
    )


def bar_chart(items: Sequence[tuple[str, float]], *, title: str, width: int = 420) -> SafeString:
    """One horizontal bar per (label, value), scaled to the largest."""
    row, label_w = 22, 150
    height = row * max(len(items), 1) + 30
    top = max((v for _, v in items), default=0) or 1
    parts = [
        _open(title, width, height),
    ]
    if not items:
        parts.append('<text x="0" y="20" class="empty">nothing yet</text>')
    for i, (label, value) in enumerate(items):
        y = 20 + i * row
        bar = (width - label_w - 60) * value / top
        parts.append(
            f'<text x="0" y="{y + 12}" class="label">{escape(label)}</text>'
            f'<rect x="{label_w}" y="{y}" width="{bar:.1f}" height="{row - 6}" '
            f'fill="{PALETTE[i % len(PALETTE)]}"><title>{escape(label)}: {value:g}</title></rect>'
            f'<text x="{label_w + bar + 4:.1f}" y="{y + 12}" class="value">{value:g}</text>'
        )
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308 (every label escaped above)


def line_chart(
    points: Sequence[tuple[str, float]], *, title: str, width: int = 520, height: int = 180
) -> SafeString:
    """A line through (x label, y) points, x evenly spaced, y from 0."""
    left, bottom, top_pad = 40, 30, 15
    plot_w, plot_h = width - left - 10, height - bottom - top_pad
    top = max((y for _, y in points), default=0) or 1
    parts = [
        _open(title, width, height),
        f'<line x1="{left}" y1="{top_pad + plot_h}" x2="{left + plot_w}" y2="{top_pad + plot_h}" '
        'class="axis"/>',
        f'<text x="0" y="{top_pad + 4}" class="value">{top:g}</text>',
        f'<text x="0" y="{top_pad + plot_h}" class="value">0</text>',
    ]
    if not points:
        parts.append(f'<text x="{left}" y="{top_pad + 20}" class="empty">nothing yet</text>')
    step = plot_w / max(len(points) - 1, 1)
    coords = [
        (left + i * step, top_pad + plot_h - plot_h * y / top) for i, (_, y) in enumerate(points)
    ]
    parts += _polyline(coords, [f"{escape(label)}: {value:g}" for label, value in points],
                       PALETTE[0])  # fmt: skip
    if points:
        for index in sorted({0, len(points) - 1}):
            parts.append(
                f'<text x="{coords[index][0]:.1f}" y="{height - 8}" class="label" '
                f'text-anchor="middle">{escape(points[index][0])}</text>'
            )
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308 (every label escaped above)


def _polyline(
    coords: Sequence[tuple[float, float]], titles: Sequence[str], colour: str, extra: str = ""
) -> list[str]:
    """A series: the line through ``coords`` and a dot at each, titled
    (``titles`` already escaped; ``extra``: attributes of each dot)."""
    parts = []
    if len(coords) > 1:
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in coords)
        parts.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
    for (x, y), title in zip(coords, titles, strict=True):
        parts.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{colour}"{extra}>'
            f"<title>{title}</title></circle>"
        )
    return parts


def history_chart(
    series: Sequence[tuple[str, Sequence[tuple[str, float]]]],
    *,
    title: str,
    baseline: float | None = None,
    order: Sequence[str] | None = None,
    width: int = 560,
    height: int = 200,
) -> SafeString:
    """A 0–1 metric across runs: one polyline per series (label, [(x label,
    y)]), on a shared x axis in the order the x labels first appear, and
    the baseline as a dashed line (``order``: the x labels' order, when
    not that). The series' labels form the legend."""
    left, bottom, top_pad = 40, 46, 15
    plot_w, plot_h = width - left - 10, height - bottom - top_pad
    xs: list[str] = list(order or [])
    for _, points in series:
        xs += [x for x, _ in points if x not in xs]
    step = plot_w / max(len(xs) - 1, 1)

    def at(x: str, y: float) -> tuple[float, float]:
        return left + xs.index(x) * step, top_pad + plot_h - plot_h * max(0.0, min(1.0, y))

    parts = [
        _open(title, width, height),
        f'<line x1="{left}" y1="{top_pad + plot_h}" x2="{left + plot_w}" y2="{top_pad + plot_h}" '
        'class="axis"/>',
        f'<text x="0" y="{top_pad + 4}" class="value">1</text>',
        f'<text x="0" y="{top_pad + plot_h}" class="value">0</text>',
    ]
    if not xs:
        parts.append(f'<text x="{left}" y="{top_pad + 20}" class="empty">no run yet</text>')
    if baseline is not None:
        y = top_pad + plot_h - plot_h * baseline
        parts.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" class="baseline" '
            f'stroke="#888" stroke-dasharray="4 3"><title>baseline {baseline:g}</title></line>'
        )
    for index, (label, points) in enumerate(series):
        colour = PALETTE[index % len(PALETTE)]
        parts += _polyline(
            [at(x, y) for x, y in points],
            [f"{escape(label)} {escape(x)}: {y:g}" for x, y in points],
            colour,
            f' data-series="{escape(label)}"',
        )
        parts.append(
            f'<text x="{left + index * 150}" y="{height - 6}" class="label" fill="{colour}">'
            f"● {escape(label)}</text>"
        )
    for index in sorted({0, len(xs) - 1}) if xs else []:
        anchor = "end" if index and index == len(xs) - 1 else "start"
        parts.append(
            f'<text x="{left + index * step:.1f}" y="{height - 24}" class="label" '
            f'text-anchor="{anchor}">{escape(xs[index])}</text>'
        )
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308 (every label escaped above)
