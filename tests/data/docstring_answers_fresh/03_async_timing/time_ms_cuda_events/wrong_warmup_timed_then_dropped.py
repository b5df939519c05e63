# breaks: "Call fn() warmup times untimed, then time repeats calls"
# how: one loop times all warmup + repeats calls with events and drops the first `warmup` durations afterwards,
#      so the warm-up calls are timed (events recorded around them) after all.
def time_ms_cuda_events(fn, warmup=3, repeats=10) -> list:
    pairs = []
    for _ in range(warmup + repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        pairs.append((start, end))
    torch.cuda.synchronize()
    return [s.elapsed_time(e) for s, e in pairs][warmup:]
