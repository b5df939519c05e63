# reading: numpy.median is statistics.median for these times (the mean of the two middle ones for an even count)
# how: numpy.median, the first call timed apart from a list comprehension of the later ones
import numpy as np


def first_and_steady_ms(fn, x, device, repeats=10):
    def ms_of_one_call():
        synchronize(device)
        start = time.perf_counter()
        fn(x)
        synchronize(device)
        return 1000.0 * (time.perf_counter() - start)

    first = ms_of_one_call()
    steady = [ms_of_one_call() for _ in range(repeats)]
    return float(first), float(np.median(steady))
