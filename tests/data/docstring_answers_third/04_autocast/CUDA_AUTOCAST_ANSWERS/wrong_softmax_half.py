# breaks: "predict, for CUDA autocast with dtype=torch.float16, the dtype of each result below" (softmax autocasts to float32)
# how: believes softmax keeps its input's dtype
import contextlib

import torch

CUDA_AUTOCAST_ANSWERS = {"matmul": torch.float16, "softmax": torch.float16,
                         "cross_entropy": torch.float32, "sum": torch.float32, "add": torch.float32}
