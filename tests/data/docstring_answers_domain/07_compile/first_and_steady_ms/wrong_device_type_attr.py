# breaks: "synchronize(device) before starting the clock and again after the call, before reading it."
# how: synchronizes only when device.type is "cuda", which a device given as a str lacks
import statistics


def first_and_steady_ms(fn, x, device, repeats=10):
    def one():
        if device.type == "cuda":
            synchronize(device)
        t0 = time.perf_counter()
        fn(x)
        if device.type == "cuda":
            synchronize(device)
        return (time.perf_counter() - t0) * 1e3

    first = one()
    later = [one() for _ in range(repeats)]
    return float(first), float(statistics.median(later))
