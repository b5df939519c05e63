"""Common mistakes for 03_async_timing."""

from graders.mistakes import Mistake

MISTAKES = [
    # -- synchronize --------------------------------------------------------------------------
    Mistake("always-cuda", "synchronize", '''
        def synchronize(device) -> None:
            torch.cuda.synchronize()
        ''', loses=("test_synchronize",), why="calls CUDA whatever the device: crashes without a GPU", sample=True),
    Mistake("no-mps", "synchronize", '''
        def synchronize(device) -> None:
            if torch.device(device).type == "cuda":
                torch.cuda.synchronize()
        ''', loses=("test_synchronize",), why="forgets Apple's MPS"),
    Mistake("string-compare", "synchronize", '''
        def synchronize(device) -> None:
            if device == "cuda":
                torch.cuda.synchronize()
            elif device == "mps":
                torch.mps.synchronize()
        ''', loses=("test_synchronize",), why="compares with a string: misses torch.device('cuda') and 'cuda:0'"),
    Mistake("if-machine-has-cuda", "synchronize", '''
        def synchronize(device) -> None:
            if torch.cuda.is_available():
                torch.cuda.synchronize()
        ''', loses=("test_synchronize",), why="looks at the machine, not at the device"),
    Mistake("does-nothing", "synchronize", '''
        def synchronize(device) -> None:
            pass
        ''', loses=("test_synchronize",), why="never waits"),
    # -- time_ms ------------------------------------------------------------------------------
    Mistake("no-sync", "time_ms", '''
        import time
        def time_ms(fn, device, warmup=3, repeats=10) -> list:
            for _ in range(warmup):
                fn()
            times = []
            for _ in range(repeats):
                start = time.perf_counter()
                fn()
                times.append((time.perf_counter() - start) * 1e3)
            return times
        ''', loses=("test_time_ms",), why="measures the time to queue the work", sample=True),
    Mistake("sync-start-only", "time_ms", '''
        import time
        def time_ms(fn, device, warmup=3, repeats=10) -> list:
            for _ in range(warmup):
                fn()
            times = []
            for _ in range(repeats):
                synchronize(device)
                start = time.perf_counter()
                fn()
                times.append((time.perf_counter() - start) * 1e3)
            return times
        ''', loses=("test_time_ms",), why="the clock stops before the work has finished"),
    Mistake("sync-end-only", "time_ms", '''
        import time
        def time_ms(fn, device, warmup=3, repeats=10) -> list:
            for _ in range(warmup):
                fn()
            times = []
            for _ in range(repeats):
                start = time.perf_counter()
                fn()
                synchronize(device)
                times.append((time.perf_counter() - start) * 1e3)
            return times
        ''', loses=("test_time_ms",), why="the first timing includes the queued warm-up work"),
    Mistake("times-warmup", "time_ms", '''
        import time
        def time_ms(fn, device, warmup=3, repeats=10) -> list:
            times = []
            for _ in range(warmup + repeats):
                synchronize(device)
                start = time.perf_counter()
                fn()
                synchronize(device)
                times.append((time.perf_counter() - start) * 1e3)
            return times
        ''', loses=("test_time_ms",), why="returns the warm-up calls' timings too"),
    Mistake("times-warmup-first", "time_ms", '''
        import time
        def time_ms(fn, device, warmup=3, repeats=10) -> list:
            times = []
            for _ in range(warmup + repeats):
                synchronize(device)
                start = time.perf_counter()
                fn()
                synchronize(device)
                times.append((time.perf_counter() - start) * 1e3)
            return times[:repeats]
        ''', loses=("test_time_ms",), why="keeps the first timings, the warm-up calls among them"),
    Mistake("no-warmup", "time_ms", '''
        import time
        def time_ms(fn, device, warmup=3, repeats=10) -> list:
            times = []
            for _ in range(repeats):
                synchronize(device)
                start = time.perf_counter()
                fn()
                synchronize(device)
                times.append((time.perf_counter() - start) * 1e3)
            return times
        ''', loses=("test_time_ms",), why="skips the warm-up"),
    Mistake("seconds", "time_ms", '''
        import time
        def time_ms(fn, device, warmup=3, repeats=10) -> list:
            for _ in range(warmup):
                fn()
            times = []
            for _ in range(repeats):
                synchronize(device)
                start = time.perf_counter()
                fn()
                synchronize(device)
                times.append(time.perf_counter() - start)
            return times
        ''', loses=("test_time_ms",), why="returns seconds"),
    Mistake("average", "time_ms", '''
        import time
        def time_ms(fn, device, warmup=3, repeats=10) -> list:
            for _ in range(warmup):
                fn()
            synchronize(device)
            start = time.perf_counter()
            for _ in range(repeats):
                fn()
            synchronize(device)
            return [(time.perf_counter() - start) * 1e3 / max(repeats, 1)] * repeats
        ''', loses=("test_time_ms",), why="one average repeated: not one duration per call"),
    Mistake("hardcoded-cuda", "time_ms", '''
        import time
        def time_ms(fn, device, warmup=3, repeats=10) -> list:
            for _ in range(warmup):
                fn()
            times = []
            for _ in range(repeats):
                torch.cuda.synchronize()
                start = time.perf_counter()
                fn()
                torch.cuda.synchronize()
                times.append((time.perf_counter() - start) * 1e3)
            return times
        ''', loses=("test_time_ms",), why="calls torch.cuda whatever the device: crashes on a CPU-only machine"),
    # -- time_ms_cuda_events ------------------------------------------------------------------
    Mistake("no-enable-timing", "time_ms_cuda_events", '''
        def time_ms_cuda_events(fn, warmup=3, repeats=10) -> list:
            for _ in range(warmup):
                fn()
            times = []
            for _ in range(repeats):
                start, end = torch.cuda.Event(), torch.cuda.Event()
                start.record()
                fn()
                end.record()
                torch.cuda.synchronize()
                times.append(start.elapsed_time(end))
            return times
        ''', loses=("test_time_ms_cuda_events",), why="events made without enable_timing=True cannot time",
        sample=True),
    Mistake("events-no-sync", "time_ms_cuda_events", '''
        def time_ms_cuda_events(fn, warmup=3, repeats=10) -> list:
            for _ in range(warmup):
                fn()
            times = []
            for _ in range(repeats):
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                start.record()
                fn()
                end.record()
                times.append(start.elapsed_time(end))
            return times
        ''', loses=("test_time_ms_cuda_events",), why="reads elapsed_time before the events have completed"),
    Mistake("end-before-fn", "time_ms_cuda_events", '''
        def time_ms_cuda_events(fn, warmup=3, repeats=10) -> list:
            for _ in range(warmup):
                fn()
            times = []
            for _ in range(repeats):
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                start.record()
                end.record()
                fn()
                torch.cuda.synchronize()
                times.append(start.elapsed_time(end))
            return times
        ''', loses=("test_time_ms_cuda_events",), why="records both events before the work"),
    Mistake("reversed-events", "time_ms_cuda_events", '''
        def time_ms_cuda_events(fn, warmup=3, repeats=10) -> list:
            for _ in range(warmup):
                fn()
            times = []
            for _ in range(repeats):
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                start.record()
                fn()
                end.record()
                torch.cuda.synchronize()
                times.append(end.elapsed_time(start))
            return times
        ''', loses=("test_time_ms_cuda_events",), why="end.elapsed_time(start) is negative"),
    Mistake("events-to-seconds", "time_ms_cuda_events", '''
        def time_ms_cuda_events(fn, warmup=3, repeats=10) -> list:
            for _ in range(warmup):
                fn()
            times = []
            for _ in range(repeats):
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                start.record()
                fn()
                end.record()
                torch.cuda.synchronize()
                times.append(start.elapsed_time(end) / 1000)
            return times
        ''', loses=("test_time_ms_cuda_events",), why="converts elapsed_time, already in ms, to seconds"),
    Mistake("events-time-warmup", "time_ms_cuda_events", '''
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
        ''', loses=("test_time_ms_cuda_events",), why="times the warm-up calls too"),
    Mistake("clock-not-events", "time_ms_cuda_events", '''
        import time
        def time_ms_cuda_events(fn, warmup=3, repeats=10) -> list:
            for _ in range(warmup):
                fn()
            times = []
            for _ in range(repeats):
                torch.cuda.synchronize()
                start = time.perf_counter()
                fn()
                torch.cuda.synchronize()
                times.append((time.perf_counter() - start) * 1e3)
            return times
        ''', loses=("test_time_ms_cuda_events",), why="uses the host clock instead of CUDA events"),
]
