"""Correct answers of 07_compile written differently from the reference."""

from graders.alternatives import Mistake

ALTERNATIVES = [
    Mistake("return-gm", "CompileCounter", '''
        class CompileCounter:
            """My counting backend."""
            def __init__(self):
                self.graphs = list()

            def __call__(self, gm, example_inputs):
                self.graphs += [gm]
                return gm
        ''', loses=(), why="returns gm itself (a callable that runs the graph)"),
    Mistake("lambda-runner", "CompileCounter", '''
        class CompileCounter:
            def __init__(self):
                self.graphs = []
                self._calls = 0

            def __call__(self, gm, example_inputs):
                self._calls += 1
                self.graphs.append(gm)
                return lambda *args: gm(*args)
        ''', loses=(), why="a lambda that calls gm, a private counter named _calls"),
    Mistake("switch-and-print", "CompileCounter", '''
        torch._dynamo.config.recompile_limit = 64
        torch._dynamo.config.cache_size_limit = 64

        class CompileCounter:
            def __init__(self):
                self.graphs: list = []

            def __call__(self, gm: torch.fx.GraphModule, example_inputs):
                print(f"graph {len(self.graphs) + 1}: {len(list(gm.graph.nodes))} nodes")
                self.graphs.append(gm)
                return gm.forward
        ''', loses=(), why="sets the recompile switch 07 teaches, prints each graph"),
    Mistake("device-of-param", "count_compilations", '''
        def count_compilations(model, batch_sizes, dynamic) -> int:
            torch._dynamo.reset()
            counter = CompileCounter()
            compiled = torch.compile(model, backend=counter, dynamic=dynamic)
            _device = next(iter(model.parameters())).device
            for _b in batch_sizes:
                compiled(torch.randn(_b, 1, 28, 28).to(_device))
            return int(len(counter.graphs))
        ''', loses=(), why="creates the input then moves it, locals named _b/_device"),
    Mistake("no-grad-loop", "count_compilations", '''
        import torch._dynamo

        def count_compilations(model, batch_sizes, dynamic) -> int:
            torch._dynamo.reset()
            backend = CompileCounter()
            fn = torch.compile(model, dynamic=dynamic, backend=backend)
            device = next(model.parameters()).device
            inputs = [torch.randn(b, 1, 28, 28, device=device) for b in batch_sizes]
            for x in inputs:
                fn(x)
            return len(backend.graphs)
        ''', loses=(), why="makes every input first"),
    Mistake("switch-limit", "count_compilations", '''
        import warnings

        def count_compilations(model, batch_sizes, dynamic) -> int:
            torch._dynamo.config.recompile_limit = max(64, torch._dynamo.config.recompile_limit)
            torch._dynamo.reset()
            graphs = CompileCounter()
            compiled = torch.compile(model, backend=graphs, dynamic=dynamic)
            for size in list(batch_sizes):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    compiled(torch.randn(size, 1, 28, 28, device=next(model.parameters()).device))
            return len(graphs.graphs)
        ''', loses=(), why="raises the recompile limit inside the function"),
    Mistake("statistics-helper", "first_and_steady_ms", '''
        import statistics
        import time

        def _ms(fn, x, device):
            synchronize(device)
            _t0 = time.perf_counter()
            fn(x)
            synchronize(device)
            return 1000 * (time.perf_counter() - _t0)

        def first_and_steady_ms(fn, x, device, repeats=10):
            first = _ms(fn, x, device)
            return first, statistics.median([_ms(fn, x, device) for _ in range(repeats)])
        ''', loses=(), why="an own _ms helper at module level"),
    Mistake("torch-median", "first_and_steady_ms", '''
        import time

        def first_and_steady_ms(fn, x, device, repeats=10):
            times = []
            for _ in range(repeats + 1):
                synchronize(device)
                start = time.perf_counter()
                fn(x)
                synchronize(device)
                times.append((time.perf_counter() - start) * 1e3)
            steady = sorted(times[1:])
            mid = len(steady) // 2
            median = steady[mid] if len(steady) % 2 else (steady[mid - 1] + steady[mid]) / 2
            return float(times[0]), float(median)
        ''', loses=(), why="one loop, a median by hand"),
    Mistake("ns-clock", "first_and_steady_ms", '''
        import statistics
        from time import perf_counter_ns

        def first_and_steady_ms(fn, x, device, repeats=10):
            def one():
                synchronize(device)
                t = perf_counter_ns()
                fn(x)
                synchronize(device)
                return (perf_counter_ns() - t) / 1e6
            first_ms = one()
            rest = [one() for _ in range(repeats)]
            print(f"first {first_ms:.1f} ms, then {statistics.median(rest):.1f} ms")
            return first_ms, statistics.median(rest)
        ''', loses=(), why="perf_counter_ns, a print"),
]
