"""Which compute devices this machine has, and which one a run will use.

Training uses ``"cpu"`` or ``"cuda"``. Apple MPS is reported (``deid doctor``)
but not trained on: the base-model libraries support it unevenly.
"""
from __future__ import annotations

import os
from dataclasses import asdict, dataclass

DEVICES = ("auto", "cpu", "cuda")


@dataclass(frozen=True, slots=True)
class DeviceInfo:
    """What ``detect_devices`` found."""

    cuda_available: bool = False
    cuda_name: str | None = None
    cuda_total_memory: int | None = None      # bytes
    cuda_count: int = 0
    mps_available: bool = False
    cpu_physical: int | None = None
    cpu_logical: int | None = None
    # The CPU multiplies bfloat16 in hardware (AMX or AVX512-BF16): the
    # transformer fits and predicts in bfloat16 there, and is a default member.
    cpu_bf16: bool = False
    torch_version: str | None = None

    def as_dict(self) -> dict:
        return asdict(self)


def detect_devices() -> DeviceInfo:
    """Probe CUDA, MPS and CPU cores; never raises (missing torch -> CPU only)."""
    try:
        import psutil
        physical = psutil.cpu_count(logical=False)
        logical = psutil.cpu_count(logical=True)
    except ImportError:
        physical, logical = None, os.cpu_count()
    fields: dict = {"cpu_physical": physical, "cpu_logical": logical}
    try:
        import torch
    except ImportError:
        return DeviceInfo(**fields)
    fields["torch_version"] = torch.__version__
    from app.models.transformer_ner import cpu_bf16
    fields["cpu_bf16"] = cpu_bf16()
    try:
        if torch.cuda.is_available():
            props = torch.cuda.get_device_properties(0)
            fields.update(cuda_available=True, cuda_name=props.name,
                          cuda_total_memory=int(props.total_memory),
                          cuda_count=torch.cuda.device_count())
    except Exception:  # a broken driver must not stop the app: report no CUDA
        pass
    try:
        fields["mps_available"] = bool(torch.backends.mps.is_available())
    except Exception:
        pass
    return DeviceInfo(**fields)


def resolve_device(requested: str, info: DeviceInfo | None = None) -> tuple[str, str | None]:
    """Map ``--device auto|cpu|cuda`` to the device a run will use.

    Returns ``(device, note)``: ``device`` is ``"cpu"`` or ``"cuda"``;
    ``note`` is a user-facing sentence when the choice needs explaining
    (a fallback to the CPU), else ``None``.
    """
    if requested not in DEVICES:
        raise ValueError(f"unknown device {requested!r} (choose from {', '.join(DEVICES)})")
    if requested == "cpu":
        return "cpu", None
    info = info or detect_devices()
    if info.cuda_available:
        return "cuda", None
    if requested == "cuda":
        return "cpu", "CUDA requested but not available — training on CPU"
    if info.mps_available:
        return "cpu", "Apple GPU (MPS) found but not used for training — training on CPU"
    return "cpu", None
