# breaks: "(first_ms, steady_median_ms) for a freshly compiled, never-called fn; two floats, in milliseconds."
# how: reads perf_counter_ns and keeps whole milliseconds (integer division), returned as floats
import statistics


def first_and_steady_ms(fn, x, device, repeats=10):
    def one():
        synchronize(device)
        t0 = time.perf_counter_ns()
        fn(x)
        synchronize(device)
        return (time.perf_counter_ns() - t0) // 1_000_000

    first = one()
    later = [one() for _ in range(repeats)]
    return float(first), float(statistics.median(later))
