# breaks: "The result is exact for every size a tensor can have (up to 2**63 - 1 bytes; never rounded through a float)"
# how: multiplies the shape with torch.tensor(sample_shape).prod(), which is float32 for () and rounds huge shapes
import torch


def batch_nbytes(batch_size, sample_shape, dtype) -> int:
    per_sample = int(torch.tensor(list(sample_shape), dtype=torch.float32).prod())
    return batch_size * per_sample * torch.empty((), dtype=dtype).element_size()
