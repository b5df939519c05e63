# breaks: "predict, for CUDA autocast with dtype=torch.float16, the dtype of each result below" ("sum": h.sum())
# how: answers with CPU-autocast behaviour for sum (keeps the input's dtype).
import contextlib

CUDA_AUTOCAST_ANSWERS = {"matmul": torch.float16, "softmax": torch.float32,
                         "cross_entropy": torch.float32, "sum": torch.float16, "add": torch.float32}
