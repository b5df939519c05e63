# breaks: "return a list of repeats floats in call order"
# how: times warm-up and measured calls alike and keeps times[-repeats:], which is every call when repeats=0
import torch


def time_ms_cuda_events(fn, warmup=3, repeats=10) -> list:
    pairs = []
    for _ in range(warmup + repeats):
        s = torch.cuda.Event(enable_timing=True)
        e = torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        pairs.append((s, e))
    torch.cuda.synchronize()
    times = [s.elapsed_time(e) for s, e in pairs]
    return times[-repeats:]
