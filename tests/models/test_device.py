import pytest

from app.models.device import DeviceInfo, detect_devices, resolve_device


def test_detect_devices_reports_cpu_and_torch():
    info = detect_devices()
    assert info.cpu_logical and info.cpu_logical >= 1
    assert info.torch_version
    if not info.cuda_available:
        assert info.cuda_name is None and info.cuda_total_memory is None
    assert set(info.as_dict()) >= {"cuda_available", "mps_available", "cpu_physical"}


def test_cuda_requested_without_gpu_falls_back_with_note():
    device, note = resolve_device("cuda", DeviceInfo(cuda_available=False))
    assert device == "cpu"
    assert note == "CUDA requested but not available — training on CPU"


def test_auto_and_cpu():
    assert resolve_device("auto", DeviceInfo()) == ("cpu", None)
    gpu = DeviceInfo(cuda_available=True, cuda_name="Test GPU", cuda_total_memory=8 << 30,
                     cuda_count=1)
    assert resolve_device("auto", gpu) == ("cuda", None)
    assert resolve_device("cuda", gpu) == ("cuda", None)
    assert resolve_device("cpu", gpu) == ("cpu", None)
    device, note = resolve_device("auto", DeviceInfo(mps_available=True))
    assert device == "cpu" and "MPS" in note


def test_real_machine_resolution_is_consistent():
    info = detect_devices()
    device, note = resolve_device("cuda")
    assert device == ("cuda" if info.cuda_available else "cpu")
    assert (note is None) == info.cuda_available


def test_unknown_device_rejected():
    with pytest.raises(ValueError):
        resolve_device("tpu")
