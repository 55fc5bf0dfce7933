"""The README lists every X11 library Qt's xcb plugin loads, by its Debian
package name (issue 34 item 15: a fresh Debian did not start without
libxcb-icccm4 and libxcb-keysyms1, which the README did not name)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _debian_package(soname: str) -> str:
    """``libxcb-icccm.so.4`` -> ``libxcb-icccm4``; ``libxkbcommon-x11.so.0``
    -> ``libxkbcommon-x11-0`` (Debian's rule for library package names)."""
    name, version = re.fullmatch(r"(.+)\.so\.(\d+)", soname.lower()).groups()
    return f"{name}-{version}" if name[-1].isdigit() else f"{name}{version}"


def test_the_readme_names_every_xcb_library_qt_loads():
    qt = pytest.importorskip("PySide6")
    root = Path(qt.__file__).parent / "Qt"
    binaries = [*root.glob("plugins/platforms/libqxcb.so"), *root.glob("lib/libQt6XcbQpa.so.*")]
    if not binaries:
        pytest.skip("no xcb plugin in this PySide6 (not Linux)")
    needed = {m.decode() for b in binaries
              for m in re.findall(rb"lib(?:xcb|xkbcommon|X11)[\w-]*\.so\.\d+", b.read_bytes())}
    assert {"libxcb-icccm.so.4", "libxcb-keysyms.so.1"} <= needed
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    missing = sorted(p for p in map(_debian_package, needed) if not re.search(rf"\b{p}\b", readme))
    assert not missing, missing
