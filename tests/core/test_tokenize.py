from app.core.tokenize import Token, segment, tokenize


def words(text):
    return [text[t.start:t.end] for t in tokenize(text)]


def test_runs_of_letters_digits_and_single_punctuation():
    assert words("DOB: 03/03/1946.") == ["DOB", ":", "03", "/", "03", "/", "1946", "."]


def test_clinical_run_ons_split_at_lower_upper():
    assert words("DrSmith prnInsulin") == ["Dr", "Smith", "prn", "Insulin"]
    # all-caps and plain words stay whole
    assert words("MRN SMITH Smith") == ["MRN", "SMITH", "Smith"]


def test_letters_digits_split_and_unicode():
    assert words("2ºb 70años Cuéllar") == ["2", "ºb", "70", "años", "Cuéllar"]


def test_offsets_are_code_points_and_skip_whitespace():
    text = "  héllo\r\nwörld "
    toks = tokenize(text)
    assert toks == [Token(2, 7), Token(9, 14)]


def test_range_arguments():
    text = "abc def ghi"
    assert [text[s:e] for s, e in tokenize(text, 4, 7)] == ["def"]


def test_segments_cover_every_token_once():
    text = "Seen by Dr. Smith today. He is well.\nPlan: review in 2 weeks. Call 0412 345 678."
    segs = segment(text)
    all_tokens = [t for s in segs for t in s.tokens]
    assert all_tokens == tokenize(text)
    assert [text[s.start:s.end] for s in segs] == [
        "Seen by Dr. Smith today.", "He is well.", "Plan: review in 2 weeks.", "Call 0412 345 678."]


def test_segments_do_not_split_addresses_or_initials():
    text = "Domicilio: Av. Galaxia 6. Seen by J. Smith. Calle Mayor 86. 13 A."
    segs = segment(text)
    joined = [text[s.start:s.end] for s in segs]
    assert "Av. Galaxia 6." in joined[0]
    assert any("J. Smith." in j for j in joined)
    assert any("86. 13 A." in j for j in joined)


def test_line_breaks_always_split():
    segs = segment("a\n\n  \nb")
    assert len(segs) == 2


def test_empty_text():
    assert segment("") == []
    assert tokenize("") == []
