"""Word spread: counted once per patient, kept only from two patients on,
stored as hashes."""
from app.models.spread import bucket, key, word_spread


def test_a_word_counts_once_per_patient_however_many_of_its_notes_hold_it():
    texts = ["Mrs Kowalski seen, sats fine.", "Kowalski again; sats fine.",
             "Sats fine at rest.", "Mr Lindqvist seen, sats fine."]
    spread = word_spread(texts, ["p1", "p1", "p2", "p3"])
    assert spread[key("sats")] == 3 and spread[key("fine")] == 3
    assert spread[key("seen")] == 2                   # p1 twice, p3 once
    # One patient's name, in two of that patient's notes: one patient, not kept.
    assert key("kowalski") not in spread and key("lindqvist") not in spread
    assert bucket(spread, "Kowalski") == bucket(spread, "Unheardof") == "0-1"
    assert bucket(spread, "SATS") == "3-5"           # case-blind


def test_without_patients_each_note_is_its_own():
    spread = word_spread(["Kowalski seen.", "Kowalski seen."])
    assert spread[key("kowalski")] == 2


def test_no_word_is_kept_in_clear_and_numbers_get_no_bucket():
    texts = [f"Seen by Dr Okonkwo on ward {i}." for i in range(30)]
    spread = word_spread(texts, [f"p{i}" for i in range(30)])
    assert not any(k in ("okonkwo", "seen", "ward") for k in spread)
    assert bucket(spread, "Okonkwo") == "21+"
    assert bucket(spread, "12") is None and bucket(spread, "") is None


def test_the_buckets_bound_the_counts():
    spread = {key("a"): 2, key("b"): 5, key("c"): 6, key("d"): 20, key("e"): 21}
    assert [bucket(spread, w) for w in "abcde"] == ["2", "3-5", "6-20", "6-20", "21+"]
