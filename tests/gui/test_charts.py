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


def test_a_loss_axis_starts_at_zero_and_reads_its_ticks(qtbot):
    """A walkthrough's loss chart ran from -0.44 to 0.56 around one loss of
    0.06: a loss axis runs from 0 to a round value above the losses."""
    from app.gui.charts import LineChart
    chart = LineChart("Training loss", from_zero=True)
    qtbot.addWidget(chart)
    chart.add_point("transformer-imbalanced", 0.06, x=0.2)
    assert chart.y_labels() == ["0", "0.02", "0.04", "0.06", "0.08"]
    chart.add_point("transformer-imbalanced", 0.09, x=0.3)
    assert chart.y_labels() == ["0", "0.025", "0.05", "0.075", "0.1"]     # not "0.03"
    chart.add_point("crf-balanced", 48000.0)
    assert chart.y_labels()[0] == "0" and chart.y_labels()[-1] == "80,000"


def test_points_at_the_same_place_replace_each_other(qtbot):
    from app.gui.charts import LineChart
    chart = LineChart("Dev F1", (0.0, 1.0))
    qtbot.addWidget(chart)
    for x, y in ((0.25, 0.4), (0.5, 0.6), (0.5, 0.65), (1.0, 0.7)):
        chart.add_point("spacy-balanced", y, x=x)
    assert chart.series["spacy-balanced"] == [0.4, 0.65, 0.7]
    assert chart.xs["spacy-balanced"] == [0.25, 0.5, 1.0]


def test_the_legend_sits_in_the_corner_the_curves_leave_free(qtbot):
    """A walkthrough's dev F1 curves ran near 1, under a legend at the top."""
    from app.gui.charts import LineChart
    chart = LineChart("Dev F1, each model alone", y_range=(0.0, 1.0))
    qtbot.addWidget(chart)
    chart.resize(320, 170)
    for name in ("transformer-imbalanced", "crf-balanced", "crf-imbalanced"):
        for step, f1 in enumerate((0.95, 0.98, 0.99, 0.995)):
            chart.add_point(name, f1, x=step / 3)
    chart.grab()
    assert chart.legend_top > chart.height() / 2             # at the bottom: free there
    chart.clear()
    for step, loss in enumerate((0.9, 0.3, 0.1, 0.05)):
        chart.add_point("crf-balanced", loss, x=step / 3)
    chart.grab()
    assert chart.legend_top < chart.height() / 2             # a falling loss: the top is free
