# reading: events complete in the order they were recorded on one stream, so waiting for the last end event
# synchronizes every pair before elapsed_time
# how: all events made up front in a list of dicts; the last end event's synchronize(); an index loop
import torch


def time_ms_cuda_events(fn, warmup=3, repeats=10) -> list:
    for _ in range(warmup):
        fn()
    timed = [{"start": torch.cuda.Event(enable_timing=True), "end": torch.cuda.Event(enable_timing=True)}
             for _ in range(repeats)]
    for i in range(repeats):
        timed[i]["start"].record()
        fn()
        timed[i]["end"].record()
    if timed:
        timed[-1]["end"].synchronize()
    return [pair["start"].elapsed_time(pair["end"]) for pair in timed]
