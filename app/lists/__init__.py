"""Hospital lists: what a site knows before reading a note (no Qt).

A project stores a patient table and plain lists (staff, places,
hospitals, wards, other); :class:`ListMatcher` finds every occurrence of
their entries in a note, with the usual variants, on canonical tokens.
"""
from .entries import LIST_KINDS, PATIENT_FIELDS, PLAIN_KINDS, HospitalLists
from .io import ListFileError, parse_mapping, read_patient_table, read_plain_list
from .matcher import CATEGORIES, PERSON, ListHit, ListMatcher

__all__ = ["CATEGORIES", "LIST_KINDS", "PATIENT_FIELDS", "PERSON", "PLAIN_KINDS",
           "HospitalLists", "ListFileError", "ListHit", "ListMatcher", "parse_mapping",
           "read_patient_table", "read_plain_list"]
