# reading: 1 GB/s is 1e6 bytes per millisecond
# how: decimal arithmetic with bytes per millisecond, converted to float at the end
from decimal import Decimal


def transfer_ms(nbytes, gb_per_s) -> float:
    bytes_per_ms = Decimal(gb_per_s) * 1_000_000
    return float(Decimal(nbytes) / bytes_per_ms)
