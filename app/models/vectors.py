"""Word vectors trained locally on the project's own texts.

No pretrained vectors may be downloaded, so the Stanza and Flair members
get vectors trained here with gensim's fastText on the lower-cased
canonical tokens of every document of the project. fastText builds a rare
word's vector from its character n-grams, which gives names, codes and
typos (seen once or twice) far better vectors than word2vec would.

The vocabulary's vectors are exported in two plain formats, since neither
consumer understands fastText's n-gram buckets:

* a word2vec text file (Stanza's ``Pretrain`` reads it);
* a gensim ``KeyedVectors`` file (Flair's ``WordEmbeddings`` reads it).

Results are cached in ``workdir`` under a hash of the inputs and
parameters, so the members of one training run share one training.

Privacy: the vocabulary holds the words of the notes (identifiers
included). The files stay in ``workdir``, which the caller owns and wipes.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from app.core.progress import Progress, ProgressFn, no_progress
from app.core.tokenize import segment
from app.models.base import Corpus, TrainContext

#: Bumped when the way vectors are built changes, to invalidate caches.
_FORMAT_VERSION = 1


@dataclass(frozen=True, slots=True)
class WordVectors:
    """Locally trained vectors: two file formats of one vocabulary."""

    path_txt: Path      # word2vec text format (for Stanza)
    path_kv: Path       # gensim KeyedVectors (for Flair)
    vocab_size: int
    dim: int


def corpus_sentences(texts: Iterable[str]) -> list[list[str]]:
    """Lower-cased canonical tokens, one list per segment."""
    return [[text[t.start:t.end].lower() for t in seg.tokens]
            for text in texts for seg in segment(text)]


def _cache_key(sentences: Sequence[Sequence[str]], params: dict) -> str:
    import gensim
    h = hashlib.sha256()
    h.update(json.dumps({**params, "gensim": gensim.__version__, "format": _FORMAT_VERSION},
                        sort_keys=True).encode())
    for sent in sentences:
        # Unit separators keep token and sentence boundaries unambiguous.
        h.update("\x1f".join(sent).encode("utf-8"))
        h.update(b"\x1e")
    return h.hexdigest()[:20]


def build_word_vectors(texts: Sequence[str], workdir: Path, *, dim: int = 100,
                       epochs: int = 10, min_count: int = 1, seed: int = 13,
                       progress: ProgressFn = no_progress) -> WordVectors:
    """Train (or fetch from the cache) fastText vectors on ``texts``.

    Parameters
    ----------
    texts
        Raw document texts; tokenised with the canonical tokenizer.
    workdir
        Cache folder; results live in ``workdir/vectors-<hash>/``.
    dim, epochs, min_count
        fastText parameters.
    seed
        Random seed. gensim with two worker threads is not bit-for-bit
        reproducible across runs; the cache makes a run's members agree.
    progress
        Receives a report at start and end (and may raise ``Cancelled``).

    Returns
    -------
    WordVectors
    """
    sentences = corpus_sentences(texts)
    if not any(sentences):
        raise ValueError("no tokens to train word vectors on")
    params = {"dim": dim, "epochs": epochs, "min_count": min_count, "seed": seed,
              "algo": "fasttext"}
    out = Path(workdir) / f"vectors-{_cache_key(sentences, params)}"
    done = out / "done.json"
    if done.exists():
        info = json.loads(done.read_text(encoding="utf-8"))
        progress(Progress(1.0, "vectors", message="word vectors from cache"))
        return WordVectors(out / "vectors.txt", out / "vectors.kv", info["vocab_size"], dim)

    progress(Progress(0.0, "vectors", message=f"training word vectors on {len(sentences)} segments"))
    from gensim.models import FastText, KeyedVectors

    model = FastText(
        vector_size=dim, window=5, min_count=min_count, sg=1, epochs=epochs, seed=seed,
        workers=max(1, min(2, os.cpu_count() or 1)),
        # The default 2M n-gram buckets cost 800 MB at dim 100; a note
        # collection has far fewer distinct n-grams.
        bucket=200_000, min_n=3, max_n=5,
    )
    model.build_vocab(corpus_iterable=sentences)
    progress(Progress(0.1, "vectors", message="building vectors"))
    model.train(corpus_iterable=sentences, total_examples=len(sentences), epochs=epochs)

    # Export the vocabulary only: plain vectors any reader understands.
    kv = KeyedVectors(dim)
    kv.add_vectors(list(model.wv.index_to_key), model.wv.vectors)
    # Written aside and renamed into place, so a crash never leaves a
    # half-written cache entry that looks complete.
    tmp = out.with_name(out.name + f".tmp{os.getpid()}")
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    kv.save_word2vec_format(str(tmp / "vectors.txt"))
    kv.save(str(tmp / "vectors.kv"))
    (tmp / "done.json").write_text(json.dumps({"vocab_size": len(kv), **params}),
                                   encoding="utf-8")
    if done.exists():
        # Another member, training in a worker process beside this one,
        # finished the same vectors first: keep its copy (it may be reading it).
        shutil.rmtree(tmp)
    else:
        if out.exists():
            shutil.rmtree(out)
        try:
            os.replace(tmp, out)
        except OSError:
            if not done.exists():
                raise
            shutil.rmtree(tmp)
    progress(Progress(1.0, "vectors", message=f"word vectors ready ({len(kv)} words)"))
    return WordVectors(out / "vectors.txt", out / "vectors.kv", len(kv), dim)


def ensure_word_vectors(corpus: Corpus, ctx: TrainContext) -> WordVectors:
    """The run's shared vectors: ``ctx.resources["word_vectors"]``, built once.

    Trained on ``corpus.raw_texts`` (the run's train and dev notes), or on
    the training documents when the corpus carries no raw texts.
    """
    wv = ctx.resources.get("word_vectors")
    if isinstance(wv, WordVectors):
        return wv
    texts = list(corpus.raw_texts)
    if not texts:
        seen: dict[int, str] = {}
        for item in list(corpus.train) + list(corpus.dev):
            seen.setdefault(id(item.text), item.text)
        texts = list(seen.values())
    wv = build_word_vectors(texts, Path(ctx.workdir), seed=ctx.seed, progress=ctx.progress)
    ctx.resources["word_vectors"] = wv
    return wv
