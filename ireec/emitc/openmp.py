"""OpenMP pragma lines of the generated C, guarded so that the sources also build serially
(and warning-free) without ``-fopenmp``: the ``openmp`` target's launch functions
(ireec/targets/c.py) and the host regions ``ireec-form-openmp-host-regions`` forms."""
from __future__ import annotations

from typing import List


def omp_pragma(line: str) -> List[str]:
    """``#pragma omp <line>`` guarded by ``#ifdef _OPENMP`` (three lines)."""
    return ["#ifdef _OPENMP", f"#pragma omp {line}", "#endif"]


#: The next statement runs on the region's primary thread only, with no barrier: ``omp
#: masked`` (OpenMP 5.1), ``omp master`` before it.
OMP_PRIMARY = ["#if defined(_OPENMP) && _OPENMP >= 202011", "#pragma omp masked",
               "#elif defined(_OPENMP)", "#pragma omp master", "#endif"]
