# reading: a 0-dim tensor of dtype holds one element, so its nbytes is the bytes per element
# how: torch.Size(...).numel() for the elements, a one-element tensor's nbytes for the element size
import torch


def batch_nbytes(batch_size, sample_shape, dtype) -> int:
    elements = torch.Size([batch_size, *sample_shape]).numel()
    return elements * torch.zeros((), dtype=dtype).nbytes
