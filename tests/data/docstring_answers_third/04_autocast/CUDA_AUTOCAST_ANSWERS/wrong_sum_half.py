# breaks: "predict, for CUDA autocast with dtype=torch.float16, the dtype of each result below" (sum is on the float32 list)
# how: believes a reduction of a float16 tensor stays float16
import contextlib

import torch

CUDA_AUTOCAST_ANSWERS = {"matmul": torch.float16, "softmax": torch.float32,
                         "cross_entropy": torch.float32, "sum": torch.float16, "add": torch.float32}
