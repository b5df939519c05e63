# breaks: "Call fn() warmup times untimed, then time repeats calls"
# how: times warmup + repeats calls and returns them all.
def time_ms_cuda_events(fn, warmup=3, repeats=10) -> list:
    times = []
    for _ in range(warmup + repeats):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return times
