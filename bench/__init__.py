"""Benchmarks that print figures (not timed tests). Like `python -m bot`, they run numpy with one
BLAS thread (set before numpy loads; see bot/__main__.py), so in-process figures and floors are
measured as the bot runs."""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
