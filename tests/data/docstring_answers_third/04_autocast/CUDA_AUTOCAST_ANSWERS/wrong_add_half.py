# breaks: "predict, for CUDA autocast with dtype=torch.float16, the dtype of each result below" (h + a promotes to float32)
# how: believes every op inside the block runs in float16 unless it is on the float32 list
import contextlib

import torch

CUDA_AUTOCAST_ANSWERS = {"matmul": torch.float16, "softmax": torch.float32,
                         "cross_entropy": torch.float32, "sum": torch.float32, "add": torch.float16}
