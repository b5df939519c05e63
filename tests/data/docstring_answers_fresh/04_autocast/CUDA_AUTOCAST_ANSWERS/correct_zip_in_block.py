# reading: the answer written inside the with block, in place of raise NotImplementedError().
# how: dict(zip(keys, dtypes)), with only matmul low-precision.
import contextlib

CUDA_AUTOCAST_ANSWERS = None   # your answer: {key: torch.dtype} for the five keys of the table
with contextlib.suppress(NotImplementedError):   # until you answer, the check below says [TODO]
    _keys = ("matmul", "softmax", "cross_entropy", "sum", "add")
    CUDA_AUTOCAST_ANSWERS = dict(zip(_keys, [torch.float16] + [torch.float32] * 4))
