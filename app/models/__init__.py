"""Base NER models: one interface, a registry, spaCy/Stanza/Flair/rules."""
