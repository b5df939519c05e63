# reading: "the previous call's closing synchronize already ensures it": one opening synchronize after the warm-up
# how: stores (start, end) stamps from time.perf_counter and turns them into ms with map at the end; counts its calls
# in a module-level counter
import time

calls_made = 0


def time_ms(fn, device, warmup=3, repeats=10) -> list:
    global calls_made
    for _ in range(warmup):
        fn()
        calls_made += 1
    synchronize(device)
    stamps = []
    for _ in range(repeats):
        began = time.perf_counter()
        fn()
        calls_made += 1
        synchronize(device)
        stamps.append((began, time.perf_counter()))
    return list(map(lambda pair: 1e3 * (pair[1] - pair[0]), stamps))
