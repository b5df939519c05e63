# breaks: "on CUDA also softmax, exp, log and sums" (run in float32)
# how: answers float16 for torch.softmax(h, dim=1) (softmax "follows its input" as on the CPU).
import contextlib

CUDA_AUTOCAST_ANSWERS = None   # your answer: {key: torch.dtype} for the five keys of the table
with contextlib.suppress(NotImplementedError):   # until you answer, the check below says [TODO]
    CUDA_AUTOCAST_ANSWERS = {"matmul": torch.float16, "softmax": torch.float16, "cross_entropy": torch.float32,
                             "sum": torch.float32, "add": torch.float32}
