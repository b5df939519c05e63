# breaks: "return a list of repeats floats"
# how: times max(repeats, 1) calls so that the list is never empty (a median of it always exists)
import torch


def time_ms_cuda_events(fn, warmup=3, repeats=10) -> list:
    for _ in range(warmup):
        fn()
    out = []
    for _ in range(max(repeats, 1)):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        out.append(start.elapsed_time(end))
    return out
