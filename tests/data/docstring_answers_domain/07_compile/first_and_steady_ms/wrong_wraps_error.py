# breaks: "first_ms: the first call, compilation included."
# how: a first call that fails is reported as a RuntimeError("compilation failed") instead of fn's own exception
import statistics


def first_and_steady_ms(fn, x, device, repeats=10):
    def one():
        synchronize(device)
        t0 = time.perf_counter()
        fn(x)
        synchronize(device)
        return (time.perf_counter() - t0) * 1e3

    try:
        first = one()
    except Exception as error:
        raise RuntimeError("compilation failed") from error
    later = [one() for _ in range(repeats)]
    return float(first), float(statistics.median(later))
