"""Word clusters: which group of like words a word falls in.

A CRF knows the words its training notes showed; a surname or a town it
never saw is, to it, only a shape and its neighbours. Cluster features are
the classic remedy (Turian et al. 2010; Guo et al. 2014): each word is
given the id of a group of words used alike, so an unseen surname shares a
feature with the surnames the site's annotators marked.

The vectors are the vendored all-MiniLM-L6-v2's input embeddings (its word
piece table, read without running the network): a word's vector is the
mean of its pieces' rows. The groups are learned on the run's own notes:
k-means (``K`` groups) over the vectors of the words of ``corpus.raw_texts``,
so they split the site's vocabulary, not a general one. Any word, seen or
not, falls in the group of its nearest centroid. The centroids (K x 384,
float16) are all a model stores: no word of the notes is kept.

Measured on 5 patient-disjoint PhysioNet folds (BENCHMARKS.md): crf-balanced
alone 0.899 -> 0.906 mean test token recall at the same precision (fastText
vectors trained on the site's notes instead: no gain); the default run at
the final code 0.9700 -> 0.9714 (21 -> 18 notes leaking), with the hospital
lists 0.9700 -> 0.9721 (16 -> 14), precision 0.03 lower where the dev split
then chose a recall-first candidate.
"""
from __future__ import annotations

import threading
from hashlib import blake2b
from pathlib import Path
from typing import Iterable

import numpy as np

#: Groups of a model fitted on a vocabulary of ``K * 8`` words or more.
K = 256
_CENTROIDS_FILE = "clusters.npy"
_MEMO = 1 << 18
_LOCK = threading.Lock()
# (tokenizer, piece table) of the vendored weights, loaded once per process.
_PIECES: list = []


def available() -> bool:
    """True when the vendored MiniLM weights are installed."""
    try:
        _base()
    except RuntimeError:
        return False
    return True


def _base() -> Path:
    from app.models.transformer_ner import base_model_path

    return base_model_path()


def _pieces():
    """The word piece tokenizer and the piece table (float32, as stored)."""
    with _LOCK:
        if not _PIECES:
            from safetensors import safe_open
            from tokenizers import BertWordPieceTokenizer

            base = _base()
            # The piece table alone (47 MB), not the whole network's weights.
            with safe_open(str(base / "model.safetensors"), framework="numpy") as weights:
                name = next(k for k in weights.keys() if k.endswith("word_embeddings.weight"))
                table = np.asarray(weights.get_tensor(name), dtype=np.float32)
            tokenizer = BertWordPieceTokenizer.from_file(str(base / "vocab.txt"), lowercase=True)
            _PIECES[:] = [tokenizer, table]
        return _PIECES[0], _PIECES[1]


def _is_word(word: str) -> bool:
    return any(ch.isalpha() for ch in word)


def word_vectors(words: list[str]) -> np.ndarray:
    """Unit vectors of ``words`` (lower-cased): the mean of their pieces' rows."""
    tokenizer, table = _pieces()
    out = np.zeros((len(words), table.shape[1]), dtype=np.float32)
    for i, enc in enumerate(tokenizer.encode_batch(words, add_special_tokens=False)):
        if enc.ids:
            out[i] = table[enc.ids].mean(axis=0)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return out / np.maximum(norms, 1e-9)


class WordClusters:
    """Centroids of the groups; ``groups(words)`` gives each word's group id."""

    def __init__(self, centroids: np.ndarray) -> None:
        self.centroids = np.asarray(centroids, dtype=np.float32)
        # Names the groups by content: two members loaded apart, the same groups.
        self.key = blake2b(self.centroids.tobytes(), digest_size=16).hexdigest()
        self._memo: dict[str, str | None] = {}
        self._lock = threading.Lock()     # the GUI's worker and a preview may share a model

    def __len__(self) -> int:
        return len(self.centroids)

    def groups(self, words: list[str]) -> list[str | None]:
        """The group of each of ``words`` (case-blind) as a string, None for a
        word without a letter (numbers and punctuation have their own
        features). The words not met before are placed together (a segment's
        new words in one tokenizer call)."""
        lows = [w.lower() for w in words]
        with self._lock:
            return self._groups(lows)

    def _groups(self, lows: list[str]) -> list[str | None]:
        memo = self._memo
        new = {w for w in lows if w not in memo}
        if new and len(memo) + len(new) > _MEMO:
            memo.clear()                # a long session's vocabulary, bounded
            new = set(lows)
        if new:
            real = sorted(w for w in new if _is_word(w))
            if real:
                for w, g in zip(real, np.argmax(word_vectors(real) @ self.centroids.T, axis=1)):
                    memo[w] = str(int(g))
            for w in new:
                memo.setdefault(w, None)
        return [memo[w] for w in lows]

    def save(self, directory: Path) -> None:
        np.save(Path(directory) / _CENTROIDS_FILE, self.centroids.astype(np.float16),
                allow_pickle=False)

    @classmethod
    def load(cls, directory: Path) -> "WordClusters":
        """The groups saved in ``directory``; ``ValueError`` when they are missing."""
        path = Path(directory) / _CENTROIDS_FILE
        if not path.is_file():
            raise ValueError("CRF model trained with word clusters, but its clusters are missing")
        return cls(np.load(path, allow_pickle=False))


def fit_clusters(texts: Iterable[str], *, k: int = K, seed: int = 13) -> WordClusters:
    """Groups of the words of ``texts`` (canonical tokens with a letter).

    At most ``k`` groups and one per 8 distinct words, so a small project
    gets coarse groups rather than one per word. Deterministic for a seed.
    """
    from sklearn.cluster import MiniBatchKMeans

    from app.core.tokenize import tokenize

    vocab = sorted({text[t.start:t.end].lower() for text in texts for t in tokenize(text)
                    if _is_word(text[t.start:t.end])})
    if not vocab:
        raise ValueError("no words to group")
    n = max(1, min(k, len(vocab) // 8))
    vectors = word_vectors(vocab)
    if n == 1:
        return WordClusters(vectors.mean(axis=0, keepdims=True))
    km = MiniBatchKMeans(n, random_state=seed, n_init=3, batch_size=4096).fit(vectors)
    centroids = km.cluster_centers_
    centroids = centroids / np.maximum(np.linalg.norm(centroids, axis=1, keepdims=True), 1e-9)
    # Rounded as they are saved, so the model scored on dev is the one that is stored.
    return WordClusters(centroids.astype(np.float16))
