# reading: "beyond float32's range" tested by rounding the candidate to float32 and checking it is finite.
# how: pure Python with struct to round to float32, math.isfinite.
import math
import struct


def _as_float32(value):
    try:
        return struct.unpack("f", struct.pack("f", value))[0]
    except OverflowError:
        return math.inf


def next_scale(scale, growth_tracker, found_inf, growth_factor=2.0, backoff_factor=0.5,
               growth_interval=2000):
    scale = float(scale)
    if found_inf:
        return scale * backoff_factor, 0
    clean_steps = int(growth_tracker) + 1
    if clean_steps < growth_interval:
        return scale, clean_steps
    grown = scale * growth_factor
    return (grown if math.isfinite(_as_float32(grown)) else scale), 0
