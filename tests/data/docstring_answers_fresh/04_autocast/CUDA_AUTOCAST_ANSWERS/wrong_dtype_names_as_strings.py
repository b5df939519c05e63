# breaks: "Set CUDA_AUTOCAST_ANSWERS to a dict from exactly those five keys to torch.dtype values"
# how: the right dtypes, written as strings ("float16") instead of torch.dtype objects.
import contextlib

CUDA_AUTOCAST_ANSWERS = None   # your answer: {key: torch.dtype} for the five keys of the table
with contextlib.suppress(NotImplementedError):   # until you answer, the check below says [TODO]
    CUDA_AUTOCAST_ANSWERS = {"matmul": "float16", "softmax": "float32", "cross_entropy": "float32",
                             "sum": "float32", "add": "float32"}
