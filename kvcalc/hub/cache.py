"""The in-process cache of Hub results and errors.

Results are kept per key (endpoint, repo, revision, token identity, ...) for :data:`CACHE_TTL_S`,
errors for :data:`ERROR_TTL_S` so that a page re-run does not wait for the same timeout again.
"""
from __future__ import annotations

import copy
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

from .errors import SourceError

CACHE_TTL_S = 3600.0
ERROR_TTL_S = 30.0
CACHE_MAX_ENTRIES = 256

_T = TypeVar("_T")


class _TTLCache:
    """A small LRU of (value or error) with per-entry expiry, safe across threads."""

    def __init__(self, max_entries: int):
        self._data: OrderedDict[tuple[Any, ...], tuple[float, Any]] = OrderedDict()
        self._lock = threading.Lock()
        self._max = max_entries

    def get(self, key: tuple[Any, ...]) -> tuple[bool, Any]:
        with self._lock:
            item = self._data.get(key)
            if item is None:
                return False, None
            expires, value = item
            if time.monotonic() >= expires:
                del self._data[key]
                return False, None
            self._data.move_to_end(key)
            return True, value

    def put(self, key: tuple[Any, ...], value: Any, ttl: float) -> None:
        with self._lock:
            self._data[key] = (time.monotonic() + ttl, value)
            self._data.move_to_end(key)
            while len(self._data) > self._max:
                self._data.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()


_CACHE = _TTLCache(CACHE_MAX_ENTRIES)


def clear_cache() -> None:
    """Forget every cached Hub result and error (e.g. after accepting a license)."""
    _CACHE.clear()


def cached(key: tuple[Any, ...], fetch: Callable[[], _T]) -> _T:
    """``fetch()`` through the cache; results are deep-copied so callers cannot alter the cache."""
    hit, value = _CACHE.get(key)
    if not hit:
        try:
            value = fetch()
        except SourceError as e:
            _CACHE.put(key, e, ERROR_TTL_S)
            raise
        _CACHE.put(key, value, CACHE_TTL_S)
    elif isinstance(value, SourceError):
        raise _fresh(value)
    return copy.deepcopy(value)


def _fresh(error: SourceError) -> SourceError:
    """A new instance equal to a cached error, so re-raising never chains onto the cached one."""
    new = type(error).__new__(type(error), *error.args)
    Exception.__init__(new, *error.args)
    new.__dict__.update(error.__dict__)
    return new
