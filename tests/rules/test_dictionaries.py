"""The shipped dictionaries: loader, case-insensitive lookups, licences."""
from app.paths import resources_dir
from app.rules import dictionaries as D


def test_lookups_ignore_case_and_possessives():
    assert D.is_first_name("MARY") and D.is_first_name("mary") and D.is_first_name("Mary")
    assert D.is_surname("SMITH'S") and D.is_surname("Johnson")
    assert D.is_name("JOHN") and not D.is_name("NEURO")
    assert D.is_place("BALTIMORE") and D.is_place("boston")


def test_clinical_words_are_not_names_or_places():
    for word in ("NEURO", "RESP", "ABD", "PEEP", "SEDATED"):
        assert not D.is_first_name(word) and not D.is_surname(word), word
    # A surname that is also a clinical word is flagged as one.
    assert D.is_surname("FOLEY") and D.is_common_word("FOLEY")
    assert not D.is_place("CONT")


def test_names_that_are_words_need_context():
    for word in ("MAY", "WILL", "BILL", "MARK"):
        assert D.is_first_name(word) and D.is_common_word(word), word
    assert not D.is_common_word("MARY")


def test_multiword_places():
    assert D.place_length(["BEL", "AIR", "MD"], 0) == 2
    assert D.place_length(["to", "New", "York,"], 1) == 2
    assert D.place_length(["PT", "SEDATED"], 0) == 0


def test_loader_is_cached():
    assert D.lexicon() is D.lexicon()


def test_every_shipped_list_has_a_licence_line():
    folder = resources_dir() / "dictionaries"
    licences = (folder / "LICENSES.md").read_text(encoding="utf-8")
    lists = sorted(p.name for p in folder.glob("*.txt"))
    assert lists == sorted(D._FILES.values())
    for name in lists:
        assert f"`{name}`" in licences, name
        assert "GPL" not in (folder / name).read_text(encoding="utf-8").splitlines()[0]


def test_a_misspelt_common_word_is_one_letter_from_one_and_no_name():
    from app.rules.dictionaries import is_misspelt_common_word as misspelt

    assert [w for w in ("PRESNT", "Coopertive", "STRENTGH", "recieve", "AFTEROON")
            if misspelt(w)] == ["PRESNT", "Coopertive", "STRENTGH", "recieve", "AFTEROON"]
    # common words, listed names, short or unrelated words are not
    assert [w for w in ("present", "Tanaka", "Welsh", "Oyelaran", "boel", "VANDERMEER")
            if misspelt(w)] == []
