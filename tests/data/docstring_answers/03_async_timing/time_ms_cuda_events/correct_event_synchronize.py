# reading: waiting on the end event (Event.synchronize) counts as "synchronize before elapsed_time".
# how: per call, end.synchronize() then elapsed_time.
def time_ms_cuda_events(fn, warmup=3, repeats=10) -> list:
    for _ in range(warmup):
        fn()
    durations = []
    for _ in range(repeats):
        start_event = torch.cuda.Event(enable_timing=True)
        stop_event = torch.cuda.Event(enable_timing=True)
        start_event.record()
        fn()
        stop_event.record()
        stop_event.synchronize()
        durations.append(start_event.elapsed_time(stop_event))
    return durations
