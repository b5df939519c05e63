# breaks: "predict, for CUDA autocast with dtype=torch.float16, the dtype of each result"
# how: thinks the loss of float16 logits stays float16 (cross_entropy is on CUDA's float32 list)
import torch

CUDA_AUTOCAST_ANSWERS = {"matmul": torch.float16, "softmax": torch.float32, "cross_entropy": torch.float16,
                         "sum": torch.float32, "add": torch.float32}
