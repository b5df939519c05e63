# breaks: "run in float32 (losses on both devices; on CUDA also softmax, exp, log and sums ...)"
# how: answers float16 for h.sum(), as CPU autocast would give (sum is on no CPU list).
import contextlib

CUDA_AUTOCAST_ANSWERS = None   # your answer: {key: torch.dtype} for the five keys of the table
with contextlib.suppress(NotImplementedError):   # until you answer, the check below says [TODO]
    CUDA_AUTOCAST_ANSWERS = {"matmul": torch.float16, "softmax": torch.float32, "cross_entropy": torch.float32,
                             "sum": torch.float16, "add": torch.float32}
