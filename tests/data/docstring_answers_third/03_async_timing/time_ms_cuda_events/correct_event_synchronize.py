# reading: waiting on the end event (Event.synchronize) is the "synchronize before elapsed_time"
# how: fresh event pair per call, end.synchronize() per call, floats in call order
import torch


def _pair():
    return torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)


def time_ms_cuda_events(fn, warmup=3, repeats=10) -> list:
    for _ in range(warmup):
        fn()
    durations = []
    for _ in range(repeats):
        begin, finish = _pair()
        begin.record()
        fn()
        finish.record()
        finish.synchronize()
        durations.append(float(begin.elapsed_time(finish)))
    return durations
