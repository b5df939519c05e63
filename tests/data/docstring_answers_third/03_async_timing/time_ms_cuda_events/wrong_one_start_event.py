# breaks: "time repeats calls with a pair of torch.cuda.Event(enable_timing=True) around each"
# how: records one start event before the loop and an end event after each call: durations are cumulative
import torch


def time_ms_cuda_events(fn, warmup=3, repeats=10) -> list:
    for _ in range(warmup):
        fn()
    start = torch.cuda.Event(enable_timing=True)
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(repeats)]
    start.record()
    for end in ends:
        fn()
        end.record()
    torch.cuda.synchronize()
    return [start.elapsed_time(end) for end in ends]
