# breaks: "time repeats calls with a pair of torch.cuda.Event(enable_timing=True) around each"
# how: one pair of events around all calls, the total divided evenly among them.
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
    per_call = start.elapsed_time(end) / repeats
    return [per_call] * repeats
