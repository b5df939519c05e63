# breaks: "fn(x) is called exactly 1 + repeats times, with no warm-up."
# how: times every call under torch.inference_mode() (timing needs no gradients), so fn runs in another grad mode
import statistics


def first_and_steady_ms(fn, x, device, repeats=10):
    def one():
        synchronize(device)
        t0 = time.perf_counter()
        with torch.inference_mode():
            fn(x)
        synchronize(device)
        return (time.perf_counter() - t0) * 1e3

    first = one()
    later = [one() for _ in range(repeats)]
    return float(first), float(statistics.median(later))
