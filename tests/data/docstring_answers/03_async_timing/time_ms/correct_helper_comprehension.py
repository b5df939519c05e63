# reading: warm-up calls are not synchronized (the docstring asks nothing of them).
# how: a helper that times one call, used in a list comprehension.
import time


def _one_call_ms(fn, device):
    synchronize(device)
    began = time.perf_counter()
    fn()
    synchronize(device)
    ended = time.perf_counter()
    return (ended - began) * 1000.0


def time_ms(fn, device, warmup=3, repeats=10) -> list:
    for _ in range(warmup):
        fn()
    return [_one_call_ms(fn, device) for _ in range(repeats)]
