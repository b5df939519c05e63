# breaks: "a dict from exactly those five keys to torch.dtype values"
# how: the values as the names str(dtype) prints ("torch.float16"), not the dtype objects
CUDA_AUTOCAST_ANSWERS = {"matmul": "torch.float16", "softmax": "torch.float32", "cross_entropy": "torch.float32",
                         "sum": "torch.float32", "add": "torch.float32"}
