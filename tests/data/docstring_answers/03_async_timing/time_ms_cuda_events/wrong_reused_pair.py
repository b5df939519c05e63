# breaks: "return a list of repeats floats in call order: each call's duration in milliseconds."
# how: re-records the same two events for every call and reads them after one final synchronize, so every entry is the last call's time.
def time_ms_cuda_events(fn, warmup=3, repeats=10) -> list:
    for _ in range(warmup):
        fn()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    pairs = []
    for _ in range(repeats):
        start.record()
        fn()
        end.record()
        pairs.append((start, end))
    torch.cuda.synchronize()
    return [s.elapsed_time(e) for s, e in pairs]
