"""Synthetic patients, clinicians and hospitals drawn with Faker.

A :class:`Patient` carries every identifier its notes reuse (name, DOB, MRN,
address, phones, next of kin, GP, hospital, treating consultant), which is
what makes per-patient consistency testable downstream.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass
from datetime import date, timedelta

from faker import Faker

from app.synth import identifiers as ids

_AU_STATES = ("NSW", "NSW", "NSW", "VIC", "VIC", "QLD", "QLD", "SA", "WA", "TAS", "ACT", "NT")
_SAINTS = ("Vincent", "George", "John", "Andrew", "Luke", "Margaret", "Joseph", "Mary")
_RELATIONS = {"M": ("wife", "son", "daughter", "brother", "partner"),
              "F": ("husband", "son", "daughter", "sister", "partner")}


@dataclass(frozen=True, slots=True)
class Person:
    first: str
    last: str
    sex: str                      # "M" or "F"
    middle: str = ""


@dataclass(frozen=True, slots=True)
class Clinician:
    person: Person
    title: str                    # "Dr", "Prof", "A/Prof"
    role: str
    provider_no: str              # Medicare provider number (AU) or NPI (US)
    pager: str
    email: str


@dataclass(frozen=True, slots=True)
class Address:
    street: str
    city: str
    state: str
    postcode: str


@dataclass(frozen=True, slots=True)
class Hospital:
    name: str
    address: Address
    phone: str
    fax: str
    url: str
    domain: str


@dataclass(frozen=True, slots=True)
class Practice:
    """The GP: a clinician, the practice's name, address and numbers."""

    doctor: Clinician
    name: str
    address: Address
    phone: str
    fax: str
    email: str


@dataclass(frozen=True, slots=True)
class Patient:
    pid: str
    locale: str
    person: Person
    title: str
    dob: date
    mrn: str
    insurance_no: str             # Medicare card (AU) or SSN (US)
    address: Address
    home_phone: str
    mobile: str
    nok: Person
    nok_relation: str
    nok_phone: str
    gp: Practice
    hospital: Hospital
    consultant: Clinician
    birth_country: str


class PeopleFactory:
    """Draws people and places for one locale from a seeded Faker."""

    def __init__(self, fake: Faker, rng: random.Random, locale: str) -> None:
        self.fake = fake
        self.rng = rng
        self.locale = locale

    # -- basics ---------------------------------------------------------

    def person(self, sex: str | None = None, last: str | None = None) -> Person:
        sex = sex or self.rng.choice("MF")
        first = self.fake.first_name_male() if sex == "M" else self.fake.first_name_female()
        middle = ""
        if self.rng.random() < 0.35:
            middle = self.fake.first_name_male() if sex == "M" else self.fake.first_name_female()
        return Person(first, last or self.fake.last_name(), sex, middle)

    def address(self, state: str | None = None) -> Address:
        street = self.fake.street_address()
        if self.locale == "en_US":
            state = state or self.fake.state_abbr(include_territories=False,
                                                  include_freely_associated_states=False)
            return Address(street, self.fake.city(), state, self.fake.zipcode_in_state(state))
        state = state or self.rng.choice(_AU_STATES)
        return Address(street, self.fake.city(), state, ids.au_postcode(self.rng, state))

    def landline(self, state: str) -> str:
        return ids.us_phone(self.rng) if self.locale == "en_US" else ids.au_landline(self.rng, state)

    def mobile(self) -> str:
        return ids.us_phone(self.rng) if self.locale == "en_US" else ids.au_mobile(self.rng)

    def clinician(self, role: str, domain: str) -> Clinician:
        p = self.person()
        title = self.rng.choice(("Dr",) * 6 + ("Prof", "A/Prof"))
        if role in ("Registrar", "Resident", "Intern", "General Practitioner"):
            title = "Dr"
        provider = ids.npi(self.rng) if self.locale == "en_US" else ids.provider_number(self.rng)
        email = f"{_slug(p.first)[:1]}.{_slug(p.last)}@{domain}"
        return Clinician(p, title, role, provider, ids.pager(self.rng), email)

    # -- composites -----------------------------------------------------

    def hospital(self, state: str) -> Hospital:
        addr = self.address(state)
        r = self.rng.random()
        city, last = self.fake.city(), self.fake.last_name()
        if self.locale == "en_US":
            name = (f"{city} General Hospital" if r < 0.4 else
                    f"{last} Memorial Medical Center" if r < 0.7 else
                    f"St. {self.rng.choice(_SAINTS)}'s Medical Center")
            tld = ".org"
        else:
            name = (f"{city} Hospital" if r < 0.35 else
                    f"Royal {city} Hospital" if r < 0.55 else
                    f"St {self.rng.choice(_SAINTS)}'s Hospital" if r < 0.75 else
                    f"{last} Private Hospital" if r < 0.9 else f"{city} Base Hospital")
            tld = ".org.au"
        domain = _slug(name.replace("Hospital", "").replace("Medical Center", ""))[:18] + "health" + tld
        return Hospital(name, addr, self.landline(addr.state), self.landline(addr.state),
                        f"www.{domain}", domain)

    def practice(self, state: str) -> Practice:
        addr = self.address(state)
        suffix = "Family Medicine" if self.locale == "en_US" else self.rng.choice(
            ("Medical Centre", "Family Practice", "General Practice", "Medical Clinic"))
        name = f"{addr.city} {suffix}" if self.rng.random() < 0.6 else f"{self.fake.last_name()} {suffix}"
        domain = _slug(name)[:20] + (".com" if self.locale == "en_US" else ".com.au")
        doctor = self.clinician("General Practitioner", domain)
        return Practice(doctor, name, addr, self.landline(state), self.landline(state),
                        f"reception@{domain}")

    def patient(self, pid: str, first_encounter: date) -> Patient:
        rng = self.rng
        p = self.person()
        age = rng.choice((rng.randint(18, 60), rng.randint(50, 95), rng.randint(60, 101)))
        dob = first_encounter - timedelta(days=age * 365 + rng.randint(0, 364))
        addr = self.address()
        if p.sex == "M":
            title = "Mr"
        else:
            title = rng.choice(("Mrs", "Ms", "Ms", "Miss")) if age < 60 else rng.choice(("Mrs", "Ms"))
        relation = rng.choice(_RELATIONS[p.sex])
        nok_sex = {"wife": "F", "husband": "M", "brother": "M", "sister": "F"}.get(relation)
        shares_name = relation in ("son", "daughter", "brother", "sister") or rng.random() < 0.5
        nok = self.person(nok_sex or rng.choice("MF"), p.last if shares_name else None)
        hospital = self.hospital(addr.state)
        insurance = ids.ssn(rng) if self.locale == "en_US" else ids.medicare_number(rng)
        countries = _COUNTRIES_US if self.locale == "en_US" else _COUNTRIES_AU
        return Patient(
            pid=pid, locale=self.locale, person=p, title=title, dob=dob, mrn=ids.mrn(rng),
            insurance_no=insurance, address=addr, home_phone=self.landline(addr.state),
            mobile=self.mobile(), nok=nok, nok_relation=relation, nok_phone=self.mobile(),
            gp=self.practice(addr.state), hospital=hospital,
            consultant=self.clinician(rng.choice(_SPECIALTIES), hospital.domain),
            birth_country=rng.choice(countries))


_SPECIALTIES = ("Consultant Physician", "Consultant Surgeon", "Consultant Neurologist",
                "Consultant Gastroenterologist", "Consultant Geriatrician",
                "Consultant Endocrinologist")
_COUNTRIES_AU = ("Australia", "Australia", "Australia", "England", "Vietnam", "Greece",
                 "Italy", "India", "China", "New Zealand", "Lebanon", "Philippines", "Fiji")
_COUNTRIES_US = ("Mexico", "Puerto Rico", "Ireland", "Poland", "Korea", "Cuba",
                 "Nigeria", "Philippines", "Canada", "Guatemala")


def _slug(text: str) -> str:
    return re.sub(r"[^a-z]", "", text.lower())
