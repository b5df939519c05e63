# breaks: "time repeats calls with a pair of torch.cuda.Event(enable_timing=True) around each"
# how: a chain of repeats + 1 events, one before each call and one after the last: each interval runs from one
#      call's start to the next call's start, so idle device time between calls is counted.
def time_ms_cuda_events(fn, warmup=3, repeats=10) -> list:
    for _ in range(warmup):
        fn()
    marks = [torch.cuda.Event(enable_timing=True) for _ in range(repeats + 1)]
    for i in range(repeats):
        marks[i].record()
        fn()
    marks[repeats].record()
    torch.cuda.synchronize()
    return [a.elapsed_time(b) for a, b in zip(marks, marks[1:])]
