# reading: "a dict": an OrderedDict is a dict; torch.half and torch.float are the same objects as float16 and float32
# how: collections.OrderedDict from a list of pairs, aliases for the dtypes
import collections

import torch

CUDA_AUTOCAST_ANSWERS = collections.OrderedDict([("add", torch.float), ("sum", torch.float),
                                                 ("cross_entropy", torch.float), ("softmax", torch.float),
                                                 ("matmul", torch.half)])
