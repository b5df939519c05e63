# reading: the same sequence of calls written with while loops and a perf_counter alias.
# how: counters instead of range, durations computed after both clock reads.
import time


def time_ms(fn, device, warmup=3, repeats=10) -> list:
    clock = time.perf_counter
    done = 0
    while done < warmup:
        fn()
        done += 1
    result = []
    while len(result) < repeats:
        synchronize(device)
        start = clock()
        fn()
        synchronize(device)
        stop = clock()
        result.append(float(1e3 * (stop - start)))
    return result
