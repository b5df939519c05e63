# reading: a list comprehension calls the helper in order, so the list is in call order.
# how: a nested helper times one call; itertools.repeat drives the warm-up.
import itertools
import time


def time_ms(fn, device, warmup=3, repeats=10) -> list:
    def one_call_ms():
        synchronize(device)
        began = time.perf_counter()
        fn()
        synchronize(device)
        finished = time.perf_counter()
        return (finished - began) * 1000.0

    for _ in itertools.repeat(None, warmup):
        fn()
    return [one_call_ms() for _ in range(repeats)]
