"""People's names that ward notes write, found by their context."""


def found(finder, text):
    return [text[s:e] for s, e in finder(text)]


def test_names_after_a_title_whatever_the_name():
    from app.rules.nursing_names import find_titled_names

    def names(text):
        return [text[s:e] for s, e in find_titled_names(text)]

    assert names("DR. PRICE TO BEDSIDE. mrs. powers arrived. Drs' Okafor and Lindqvist in") == [
        "PRICE", "powers", "Okafor", "Lindqvist"]
    assert names("SEEN BY DR. J. KOWALSKI TODAY") == ["J. KOWALSKI"]
    assert names("Dr Ferdinand Kowalczyk And") == ["Ferdinand Kowalczyk"]
    # A capitalised word after a first name in mixed case is the surname,
    # even a common word; not in capitals ("DR JOHN WILL SEE") nor a verb.
    assert names("Dr Ivo Mason AWARE. Dr. Ada Baker signed. Dr Hugo Will see") == [
        "Ivo Mason", "Ada Baker", "Hugo"]
    assert names("DR JOHN WILL SEE PT. Dr. Hayes Notified. Dr. Ann And team") == [
        "JOHN", "Hayes", "Ann"]
    # Not names: a common word after the title, "MS" (mental status, morphine).
    assert names("DR AWARE. MD NOTIFIED. MR AS ABOVE. MS 4MG IV. MS BACK TO BASE") == []


def test_names_before_a_credential_and_after_a_role():
    from app.rules.nursing_names import find_credentialed_names

    def names(text):
        return found(find_credentialed_names, text)

    assert names("Seen by J. Yi, MD. Pain to r arm") == ["J. Yi"]
    assert names("LLL, and now RLL. Brandvold-Painter MD plans to") == ["Brandvold-Painter"]
    assert names("plan to extubate. s. okafor rrt\n") == ["s. okafor"]
    assert names("R PUPIL (B. LINDQVIST PA AWARE). FEBRILE NP JEN AWARE.") == ["B. LINDQVIST", "JEN"]
    # Not names: roles ("OSTOMY RN"), common words ("PER MD"), abbreviations
    # ("FLD, MD"), and the pulmonary artery ("RIJ PA LINE", "LOW BACK PAIN").
    assert names("OSTOMY RN applied. PER MD. maintenance fld, MD will discuss. RIJ PA LINE. "
                 "C/O LOW BACK PAIN. INCISIONAL PAIN. he is an rn") == []


def test_unlisted_names_after_a_role_and_full_names_before_aware():
    from app.rules.nursing_names import find_credentialed_names as names

    assert found(names, "cont lasix per md okonkwo. am labs") == ["okonkwo"]
    assert found(names, "Plan per NP Okonkwo, cont") == ["Okonkwo"]
    assert found(names, "drsg changed, ines marqueza aware. cont") == ["ines marqueza"]
    # a lower-case word after a role in a note with capitals is a misspelt
    # word; a word that is no first name before the surname is no name
    assert found(names, "Plan per md verbl, cont") == []
    assert found(names, "NEURO MARQUEZA AWARE") == []


def test_an_initial_and_a_surname():
    from app.rules.nursing_names import find_initialed_names as names

    assert found(names, "seen by p. renard, plan to") == ["p. renard"]
    assert found(names, "PER Z. OKAFOR IN TO SEE") == ["Z. OKAFOR"]
    # a plan's items, a side, a letter before a word with a letter alone, a common word
    assert found(names, "A. SEPSIS\nP. ANTIBIOTICS\nS/P R. thoracotomy. D and I. X-ray done. W. HELP") == []
    # a species, as it is written: "C. difficile negative" came out as two names
    assert found(names, "Stool cultures and C. difficile negative; E. coli in urine") == []
    assert found(names, "seen by Z. Okafor") == ["Z. Okafor"]


def test_names_after_a_plural_title():
    from app.rules.nursing_names import find_titled_names

    text = "EXPIRED. DR'S DELACROIX AND MARLOWE REQUESTED. Drs Halvorsen and Okafor in. DRS AWARE"
    assert [text[s:e] for s, e in find_titled_names(text)] == [
        "DELACROIX", "MARLOWE", "Halvorsen", "Okafor"]


def test_names_after_a_relation():
    from app.rules.nursing_names import find_relative_names

    def names(text):
        return [text[s:e] for s, e in find_relative_names(text)]

    assert names("HIS NEPHEW TOBIAS CALLED. wife, Marisol Quintero (555) visited. "
                 "social: son jonah in. Sister-in-law Greta Vandermeer here") == [
        "TOBIAS", "Marisol Quintero", "jonah", "Greta Vandermeer"]
    # A first name that is also a word needs a stop or a deed after it.
    assert names("son, bill, phoned. social: rose visited. DTR-KAYLEIGH 555-0101") == [
        "bill", "rose", "KAYLEIGH"]
    # A nickname one letter from a word is still a name ("SUNNI", not "sunny").
    assert names("A BROTHER SUNNI AND A SISTER") == ["SUNNI"]
    # Not names: relatives, roles, verbs, common words, misspelt deeds.
    assert names("SOCIAL: SON AND DAUGHTER VISITED. WIFE WILL CALL. sister said ok. "
                 "son at bedside. SOCIAL:MARRIED-NO KIDS. daughter phoned-family. "
                 "husband visisted today. son-in-law present. friend case manager. "
                 "Social-son's in all day") == []


def test_initials_before_a_name():
    from app.rules.nursing_names import initial_before

    def joined(text, name):
        start = initial_before(text, text.index(name))
        return None if start is None else text[start:text.index(name) + len(name)]

    assert joined("LABS SENT, R TANAKA ORDERED", "TANAKA") == "R TANAKA"
    assert joined("GAVE ANTACID-K. OYELARAN AWARE", "OYELARAN") == "K. OYELARAN"
    assert joined("per m. j. Abernathy", "Abernathy") == "m. j. Abernathy"
    # Words, not initials: "A", "I", the end of a word ("IV'S", "PT.").
    for text in ("SPOKE TO A TANAKA", "I TANAKA", "IV'S TANAKA", "PER PT. TANAKA", "AND TANAKA"):
        assert joined(text, "TANAKA") is None, text


def test_a_listed_name_after_a_role():
    from app.rules.nursing_names import find_credentialed_names

    def names(text):
        return [text[s:e] for s, e in find_credentialed_names(text)]

    assert names("K REPLETED PER NP Hoffman. EXTUBATED BY HO GUTIERREZ.") == [
        "Hoffman", "GUTIERREZ"]
    assert names("LINE OUT PER MD EPI WIRES OUT. DC'D BY MD TOL WELL. per md verbal") == []


def test_names_joined_by_and():
    from app.rules.nursing_names import names_beside

    def beside(text, name):
        start = text.index(name)
        return [text[s:e] for s, e in names_beside(text, start, start + len(name))]

    assert beside("BOTH ODALYS AND KWAME ARE PROXIES", "ODALYS") == ["KWAME"]
    assert beside("BOTH ODALYS AND KWAME ARE PROXIES", "KWAME") == ["ODALYS"]
    assert beside("nsg (p. mbeki and t. o'hara) checked", "mbeki") == ["t. o'hara"]
    # Common words beside a name are its deeds, relatives are no names.
    assert beside("Dr. Ferreira and team spoke", "Ferreira") == []
    assert beside("ODALYS AND SON VISITED", "ODALYS") == []
    # a first name that is a word, capitalised in mixed case, not in capitals
    assert beside("Both Odalys and Hope are his proxies", "Odalys") == ["Hope"]
    assert beside("BOTH ODALYS AND HOPE ARE HIS PROXIES", "ODALYS") == []
    assert beside("Odalys and hope are here", "Odalys") == []
    # An uncommon word in lower case beside a capitalised name, in mixed case,
    # is no name ("laparotomy" was suggested as one).
    assert beside("Proceeded to laparotomy and Hartmann's procedure.", "Hartmann") == []


def test_more_clinicians_and_relatives_by_their_context():
    from app.rules.nursing_names import find_credentialed_names, find_relative_names

    text = "VENT CHECKED.\nOsvaldo Brandt CRT\nNP hope made aware. MD made aware. RT IJ PATENT"
    assert [text[s:e] for s, e in find_credentialed_names(text)] == ["Osvaldo Brandt", "hope"]
    text = ("CALL Ines Okwu (daughter) 555 0101. JOAO OYELOWO, HIS NEPHEW, VISITED. "
            "SON 555 0102 AND ANOTHER SON ABROAD. Tea (pt's son)")
    assert [text[s:e] for s, e in find_relative_names(text)] == ["Ines Okwu", "JOAO OYELOWO"]
    text = "Wife and lawyer (Tomasz Wierzbicki) aware. FAMILY ATTORNEY IN TO DISCUSS"
    assert [text[s:e] for s, e in find_relative_names(text)] == ["Tomasz Wierzbicki"]


def test_a_first_name_that_is_a_word_before_a_surname():
    from app.rules.nursing_names import find_credentialed_names, find_relative_names

    # before a credential, in mixed case, the capitalised word after a first name
    assert found(find_credentialed_names, "vent ok.\nRose Hunter CRT\n") == ["Rose Hunter"]
    assert found(find_credentialed_names, "SATS 90S. WILL KEEP NP AT 4L") == []
    # before whose relative someone is
    assert found(find_relative_names, "call Hope Vaskova (daughter) first") == ["Hope Vaskova"]
    assert found(find_relative_names, "Hope Vaskova (daughter)")[0] != "Vaskova"
    # a language is no relative's name
    assert found(find_relative_names, "a+o x3 via daughter,russian speaking") == []


def test_names_before_a_phone_number():
    from app.rules.nursing_names import find_contact_names

    text = ("very devoted. Ines Okwu cell# 410-555-0134. CONTACT PERSON IVO MARR (212-555-0123). "
            "Sister in Ohio 415-555-0199. CALL 410-555-0100")
    assert found(find_contact_names, text) == ["Ines Okwu", "IVO MARR"]
    # the title of a number is no one to call (the sample's Medicare card)
    assert found(find_contact_names, "Huynh  Medicare No 4838115196  Home") == []
    assert found(find_contact_names, "Medicare number 4838115196") == []


def test_miss_and_ms_before_an_uncommon_name():
    from app.rules.nursing_names import find_titled_names

    text = "Miss Leontyne Okafor is a 64 yo. MS OKONKWO MAKES DECISIONS. MS CONTIN 30. MS INTACT"
    assert found(find_titled_names, text) == ["Leontyne", "OKONKWO"]


def test_listed_names_told():
    from app.rules.nursing_names import find_credentialed_names

    text = "BP 80S, INES NOTIFIED. Z. OKAFOR AWARE. HO AWARE. TEAM AWARE. neurosurg aware"
    assert [text[s:e] for s, e in find_credentialed_names(text)] == ["INES", "OKAFOR"]
