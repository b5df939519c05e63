# reading: torch.half / torch.float aliases (the same objects), written instead of the with block.
# how: a plain dict literal, the contextlib block removed.
CUDA_AUTOCAST_ANSWERS = {
    "matmul": torch.half,
    "softmax": torch.float,
    "cross_entropy": torch.float,
    "sum": torch.float,
    "add": torch.float,
}
