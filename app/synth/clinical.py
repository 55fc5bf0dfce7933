"""Clinical content: scenarios and PII-free history items.

Eponyms (disease, sign, score and procedure names derived from people) are
deliberately frequent: they look like names to a model but are not PII and
are never annotated. ``EPONYMS`` lists every one the generator writes.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Scenario:
    complaint: str
    diagnosis: str
    hpi: str                 # may use {pt_ref}, {his}, {a_an}, {age_phrase}, {sex_noun}
    course: tuple[str, ...]  # may use {proc_date}, {cons_ref}
    investigations: str
    meds: tuple[str, ...]
    min_age: int = 18


SCENARIOS: tuple[Scenario, ...] = (
    Scenario("Recurrent positional vertigo", "Benign paroxysmal positional vertigo (right posterior canal)",
             "{pt_ref} is {a_an} {age_phrase} {sex_noun} who presented with two days of room-spinning vertigo on rolling over in bed, with nausea but no hearing loss.",
             ("Dix-Hallpike test was positive on the right. Epley's manoeuvre was performed on {proc_date} with resolution of symptoms.",
              "Reviewed by the physiotherapist and taught Brandt-Daroff exercises."),
             "CT brain: no acute intracranial abnormality. FBC, EUC normal.",
             ("Prochlorperazine 5 mg PO TDS PRN for 3 days",)),
    Scenario("Progressive dysphagia", "Adenocarcinoma of the distal oesophagus",
             "{pt_ref}, {a_an} {age_phrase} {sex_noun}, was admitted electively for surgery after neoadjuvant chemoradiotherapy for a distal oesophageal adenocarcinoma.",
             ("Underwent Ivor Lewis oesophagectomy on {proc_date} under {cons_ref}.",
              "Post-operative course complicated by a small right pleural effusion; the feeding jejunostomy was used until day 7."),
             "Gastrograffin swallow day 6: no anastomotic leak.",
             ("Esomeprazole 40 mg PO daily", "Paracetamol 1 g PO QID")),
    Scenario("Fall with head strike", "Mechanical fall with scalp laceration; no intracranial injury",
             "{pt_ref} is {a_an} {age_phrase} {sex_noun} with a background of Parkinson's disease who fell at home and struck {his} head.",
             ("Glasgow coma scale 14 on arrival, improving to 15 within the hour.",
              "Scalp laceration closed with staples on {proc_date}. Seen by the falls team and {his} Parkinson's disease medications were given on time."),
             "CT brain and C-spine: no fracture or haemorrhage.",
             ("Levodopa/benserazide 100/25 mg PO QID", "Paracetamol 1 g PO QID PRN"), 55),
    Scenario("Painless jaundice", "Adenocarcinoma of the head of pancreas",
             "{pt_ref}, {age_phrase}, presented with painless jaundice and weight loss of 6 kg over two months.",
             ("ERCP with biliary stent on {proc_date}. Discussed at the upper GI MDT; planned for a Whipple procedure.",
              "{cons_ref} discussed the Whipple procedure with the patient and family."),
             "CT abdomen: 2.8 cm mass in the head of pancreas, no metastases. CA 19-9 elevated.",
             ("Creon 25,000 units with meals", "Ondansetron 4 mg PO BD PRN")),
    Scenario("Weight gain and resistant hypertension", "Cushing's syndrome (ACTH-dependent)",
             "{pt_ref} is {a_an} {age_phrase} {sex_noun} referred with central weight gain, easy bruising and proximal weakness, suspicious for Cushing's syndrome.",
             ("Low-dose dexamethasone suppression test on {proc_date} failed to suppress cortisol, confirming Cushing's syndrome.",
              "Inferior petrosal sinus sampling planned; endocrine review by {cons_ref}."),
             "24 h urinary free cortisol elevated x2. MRI pituitary: 6 mm adenoma.",
             ("Metformin 500 mg PO BD", "Amlodipine 10 mg PO daily")),
    Scenario("Abdominal pain and fever", "Perforated sigmoid diverticulitis",
             "{pt_ref}, {a_an} {age_phrase} {sex_noun}, presented with 3 days of left iliac fossa pain and fevers to 38.9.",
             ("Proceeded to laparotomy and Hartmann's procedure on {proc_date}.",
              "Stoma nurse education completed; reversal to be considered in 3-6 months."),
             "CT abdomen: perforated sigmoid diverticulitis with pelvic collection. WCC 18.2, CRP 240.",
             ("Amoxicillin/clavulanate 875/125 mg PO BD for 5 days", "Enoxaparin 40 mg SC daily for 28 days")),
    Scenario("Facial weakness", "Bell's palsy (left)",
             "{pt_ref} is {a_an} {age_phrase} {sex_noun} who woke with a left facial droop and inability to close the left eye.",
             ("Stroke excluded clinically and on imaging. Commenced prednisolone on {proc_date}.",
              "Eye care taught; House-Brackmann grade IV at discharge."),
             "CT brain with perfusion: no infarct.",
             ("Prednisolone 50 mg PO daily for 10 days", "Lubricating eye drops 1 drop QID")),
    Scenario("Cough and confusion", "Community-acquired pneumonia with delirium",
             "{pt_ref}, {a_an} {age_phrase} {sex_noun} with Alzheimer's disease, was brought in by family with cough, fever and new confusion.",
             ("CURB-65 score 3 on admission. Treated with IV ceftriaxone and azithromycin from {proc_date}.",
              "Delirium settled by day 4; geriatric review by {cons_ref} arranged."),
             "CXR: right lower lobe consolidation. Sputum grew Streptococcus pneumoniae.",
             ("Amoxicillin 1 g PO TDS for 5 days",), 60),
    Scenario("Bloody diarrhoea", "Flare of ileocolonic Crohn's disease",
             "{pt_ref} is {a_an} {age_phrase} {sex_noun} with known Crohn's disease presenting with 10 days of bloody diarrhoea up to 8 times a day.",
             ("Flexible sigmoidoscopy on {proc_date} showed active inflammation. Commenced IV hydrocortisone.",
              "Infliximab induction discussed with {cons_ref}."),
             "Faecal calprotectin 1400. Stool cultures and C. difficile negative.",
             ("Prednisolone 40 mg PO daily, weaning by 5 mg weekly", "Calcium/vitamin D 1 tab PO daily")),
)

# PII-free past history items; most carry an eponym.
HISTORY_ITEMS: tuple[str, ...] = (
    "Parkinson's disease", "Hashimoto's thyroiditis", "Barrett's oesophagus", "Graves' disease",
    "Alzheimer's disease", "Meniere's disease", "Paget's disease of bone", "Raynaud's phenomenon",
    "Hodgkin lymphoma, in remission", "Dupuytren's contracture", "Colles fracture (left wrist)",
    "Born at 32 weeks, Apgar score 6 at 1 minute", "Previous Whipple procedure",
    "Cushing's syndrome, treated", "Type 2 diabetes mellitus", "Hypertension",
    "Atrial fibrillation (CHA2DS2-VASc 4)", "COPD", "Osteoarthritis of both knees",
    "Chronic kidney disease stage 3a (eGFR 52)", "Previous Ivor Lewis oesophagectomy",
    "Benign positional vertigo treated with Epley's manoeuvre")

# History items that would be implausible in a young adult.
OLDER_ONLY: frozenset[str] = frozenset({
    "Parkinson's disease", "Alzheimer's disease", "Paget's disease of bone",
    "Dupuytren's contracture", "Osteoarthritis of both knees",
    "Atrial fibrillation (CHA2DS2-VASc 4)", "Previous Ivor Lewis oesophagectomy"})

EPONYMS: tuple[str, ...] = (
    "Epley's manoeuvre", "Ivor Lewis oesophagectomy", "Glasgow coma scale", "Parkinson's disease",
    "Apgar score", "Whipple procedure", "Cushing's syndrome", "Hartmann's procedure",
    "Bell's palsy", "Alzheimer's disease", "Crohn's disease", "Hashimoto's thyroiditis",
    "Barrett's oesophagus", "Graves' disease", "Meniere's disease", "Paget's disease",
    "Raynaud's phenomenon", "Hodgkin lymphoma", "Dupuytren's contracture", "Colles fracture",
    "Dix-Hallpike test", "Brandt-Daroff exercises", "House-Brackmann grade", "Foley catheter")

# Ward, bed and room numbers: numbers that are not PII.
WARDS_AU = ("7B", "4 West", "9 North", "ICU", "CCU", "5A", "Short Stay", "12 East")
WARDS_US = ("4 West", "6B", "MICU", "Step-down", "3 North", "Tower 5")

EXAMINATION = (
    "T 37.{d1} HR {hr} BP {sbp}/{dbp} RR 18 SpO2 9{d2}% RA.",
    "Alert and oriented. HR {hr} reg, BP {sbp}/{dbp}, afebrile. Chest clear, HS dual no murmur.",
    "Obs stable: BP {sbp}/{dbp}, HR {hr}, sats 9{d2}% on room air. Abdomen soft, non-tender.",
)
