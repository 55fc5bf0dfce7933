"""`Recent`: what was computed last for a few keys."""
from app.core.recent import Recent


def test_computes_only_the_keys_not_kept_and_keeps_the_last_used():
    calls = []

    def compute(missing):
        calls.append(list(missing))
        return [f"v{i}" for i in missing]

    kept = Recent(3)
    assert kept.get(["a", "b"], compute) == ["v0", "v1"] and calls == [[0, 1]]
    # Only "c" is new; its index in this call is passed.
    assert kept.get(["b", "c"], lambda m: calls.append(list(m)) or ["new"] * len(m)) == [
        "v1", "new"]
    assert calls[-1] == [1] and len(kept) == 3
    kept.get(["d"], lambda m: ["vd"])                 # "a" was used longest ago: dropped
    assert len(kept) == 3
    assert kept.get(["a"], lambda m: ["again"]) == ["again"]
    kept.clear()
    assert len(kept) == 0
