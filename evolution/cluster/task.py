"""The work of a cluster task, as it runs on a worker: a chunk of genomes
played on the run's stages, the results sent back as columns."""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Sequence

import numpy as np

# A stage sent as profile text, built once per worker process and kept.
_PROFILE_STAGES: OrderedDict[tuple[str, str], Any] = OrderedDict()
PROFILE_CACHE_SIZE = 64
# One batch at a time per worker process: a batch already spreads over the
# worker's threads, and some of Numba's threading layers may not be
# entered from two threads at once.
_ENGINE_LOCK = threading.Lock()


def stage_payload(stage: Any) -> Any:
    """What to send for a stage reference: a .toml profile as its text (a
    worker needs no copy of the file), anything else as it is."""
    if isinstance(stage, str) and stage.endswith(".toml"):
        from pathlib import Path

        return ("profile", stage, Path(stage).read_text(encoding="utf-8"))
    return stage


def _worker_stage(payload: Any) -> Any:
    if isinstance(payload, tuple) and len(payload) == 3 and payload[0] == "profile":
        _, path, text = payload
        key = (path, text)
        stage = _PROFILE_STAGES.get(key)
        if stage is None:
            from speednik.stages import build_stage, parse_profile

            stage = build_stage(parse_profile(text, source=path.rsplit("/", 1)[-1],
                                              path=path))
            _PROFILE_STAGES[key] = stage
            while len(_PROFILE_STAGES) > PROFILE_CACHE_SIZE:
                _PROFILE_STAGES.popitem(last=False)
        return stage
    # Built-in names and (seed, difficulty) pairs: speednik keeps every
    # stage it builds for the life of the process.
    return payload


def pack_results(results: Sequence[dict]) -> dict:
    """Episode result dicts as columns: {"n", "keys": [path, ...], "columns":
    [...]}, a path being a key tuple into the nested dicts. A column whose
    values are all floats, all whole numbers or all booleans travels as one
    numpy array; any other as a list. Far cheaper to send than thousands of
    dicts; `unpack_results` gives back equal dicts, the same types included."""
    def leaves(d: dict, prefix: tuple) -> list:
        out = []
        for k, v in d.items():
            if isinstance(v, dict):
                out += leaves(v, prefix + (k,))
            else:
                out.append((prefix + (k,), v))
        return out

    if not results:
        return {"n": 0, "keys": [], "columns": []}
    flat = [leaves(r, ()) for r in results]
    keys = [k for k, _ in flat[0]]
    if any([k for k, _ in row] != keys for row in flat):
        # Results of different shapes: sent as they are.
        return {"n": len(results), "keys": None, "columns": list(results)}
    columns = []
    for j in range(len(keys)):
        values = [row[j][1] for row in flat]
        kinds = {type(v) for v in values}
        if kinds == {float}:
            columns.append(np.array(values, dtype=np.float64))
        elif kinds == {bool}:
            columns.append(np.array(values, dtype=np.bool_))
        elif kinds == {int} and all(-2**63 <= v < 2**63 for v in values):
            columns.append(np.array(values, dtype=np.int64))
        else:
            columns.append(values)
    return {"n": len(results), "keys": keys, "columns": columns}


def unpack_results(packed: dict) -> list[dict]:
    """The dicts `pack_results` was given."""
    if packed["keys"] is None:
        return list(packed["columns"])
    columns = [c.tolist() if isinstance(c, np.ndarray) else c for c in packed["columns"]]
    out = []
    for i in range(packed["n"]):
        row: dict = {}
        for path, column in zip(packed["keys"], columns):
            d = row
            for k in path[:-1]:
                d = d.setdefault(k, {})
            d[path[-1]] = column[i]
        out.append(row)
    return out


def _worker_threads() -> int:
    try:
        from distributed import get_worker

        return max(1, int(get_worker().state.nthreads))
    except (ImportError, ValueError, AttributeError):
        return 1


DEFAULT_POLICY = {"policy": "linear"}


def evaluate_chunk(genomes: np.ndarray, stages: Sequence[Any], settings: dict,
                   engine: str = "compiled", policy: dict = DEFAULT_POLICY) -> dict:
    """Every genome of a chunk (rows of a float64 array, or a list of
    arrays for genomes of different sizes) on every stage,
    genome-major, as `EpisodeResult.to_dict()`s packed in columns
    (`pack_results`). `stages` are stage
    payloads (see `stage_payload`), `settings` the fields of a
    `RunnerConfig`. Runs on a worker; module-level so any worker can import
    it."""
    from runners import Policy, RunnerConfig, run_episodes

    config = RunnerConfig(**settings)
    built = [_worker_stage(s) for s in stages]
    observation = config.observation
    spec = Policy.from_json(policy, observation).spec
    items = [(spec(np.asarray(row, dtype=np.float64)), stage)
             for row in genomes for stage in built]
    # The readable runner runs in the task's own thread: no process pool
    # inside a worker.
    threads = _worker_threads() if engine == "compiled" else 1
    with _ENGINE_LOCK:
        results = run_episodes(items, config, workers=threads, engine=engine)
    return pack_results([r.to_dict() for r in results])


def prepare_worker(observation: str | None = None) -> dict:
    """Load the compiled engine for the run's observation (every policy
    family) on a worker, compiling it if its machine has no cache of it
    yet, so the first generation is not slowed; the worker's numeric
    environment, for the run to compare with its own."""
    from evolution.numeric_env import numeric_environment
    from speednik.engine import warm_up

    warm_up(None if observation is None else [observation])
    return numeric_environment()


