"""Brat notes for the benchmark tests (import as a plain module)."""


def write_brat(folder, stem, text, spans):
    """``folder/stem.txt`` holding ``text`` and ``stem.ann`` with each
    ``(label, words)`` of ``spans`` at the words' first place in it."""
    folder.mkdir(exist_ok=True)
    (folder / f"{stem}.txt").write_text(text, encoding="utf-8")
    (folder / f"{stem}.ann").write_text("".join(
        f"T{i}\t{label} {text.index(w)} {text.index(w) + len(w)}\t{w}\n"
        for i, (label, w) in enumerate(spans, 1)), encoding="utf-8")
