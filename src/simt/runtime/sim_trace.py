"""What a traced sim program reports (`kernel.explain`): the path of a few chosen threads.

A program rendered with `simt.backends.sim.render(fn, trace=True)` calls `_c.t.<event>(...)`
after each thing it does; the `Tracer` keeps, for each watched lane, the events of the lanes
active under the mask at that point, in order. Values are taken out of the lane vectors as
Python numbers, so the record is small whatever the launch size.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

Mask = Any


@dataclass
class Event:
    """One thing a thread did. `kind`: line (it ran a line), val (assigned `name` = `value`),
    alias (`name` is another name for the array `value`),
    load/store/atomic/cas (on `name`[`index`], `value` read or written), barrier, begin/iter/end
    (of loop `loop`; an iteration's variable in `name`/`value`). `site` indexes
    `simt.backends.sim.trace_sites` (-1: none)."""

    kind: str
    site: int = -1
    name: str = ""
    value: Any = None
    index: tuple[Any, ...] = ()
    loop: int = 0


@dataclass
class Tracer:
    """The events of the watched lanes (launch-wide linear thread ids)."""

    lanes: list[int]
    events: dict[int, list[Event]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.events = {lane: [] for lane in self.lanes}

    def _active(self, m: Mask) -> list[int]:
        if m is None:
            return self.lanes
        if m is False:
            return []
        return [lane for lane in self.lanes if bool(m[lane])]

    def _add(self, m: Mask, make: Any) -> None:
        for lane in self._active(m):
            self.events[lane].append(make(lane))

    def line(self, site: int, m: Mask) -> None:
        """The lanes of `m` run the line of `site`."""
        self._add(m, lambda lane: Event("line", site))

    def val(self, site: int, name: str, v: Any, m: Mask) -> None:
        """The lanes of `m` assign `v` to the variable `name`."""
        self._add(m, lambda lane: Event("val", site, name, _at(v, lane)))

    def alias(self, site: int, name: str, other: str, m: Mask) -> None:
        """The lanes of `m` make `name` another name for the array `other`."""
        self._add(m, lambda lane: Event("alias", site, name, other))

    def memory(
        self, site: int, kind: str, name: str, idx: tuple[Any, ...], v: Any, m: Mask
    ) -> None:
        """The lanes of `m` load `v` from, or store `v` to, `name[idx]` (atomics: the old value)."""
        self._add(
            m,
            lambda lane: Event(kind, site, name, _at(v, lane), tuple(_at(i, lane) for i in idx)),
        )

    def barrier(self, site: int, m: Mask) -> None:
        """The lanes of `m` wait at `syncthreads()`."""
        self._add(m, lambda lane: Event("barrier", site))

    def begin(self, loop: int, site: int, m: Mask) -> None:
        """The lanes of `m` reach loop `loop` (its `for`/`while` op is trace site `site`)."""
        self._add(m, lambda lane: Event("begin", site, loop=loop))

    def iter(self, loop: int, m: Mask, name: str, v: Any) -> None:
        """The lanes of `m` start an iteration of loop `loop` (its variable `name` = `v`)."""
        self._add(m, lambda lane: Event("iter", name=name, value=_at(v, lane), loop=loop))

    def end(self, loop: int, m: Mask) -> None:
        """The lanes of `m` leave loop `loop`."""
        self._add(m, lambda lane: Event("end", loop=loop))


def _at(v: Any, lane: int) -> Any:
    """Lane `lane`'s value of `v` (a lane vector or a value all lanes share), as a Python
    scalar of the same NumPy type."""
    if isinstance(v, np.ndarray) and v.ndim >= 1:
        return v[lane]
    return v


__all__ = ["Event", "Tracer"]
