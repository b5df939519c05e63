# reading: computed in float64 (Python floats are float64), returned as float64 for both x dtypes
# how: a Python loop over the flattened values, the result reshaped to x's shape (an empty x gives an empty result)
import math

import torch


def roundtrip_rel_error(x, dtype):
    exact = x.detach().double().reshape(-1).tolist()
    stored = x.detach().to(dtype).double().reshape(-1).tolist()
    errors = []
    for a, b in zip(exact, stored, strict=True):
        errors.append(math.inf if math.isinf(b) else abs(a - b) / abs(a))
    return torch.tensor(errors, dtype=torch.float64).reshape(x.shape)
