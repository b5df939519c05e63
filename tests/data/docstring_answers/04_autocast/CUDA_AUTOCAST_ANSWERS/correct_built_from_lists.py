# reading: the dict may be built by code, keys in any order.
# how: dict.fromkeys for the float32 results, then the matmul entry.
import contextlib

CUDA_AUTOCAST_ANSWERS = dict.fromkeys(["softmax", "cross_entropy", "sum", "add"], torch.float32)
CUDA_AUTOCAST_ANSWERS["matmul"] = torch.float16
