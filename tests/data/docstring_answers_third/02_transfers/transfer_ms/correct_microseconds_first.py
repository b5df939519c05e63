# reading: gb_per_s > 0; int inputs give a float via true division
# how: bytes / GB/s gives nanoseconds; scale by 1e-6 to milliseconds
def transfer_ms(nbytes, gb_per_s) -> float:
    nanoseconds = nbytes / gb_per_s
    return float(nanoseconds * 1e-6)
