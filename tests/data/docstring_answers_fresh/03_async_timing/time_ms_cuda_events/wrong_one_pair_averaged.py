# breaks: "return a list of repeats floats in call order: each call's duration in milliseconds."
# how: one pair of events around all timed calls, and the average repeated `repeats` times.
def time_ms_cuda_events(fn, warmup=3, repeats=10) -> list:
    for _ in range(warmup):
        fn()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(repeats):
        fn()
    end.record()
    torch.cuda.synchronize()
    return [start.elapsed_time(end) / repeats] * repeats
