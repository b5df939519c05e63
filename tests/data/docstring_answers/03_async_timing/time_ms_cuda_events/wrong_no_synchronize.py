# breaks: "synchronize before elapsed_time"
# how: reads elapsed_time right after recording, without waiting for the end event.
def time_ms_cuda_events(fn, warmup=3, repeats=10) -> list:
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        times.append(start.elapsed_time(end))
    return times
