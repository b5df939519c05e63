# breaks: "predict, for CUDA autocast with dtype=torch.float16, the dtype of each result below" ("softmax")
# how: thinks softmax of a float16 h stays float16 (as on the CPU list).
import contextlib

CUDA_AUTOCAST_ANSWERS = {"matmul": torch.float16, "softmax": torch.float16,
                         "cross_entropy": torch.float32, "sum": torch.float32, "add": torch.float32}
