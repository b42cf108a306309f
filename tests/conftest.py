"""Shared pytest fixtures; the suite runs with the IR verified after every pass."""
import os
from pathlib import Path

import pytest

# Every compilation in the tests verifies the IR after each pass (ireec.compiler reads it);
# a pass that leaves ill-formed IR fails at the op it broke.
os.environ.setdefault("IREEC_VERIFY_EACH", "1")

SHARED = Path(__file__).parents[1].parent / "shared"


@pytest.fixture
def shared_dir() -> Path:
    """The project's ``../shared`` folder (corpus, models, reference dumps)."""
    if not SHARED.is_dir():
        pytest.skip("../shared not present")
    return SHARED
