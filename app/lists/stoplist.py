"""Words that a hospital list may contain but that are ordinary words in notes.

Real lists are noisy: a first name "MAY" or "HOPE", a place "BALT", a
hospital called "GENERAL" or "UNION". An entry made only of such words is
*ambiguous*: the matcher accepts it only with context (a title, a relative,
a neighbouring list hit; see :mod:`app.lists.matcher`), and never matches it
with a typo.

The stoplist is Faker's list of about a thousand common English words
(``faker.providers.lorem.en_US``, MIT licence, a dependency of the product)
plus the function words, calendar words and clinical words and
abbreviations written below (ours).
"""
from __future__ import annotations

from functools import lru_cache

# Function words Faker's list lacks, calendar words, colours, and the verbs
# and nouns of nursing notes that double as names or places.
_EXTRA = """
a an and are as at be been but by for from had has have he her him his i if in into is it its
me my no nor not of off on or our she so than that the their them then there these they this
those to too up us was we were what when where which who whom why will with would you your
am pm yes per via yet also only very just ever each both few more most some such own same
jan feb mar apr jun jul aug sep sept oct nov dec january february march april may june july
august september october november december mon tue tues wed thu thur thurs fri sat sun monday
tuesday wednesday thursday friday saturday sunday today tomorrow yesterday tonight noc night
day days week weeks month months year years morning evening afternoon midnight noon
red orange yellow green blue purple pink brown black white grey gray tan golden rose amber
clear cloudy dark light bright
rose fell rest rested lay laid said told asked called seen saw stated states noted
well good fair poor better worse stable fine ok okay alert awake calm
mark marked bill will hope faith grace joy glory sunny dawn summer winter autumn spring
general union mercy harbor harbour memorial vista northwest suburban central north south east
west upper lower middle main center centre medical hospital hosp clinic unit ward floor room
bed home house street st road rd ave avenue lane park hall court hill river lake chase
field fields wood woods forest stone bridge green mill mills point view heights
care health system services service county city town state regional university
patient pt pts family wife husband son daughter mother father brother sister friend
nurse doctor dr md rn np pa team service plan note notes report
pain skin neuro resp cardiac gi gu id social access labs lab heme renal
bp hr rr sat sats temp tmax tm wbc hct hgb plt inr ptt na cl co bun cr glu ca mg phos
iv po pr sq sc im prn qd bid tid qid qhs hs ac pc npo ngt ogt ett trach vent cpap bipap
ps peep fio fio2 abg vbg cxr ct mri ekg ecg echo cath icu ccu micu sicu csru ccu nicu ed er
or pacu ot pt ptot dnr dni cmo full code bs bm bms u o uo foley ivf tf tfs ns lr d5w
art aline a-line cvl picc swan sbp dbp map cvp pa pcwp ci co svr
lasix heparin insulin coumadin dopa levo neo morphine ativan haldol fentanyl versed
po2 pco2 ph hco3 lactate k kcl mgso4 neb nebs
ox alert oriented aox mae perrl perla cta dim crackles wheezes rhonchi
hold held given give gave start started stop stopped cont continue continued
left right bilat bilateral lt rt r l
cc ml mg mcg gm kg lb lbs cm mm hr hrs min mins sec
dtr sis bro hubby gf bf so
""".split()


@lru_cache(maxsize=1)
def stoplist() -> frozenset[str]:
    """The lower-case stoplist (built once per process).

    Not the shipped dictionaries' 64,000 common words
    (``resources/dictionaries/common_words.txt``): with them, more listed
    names that are also rare words ("HARBOR", "BAKER") need context, and on
    the PhysioNet training notes the lists found 0.775 of the name and
    location tokens instead of 0.791, for two false tokens fewer.
    """
    from faker.providers.lorem.en_US import Provider
    return frozenset(w.lower() for w in Provider.word_list) | frozenset(_EXTRA)
