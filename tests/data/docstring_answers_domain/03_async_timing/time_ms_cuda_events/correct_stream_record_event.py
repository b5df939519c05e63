# reading: events recorded on the current stream, and the stream's synchronize, are the pair and the synchronize
# how: torch.cuda.current_stream().record_event(...) for both events, stream.synchronize() once at the end
import torch


def time_ms_cuda_events(fn, warmup=3, repeats=10) -> list:
    for _ in range(warmup):
        fn()
    stream = torch.cuda.current_stream()
    marks = []
    for _ in range(repeats):
        before = stream.record_event(torch.cuda.Event(enable_timing=True))
        fn()
        after = stream.record_event(torch.cuda.Event(enable_timing=True))
        marks.append((before, after))
    stream.synchronize()
    return [float(before.elapsed_time(after)) for before, after in marks]
