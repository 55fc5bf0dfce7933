"""Every Qt name the application uses, imported in one place (the Anki pattern).

Other modules write ``from app.gui.qt import QWidget, Signal, ...``; swapping
the binding or pinning a workaround then touches one file only.
"""
from __future__ import annotations

import sys

from PySide6 import __version__ as PYSIDE_VERSION

if sys.version_info < (3, 12) and PYSIDE_VERSION.startswith("6.12.0"):
    # Every void call leaks a reference to None there (immortal only from
    # Python 3.12); the process dies with "none_dealloc" within minutes.
    raise ImportError(f"PySide6 {PYSIDE_VERSION} is unusable on Python "
                      f"{sys.version.split()[0]}: install PySide6-Essentials<6.12")
from PySide6.QtCore import (QAbstractListModel, QAbstractTableModel, QCoreApplication, QEvent,
                            QEventLoop, QItemSelectionModel,
                            QModelIndex, QObject, QPoint, QRect, QSettings, QSize,
                            QSortFilterProxyModel, QThread, QTimer, QUrl, Qt, Signal, Slot,
                            qVersion)
from PySide6.QtGui import (QAction, QBrush, QColor, QDesktopServices, QFont, QFontDatabase,
                           QFontMetrics, QKeySequence,
                           QPainter, QPalette, QPen, QShortcut, QTextCharFormat, QTextCursor,
                           QTextFormat, QTextOption)
from PySide6.QtWidgets import (QAbstractItemView, QAbstractScrollArea, QAbstractSpinBox,
                               QApplication, QCheckBox, QComboBox,
                               QDialog, QDialogButtonBox, QDoubleSpinBox, QFileDialog,
                               QFormLayout, QFrame, QGridLayout, QGroupBox, QHBoxLayout,
                               QHeaderView, QInputDialog, QLabel, QLineEdit, QListView, QListWidget,
                               QListWidgetItem, QMainWindow, QMenu, QMessageBox, QPlainTextEdit, QProgressBar,
                               QProgressDialog, QPushButton, QScrollArea, QSizePolicy, QSpinBox,
                               QSplitter,
                               QStackedWidget, QStatusBar, QTableView, QTableWidget,
                               QTableWidgetItem, QTabWidget, QTextBrowser, QTextEdit, QToolBar, QToolButton,
                               QToolTip, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget)

QT_VERSION = qVersion()


class Role:
    """Item data roles as plain ints: models receive ``role`` as an int, and
    comparing it with the ``Qt.ItemDataRole`` enum goes through Python's enum
    machinery (about 30 µs per ``data()`` call, visible when a table paints)."""

    DISPLAY = Qt.ItemDataRole.DisplayRole.value
    DECORATION = Qt.ItemDataRole.DecorationRole.value
    TOOLTIP = Qt.ItemDataRole.ToolTipRole.value
    FONT = Qt.ItemDataRole.FontRole.value
    ALIGNMENT = Qt.ItemDataRole.TextAlignmentRole.value
    USER = Qt.ItemDataRole.UserRole.value


def fit_to_screen(widget: QWidget, width: int, height: int) -> None:
    """Size a window ``width`` x ``height``, or the free area of its screen
    where that is smaller (a 1024x700 laptop), never past the screen."""
    screen = widget.screen() or QApplication.primaryScreen()
    if screen is not None:
        free = screen.availableGeometry()
        # resize() sizes the inside; the title bar and borders come on top (a
        # 1366x768 screen lost the status bar below its edge). Known once
        # shown; before, what a window manager commonly draws.
        shown = widget.isVisible() and widget.frameGeometry().height() > widget.height()
        frame_w = widget.frameGeometry().width() - widget.width() if shown else _FRAME[0]
        frame_h = widget.frameGeometry().height() - widget.height() if shown else _FRAME[1]
        width = min(width, free.width() - frame_w)
        height = min(height, free.height() - frame_h)
    widget.resize(width, height)


#: Width and height a window manager's borders and title bar commonly add.
_FRAME = (8, 38)


__all__ = [name for name in dir() if name.startswith("Q") or name in (
    "Qt", "Signal", "Slot", "PYSIDE_VERSION", "QT_VERSION", "qVersion", "Role",
    "fit_to_screen")]


class _WheelGuard(QObject):
    """Lets a combo or spin box in a scrolled panel take the mouse wheel only
    once it has the focus (a click or Tab); before, the wheel scrolls the
    panel, as the user meant (the wheel over the Budget box switched
    Standard to Full)."""

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.Type.Wheel and not watched.hasFocus():
            area = watched.parentWidget()
            while area is not None and not isinstance(area, QAbstractScrollArea):
                area = area.parentWidget()
            if area is not None:
                QApplication.sendEvent(area.verticalScrollBar(), event)
            return True
        return False


_WHEEL_GUARD: _WheelGuard | None = None


def guard_wheel(root: QWidget) -> None:
    """Give every combo and spin box under ``root`` the wheel only when focused."""
    global _WHEEL_GUARD
    if _WHEEL_GUARD is None:
        _WHEEL_GUARD = _WheelGuard()
    for box in root.findChildren(QComboBox) + root.findChildren(QAbstractSpinBox):
        box.setFocusPolicy(Qt.FocusPolicy.StrongFocus)    # the wheel gives no focus
        box.installEventFilter(_WHEEL_GUARD)
