# breaks: "fn(x) is called exactly 1 + repeats times, with no warm-up."
# how: a tuple x is taken for several inputs and unpacked, fn(*x)
import statistics


def first_and_steady_ms(fn, x, device, repeats=10):
    args = x if isinstance(x, tuple) else (x,)

    def one():
        synchronize(device)
        t0 = time.perf_counter()
        fn(*args)
        synchronize(device)
        return (time.perf_counter() - t0) * 1e3

    first = one()
    later = [one() for _ in range(repeats)]
    return float(first), float(statistics.median(later))
