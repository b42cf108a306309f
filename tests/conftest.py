"""Shared pytest fixtures."""
from pathlib import Path

import pytest

SHARED = Path(__file__).parents[1].parent / "shared"


@pytest.fixture
def shared_dir() -> Path:
    """The project's ``../shared`` folder (corpus, models, reference dumps)."""
    if not SHARED.is_dir():
        pytest.skip("../shared not present")
    return SHARED
