# reading: one torch.cuda.synchronize() after all calls, before any elapsed_time, satisfies "synchronize before elapsed_time".
# how: records a fresh pair per call, synchronizes once, then reads all durations.
def time_ms_cuda_events(fn, warmup=3, repeats=10) -> list:
    for _ in range(warmup):
        fn()
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
              for _ in range(repeats)]
    for begin, finish in events:
        begin.record()
        fn()
        finish.record()
    torch.cuda.synchronize()
    return [float(begin.elapsed_time(finish)) for begin, finish in events]
