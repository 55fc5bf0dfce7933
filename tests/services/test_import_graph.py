"""The services layer has no import circle.

Every import of one ``app.services`` module by another counts, at the top
of a module or inside a function (a deferred import hides a circle from
Python, not from a reader): settings and the choice of predictor have
homes of their own (`app.services.settings`, `app.services.prediction`)
that import no service that imports them back.
"""
from __future__ import annotations

import ast
from pathlib import Path

SERVICES = Path(__file__).resolve().parents[2] / "app" / "services"


def _imports(path: Path) -> set[str]:
    """The app.services modules ``path`` imports, anywhere in it."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "app.services":
                found |= {alias.name for alias in node.names}
            elif node.module.startswith("app.services."):
                found.add(node.module.split(".")[2])
        elif isinstance(node, ast.Import):
            found |= {alias.name.split(".")[2] for alias in node.names
                      if alias.name.startswith("app.services.")}
    return found - {path.stem}


def services_graph() -> dict[str, set[str]]:
    modules = {p.stem: p for p in SERVICES.glob("*.py") if p.stem != "__init__"}
    return {name: _imports(path) & set(modules) for name, path in modules.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle of ``graph`` (as a path that returns to its start), or ``None``."""
    state: dict[str, int] = {}                 # 1: on the path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


def test_the_cycle_finder_finds_one():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_function_level_imports_are_read():
    graph = services_graph()
    # A deferred import (inside a function) counts as much as one at the top.
    assert "settings" in graph["coverage"] and "prediction" in graph["annotating"]


def test_the_services_import_no_circle():
    cycle = find_cycle(services_graph())
    assert cycle is None, "import circle in app.services: " + " -> ".join(cycle)


def test_settings_and_prediction_sit_low():
    graph = services_graph()
    assert graph["settings"] == set()          # read by all, reads no service
    assert "redaction" not in graph["prediction"]
