"""Correct answers of 03_async_timing written differently from the reference."""

from graders.alternatives import Mistake

ALTERNATIVES = [
    Mistake("device-object", "synchronize", '''
        def synchronize(device) -> None:
            device = torch.device(device)
            if device.type == "cuda":
                torch.cuda.synchronize()
            elif device.type == "mps":
                torch.mps.synchronize()
        ''', loses=(), why="synchronizes the current CUDA device"),
    Mistake("string-prefix", "synchronize", '''
        def synchronize(device) -> None:
            name = str(device)
            if name.startswith("cuda"):
                torch.cuda.synchronize(device)
                return None
            if name.startswith("mps"):
                torch.mps.synchronize()
            return None
        ''', loses=(), why="reads the device as a string"),
    Mistake("dispatch-table", "synchronize", '''
        _SYNC = {"cuda": lambda: torch.cuda.synchronize(), "mps": lambda: torch.mps.synchronize()}

        def synchronize(device) -> None:
            _fn = _SYNC.get(torch.device(device).type)
            if _fn is not None:
                _fn()
        ''', loses=(), why="a module-level table of lambdas named _SYNC"),
    Mistake("from-time-import", "time_ms", '''
        from time import perf_counter

        def time_ms(fn, device, warmup=3, repeats=10) -> list:
            for _ in range(warmup):
                fn()
            out = []
            while len(out) < repeats:
                synchronize(device)
                t0 = perf_counter()
                fn()
                synchronize(device)
                out.append(1000.0 * (perf_counter() - t0))
            return out
        ''', loses=(), why="from time import perf_counter, a while loop"),
    Mistake("time-function", "time_ms", '''
        import time
        from time import time as _now

        def time_ms(fn, device, warmup=3, repeats=10) -> list:
            [fn() for _ in range(warmup)]
            _times = []
            for _i in range(repeats):
                synchronize(device)
                _start = time.perf_counter()
                fn()
                synchronize(device)
                _times.append(float((time.perf_counter() - _start) * 1e3))
            print("debug: last call started at", _now())
            return _times
        ''', loses=(), why="from time import time under its own name, locals named _times"),
    Mistake("ns-clock", "time_ms", '''
        import time
        import warnings

        def time_ms(fn, device, warmup=3, repeats=10) -> list:
            if repeats == 0:
                warnings.warn("nothing to time")
            for _ in range(warmup):
                fn()
            durations = []
            for _ in range(repeats):
                synchronize(device)
                start = time.perf_counter_ns()
                fn()
                synchronize(device)
                durations.append((time.perf_counter_ns() - start) / 1e6)
            return durations
        ''', loses=(), why="perf_counter_ns, a warning"),
    Mistake("sync-each", "time_ms_cuda_events", '''
        def time_ms_cuda_events(fn, warmup=3, repeats=10) -> list:
            for _ in range(warmup):
                fn()
            times = []
            for _ in range(repeats):
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                fn()
                end.record()
                end.synchronize()
                times.append(float(start.elapsed_time(end)))
            return times
        ''', loses=(), why="waits on each end event"),
    Mistake("event-lists", "time_ms_cuda_events", '''
        def time_ms_cuda_events(fn, warmup=3, repeats=10) -> list:
            for _ in range(warmup):
                fn()
            _starts = [torch.cuda.Event(enable_timing=True) for _ in range(repeats)]
            _ends = [torch.cuda.Event(enable_timing=True) for _ in range(repeats)]
            for _s, _e in zip(_starts, _ends):
                _s.record()
                fn()
                _e.record()
            torch.cuda.synchronize()
            return [_s.elapsed_time(_e) for _s, _e in zip(_starts, _ends)]
        ''', loses=(), why="events made up front, in lists named _starts/_ends"),
    Mistake("helper-pair", "time_ms_cuda_events", '''
        def _timed_once(fn):
            begin = torch.cuda.Event(enable_timing=True)
            finish = torch.cuda.Event(enable_timing=True)
            begin.record()
            fn()
            finish.record()
            return begin, finish

        def time_ms_cuda_events(fn, warmup=3, repeats=10) -> list:
            for _ in range(warmup):
                fn()
            pairs = [_timed_once(fn) for _ in range(repeats)]
            torch.cuda.synchronize()
            print("timed", len(pairs), "calls")
            return [b.elapsed_time(f) for b, f in pairs]
        ''', loses=(), why="an own helper, a print"),
]
