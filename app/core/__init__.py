"""Core of DeID Studio: documents, spans, tokenisation, BIO. Imports no Qt."""
