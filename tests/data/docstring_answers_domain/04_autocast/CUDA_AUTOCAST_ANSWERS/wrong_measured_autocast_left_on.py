# breaks: "Write it in place of raise NotImplementedError(), inside the with block or instead of it"
# how: measures the type promotion of "add" inside an autocast block entered by hand and never left: every later
#      cell runs under CPU autocast
import contextlib

import torch

CUDA_AUTOCAST_ANSWERS = None
with contextlib.suppress(NotImplementedError):
    torch.autocast("cpu", dtype=torch.bfloat16).__enter__()
    _h = torch.ones(2, dtype=torch.float16)
    CUDA_AUTOCAST_ANSWERS = {"matmul": torch.float16, "softmax": torch.float32, "cross_entropy": torch.float32,
                             "sum": torch.float32, "add": (_h + torch.ones(2)).dtype}
