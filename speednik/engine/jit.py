"""How the engine's per-frame functions are compiled.

They allocate nothing, so they are compiled without Numba's reference
counting of arrays (the NRT). With it, each call that passes a lowered
stage (some 45 arrays) paid an atomic increment and decrement for every
array, and a frame cost as much as the readable simulation's. Only the
episode loop, which allocates an episode's state, keeps the NRT. Machine
code is cached beside the sources (`cache=True`), so only the first
process compiles.
"""
from __future__ import annotations

from numba import njit

frame_jit = njit(cache=True, _nrt=False)
