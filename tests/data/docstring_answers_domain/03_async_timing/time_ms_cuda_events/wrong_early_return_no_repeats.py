# breaks: "Call fn() warmup times untimed, then time repeats calls"
# how: returns [] before anything else when repeats is 0, so the warm-up calls never run
import torch


def time_ms_cuda_events(fn, warmup=3, repeats=10) -> list:
    if not repeats:
        return []
    for _ in range(warmup):
        fn()
    pairs = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        pairs.append((start, end))
    torch.cuda.synchronize()
    return [s.elapsed_time(e) for s, e in pairs]
