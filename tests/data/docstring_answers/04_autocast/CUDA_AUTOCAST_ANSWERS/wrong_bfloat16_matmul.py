# breaks: "predict, for CUDA autocast with dtype=torch.float16, the dtype of each result below" ("matmul")
# how: answers bfloat16 for the matmul (the CPU autocast default).
import contextlib

CUDA_AUTOCAST_ANSWERS = {"matmul": torch.bfloat16, "softmax": torch.float32,
                         "cross_entropy": torch.float32, "sum": torch.float32, "add": torch.float32}
