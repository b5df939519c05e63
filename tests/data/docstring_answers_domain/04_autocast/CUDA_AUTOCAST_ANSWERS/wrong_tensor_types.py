# breaks: "a dict from exactly those five keys to torch.dtype values"
# how: the legacy tensor types (torch.HalfTensor, torch.FloatTensor) instead of dtypes
import torch

CUDA_AUTOCAST_ANSWERS = {"matmul": torch.HalfTensor, "softmax": torch.FloatTensor, "cross_entropy": torch.FloatTensor,
                         "sum": torch.FloatTensor, "add": torch.FloatTensor}
