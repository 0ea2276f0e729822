"""Fixtures shared by every test file. Kept small: helpers specific to one topic live in that topic's file."""
import pytest
import torch


@pytest.fixture
def gen() -> torch.Generator:
    """A seeded private generator: tests are reproducible and never touch (or depend on) torch's global RNG."""
    return torch.Generator().manual_seed(20240613)
