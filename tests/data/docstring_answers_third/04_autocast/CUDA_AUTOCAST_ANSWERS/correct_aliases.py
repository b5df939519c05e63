# reading: dtypes written with the torch.half / torch.float aliases, the dict built from pairs
# how: matmul on the float16 list; softmax, cross_entropy, sum on the float32 list; add promotes to the widest input
import contextlib

import torch

CUDA_AUTOCAST_ANSWERS = dict([("matmul", torch.half), ("softmax", torch.float), ("cross_entropy", torch.float),
                              ("sum", torch.float), ("add", torch.float)])
