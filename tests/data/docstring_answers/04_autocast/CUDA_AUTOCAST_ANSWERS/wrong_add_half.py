# breaks: "predict, for CUDA autocast with dtype=torch.float16, the dtype of each result below" ("add": h + a)
# how: assumes a float16 h added to a float32 a stays float16 (type promotion gives float32).
import contextlib

CUDA_AUTOCAST_ANSWERS = {"matmul": torch.float16, "softmax": torch.float32,
                         "cross_entropy": torch.float32, "sum": torch.float32, "add": torch.float16}
