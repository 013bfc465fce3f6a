"""What a process keeps of the answers it made: :class:`Kept`, one bounded least-recently-used
map shared by threads.

A cell's items (:data:`evalmaps.catalog.items.KEPT`), Compare's paired grids
(:data:`evalmaps.analysis.compare.PAIRED_KEPT`) and the Rank answers
(:data:`evalmaps.views.rank.KEPT_RANKINGS`) are each kept in one, keyed by the version of the
data they were made from (a new file is a new key, so nothing kept is ever stale) and the
question. Each weighs its values in its own unit (items, grids, pairs); the least recently used
go past the limit, and a value heavier than the whole limit is not kept at all.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable


class Kept:
    """A bounded LRU map: ``limit`` in the unit of ``weigh`` (by default each value weighs 1,
    and ``limit`` is a count). Every method takes the one lock."""

    def __init__(self, limit: int, weigh: Callable[[object], int] | None = None) -> None:
        self.limit = limit
        self.size = 0  # the weight kept, in weigh's unit
        self._weigh = weigh or (lambda _value: 1)
        self._kept: OrderedDict = OrderedDict()  # key -> (value, weight)
        self._lock = threading.Lock()

    def get(self, key: Hashable):
        """The value kept at ``key`` (now the most recently used), or None."""
        with self._lock:
            found = self._kept.get(key)
            if found is None:
                return None
            self._kept.move_to_end(key)
            return found[0]

    def put(self, key: Hashable, value) -> bool:
        """Keep ``value`` at ``key`` (replacing what was there), dropping the least recently
        used past the limit; False, and nothing kept, when it alone weighs more than the
        limit."""
        weight = self._weigh(value)
        if weight > self.limit:
            return False
        with self._lock:
            self._pop(key)
            self._kept[key] = (value, weight)
            self.size += weight
            while self.size > self.limit:
                _, (_, dropped) = self._kept.popitem(last=False)
                self.size -= dropped
        return True

    def drop(self, key: Hashable) -> None:
        with self._lock:
            self._pop(key)

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()
            self.size = 0

    def __len__(self) -> int:
        return len(self._kept)

    def _pop(self, key) -> None:
        old = self._kept.pop(key, None)
        if old is not None:
            self.size -= old[1]
