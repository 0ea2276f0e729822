"""mha.core.lru.ByteLRU and mha.app.compute: caches bounded by bytes, one computation per key, hits that never wait."""
from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from mha.app import compute
from mha.core.lru import ByteLRU, freeze, nbytes
from mha.weights.view import ViewSpec, run_view

MB = 2 ** 20


def test_nbytes_counts_arrays_once_and_sees_inside_dataclasses():
    a = np.zeros((256, 256), dtype=np.float32)  # 256 kB
    assert a.nbytes <= nbytes(a) < a.nbytes + 1024
    assert nbytes([a, a]) < 2 * a.nbytes  # the same array twice is held once
    view = run_view(ViewSpec(text="a b c d", d_model=32, num_heads=4))
    arrays = sum(v.nbytes for v in vars(view).values() if isinstance(v, np.ndarray) and v is not view.x_kv)
    assert arrays <= nbytes(view) < arrays + 64 * 1024


def test_bounded_by_bytes_the_least_recently_used_go_first():
    cache = ByteLRU("t", max_bytes=3 * MB, max_entries=100)
    block = lambda: np.zeros(MB // 8, dtype=np.float64)  # noqa: E731 1 MB
    for k in "abc":
        cache.put(k, block())
    assert len(cache) == 2 and "a" not in cache  # 3 MB plus overhead does not fit: the oldest went
    cache.lookup("b")  # b is now the most recently used
    cache.put("d", block())
    assert "b" in cache and "c" not in cache and "d" in cache
    assert cache.bytes <= cache.max_bytes


def test_bounded_by_entries_and_time_too():
    now = [0.0]
    cache = ByteLRU("t", max_bytes=MB, max_entries=2, ttl=10, clock=lambda: now[0])
    for k in range(3):
        cache.put(k, k)
    assert 0 not in cache and len(cache) == 2
    now[0] = 11.0
    assert cache.lookup(2) == (False, None) and 1 not in cache


def test_a_value_larger_than_the_cache_is_returned_not_kept():
    cache = ByteLRU("t", max_bytes=MB, max_entries=10)
    big = np.zeros(MB, dtype=np.float32)
    assert cache.get_or_compute("big", lambda: big) is big
    assert "big" not in cache and cache.bytes == 0


def test_bad_bounds_are_refused_with_the_numbers():
    with pytest.raises(ValueError, match="positive"):
        ByteLRU("t", max_bytes=0, max_entries=1)


def test_concurrent_askers_share_one_computation():
    cache = ByteLRU("t", max_bytes=MB, max_entries=10)
    calls, started = [], threading.Event()

    def slow():
        calls.append(1)
        started.set()
        time.sleep(0.2)
        return "value"

    results = []
    threads = [threading.Thread(target=lambda: results.append(cache.get_or_compute("k", slow))) for _ in range(5)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert results == ["value"] * 5 and len(calls) == 1


def test_a_hit_does_not_wait_for_another_key_being_computed():
    cache = ByteLRU("t", max_bytes=MB, max_entries=10)
    cache.put("cached", 1)
    release = threading.Event()
    worker = threading.Thread(target=lambda: cache.get_or_compute("slow", lambda: release.wait(5) and 2))
    worker.start()
    try:
        done = []
        reader = threading.Thread(target=lambda: done.append(cache.get_or_compute("cached", lambda: 0)))
        reader.start()
        reader.join(timeout=2)
        assert done == [1]  # answered while "slow" is still being computed
    finally:
        release.set()
        worker.join()


def test_a_failed_computation_is_not_cached():
    cache = ByteLRU("t", max_bytes=MB, max_entries=10)

    def boom():
        raise ValueError("no")

    with pytest.raises(ValueError):
        cache.get_or_compute("k", boom)
    assert cache.get_or_compute("k", lambda: 3) == 3


def test_freeze_makes_every_array_read_only():
    view = freeze(run_view(ViewSpec(text="a b c")))
    with pytest.raises(ValueError):
        view.weights[0, 0, 0] = 1.0
    assert not view.q.flags.writeable and not view.allowed.flags.writeable


# --------------------------------------------------------------------------------------------- mha.app.compute
def test_cached_keys_on_the_spec_and_the_weights_sha():
    from mha.core.attention import MultiHeadAttention
    from mha.core.inputs import init_weights

    compute.clear()
    spec = ViewSpec(text="the cat sat", d_model=16, num_heads=4)
    seeded = compute.view(spec)
    assert compute.view(spec) is seeded  # a hit: the very same object
    own = init_weights(MultiHeadAttention(16, 4), seed=77).state_dict()
    mine = compute.view(spec, compute.Weights("a" * 64, own))
    assert mine is not seeded and not np.allclose(mine.weights, seeded.weights)
    np.testing.assert_allclose(mine.weights, run_view(spec, state_dict=own).weights, atol=1e-6)
    # a View among the arguments is keyed by its spec, with the weights' sha beside it: never confused
    from mha.lessons import explain

    assert compute.cached(explain.extras, mine, weights=compute.Weights("a" * 64, own)).query is not \
        compute.cached(explain.extras, seeded, weights=compute.SEEDED).query
    with pytest.raises(ValueError, match="sha256"):
        compute.Weights("a" * 64)  # a sha without its state_dict


def test_computations_run_under_the_one_limit_and_hits_skip_it():
    compute.clear()
    spec = ViewSpec(text="one two three", d_model=16, num_heads=2)
    compute.view(spec)
    assert compute.HEAVY_WORK.acquire(blocking=False) and compute.HEAVY_WORK.acquire(blocking=False)
    try:  # every slot taken: a hit still answers at once ...
        got = []
        th = threading.Thread(target=lambda: got.append(compute.view(spec)))
        th.start()
        th.join(timeout=2)
        assert len(got) == 1
        # ... and a miss waits for a slot
        th = threading.Thread(target=lambda: got.append(compute.view(ViewSpec(text="four five", d_model=16))))
        th.start()
        th.join(timeout=0.5)
        assert th.is_alive() and len(got) == 1
    finally:
        compute.HEAVY_WORK.release()
        compute.HEAVY_WORK.release()
    th.join(timeout=30)
    assert len(got) == 2


def test_fingerprint_refuses_what_it_cannot_key():
    with pytest.raises(TypeError):
        compute.fingerprint({1, 2})  # a set: unhashable here, never a silent wrong hit
