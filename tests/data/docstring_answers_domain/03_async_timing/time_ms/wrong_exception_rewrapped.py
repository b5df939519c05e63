# breaks: "call fn()" (what fn raises reaches the caller as it is)
# how: catches whatever fn raises and raises a new RuntimeError naming the call instead
import time


def time_ms(fn, device, warmup=3, repeats=10) -> list:
    def call(k):
        try:
            fn()
        except Exception as error:
            raise RuntimeError(f"fn() failed on call {k}") from error

    for k in range(warmup):
        call(k)
    times = []
    for k in range(repeats):
        synchronize(device)
        start = time.perf_counter()
        call(warmup + k)
        synchronize(device)
        times.append((time.perf_counter() - start) * 1e3)
    return times
