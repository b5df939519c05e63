# reading: NumPy's direct rounding for float16/float32 (accepted); torch for bfloat16, which NumPy lacks.
# how: numpy astype with overflow warnings silenced, result back on x's device.
import numpy as np

_NP = {torch.float16: np.float16, torch.float32: np.float32, torch.float64: np.float64}


def roundtrip_rel_error(x, dtype):
    if dtype not in _NP:
        back = x.to(dtype).to(x.dtype)
        return (x - back).abs() / x.abs()
    values = x.detach().cpu().numpy()
    with np.errstate(over="ignore", invalid="ignore"):
        back = values.astype(_NP[dtype]).astype(values.dtype)
        err = np.abs(values - back) / np.abs(values)
    return torch.from_numpy(err).to(x.device)
