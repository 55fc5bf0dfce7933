"""The processes of one command, found by a mark in their environment: what
a ``kill -9`` of the command leaves running (the robustness probe and the
tests of issue 35 item 10).

A command started with ``TAG_VAR=tag`` in its environment hands it to every
process it starts, however deep and whenever; nothing else on the machine
(the probe, the test runner, another user's work) carries it.
"""
from __future__ import annotations

import re
import time
from pathlib import Path

import psutil

#: The environment variable that marks the processes of one command.
TAG_VAR = "DEID_PROBE_TAG"


def tagged(tag: str) -> list[psutil.Process]:
    """Live processes (zombies aside) whose environment holds ``TAG_VAR=tag``."""
    found = []
    for proc in psutil.process_iter():
        try:
            if proc.status() != psutil.STATUS_ZOMBIE and proc.environ().get(TAG_VAR) == tag:
                found.append(proc)
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            pass
    return found


def what_runs(proc: psutil.Process) -> str:
    """A short name for a process: the module or script it runs (no note
    text is ever on the command line of these)."""
    try:
        line = proc.cmdline()
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return "?"
    for arg in line[1:]:
        m = re.search(r"(resource_tracker|forkserver|spawn_main|semaphore_tracker|"
                      r"distributed\.\S+|app\.\S+)", arg)
        if m:
            return m.group(1)
    return Path(line[0]).name if line else "?"


def survivors(tag: str, wait_s: float) -> list[str]:
    """The processes of a killed command (reaped already) still running after
    ``wait_s``, named; each is then killed, so the next one starts clean."""
    deadline = time.monotonic() + wait_s
    alive = tagged(tag)
    while alive and time.monotonic() < deadline:
        time.sleep(0.5)
        alive = tagged(tag)
    names = [what_runs(p) for p in alive]
    for p in alive:
        try:
            p.kill()
        except psutil.NoSuchProcess:
            pass
    return names
