"""Training charts: the loss axis reads (issue 18 item 7: a loss between
2836.9 and 2837.3 was labelled "2,837" five times)."""
from __future__ import annotations


def test_loss_axis_ticks_are_distinct_for_a_narrow_range(qtbot):
    from app.gui.charts import LineChart
    chart = LineChart("Training loss")
    qtbot.addWidget(chart)
    for y in (2837.3, 2837.1, 2836.9):
        chart.add_point("crf-balanced", y)
    labels = chart.y_labels()
    assert len(set(labels)) == 5, labels
    assert all(label.startswith("2,83") for label in labels)
    chart.clear()
    for y in (0.9, 0.4, 0.2):                # a plain range keeps plain labels
        chart.add_point("crf-balanced", y)
    assert chart.y_labels()[0] in ("0", "0.2") and len(set(chart.y_labels())) == 5


def test_loss_axis_labels_are_not_cut(qtbot):
    """Issue 34 item 12: long loss labels were cut at a fixed left margin."""
    from app.gui.charts import LineChart
    chart = LineChart("Training loss")
    qtbot.addWidget(chart)
    chart.resize(320, 170)
    for y in (12837.3, 12837.1, 12836.9):
        chart.add_point("crf-balanced", y)
    image = chart.grab().toImage()
    # The y axis is the first column painted (not white) top to bottom.
    rows = range(30, image.height() - 30)
    white = image.pixel(0, image.height() // 2)
    axis = next(x for x in range(image.width())
                if sum(image.pixel(x, y) != white for y in rows) > 0.9 * len(rows))
    widest = max(chart.fontMetrics().horizontalAdvance(t) for t in chart.y_labels())
    assert widest + 2 <= axis, (widest, axis, chart.y_labels())
