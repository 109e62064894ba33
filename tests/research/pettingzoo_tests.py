"""PettingZoo's own tests, typed, and the warnings they give on Fabula's envs that are by design
(import after `require_extra`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

import pytest
from pettingzoo.test.api_test import api_test as untyped_api_test
from pettingzoo.test.parallel_test import parallel_api_test
from pettingzoo.test.seed_test import parallel_seed_test as untyped_parallel_seed_test
from pettingzoo.test.seed_test import seed_test as untyped_seed_test

__all__ = ["BY_DESIGN", "api_test", "parallel_api_test", "parallel_seed_test", "seed_test"]

api_test = cast("Callable[..., None]", untyped_api_test)
seed_test = cast("Callable[..., None]", untyped_seed_test)
parallel_seed_test = cast("Callable[..., None]", untyped_parallel_seed_test)

#: The observation is a Dict of texts (or of a vector) and a mask, as PettingZoo's classic games
#: have it, its spaces differ by seat count only, and a seat the table is not waiting for has no
#: legal move: the warnings PettingZoo's tests give for these are by design.
BY_DESIGN = [
    pytest.mark.filterwarnings("ignore:Observation is not a NumPy array"),
    pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be"),
    pytest.mark.filterwarnings("ignore:Action space for each agent probably should be"),
    pytest.mark.filterwarnings("ignore:Action mask numpy array is all zeros"),
]
