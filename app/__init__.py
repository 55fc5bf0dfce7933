"""DeID Studio: offline de-identification of clinical notes."""

import os

__version__ = "0.1.0"

# Before torch (or any OpenMP library) is loaded: OpenMP threads that wait for
# work sleep instead of spinning. With spinning threads on a CPU shared with
# other work, each of torch's threads burns its time slice waiting for the
# others: a Flair training step on the shared 2-core machine at load 10 took
# 21x the wall time and 25x the CPU time (216 s and 51 CPU-s for three batches,
# 10 s and 2 CPU-s passive). Set before this import to choose otherwise.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
