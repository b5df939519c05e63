# breaks: "Set CUDA_AUTOCAST_ANSWERS to a dict from exactly those five keys to torch.dtype values"
# how: right dtypes, written as strings.
import contextlib

CUDA_AUTOCAST_ANSWERS = {"matmul": "float16", "softmax": "float32",
                         "cross_entropy": "float32", "sum": "float32", "add": "float32"}
