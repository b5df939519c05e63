# breaks: "then time repeats calls" (what fn raises reaches the caller as it is)
# how: a timed call that raises is reported as a new RuntimeError that says which call failed
import torch


def time_ms_cuda_events(fn, warmup=3, repeats=10) -> list:
    for _ in range(warmup):
        fn()
    pairs = []
    for k in range(repeats):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        try:
            fn()
        except Exception as error:
            raise RuntimeError(f"timed call {k} failed: {error}") from None
        end.record()
        pairs.append((start, end))
    torch.cuda.synchronize()
    return [s.elapsed_time(e) for s, e in pairs]
