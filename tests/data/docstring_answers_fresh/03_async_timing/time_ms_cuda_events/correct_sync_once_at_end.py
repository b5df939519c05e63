# reading: all events recorded first, one torch.cuda.synchronize() at the end, then every elapsed_time read.
# how: builds (start, end) pairs in a list and reads them after the loop.
def time_ms_cuda_events(fn, warmup=3, repeats=10) -> list:
    for _ in range(warmup):
        fn()
    pairs = []
    for _ in range(repeats):
        pair = (torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
        pair[0].record()
        fn()
        pair[1].record()
        pairs.append(pair)
    torch.cuda.synchronize()
    return [float(begin.elapsed_time(finish)) for begin, finish in pairs]
