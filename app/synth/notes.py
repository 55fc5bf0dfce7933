"""Note templates: discharge summaries, progress notes, clinic and referral letters.

Each note type is a function that writes lines through a :class:`NoteWriter`.
Templates are plain strings with ``{placeholders}``; the writer's value table
maps each placeholder to pieces (see :mod:`app.synth.builder`).
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, timedelta

from app.synth import identifiers as ids
from app.synth.builder import Ent, NoteBuilder, Value
from app.synth.clinical import (EXAMINATION, HISTORY_ITEMS, OLDER_ONLY, SCENARIOS, WARDS_AU,
                                WARDS_US)
from app.synth.forms import (AGE, DATE, DOB, EMAIL, HOSPITAL, IDN, LOCATION, PHONE, URL,
                             address_block, address_inline, doctor_full, doctor_ref,
                             full_name, header_name, patient_name, plain_name, PERSON)
from app.synth.people import Clinician, Patient, PeopleFactory


@dataclass(frozen=True, slots=True)
class Encounter:
    """Dates of one episode of care."""

    admitted: date
    discharged: date
    procedure: date
    written: date


def _age(dob: date, on: date) -> int:
    return on.year - dob.year - ((on.month, on.day) < (dob.month, dob.day))


class NoteWriter:
    """Writes one note for one patient encounter."""

    def __init__(self, rng: random.Random, factory: PeopleFactory, pt: Patient,
                 enc: Encounter, labels: frozenset[str], *, upper: bool) -> None:
        self.rng = rng
        self.pt = pt
        self.enc = enc
        self.us = pt.locale == "en_US"
        self.builder = NoteBuilder(labels, upper=upper)
        self.age = _age(pt.dob, enc.admitted)
        self.scenario = rng.choice([s for s in SCENARIOS if s.min_age <= self.age])
        domain = pt.hospital.domain
        self.registrar = factory.clinician("Registrar", domain)
        self.resident = factory.clinician("Resident", domain)
        self.nurse = factory.person(rng.choice("FFM"))
        self.other_hospital = factory.hospital(pt.address.state).name
        self.city = factory.fake.city()
        self.values = self._values()

    # -- writing --------------------------------------------------------

    def line(self, template: str = "") -> None:
        self.builder.fill(template + "\n", self.values)

    def one_of(self, *templates: str) -> None:
        self.line(self.rng.choice(templates))

    # -- value table ----------------------------------------------------

    def _values(self) -> dict[str, Value]:
        rng, pt, enc, us = self.rng, self.pt, self.enc, self.us
        upper = self.builder.upper
        loc = pt.locale
        gp, hosp, cons = pt.gp, pt.hospital, pt.consultant
        male = pt.person.sex == "M"
        age = self.age
        dob_text = ids.format_date(pt.dob, rng, loc, dob=True)

        def date_of(d: date) -> Value:
            return lambda: Ent(ids.format_date(d, rng, loc), DATE)

        def dr(c: Clinician) -> Value:
            return lambda: doctor_ref(rng, c, upper=upper)

        def age_phrase() -> list:
            form = rng.choice(("-year-old", " year old", "yo", " y/o", "-yr-old"))
            return [Ent(str(age), AGE), form]

        def with_ext(number: str) -> Value:
            return lambda: Ent(f"{number} {ids.extension(rng)}", PHONE)

        ward = rng.choice(WARDS_US if us else WARDS_AU)
        return {
            # patient
            "pt_ref": lambda: patient_name(rng, pt),
            "pt_header": lambda: header_name(rng, pt),
            "pt_full": Ent(full_name(pt.person), PERSON),
            "pt_first": Ent(pt.person.first, PERSON),
            "pt_title_last": [pt.title + ("." if us else "") + " ", Ent(pt.person.last, PERSON)],
            "He": "He" if male else "She",
            "his": "his" if male else "her", "His": "His" if male else "Her",
            "sex_noun": "man" if male else "woman", "sex_word": "Male" if male else "Female",
            "sex_code": "M" if male else "F",
            "dob": Ent(dob_text, DOB), "age": Ent(str(age), AGE), "age_phrase": age_phrase,
            "a_an": "an" if str(age).startswith("8") or age in (11, 18) else "a",
            "mrn": Ent(pt.mrn, IDN), "fin": Ent(ids.fin(rng), IDN), "ins": Ent(pt.insurance_no, IDN),
            "ins_label": "SSN" if us else rng.choice(("Medicare No", "Medicare", "Medicare no.")),
            "mrn_label": rng.choice(("MRN", "MRN", "UR", "URN")) if not us else "MRN",
            "addr_inline": address_inline(pt.address, loc),
            "addr_block": address_block(pt.address, loc),
            "home_phone": Ent(pt.home_phone, PHONE), "mobile": Ent(pt.mobile, PHONE),
            "nok": lambda: plain_name(rng, pt.nok), "nok_full": Ent(full_name(pt.nok), PERSON),
            "nok_rel": pt.nok_relation, "nok_phone": Ent(pt.nok_phone, PHONE),
            "country": Ent(pt.birth_country, LOCATION), "city": Ent(self.city, LOCATION),
            # GP
            "gp_word": "PCP" if us else "GP",
            "gp_ref": dr(gp.doctor), "gp_full": doctor_full(gp.doctor),
            "gp_practice": Ent(gp.name, HOSPITAL),
            "gp_addr_inline": address_inline(gp.address, loc),
            "gp_addr_block": address_block(gp.address, loc),
            "gp_phone": Ent(gp.phone, PHONE), "gp_fax": Ent(gp.fax, PHONE),
            "gp_email": Ent(gp.email, EMAIL), "gp_provider": Ent(gp.doctor.provider_no, IDN),
            # hospital and team
            "hosp": Ent(hosp.name, HOSPITAL), "other_hosp": Ent(self.other_hospital, HOSPITAL),
            "hosp_addr_block": address_block(hosp.address, loc),
            "hosp_addr_inline": address_inline(hosp.address, loc),
            "hosp_phone": Ent(hosp.phone, PHONE), "hosp_fax": Ent(hosp.fax, PHONE),
            "hosp_ext": with_ext(hosp.phone), "hosp_url": Ent(hosp.url, URL),
            "cons_ref": dr(cons), "cons_full": doctor_full(cons), "cons_role": cons.role,
            "cons_provider": Ent(cons.provider_no, IDN), "cons_email": Ent(cons.email, EMAIL),
            "cons_pager": Ent(cons.pager, IDN),
            "provider_label": "NPI" if us else rng.choice(("Provider No.", "Provider number", "Prov No")),
            "reg_ref": dr(self.registrar), "reg_full": doctor_full(self.registrar),
            "reg_plain": lambda: plain_name(rng, self.registrar.person),
            "reg_pager": Ent(self.registrar.pager, IDN),
            "res_full": doctor_full(self.resident), "res_pager": Ent(self.resident.pager, IDN),
            "rn": lambda: plain_name(rng, self.nurse),
            # dates
            "adm_date": date_of(enc.admitted), "dis_date": date_of(enc.discharged),
            "proc_date": date_of(enc.procedure), "note_date": date_of(enc.written),
            "review_date": date_of(enc.written + timedelta(days=7 * rng.randint(4, 16))),
            # PII-free numbers and words
            "ward": ward, "bed": str(rng.randint(1, 32)), "room": f"{rng.randint(1, 6)}.{rng.randint(1, 40):02d}",
            "time": f"{rng.randint(7, 22):02d}:{rng.choice((0, 15, 30, 45)):02d}",
            "d1": str(rng.randint(0, 9)), "d2": str(rng.randint(2, 9)), "hr": str(rng.randint(58, 112)),
            "sbp": str(rng.randint(100, 165)), "dbp": str(rng.randint(55, 95)),
            "complaint": self.scenario.complaint,
            "complaint_lc": self.scenario.complaint.lower(), "diagnosis": self.scenario.diagnosis,
            "investigations": self.scenario.investigations,
        }

    # -- shared sections ------------------------------------------------

    def history(self) -> None:
        pool = [h for h in HISTORY_ITEMS if self.age >= 50 or h not in OLDER_ONLY]
        items = self.rng.sample(pool, self.rng.randint(2, 4))
        bullet = self.rng.choice(("- ", "* ", "", "1. "))
        for i, item in enumerate(items, 1):
            self.line((f"{i}. " if bullet == "1. " else bullet) + item)

    def hpi(self) -> None:
        self.line(self.scenario.hpi)

    def course(self) -> None:
        for sentence in self.scenario.course:
            self.line(sentence)

    def examination(self) -> None:
        self.line(self.rng.choice(EXAMINATION))

    def meds(self) -> None:
        for m in self.scenario.meds:
            self.line("- " + m)


def discharge_summary(w: NoteWriter) -> None:
    rng = w.rng
    if rng.random() < 0.7:
        w.line("{hosp}")
        w.line("{hosp_addr_block}")
        w.one_of("Ph: {hosp_phone}  Fax: {hosp_fax}", "Tel {hosp_phone} | Fax {hosp_fax} | {hosp_url}",
                 "Switchboard {hosp_phone}")
        w.line()
    w.one_of("DISCHARGE SUMMARY", "Discharge Summary", "DISCHARGE SUMMARY - {ward}")
    w.line()
    header = rng.randrange(3)
    if header == 0:
        w.line("Patient: {pt_header}  {mrn_label}: {mrn}  FIN {fin}")
        w.line("Sex: {sex_word} DOB: {dob}  Age: {age}")
        w.line("Address: {addr_inline}")
    elif header == 1:
        w.line("Name: {pt_header}\t{mrn_label} {mrn}")
        w.line("DOB: {dob} ({age}{sex_code})   {ins_label}: {ins}")
        w.line("Home: {home_phone}  Mobile: {mobile}")
    else:
        w.line("{pt_header}  ({sex_code})  D.O.B. {dob}")
        w.line("{addr_block}")
        w.line("{mrn_label}: {mrn}   Encounter: {fin}")
    w.one_of("Admitted: {adm_date}  Discharged: {dis_date}",
             "Date of admission: {adm_date}\nDate of discharge: {dis_date}",
             "Admission {adm_date} - Discharge {dis_date}  Ward {ward} Bed {bed}")
    w.one_of("Consultant: {cons_full}  Unit: {ward}", "Treating consultant: {cons_full}",
             "Admitting team: {cons_role} ({cons_ref})")
    w.one_of("{gp_word}: {gp_full}, {gp_practice}", "{gp_word}: {gp_full}  Ph {gp_phone}  Fax {gp_fax}",
             "Referring doctor: {gp_full}")
    w.line()
    w.one_of("Presenting complaint: {complaint}", "PRESENTING PROBLEM\n{complaint}")
    w.one_of("Principal diagnosis: {diagnosis}", "Diagnosis: {diagnosis}")
    w.line()
    w.line("History of presenting illness:")
    w.hpi()
    w.one_of("Known to {gp_ref}'s rooms.", "Transferred from {other_hosp} for ongoing care.",
             "Usually lives with {his} {nok_rel} in {city}.")
    w.line()
    w.line("Past medical history:")
    w.history()
    w.line()
    w.one_of("Social: born in {country}, lives with {his} {nok_rel} {nok}. Independent with ADLs.",
             "Social history: lives alone in {city}; {nok_rel} {nok} visits daily (ph {nok_phone}).",
             "Social: NOK {nok_full} ({nok_rel}) {nok_phone}. Ex-smoker, 2 standard drinks per week.")
    w.line()
    w.line("Examination:")
    w.examination()
    w.line()
    w.line("Investigations:")
    w.line("{investigations}")
    w.line()
    w.one_of("Progress in hospital:", "Clinical course:", "HOSPITAL COURSE")
    w.course()
    w.one_of("Reviewed by {reg_ref} (pager {reg_pager}) on the ward round.",
             "Discussed with {cons_ref}, who agreed with the plan.",
             "{pt_ref} was seen daily by {reg_ref}; please page {reg_pager} with any questions.",
             "Family meeting on {proc_date} with {pt_title_last}, {his} {nok_rel} {nok} and {cons_ref}.")
    w.line()
    w.line("Medications on discharge:")
    w.meds()
    w.line()
    w.line("Follow up:")
    w.one_of("- Review in {cons_ref}'s clinic in 6 weeks; appointment letter to be sent.",
             "- Outpatient clinic, {hosp}, on {review_date}. Enquiries {hosp_ext}.",
             "- {gp_word} ({gp_ref}) to review in 1 week and check electrolytes.")
    w.one_of("- {gp_word} to repeat FBC in 2 weeks.", "- Physio at {gp_practice}.",
             "- Contact the ward on {hosp_ext} if concerns.")
    w.line()
    signoff = rng.randrange(3)
    if signoff == 0:
        w.line("Dictated by: {reg_full} ({ward} Registrar) for {cons_ref}")
        w.line("Pager {reg_pager}   Date: {dis_date}")
    elif signoff == 1:
        w.line("Electronically signed: {res_full}, Resident Medical Officer, page {res_pager}")
        w.line("{provider_label} {cons_provider}")
    else:
        w.line("{reg_full}")
        w.line("Medical Registrar to {cons_full}")
        w.line("Dictated but not read.")
    w.one_of("cc: {gp_full}, {gp_practice}, {gp_addr_inline}. Fax {gp_fax}",
             "cc: {gp_full} ({gp_email})", "Copy to: {gp_ref}; patient")


def progress_note(w: NoteWriter) -> None:
    w.one_of("{note_date} {time}  {ward} Bed {bed}", "PROGRESS NOTE {note_date} {time}",
             "Date: {note_date}  Time: {time}  Location: {ward}, room {room}")
    w.one_of("Pt: {pt_header}  {mrn_label} {mrn}  DOB {dob}", "{pt_header}  {mrn_label}: {mrn}",
             "Patient: {pt_header}  MRN: {mrn}  FIN {fin}")
    w.one_of("Medical ward round - {cons_ref}", "Surgical review ({reg_ref})",
             "RMO note - called by RN {rn}", "ID: {age_phrase} {sex_code}, day 3 of admission")
    w.line()
    w.one_of("S: {pt_first} reports feeling better, pain 3/10, tolerating diet.",
             "S: Pt c/o nausea overnight, no vomiting. Slept poorly.",
             "S: {pt_ref} says the dizziness is improving. {His} {nok_rel} {nok} at bedside.")
    w.one_of("O: " + EXAMINATION[0], "O: " + EXAMINATION[2], "O: Alert, GCS 15. " + EXAMINATION[0])
    w.line("A: {diagnosis}")
    w.line("P:")
    w.one_of("- d/w {reg_ref}, page {reg_pager} if MET criteria", "- d/w Dr {reg_plain} (reg) - agrees",
             "- discussed with {cons_ref}; continue current management")
    w.one_of("- IDC (Foley catheter) out today", "- Foley catheter to remain, TWOC tomorrow",
             "- mobilise with physio, falls precautions")
    w.one_of("- {nok_rel} {nok} updated by phone on {nok_phone}",
             "- update {gp_word} {gp_ref} on {gp_phone}",
             "- family contact: {nok_full} {nok_phone}")
    w.one_of("- recheck EUC mane; Mg replaced", "- Hx of {complaint_lc}; see {cons_ref}'s notes of {adm_date}",
             "- for transfer back to {other_hosp} when bed available")
    w.line()
    w.one_of("{res_full} (RMO) pager {res_pager}", "Seen with {reg_ref}. {res_full}, intern",
             "{rn} RN", "Reg: {reg_plain} #{reg_pager}")


def clinic_letter(w: NoteWriter) -> None:
    """Specialist clinic letter to the GP."""
    w.line("{hosp}")
    w.one_of("Outpatient Clinics, {hosp_addr_inline}", "{hosp_addr_block}")
    w.one_of("Tel {hosp_phone}  Fax {hosp_fax}", "Phone {hosp_ext} | Fax {hosp_fax} | {cons_email}",
             "{hosp_url}  T {hosp_phone}")
    w.line()
    w.line("{note_date}")
    w.line()
    w.line("{gp_full}")
    w.line("{gp_practice}")
    w.line("{gp_addr_block}")
    w.line()
    w.one_of("Dear {gp_ref},", "Dear Colleague,", "Dear {gp_ref}")
    w.line()
    w.one_of("Re: {pt_header}  DOB {dob}  {mrn_label} {mrn}", "RE: {pt_full}, DOB: {dob}",
             "Re: {pt_header}, {addr_inline}\n{ins_label} {ins}  {mrn_label} {mrn}")
    w.line()
    w.one_of("I reviewed {pt_ref} in clinic today with {his} {nok_rel}.",
             "Thank you for referring this pleasant {age_phrase} {sex_noun}, whom I saw on {note_date}.",
             "Thank you for asking me to see {pt_ref}, who was recently discharged from {other_hosp}.")
    w.line("Diagnosis: {diagnosis}.")
    w.line()
    w.hpi()
    w.line("{His} background includes:")
    w.history()
    w.line()
    w.course()
    w.line("{investigations}")
    w.line()
    w.one_of("I will see {pt_title_last} again in 3 months. {He} can contact my rooms on {hosp_ext}.",
             "I have asked {pt_first} to ring {hosp_phone} if symptoms recur; otherwise review on {review_date}.",
             "Please do not hesitate to contact me via switch, or page {cons_pager}.")
    w.line()
    w.one_of("Yours sincerely,", "Kind regards,", "Yours faithfully")
    w.line()
    w.line("{cons_full}")
    w.one_of("{cons_role}\n{provider_label} {cons_provider}", "{cons_role}, {hosp}",
             "MBBS FRACP\n{provider_label}: {cons_provider}")
    w.one_of("cc: {pt_title_last}, {addr_inline}", "cc: {pt_full}, {addr_block}",
             "cc: Medical records")


def referral_letter(w: NoteWriter) -> None:
    """GP referral to a specialist."""
    w.line("{gp_practice}")
    w.line("{gp_addr_inline}")
    w.one_of("Ph {gp_phone}  Fax {gp_fax}", "P: {gp_phone} F: {gp_fax} E: {gp_email}")
    w.line()
    w.line("{note_date}")
    w.line()
    w.one_of("{cons_full}\n{cons_role}\n{hosp}", "Dear {cons_ref},", "To the admitting officer, {hosp}")
    w.line()
    w.one_of("Re: {pt_header}   DOB: {dob}\n{addr_inline}\nPh: {mobile}   {ins_label}: {ins}",
             "Patient: {pt_full}  D.O.B {dob}  {ins_label} {ins}\nHome {home_phone}",
             "RE: {pt_header} ({age_phrase} {sex_code})  {addr_inline}")
    w.line()
    w.one_of("Thank you for seeing {pt_ref}, {a_an} {age_phrase} {sex_noun} with {complaint_lc}.",
             "I would appreciate your opinion on {pt_ref} regarding {complaint_lc}.")
    w.hpi()
    w.line("Past history:")
    w.history()
    w.one_of("{He} recently returned from {country}.", "{He} lives with {his} {nok_rel} in {city}.",
             "Next of kin: {nok_full} ({nok_rel}), mobile {nok_phone}.")
    w.line("Current medications:")
    w.meds()
    w.line()
    w.one_of("Many thanks,", "Regards,", "Yours sincerely,")
    w.line("{gp_full}")
    w.one_of("{provider_label} {gp_provider}", "{gp_word}, {gp_practice}", "{provider_label}: {gp_provider}\n{gp_email}")


NOTE_TYPES = {
    "discharge_summary": discharge_summary,
    "progress_note": progress_note,
    "clinic_letter": clinic_letter,
    "referral_letter": referral_letter,
}
