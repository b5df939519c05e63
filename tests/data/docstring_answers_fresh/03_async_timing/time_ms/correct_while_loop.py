# reading: warmup=0 means no warm-up call and repeats=0 gives an empty list.
# how: while loops with explicit counters; the stamps are kept as pairs and converted at the end.
import time


def time_ms(fn, device, warmup=3, repeats=10) -> list:
    done = 0
    while done < warmup:
        fn()
        done += 1
    pairs = []
    while len(pairs) < repeats:
        synchronize(device)
        t_start = time.perf_counter()
        fn()
        synchronize(device)
        pairs.append((t_start, time.perf_counter()))
    return [float((t_end - t_start) * 1e3) for t_start, t_end in pairs]
