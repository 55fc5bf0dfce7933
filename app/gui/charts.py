"""Two tiny QPainter charts: live training curves and per-label bars.

No plotting library: a few dozen points per curve and a handful of bars do
not justify matplotlib in the bundle, and painting them is a page of code.
Colours come from the label palette (colour-vision-safe); each series also
gets a legend entry, so colour is never the only cue.
"""
from __future__ import annotations

import math

from app.core.labels import PALETTE
from app.gui.qt import QColor, QFont, QFontMetrics, QPainter, QPen, QSize, Qt, QWidget

_MARGIN_L, _MARGIN_R, _MARGIN_T, _MARGIN_B = 46, 10, 22, 22
_AXIS = QColor("#606060")
_GRID = QColor("#e4e4e4")


def _nice_range(lo: float, hi: float) -> tuple[float, float]:
    """Round a data range outward to one significant step."""
    if not math.isfinite(lo) or not math.isfinite(hi):
        return 0.0, 1.0
    if hi - lo < 1e-12:
        return (lo - 0.5, hi + 0.5) if lo else (0.0, 1.0)
    step = 10 ** math.floor(math.log10(hi - lo))
    return math.floor(lo / step) * step, math.ceil(hi / step) * step


def _nice_top(hi: float, n: int = 5) -> float:
    """The top of an axis from 0 with ``n`` ticks: the least multiple of
    ``n - 1`` round steps (1, 2, 2.5 or 5 times a power of ten) reaching ``hi``."""
    if not math.isfinite(hi) or hi <= 0:
        return 1.0
    step = hi / (n - 1)
    power = 10 ** math.floor(math.log10(step))
    return (n - 1) * next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= step * (1 - 1e-9))


def _decimals(step: float) -> int:
    """The decimals that write every multiple of ``step`` exactly (0.025: 3)."""
    return next((d for d in range(7) if abs(round(step, d) - step) <= abs(step) * 1e-6), 6)


def _fmt(value: float, step: float | None = None) -> str:
    """A tick label; with ``step`` (the distance to the next tick) it has
    enough decimals that neighbouring ticks never read the same and each
    reads its own value (a loss between 2836.9 and 2837.3 is not five times
    "2,837"; 0.025 is not "0.03")."""
    if step is not None and step > 0:
        text = f"{value:,.{max(0, -math.floor(math.log10(step)), _decimals(step))}f}"
        return text.rstrip("0").rstrip(".") if "." in text else text
    if value == 0:
        return "0"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.2f}".rstrip("0").rstrip(".") if abs(value) < 10 else f"{value:.0f}"


def tick_labels(lo: float, hi: float, n: int = 5) -> list[str]:
    """The ``n`` y-axis labels from ``lo`` to ``hi``, distinct whenever the range is not empty."""
    step = (hi - lo) / (n - 1)
    values = [lo + step * k for k in range(n)]
    labels = [_fmt(v) for v in values]
    # Two decimals may round a tick by a fifth of a step (0.025 read "0.03").
    exact = all(abs(float(t.replace(",", "")) - v) <= abs(step) * 0.05
                for t, v in zip(labels, values))
    if step > 0 and (len(set(labels)) < n or not exact):
        labels = [_fmt(v, step) for v in values]
    return labels


class LineChart(QWidget):
    """Points of named series, e.g. each member's training loss as it trains.

    A point placed at ``x`` (0..1, how far the series' work had gone) sits
    at that share of the width; points given no ``x`` are spaced evenly.

    Parameters
    ----------
    title
        Drawn top left.
    y_range
        Fixed ``(min, max)``, e.g. ``(0, 1)`` for F1; ``None`` fits the data.
    from_zero
        With no ``y_range``: the axis runs from 0 to a round value above the
        data (a loss is never negative, and one loss alone is no range).
    x_caption
        What the x axis means, under its right end.
    """

    #: Above this many points a series is a line without a dot on each point.
    MAX_DOTS = 60

    def __init__(self, title: str, y_range: tuple[float, float] | None = None,
                 parent=None, *, from_zero: bool = False,
                 x_caption: str = "epoch / step →") -> None:
        super().__init__(parent)
        self.title = title
        self.y_range = y_range
        self.from_zero = from_zero
        self.x_caption = x_caption
        self.series: dict[str, list[float]] = {}
        #: Each point's x (0..1), or None where it was given none.
        self.xs: dict[str, list[float | None]] = {}
        #: Where the last paint put the legend's top (its corner follows the data).
        self.legend_top: int | None = None
        self.setMinimumSize(220, 140)

    def sizeHint(self) -> QSize:
        return QSize(320, 170)

    def clear(self) -> None:
        self.series.clear()
        self.xs.clear()
        self.update()

    def add_point(self, name: str, y: float, x: float | None = None) -> None:
        """Append ``y`` to series ``name`` (created on first use), at ``x``
        when given; at the same ``x`` as the series' last point, replace it."""
        if y is None or not math.isfinite(float(y)):
            return
        points = self.series.setdefault(name, [])
        xs = self.xs.setdefault(name, [])
        if points and x is not None and xs[-1] == x:
            points[-1] = float(y)
        else:
            points.append(float(y))
            xs.append(x)
        self.update()

    def colour(self, name: str) -> QColor:
        return QColor(PALETTE[list(self.series).index(name) % len(PALETTE)])

    def y_range_shown(self) -> tuple[float, float]:
        values = [v for pts in self.series.values() for v in pts]
        if self.y_range:
            return self.y_range
        if self.from_zero:
            return 0.0, _nice_top(max(values, default=1.0))
        return _nice_range(min(values, default=0.0), max(values, default=1.0))

    def y_labels(self) -> list[str]:
        """The five y-axis labels drawn, bottom to top."""
        return tick_labels(*self.y_range_shown())

    def plot_left(self) -> int:
        """The x of the y axis: room for the widest y label (a loss of
        12000 or 0.125 was cut at a fixed margin)."""
        fm = self.fontMetrics()
        return max(_MARGIN_L, max(fm.horizontalAdvance(t) for t in self.y_labels()) + 10)

    def paintEvent(self, _event) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.Antialiasing)
        p.fillRect(self.rect(), QColor("white"))
        w, h = self.width(), self.height()
        x0, y0 = self.plot_left(), h - _MARGIN_B
        x1, y1 = w - _MARGIN_R, _MARGIN_T
        bold = QFont(self.font())
        bold.setBold(True)
        p.setFont(bold)
        p.setPen(QColor("#202020"))
        p.drawText(8, 15, self.title)
        p.setFont(self.font())
        lo, hi = self.y_range_shown()
        n = max((len(v) for v in self.series.values()), default=0)
        for k, label in enumerate(self.y_labels()):    # grid and y labels
            y = y0 - (y0 - y1) * k / 4
            p.setPen(QPen(_GRID))
            p.drawLine(x0, int(y), x1, int(y))
            p.setPen(_AXIS)
            p.drawText(2, int(y) - 7, x0 - 8, 14, Qt.AlignRight | Qt.AlignVCenter, label)
        p.setPen(QPen(_AXIS))
        p.drawLine(x0, y0, x1, y0)
        p.drawLine(x0, y0, x0, y1)
        if n == 0:
            p.drawText(self.rect(), Qt.AlignCenter, "no data yet")
            p.end()
            return
        p.drawText(x0, y0 + 3, x1 - x0, 16, Qt.AlignRight, self.x_caption)
        span = max(n - 1, 1)
        drawn = []
        for name, pts in self.series.items():
            pen = QPen(self.colour(name), 2)
            p.setPen(pen)
            coords = [(x0 + (x1 - x0) * (i / span if x is None else min(max(x, 0.0), 1.0)),
                       y0 - (y0 - y1) * (min(max(v, lo), hi) - lo) / ((hi - lo) or 1))
                      for i, (x, v) in enumerate(zip(self.xs[name], pts))]
            drawn += coords
            for (ax, ay), (bx, by) in zip(coords, coords[1:]):
                p.drawLine(int(ax), int(ay), int(bx), int(by))
            if len(coords) <= self.MAX_DOTS:
                for cx, cy in coords:
                    p.drawEllipse(int(cx) - 2, int(cy) - 2, 4, 4)
        # Legend, one row per series, on a white box in the right-hand corner
        # with fewer points under it (F1 near 1 ran under a legend at the top).
        fm = p.fontMetrics()
        width = max((fm.horizontalAdvance(s) for s in self.series), default=0) + 20
        height = len(self.series) * (fm.height() + 1) + 6
        lx = x1 - width
        top, bottom = y1 + 2, y0 - height - 2

        def under(ly: int) -> int:           # points under the box, or a dot's width off it
            return sum(lx - 4 <= cx <= x1 + 4 and ly - 6 <= cy <= ly + height + 6
                       for cx, cy in drawn)

        ly0 = bottom if bottom > top and under(bottom) < under(top) else top
        p.fillRect(lx - 2, ly0, width + 2, height, QColor(255, 255, 255, 215))
        for i, name in enumerate(self.series):
            ly = ly0 + 3 + i * (fm.height() + 1)
            p.fillRect(lx, ly + 3, 10, fm.height() - 6, self.colour(name))
            p.setPen(QColor("#202020"))
            p.drawText(lx + 14, ly + fm.ascent(), name)
        self.legend_top = ly0
        p.end()


class BarChart(QWidget):
    """Grouped bars in [0, 1]: one group per category, one bar per measure.

    ``set_data({"PERSON": {"P": .9, "R": .8, "F1": .85}, ...})``; the group
    caption may carry extra text (e.g. the support) via ``captions``.
    """

    def __init__(self, title: str, parent=None) -> None:
        super().__init__(parent)
        self.title = title
        self.data: dict[str, dict[str, float]] = {}
        self.captions: dict[str, str] = {}
        self.setMinimumSize(260, 160)

    def sizeHint(self) -> QSize:
        return QSize(420, 200)

    def set_data(self, data: dict[str, dict[str, float]],
                 captions: dict[str, str] | None = None) -> None:
        self.data = data
        self.captions = captions or {}
        self.update()

    def measures(self) -> list[str]:
        return list(dict.fromkeys(m for group in self.data.values() for m in group))

    def paintEvent(self, _event) -> None:
        p = QPainter(self)
        p.fillRect(self.rect(), QColor("white"))
        w, h = self.width(), self.height()
        fm = p.fontMetrics()
        # Room below the axis for two caption lines and the legend row.
        x0, y0, x1, y1 = _MARGIN_L, h - 3 * fm.height() - 8, w - _MARGIN_R, _MARGIN_T + 10
        bold = QFont(self.font())
        bold.setBold(True)
        p.setFont(bold)
        p.setPen(QColor("#202020"))
        p.drawText(8, 15, self.title)
        p.setFont(self.font())
        for k in range(5):
            y = y0 - (y0 - y1) * k / 4
            p.setPen(QPen(_GRID))
            p.drawLine(x0, int(y), x1, int(y))
            p.setPen(_AXIS)
            p.drawText(2, int(y) - 7, _MARGIN_L - 6, 14, Qt.AlignRight | Qt.AlignVCenter,
                       _fmt(k / 4))
        p.setPen(QPen(_AXIS))
        p.drawLine(x0, y0, x1, y0)
        if not self.data:
            p.drawText(self.rect(), Qt.AlignCenter, "no evaluation yet")
            p.end()
            return
        measures = self.measures()
        colours = {m: QColor(PALETTE[(i * 2 + 4) % len(PALETTE)]) for i, m in enumerate(measures)}
        group_w = (x1 - x0) / len(self.data)
        bar_w = max(2.0, group_w * 0.8 / max(len(measures), 1))
        # Category names: a smaller font (down to 75 %) before eliding them.
        label_font = QFont(self.font())
        widest = max(fm.horizontalAdvance(c) for c in self.data)
        if widest > group_w - 2 and label_font.pointSizeF() > 0:
            label_font.setPointSizeF(label_font.pointSizeF()
                                     * max(0.75, (group_w - 2) / widest))
        lfm = QFontMetrics(label_font)
        for g, (category, values) in enumerate(self.data.items()):
            gx = x0 + g * group_w + group_w * 0.1
            for i, m in enumerate(measures):
                v = min(max(values.get(m, 0.0), 0.0), 1.0)
                top = y0 - (y0 - y1) * v
                p.fillRect(int(gx + i * bar_w), int(top), max(1, int(bar_w) - 1),
                           int(y0 - top), colours[m])
            p.setPen(QColor("#202020"))
            gx0 = int(x0 + g * group_w)
            p.setFont(label_font)
            p.drawText(gx0, y0 + 2, int(group_w), fm.height(), Qt.AlignHCenter,
                       lfm.elidedText(category, Qt.ElideRight, int(group_w) - 2))
            p.setFont(self.font())
            if category in self.captions:
                p.setPen(_AXIS)
                p.drawText(gx0, y0 + 2 + fm.height(), int(group_w), fm.height(), Qt.AlignHCenter,
                           fm.elidedText(self.captions[category], Qt.ElideRight, int(group_w) - 2))
        lx = x0 + 4
        for m in measures:                              # legend, bottom row
            p.fillRect(lx, h - fm.height() + 1, 10, 10, colours[m])
            p.setPen(QColor("#202020"))
            p.drawText(lx + 14, h - 4, m)
            lx += 22 + fm.horizontalAdvance(m)
        p.end()
