# reading: each entry converted on its own, as a 0-d tensor, is what the conversion of the whole tensor gives it
# how: a Python loop over the entries of t.flatten(), a counter for non-zero and for lost ones
import torch


def underflow_fraction(t, dtype=torch.float16) -> float:
    seen = lost = 0
    for entry in t.flatten():
        if entry != 0:
            seen += 1
            if entry.to(dtype) == 0:
                lost += 1
    return lost / seen if seen else 0.0
