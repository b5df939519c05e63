# breaks: "Call fn() warmup times untimed, then time repeats calls" (fn, as the caller would run it)
# how: runs every call under torch.inference_mode(), as if timing never needed autograd
import torch


@torch.inference_mode()
def time_ms_cuda_events(fn, warmup=3, repeats=10) -> list:
    for _ in range(warmup):
        fn()
    pairs = []
    for _ in range(repeats):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        pairs.append((start, end))
    torch.cuda.synchronize()
    return [s.elapsed_time(e) for s, e in pairs]
