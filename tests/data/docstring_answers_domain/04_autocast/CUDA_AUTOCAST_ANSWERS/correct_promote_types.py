# reading: the dtypes may be computed, as long as the cell leaves torch as it found it
# how: "add" by torch.result_type on two empty tensors (no autocast needed), the rest from a float32 default
import contextlib

import torch

CUDA_AUTOCAST_ANSWERS = None
with contextlib.suppress(NotImplementedError):
    _promoted = torch.result_type(torch.empty(0, dtype=torch.float16), torch.empty(0, dtype=torch.float32))
    CUDA_AUTOCAST_ANSWERS = dict.fromkeys(["softmax", "cross_entropy", "sum"], torch.float32)
    CUDA_AUTOCAST_ANSWERS.update(matmul=torch.float16, add=_promoted)
