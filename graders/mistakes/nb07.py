"""Common mistakes for 07_compile."""

from graders.mistakes import Mistake

_COUNT_OK = '''
def count_compilations(model, batch_sizes, dynamic) -> int:
    torch._dynamo.reset()
    counter = CompileCounter()
    compiled = torch.compile(model, backend=counter, dynamic=dynamic)
    device = next(model.parameters()).device
    for b in batch_sizes:
        compiled(torch.randn(b, 1, 28, 28, device=device))
    return len(counter.graphs)
'''

MISTAKES = [
    # -- CompileCounter ---------------------------------------------------------------------------
    Mistake("class-level-list", "CompileCounter", '''
        class CompileCounter:
            graphs = []

            def __call__(self, gm, example_inputs):
                self.graphs.append(gm)
                return gm.forward
        ''', loses=("test_CompileCounter",), why="one list shared by every instance", sample=True),
    Mistake("returns-none", "CompileCounter", '''
        class CompileCounter:
            def __init__(self):
                self.graphs = []

            def __call__(self, gm, example_inputs):
                self.graphs.append(gm)
        ''', loses=("test_CompileCounter",), why="records the graph but returns nothing to run"),
    Mistake("returns-output", "CompileCounter", '''
        class CompileCounter:
            def __init__(self):
                self.graphs = []

            def __call__(self, gm, example_inputs):
                self.graphs.append(gm)
                return gm(*example_inputs)
        ''', loses=("test_CompileCounter",), why="returns the graph's output instead of a callable"),
    Mistake("records-inputs", "CompileCounter", '''
        class CompileCounter:
            def __init__(self):
                self.graphs = []

            def __call__(self, gm, example_inputs):
                self.graphs.append(example_inputs)
                return gm.forward
        ''', loses=("test_CompileCounter",), why="records the example inputs, not the graph"),
    Mistake("records-fx-graph", "CompileCounter", '''
        class CompileCounter:
            def __init__(self):
                self.graphs = []

            def __call__(self, gm, example_inputs):
                self.graphs.append(gm.graph)
                return gm.forward
        ''', loses=("test_CompileCounter",), why="records gm.graph (a torch.fx.Graph), not the GraphModule"),
    Mistake("int-counter", "CompileCounter", '''
        class CompileCounter:
            def __init__(self):
                self.graphs = 0

            def __call__(self, gm, example_inputs):
                self.graphs += 1
                return gm.forward
        ''', loses=("test_CompileCounter",), why="counts with an int instead of recording the graphs"),
    Mistake("records-first-only", "CompileCounter", '''
        class CompileCounter:
            def __init__(self):
                self.graphs = []

            def __call__(self, gm, example_inputs):
                if not self.graphs:
                    self.graphs.append(gm)
                return gm.forward
        ''', loses=("test_CompileCounter",), why="records only the first graph"),
    # -- count_compilations -------------------------------------------------------------------------
    Mistake("no-reset", "count_compilations", '''
        def count_compilations(model, batch_sizes, dynamic) -> int:
            counter = CompileCounter()
            compiled = torch.compile(model, backend=counter, dynamic=dynamic)
            device = next(model.parameters()).device
            for b in batch_sizes:
                compiled(torch.randn(b, 1, 28, 28, device=device))
            return len(counter.graphs)
        ''', loses=("test_count_compilations",), why="no fresh compile state: earlier compilations leak in",
        sample=True),
    Mistake("ignores-dynamic", "count_compilations", '''
        def count_compilations(model, batch_sizes, dynamic) -> int:
            torch._dynamo.reset()
            counter = CompileCounter()
            compiled = torch.compile(model, backend=counter)
            for b in batch_sizes:
                compiled(torch.randn(b, 1, 28, 28))
            return len(counter.graphs)
        ''', loses=("test_count_compilations",), why="never passes dynamic on"),
    Mistake("always-dynamic", "count_compilations", '''
        def count_compilations(model, batch_sizes, dynamic) -> int:
            torch._dynamo.reset()
            counter = CompileCounter()
            compiled = torch.compile(model, backend=counter, dynamic=True)
            for b in batch_sizes:
                compiled(torch.randn(b, 1, 28, 28))
            return len(counter.graphs)
        ''', loses=("test_count_compilations",), why="compiles with dynamic=True whatever it is asked"),
    Mistake("distinct-sizes", "count_compilations", '''
        def count_compilations(model, batch_sizes, dynamic) -> int:
            return len(set(batch_sizes))
        ''', loses=("test_count_compilations",), why="assumes one graph per distinct size, and counts nothing"),
    Mistake("formula", "count_compilations", '''
        def count_compilations(model, batch_sizes, dynamic) -> int:
            distinct = len(set(batch_sizes))
            if dynamic is True:
                return 1
            if dynamic is None:
                return min(distinct, 2)
            return min(distinct, 8)
        ''', loses=("test_count_compilations",), why="computes the textbook answer; a graph break doubles it"),
    Mistake("counts-calls", "count_compilations", '''
        def count_compilations(model, batch_sizes, dynamic) -> int:
            torch._dynamo.reset()
            counter = CompileCounter()
            compiled = torch.compile(model, backend=counter, dynamic=dynamic)
            for b in batch_sizes:
                compiled(torch.randn(b, 1, 28, 28))
            return len(batch_sizes)
        ''', loses=("test_count_compilations",), why="returns the number of calls, not of graphs"),
    Mistake("shared-counter", "count_compilations", '''
        _COUNTER = None

        def count_compilations(model, batch_sizes, dynamic) -> int:
            global _COUNTER
            torch._dynamo.reset()
            if _COUNTER is None:
                _COUNTER = CompileCounter()
            compiled = torch.compile(model, backend=_COUNTER, dynamic=dynamic)
            for b in batch_sizes:
                compiled(torch.randn(b, 1, 28, 28))
            return len(_COUNTER.graphs)
        ''', loses=("test_count_compilations",), why="one counter for every call: the counts accumulate"),
    # -- first_and_steady_ms ---------------------------------------------------------------------------
    Mistake("warmup-first", "first_and_steady_ms", '''
        def first_and_steady_ms(fn, x, device, repeats=10):
            import statistics
            fn(x)
            times = []
            for _ in range(repeats + 1):
                synchronize(device)
                start = time.perf_counter()
                fn(x)
                synchronize(device)
                times.append((time.perf_counter() - start) * 1e3)
            return times[0], statistics.median(times[1:])
        ''', loses=("test_first_and_steady_ms",), why="warms up first, so the first timed call is already compiled",
        sample=True),
    Mistake("no-synchronize", "first_and_steady_ms", '''
        def first_and_steady_ms(fn, x, device, repeats=10):
            import statistics
            times = []
            for _ in range(repeats + 1):
                start = time.perf_counter()
                fn(x)
                times.append((time.perf_counter() - start) * 1e3)
            return times[0], statistics.median(times[1:])
        ''', loses=("test_first_and_steady_ms",), why="times the launches only: the GPU work is still queued"),
    Mistake("mean-not-median", "first_and_steady_ms", '''
        def first_and_steady_ms(fn, x, device, repeats=10):
            times = []
            for _ in range(repeats + 1):
                synchronize(device)
                start = time.perf_counter()
                fn(x)
                synchronize(device)
                times.append((time.perf_counter() - start) * 1e3)
            return times[0], sum(times[1:]) / repeats
        ''', loses=("test_first_and_steady_ms",), why="the mean, which a few slow calls drag up"),
    Mistake("one-steady-call", "first_and_steady_ms", '''
        def first_and_steady_ms(fn, x, device, repeats=10):
            def timed():
                synchronize(device)
                start = time.perf_counter()
                fn(x)
                synchronize(device)
                return (time.perf_counter() - start) * 1e3
            first = timed()
            steady = timed()
            for _ in range(repeats - 1):
                fn(x)
            return first, steady
        ''', loses=("test_first_and_steady_ms",), why="times a single steady call"),
    Mistake("seconds", "first_and_steady_ms", '''
        def first_and_steady_ms(fn, x, device, repeats=10):
            import statistics
            times = []
            for _ in range(repeats + 1):
                synchronize(device)
                start = time.perf_counter()
                fn(x)
                synchronize(device)
                times.append(time.perf_counter() - start)
            return times[0], statistics.median(times[1:])
        ''', loses=("test_first_and_steady_ms",), why="returns seconds, not milliseconds"),
    Mistake("no-sync-before-start", "first_and_steady_ms", '''
        def first_and_steady_ms(fn, x, device, repeats=10):
            import statistics
            times = []
            for _ in range(repeats + 1):
                start = time.perf_counter()
                fn(x)
                synchronize(device)
                times.append((time.perf_counter() - start) * 1e3)
            return times[0], statistics.median(times[1:])
        ''', loses=("test_first_and_steady_ms",), why="work queued before the first call is counted in it"),
    Mistake("block-average", "first_and_steady_ms", '''
        def first_and_steady_ms(fn, x, device, repeats=10):
            synchronize(device)
            start = time.perf_counter()
            fn(x)
            synchronize(device)
            first = (time.perf_counter() - start) * 1e3
            start = time.perf_counter()
            for _ in range(repeats):
                fn(x)
            synchronize(device)
            return first, (time.perf_counter() - start) * 1e3 / repeats
        ''', loses=("test_first_and_steady_ms",), why="one timer around all the steady calls: a mean, not a median"),
    Mistake("cuda-only-sync", "first_and_steady_ms", '''
        def first_and_steady_ms(fn, x, device, repeats=10):
            import statistics
            times = []
            for _ in range(repeats + 1):
                if str(device) == "cuda:0":
                    torch.cuda.synchronize()
                start = time.perf_counter()
                fn(x)
                if str(device) == "cuda:0":
                    torch.cuda.synchronize()
                times.append((time.perf_counter() - start) * 1e3)
            return times[0], statistics.median(times[1:])
        ''', loses=("test_first_and_steady_ms",), why="synchronizes only for 'cuda:0', so never for 'cuda'"),
]
