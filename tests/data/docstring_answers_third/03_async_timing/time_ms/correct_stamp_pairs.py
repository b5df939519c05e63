# reading: the durations are computed after the loop from stored (start, end) stamps
# how: a while loop records raw perf_counter pairs, converts to ms with a list comprehension at the end
import time


def time_ms(fn, device, warmup=3, repeats=10) -> list:
    done = 0
    while done < warmup:
        fn()
        done += 1
    stamps = []
    for _ in range(repeats):
        synchronize(device)
        begin = time.perf_counter()
        fn()
        synchronize(device)
        stamps.append((begin, time.perf_counter()))
    return [float((b - a) * 1e3) for a, b in stamps]
