"""Where a run's generations are evaluated: no scheduler (this process),
'local' (a Dask cluster of worker processes on this machine) or the
address of a Dask scheduler. Checked with the run's settings, without
loading anything of Dask."""
from __future__ import annotations

import re

LOCAL = "local"
ADDRESS = re.compile(r"^(?:(tcp|tls|ws|wss)://)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})$")
ACCEPTED = ("'local' (a cluster of --workers processes on this machine) or the address "
            "of a Dask scheduler, tcp://HOST:PORT")


def check_scheduler(value: object) -> str | None:
    """`value` if it is None, 'local' or a scheduler address; ValueError
    naming the accepted forms otherwise."""
    if value is None or value == LOCAL:
        return value
    if not isinstance(value, str) or not ADDRESS.match(value.strip()):
        raise ValueError(f"scheduler {value!r} is not understood; accepted: {ACCEPTED}")
    if not 0 < int(ADDRESS.match(value.strip()).group(3)) < 65536:
        raise ValueError(f"scheduler {value!r}: the port must be 1-65535; "
                         f"accepted: {ACCEPTED}")
    return value.strip()
