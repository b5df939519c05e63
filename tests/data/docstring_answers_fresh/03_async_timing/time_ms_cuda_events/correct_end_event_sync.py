# reading: read after each call, waiting on that call's end event (end.synchronize()).
# how: a helper builds one timed pair; warmup and timed calls share one loop with an index test.
def time_ms_cuda_events(fn, warmup=3, repeats=10) -> list:
    def timed_call():
        begin = torch.cuda.Event(enable_timing=True)
        finish = torch.cuda.Event(enable_timing=True)
        begin.record()
        fn()
        finish.record()
        finish.synchronize()
        return begin.elapsed_time(finish)

    durations = []
    for i in range(warmup + repeats):
        if i < warmup:
            fn()
        else:
            durations.append(timed_call())
    return durations
