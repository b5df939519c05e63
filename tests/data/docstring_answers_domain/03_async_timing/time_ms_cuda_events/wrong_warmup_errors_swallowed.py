# breaks: "Call fn() warmup times untimed" (what fn raises reaches the caller)
# how: ignores a RuntimeError in the warm-up calls (lazy initialisation may fail once, it reasons) and goes on timing
import torch


def time_ms_cuda_events(fn, warmup=3, repeats=10) -> list:
    for _ in range(warmup):
        try:
            fn()
        except RuntimeError:
            pass
    times = []
    for _ in range(repeats):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return times
