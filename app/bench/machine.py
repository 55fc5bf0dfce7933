"""What the figures were measured on: CPU, cores, RAM, GPU, library versions."""
from __future__ import annotations

import os
import platform
from importlib import metadata
from pathlib import Path

_PACKAGES = ("torch", "spacy", "stanza", "flair", "python-crfsuite", "scikit-learn", "xgboost-cpu")


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _cpu_quota() -> float | None:
    """CPUs allowed by a cgroup v2 quota (containers), None when unlimited."""
    try:
        quota, period = Path("/sys/fs/cgroup/cpu.max").read_text().split()
        return None if quota == "max" else round(int(quota) / int(period), 2)
    except (OSError, ValueError):
        return None


def machine_info() -> dict:
    """A JSON-ready description of this machine (stable keys)."""
    import psutil

    gpu = None
    try:
        import torch
        if torch.cuda.is_available():
            props = torch.cuda.get_device_properties(0)
            gpu = {"name": props.name, "memory_gb": round(props.total_memory / 2**30, 1),
                   "count": torch.cuda.device_count()}
    except Exception:   # a broken driver: report no GPU rather than fail the benchmark
        gpu = None
    versions = {}
    for name in _PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "cpu": _cpu_model(),
        "cores_physical": psutil.cpu_count(logical=False),
        "cores_logical": psutil.cpu_count(logical=True),
        "cores_usable": usable,
        "cpu_quota": _cpu_quota(),
        "ram_gb": round(psutil.virtual_memory().total / 2**30, 1),
        "gpu": gpu,
        "os": platform.platform(),
        "python": platform.python_version(),
        "versions": versions,
    }


def describe(machine: dict) -> str:
    """One line for Markdown."""
    gpu = machine.get("gpu")
    gpu_text = f"{gpu['name']} ({gpu['memory_gb']} GB)" if gpu else "no GPU"
    return (f"{machine['cpu']}, {machine['cores_usable']} usable cores "
            f"({machine['cores_physical']} physical / {machine['cores_logical']} logical), "
            f"{machine['ram_gb']} GB RAM, {gpu_text}; Python {machine['python']}, "
            f"torch {machine['versions'].get('torch')}")


def load_average() -> list[float] | None:
    """1/5/15-minute load average: the machine may be shared while timing."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None
