# breaks: "Operations on no list (ReLU, add) run in whatever dtype their inputs have." (h + a: float16 and float32 inputs promote to float32)
# how: reads "add follows its input" as "follows h", and answers float16 for h + a.
import contextlib

CUDA_AUTOCAST_ANSWERS = None   # your answer: {key: torch.dtype} for the five keys of the table
with contextlib.suppress(NotImplementedError):   # until you answer, the check below says [TODO]
    CUDA_AUTOCAST_ANSWERS = {"matmul": torch.float16, "softmax": torch.float32, "cross_entropy": torch.float32,
                             "sum": torch.float32, "add": torch.float16}
