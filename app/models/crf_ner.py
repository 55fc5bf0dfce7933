"""A linear-chain CRF over hand-written token features (CRFsuite).

Not one of the paper's six base models: a seventh kind, because it is
what the neural members are not. It trains in minutes on a CPU, learns
well-formed identifiers (IDs, phones, dates, e-mail) from their shapes and
the words around them, and its errors are far from the neural members'
errors, which is what voting and stacking feed on. It is the classic
strong baseline of de-identification challenges.

Features of a token: its lowercased form, shape (``Xxxx``, ``dd/dd``) and
short shape, prefixes and suffixes, a few flags, the same for two tokens
either side, the bigrams around it and the segment's first word (a line's
header, "Domicilio:", cues a whole line). Beyond the word itself, what
carries over to notes unlike the training ones (ALL-CAPS nursing notes,
names never seen in training): the shipped dictionaries
(`app.rules.dictionaries`: first name, surname, place, common word, for
the token and its neighbours), the rule recogniser's category of the span
covering the token (`app.rules.recognizer`), and for numbers the ranges
they fall in (a month, a day, a year): "7/22" is a date and "88/46" is not.
Every one of these is case-blind, so ALL-CAPS text looks like any other.
An English CRF also reads the starter's spans as "hints" (param ``hints``,
`app.models.starter_model`: rules, shipped name lists, a CRF trained on
synthetic notes): the starter knows names and places no hospital's few
hundred annotated notes show, and the CRF learns from the local notes when
to believe it (on PhysioNet dev patients, 60 iterations: token recall 0.83
-> 0.90 at the same precision). And, for English, each word's group of
like words (param ``clusters``, `app.models.wordclusters`): groups learned
on the run's own notes over the vendored MiniLM's word pieces, so a
surname never seen in training shares a feature with those that were.
Training is L-BFGS with L1+L2
regularisation; the search tunes the two penalties (``HPO_GRID``). A
prediction's confidence is the marginal probability of its tag.

Every feature made of word material (forms, prefixes and suffixes of three
letters or more, neighbours, bigrams, the header) is stored as a hash, as
spaCy stores its features: the saved model holds no training word in clear.

L-BFGS cannot stop early and keep its weights, so under a safety stop on
the clock the first iteration is measured and training restarts with as
many iterations as fit (fewer than the budget's: the stop fired).
"""
from __future__ import annotations

import time
from bisect import bisect_right
from functools import lru_cache
from hashlib import blake2b
from pathlib import Path
from typing import Any, Sequence

from app.core.progress import Progress
from app.core.recent import Recent
from app.core.tokenize import Segment
from app.rules import dictionaries
from app.rules.recognizer import RuleHit, find_hits, hits_between
from app.models.base import (Corpus, ModelSpec, TagSeq, TrainContext, TrainedModel,
                             read_meta, register, write_meta)
from app.models.budget import SafetyClock, safety_seconds
from app.models import wordclusters
from app.models.wordclusters import WordClusters

# 2: dictionary, rule and number-range features (a version 1 model ignores
# them as unknown attributes and still tags as it did). 3: starter hints
# (a model without ``hints`` in its params predicts without them). 4: word
# clusters (a model without ``clusters`` in its params predicts without them).
CRF_VERSION = 4
# ``hints``: "starter" (the starter's spans as features), "none", or "auto"
# (starter for English when one ships); a saved model holds the resolved value.
HINTS_AUTO, HINTS_STARTER, HINTS_NONE = "auto", "starter", "none"
# ``clusters``: "minilm" (groups of like words, `app.models.wordclusters`),
# "none", or "auto" (minilm for English when its weights are installed: the
# word pieces are English ones, and only English notes have measured them).
CLUSTERS_AUTO, CLUSTERS_MINILM, CLUSTERS_NONE = "auto", "minilm", "none"
_MODEL_FILE = "model.crfsuite"
_WINDOW = 2


def _shape(word: str) -> str:
    out = []
    for ch in word:
        out.append("X" if ch.isupper() else "x" if ch.isalpha() else "d" if ch.isdigit() else ch)
    return "".join(out)


def _short_shape(shape: str) -> str:
    out: list[str] = []
    for ch in shape:
        if not out or out[-1] != ch:
            out.append(ch)
    return "".join(out)


@lru_cache(maxsize=1 << 18)
def _hashed(feature: str) -> str:
    return blake2b(feature.encode("utf-8"), digest_size=8).hexdigest()


def _number_features(word: str) -> list[str]:
    """Ranges a digit run falls in: month, day, year (two or four digits)."""
    if not word.isdigit() or len(word) > 4:
        return []
    v = int(word)
    feats = []
    if len(word) <= 2 and 1 <= v <= 12:
        feats.append("n=month")
    if len(word) <= 2 and 1 <= v <= 31:
        feats.append("n=day")
    if len(word) == 2:
        feats.append("n=yy")
    if len(word) == 4 and 1900 <= v <= 2099:
        feats.append("n=yyyy")
    return feats


@lru_cache(maxsize=1 << 16)
def _lexicon_flags(word: str) -> tuple[str, ...]:
    """Which shipped lists hold ``word`` (case-blind)."""
    flags = []
    if dictionaries.is_first_name(word):
        flags.append("fn")
    if dictionaries.is_surname(word):
        flags.append("sn")
    if dictionaries.is_place(word):
        flags.append("pl")
    if dictionaries.is_common_word(word):
        flags.append("cw")
    return tuple(flags)


# One document's rule hits and their ends: the segments of a document come
# one after another, so one entry serves them all (found once per note).
_HITS: list = [None, [], []]


def _rule_categories(text: str, seg: Segment) -> list[str | None]:
    """For each token of ``seg``: the rule category of the hit covering it."""
    if _HITS[0] is not text:
        hits = find_hits(text)
        _HITS[:] = [text, hits, [h.end for h in hits]]
    hits: list[RuleHit] = _HITS[1]
    out: list[str | None] = [None] * len(seg.tokens)
    if not hits or not seg.tokens:
        return out
    starts = [t.start for t in seg.tokens]
    for hit in hits_between(hits, _HITS[2], seg.start, seg.end):
        # Tokens overlapping the hit: from the one holding its start on.
        i = max(bisect_right(starts, hit.start) - 1, 0)
        while i < len(starts) and starts[i] < hit.end:
            if seg.tokens[i].end > hit.start:
                out[i] = hit.category
            i += 1
    return out


def _token_features(word: str) -> list[str]:
    low = word.lower()
    shape = _shape(word)
    feats = [_hashed(f"w={low}"), _hashed(f"p3={low[:3]}"), _hashed(f"s3={low[-3:]}"),
             _hashed(f"s4={low[-4:]}"),
             f"sh={shape if len(shape) <= 12 else shape[:12]}",
             f"ss={_short_shape(shape)}", f"len={min(len(word), 12)}",
             f"p1={low[:1]}", f"p2={low[:2]}", f"s1={low[-1:]}", f"s2={low[-2:]}"]
    if word.istitle():
        feats.append("title")
    if word.isupper() and len(word) > 1:
        feats.append("upper")
    if any(ch.isdigit() for ch in word):
        feats.append("digit")
    if "@" in word:
        feats.append("at")
    feats += _number_features(word)
    feats += [f"lex={f}" for f in _lexicon_flags(word)]
    return feats


def starter_hints(items: Sequence[tuple[str, Segment]]) -> list[list[str]]:
    """The starter's label of each token (``"O"`` outside its spans), per item
    (`app.models.starter_model.starter_tags`, which keeps the segments seen last)."""
    from app.models.starter_model import starter_tags

    return [[t if t == "O" else t[2:] for t in seq.tags] for seq in starter_tags(items)]


def _resolve_hints(value: str | None, language: str) -> str:
    if value in (None, HINTS_AUTO):
        from app.models.starter_model import available

        return HINTS_STARTER if language == "en" and available() else HINTS_NONE
    if value not in (HINTS_STARTER, HINTS_NONE):
        raise ValueError(f"unknown CRF hints {value!r}")
    return value


@lru_cache(maxsize=1 << 16)
def _word(word: str) -> tuple[tuple[str, ...], str, str, str]:
    """What a word gives its own and its neighbours' features: its own
    features, hashed lower case, short shape, lexicon flags. A function of
    the word alone, so computed once per word seen (words recur: a note's
    segments are tagged by each CRF member, for the leak scan's doubts and
    again on the redacted text)."""
    return (tuple(_token_features(word)), _hashed(word.lower()), _short_shape(_shape(word)),
            "".join(_lexicon_flags(word)) or "-")


def segment_features(text: str, seg: Segment, hints: Sequence[str] | None = None,
                     clusters: WordClusters | None = None) -> list[list[str]]:
    """CRFsuite attributes for every token of ``seg`` (a list of strings each).
    ``hints``: the starter's label of each token; ``clusters``: the groups of
    like words; either ``None``: no such features."""
    words = [text[t.start:t.end] for t in seg.tokens]
    per_word = [_word(w) for w in words]
    own = [w[0] for w in per_word]
    lows = [w[1] for w in per_word]
    shapes = [w[2] for w in per_word]
    lex = [w[3] for w in per_word]
    rules = _rule_categories(text, seg)
    # Tokens inside a listed place of several words ("BEL AIR").
    in_place = [False] * len(words)
    for i in range(len(words)):
        if words[i][:1].isalpha() and (span := dictionaries.place_length(words, i)) > 1:
            in_place[i:i + span] = [True] * span
    head = f"head={lows[0]}" if lows else "head="
    groups = None if clusters is None else clusters.groups(words)
    out = []
    n = len(words)
    for i in range(n):
        feats = ["bias", head, *own[i]]
        if groups is not None:
            if groups[i] is not None:
                feats.append(f"cl={groups[i]}")
            if i > 0 and groups[i - 1] is not None:
                feats.append(f"-1cl={groups[i - 1]}")
            if i + 1 < n and groups[i + 1] is not None:
                feats.append(f"+1cl={groups[i + 1]}")
        if i == 0:
            feats.append("BOS")
        if i == n - 1:
            feats.append("EOS")
        # Glued to the previous token ("Sr.García", "28001Madrid") or not.
        if i > 0 and seg.tokens[i].start == seg.tokens[i - 1].end:
            feats.append("glued")
        if rules[i] is not None:
            feats.append(f"rule={rules[i]}")
        # A number glued to a decimal point or to a run of slashes ("5.8/2.71/497",
        # "7.48/44/16") is a measurement, whatever its range says.
        if words[i].isdigit():
            if (i > 1 and words[i - 1] in "./" and words[i - 2].isdigit()
                    and seg.tokens[i - 1].start == seg.tokens[i - 2].end
                    and seg.tokens[i].start == seg.tokens[i - 1].end):
                feats.append(f"after_num{words[i - 1]}")
            if (i + 2 < n and words[i + 1] in "./" and words[i + 2].isdigit()
                    and seg.tokens[i + 1].start == seg.tokens[i].end
                    and seg.tokens[i + 2].start == seg.tokens[i + 1].end):
                feats.append(f"before_num{words[i + 1]}")
        if in_place[i]:
            feats.append("place_phrase")
        for d in range(1, _WINDOW + 1):
            if i - d >= 0:
                feats += [f"-{d}w={lows[i - d]}", f"-{d}ss={shapes[i - d]}",
                          f"-{d}lex={lex[i - d]}"]
            if i + d < n:
                feats += [f"+{d}w={lows[i + d]}", f"+{d}ss={shapes[i + d]}",
                          f"+{d}lex={lex[i + d]}"]
        if i > 0:
            feats.append(f"-1w|w={lows[i - 1]}|{lows[i]}")
        if i + 1 < n:
            feats.append(f"w|+1w={lows[i]}|{lows[i + 1]}")
        if hints is not None:
            feats.append(f"hint={hints[i]}")
            if i > 0:
                feats.append(f"-1hint={hints[i - 1]}")
            if i + 1 < n:
                feats.append(f"+1hint={hints[i + 1]}")
        out.append(feats)
    return out


def _resolve_clusters(value: str | None, language: str) -> str:
    if value in (None, CLUSTERS_AUTO):
        return CLUSTERS_MINILM if language == "en" and wordclusters.available() else CLUSTERS_NONE
    if value not in (CLUSTERS_MINILM, CLUSTERS_NONE):
        raise ValueError(f"unknown CRF clusters {value!r}")
    return value


# The groups of the corpus seen last: a search fits one corpus many times.
_CLUSTERS: list = [None, None, None]


def _clusters_of(corpus: Corpus, seed: int) -> WordClusters:
    source = corpus.raw_texts or corpus.train
    if _CLUSTERS[0] is not source or _CLUSTERS[1] != seed:
        texts = corpus.raw_texts or list({id(i.text): i.text for i in corpus.train}.values())
        _CLUSTERS[:] = [source, seed, wordclusters.fit_clusters(texts, seed=seed)]
    return _CLUSTERS[2]


def _hints_for(params: dict[str, Any], items: list[tuple[str, Segment]]) -> list:
    """Hints of each item for a model with ``params`` (None each without hints)."""
    if params.get("hints") == HINTS_STARTER and items:
        return starter_hints(items)
    return [None] * len(items)


# The attributes of the segments read last, by (text, start, end, features):
# the two CRF members of a run (balanced and imbalanced data, the same
# features) read the same segments one after the other, and the leak scan
# reads them again for its doubts. Building them is most of a CRF's tagging.
_XSEQS = Recent(1024)            # a predictor's batch is 256 segments


def item_sequences(items: Sequence[tuple[str, Segment]], params: dict[str, Any],
                   clusters: WordClusters | None) -> list:
    """The ``pycrfsuite.ItemSequence`` of each ``(text, segment)`` (with
    tokens) for a model with ``params`` and ``clusters``; those of the
    segments read last with the same features are not built again."""
    import pycrfsuite

    def build(missing: list[int]) -> list:
        pairs = [items[i] for i in missing]
        return [pycrfsuite.ItemSequence(segment_features(text, seg, hints, clusters))
                for (text, seg), hints in zip(pairs, _hints_for(params, pairs))]

    kind = (params.get("hints") == HINTS_STARTER, None if clusters is None else clusters.key)
    return _XSEQS.get([(text, seg.start, seg.end, kind) for text, seg in items], build)


class _IterationCost(Exception):
    """Raised after the first L-BFGS iteration to size the real run."""

    def __init__(self, seconds: float) -> None:
        super().__init__(seconds)
        self.seconds = seconds


def _trainer_class():
    import pycrfsuite

    class Trainer(pycrfsuite.Trainer):
        """Silent trainer that reports each iteration to ``on_iter``."""

        on_iter = None

        def message(self, message):          # replaces pycrfsuite's printing
            if self.logparser.feed(message) == "iteration" and self.on_iter is not None:
                self.on_iter(self.logparser.last_iteration)

    return Trainer


class CrfSpec(ModelSpec):
    """CRF member. Params: ``c1`` (L1), ``c2`` (L2), ``max_iterations``
    (default: the budget's), ``max_seconds`` (a safety stop below the run's),
    ``hints`` (``"auto"`` by default: the starter's spans as features for
    English), ``clusters`` (``"auto"`` by default: groups of like words
    learned on ``corpus.raw_texts``, for English)."""

    kind = "crf"
    relative_cost = 1.0
    refits = True            # trains on corpus.train alone, for the budget's iterations
    # The search tunes the penalties, not the neural grid of app.models.hpo.
    HPO_GRID = {"c1": (0.01, 0.1, 0.5), "c2": (0.001, 0.01, 0.1)}
    HPO_DEFAULT = DEFAULTS = {"c1": 0.1, "c2": 0.01}

    def fit(self, corpus: Corpus, ctx: TrainContext) -> "CrfModel":
        p = {**self.DEFAULTS, **self.params}
        p["hints"] = _resolve_hints(p.get("hints"), corpus.language)
        p["clusters"] = _resolve_clusters(p.get("clusters"), corpus.language)
        clusters = _clusters_of(corpus, ctx.seed) if p["clusters"] == CLUSTERS_MINILM else None
        iterations = int(p.get("max_iterations") or ctx.budget.max_iterations)
        clock = SafetyClock(safety_seconds(ctx, self.params), ctx.progress, self.kind)
        max_seconds = clock.seconds
        start = time.monotonic()
        ctx.progress(Progress(0.0, "train", model=self.kind, model_fraction=0.0,
                              message="extracting features"))
        Trainer = _trainer_class()
        trainer = Trainer(verbose=False)
        train = [item for item in corpus.train if item.segment.tokens]
        hints = _hints_for(p, [(item.text, item.segment) for item in train])
        for item, hint in zip(train, hints):
            trainer.append(segment_features(item.text, item.segment, hint, clusters),
                           list(item.tags))
        ctx.workdir.mkdir(parents=True, exist_ok=True)
        path = ctx.workdir / _MODEL_FILE
        features_s = time.monotonic() - start

        def run(n_iter: int, probe: bool) -> None:
            began = time.monotonic()

            def on_iter(info: dict) -> None:
                if probe:
                    raise _IterationCost(time.monotonic() - began)
                frac = min(1.0, info["num"] / n_iter)
                elapsed = time.monotonic() - start
                ctx.progress(Progress(frac, "train", model=self.kind, model_fraction=frac,
                                      epoch=info["num"], loss=info.get("loss"),
                                      eta_s=elapsed / max(frac, 1e-6) - elapsed))

            trainer.on_iter = on_iter
            trainer.set_params({"c1": float(p["c1"]), "c2": float(p["c2"]),
                                "max_iterations": n_iter,
                                "feature.possible_transitions": True})
            trainer.train(str(path))

        if max_seconds is not None:
            try:
                run(iterations, probe=True)
            except _IterationCost as cost:
                # The probe paid one iteration plus the set-up (feature generation
                # inside CRFsuite); the real run pays them again. Fewer
                # iterations than the budget's is the safety stop firing.
                left = max_seconds - (time.monotonic() - start)
                fit = int(left / max(cost.seconds * 1.15, 1e-3)) - 1
                if fit < iterations:
                    clock.fire()
                    iterations = max(1, fit)
        run(iterations, probe=False)
        model = CrfModel(path.read_bytes(), p, clusters)
        model.info = {"iterations": iterations, "clock_stop": clock.fired,
                      "features_s": round(features_s, 1),
                      "train_seconds": round(time.monotonic() - start, 1)}
        return model


class CrfModel(TrainedModel):
    """A trained CRF; ``predict`` gives each tag its marginal probability.
    ``clusters``: the groups of like words it was trained with (``None``: none)."""

    kind = "crf"

    def __init__(self, data: bytes, params: dict[str, Any],
                 clusters: WordClusters | None = None) -> None:
        import pycrfsuite

        if params.get("clusters") == CLUSTERS_MINILM and clusters is None:
            raise ValueError("CRF model trained with word clusters, but its clusters are missing")
        self.clusters = clusters if params.get("clusters") == CLUSTERS_MINILM else None
        self._data = data
        self.params = dict(params)
        self.info: dict[str, Any] = {}
        self._tagger = pycrfsuite.Tagger()
        self._tagger.open_inmemory(data)

    def predict(self, items: Sequence[tuple[str, Segment]]) -> list[TagSeq]:
        out = []
        tagger = self._tagger
        items = list(items)
        xseqs = iter(item_sequences([item for item in items if item[1].tokens], self.params,
                                    self.clusters))
        for text, seg in items:
            if not seg.tokens:
                out.append(TagSeq([], []))
                continue
            tagger.set(next(xseqs))
            tags = tagger.tag()
            out.append(TagSeq(tags, [tagger.marginal(t, i) for i, t in enumerate(tags)]))
        return out

    def suspicions(self, items: Sequence[tuple[str, Segment]],
                   threshold: float) -> list[list[tuple[int, str]]]:
        """Tokens whose probability of being part of an identifier is at least
        ``threshold``: ``(token index, most likely label)`` per segment.

        The leak scan's recall-biased reading of the model: the probability is
        one minus the marginal of ``O``, so a token the decoder tags ``O`` at
        90 % is still suspected at a threshold of 0.05.
        """
        tagger = self._tagger
        tags = [t for t in tagger.labels() if t != "O"]
        items = list(items)
        xseqs = iter(item_sequences([item for item in items if item[1].tokens], self.params,
                                    self.clusters))
        out = []
        for text, seg in items:
            found: list[tuple[int, str]] = []
            if seg.tokens:
                tagger.set(next(xseqs))
                tagger.tag()                     # marginals need a tagged sequence
                for i in range(len(seg.tokens)):
                    if 1.0 - tagger.marginal("O", i) >= threshold:
                        best = max(tags, key=lambda t: tagger.marginal(t, i))
                        found.append((i, best.split("-", 1)[-1]))
            out.append(found)
        return out

    def save(self, directory: Path) -> None:
        directory = Path(directory)
        write_meta(directory, self.kind, self.params, crf_version=CRF_VERSION, info=self.info)
        (directory / _MODEL_FILE).write_bytes(self._data)
        if self.clusters is not None:
            self.clusters.save(directory)

    @classmethod
    def load(cls, directory: Path, device: str = "cpu") -> "CrfModel":
        meta = read_meta(Path(directory), cls.kind)
        if meta.get("crf_version", 0) > CRF_VERSION:
            raise ValueError("CRF model saved by a newer version of the application")
        params = meta.get("config", {})
        clusters = (WordClusters.load(Path(directory))
                    if params.get("clusters") == CLUSTERS_MINILM else None)
        model = cls(Path(directory).joinpath(_MODEL_FILE).read_bytes(), params, clusters)
        model.info = meta.get("info", {})
        return model


register(CrfSpec, CrfModel)
