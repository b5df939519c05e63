# reading: torch.half / torch.float are the same objects as torch.float16 / torch.float32.
# how: aliases, inside the with block as the template shows.
import contextlib

CUDA_AUTOCAST_ANSWERS = None   # your answer: {key: torch.dtype} for the five keys of the table
with contextlib.suppress(NotImplementedError):   # until you answer, the check below says [TODO]
    CUDA_AUTOCAST_ANSWERS = {"add": torch.float, "sum": torch.float, "cross_entropy": torch.float,
                             "softmax": torch.float, "matmul": torch.half}
