"""Common mistakes for 08_throughput."""

from graders.mistakes import Mistake

MISTAKES = [
    # -- throughput -------------------------------------------------------------------------------------
    Mistake("counts-warmup", "throughput", '''
        def throughput(step_fn, batches, device, warmup=3) -> float:
            examples, start = 0, None
            for i, (x, y) in enumerate(batches):
                if i == warmup:
                    synchronize(device)
                    start = time.perf_counter()
                step_fn(x, y)
                examples += len(x)
            if start is None:
                raise ValueError("no batch left")
            synchronize(device)
            return examples / (time.perf_counter() - start)
        ''', loses=("test_throughput",), why="counts the warm-up batches' examples over the measured time",
        sample=True),
    Mistake("first-batch-size", "throughput", '''
        def throughput(step_fn, batches, device, warmup=3) -> float:
            n, start, size = 0, None, None
            for i, (x, y) in enumerate(batches):
                if size is None:
                    size = len(x)
                if i == warmup:
                    synchronize(device)
                    start = time.perf_counter()
                step_fn(x, y)
                if i >= warmup:
                    n += 1
            if start is None:
                raise ValueError("no batch left")
            synchronize(device)
            return n * size / (time.perf_counter() - start)
        ''', loses=("test_throughput",), why="assumes every batch has the first batch's size"),
    Mistake("no-synchronize", "throughput", '''
        def throughput(step_fn, batches, device, warmup=3) -> float:
            examples, start = 0, None
            for i, (x, y) in enumerate(batches):
                if i == warmup:
                    start = time.perf_counter()
                step_fn(x, y)
                if i >= warmup:
                    examples += len(x)
            if start is None:
                raise ValueError("no batch left")
            return examples / (time.perf_counter() - start)
        ''', loses=("test_throughput",), why="never synchronizes: measures only the launches"),
    Mistake("times-warmup", "throughput", '''
        def throughput(step_fn, batches, device, warmup=3) -> float:
            examples, measured = 0, 0
            synchronize(device)
            start = time.perf_counter()
            for i, (x, y) in enumerate(batches):
                step_fn(x, y)
                if i >= warmup:
                    examples += len(x)
                    measured += 1
            if measured == 0:
                raise ValueError("no batch left")
            synchronize(device)
            return examples / (time.perf_counter() - start)
        ''', loses=("test_throughput",), why="the clock runs through the warm-up batches"),
    Mistake("no-sync-at-end", "throughput", '''
        def throughput(step_fn, batches, device, warmup=3) -> float:
            examples, start = 0, None
            for i, (x, y) in enumerate(batches):
                if i == warmup:
                    synchronize(device)
                    start = time.perf_counter()
                step_fn(x, y)
                if i >= warmup:
                    examples += len(x)
            if start is None:
                raise ValueError("no batch left")
            return examples / (time.perf_counter() - start)
        ''', loses=("test_throughput",), why="stops the clock while the measured work is still queued"),
    Mistake("no-sync-at-start", "throughput", '''
        def throughput(step_fn, batches, device, warmup=3) -> float:
            examples, start = 0, None
            for i, (x, y) in enumerate(batches):
                if i == warmup:
                    start = time.perf_counter()
                step_fn(x, y)
                if i >= warmup:
                    examples += len(x)
            if start is None:
                raise ValueError("no batch left")
            synchronize(device)
            return examples / (time.perf_counter() - start)
        ''', loses=("test_throughput",), why="starts the clock with the warm-up work still queued"),
    Mistake("slices-batches", "throughput", '''
        def throughput(step_fn, batches, device, warmup=3) -> float:
            batches = list(batches)
            for x, y in batches[:warmup]:
                step_fn(x, y)
            measured = batches[warmup:]
            if not measured:
                raise ValueError("no batch left")
            synchronize(device)
            start = time.perf_counter()
            for x, y in measured:
                step_fn(x, y)
            synchronize(device)
            return sum(len(x) for x, _ in measured) / (time.perf_counter() - start)
        ''', loses=(), why="a correct variant: lists the batches first (kept to show it still scores)"),
    Mistake("skips-warmup-steps", "throughput", '''
        def throughput(step_fn, batches, device, warmup=3) -> float:
            examples, start = 0, None
            for i, (x, y) in enumerate(batches):
                if i < warmup:
                    continue
                if start is None:
                    synchronize(device)
                    start = time.perf_counter()
                step_fn(x, y)
                examples += len(x)
            if start is None:
                raise ValueError("no batch left")
            synchronize(device)
            return examples / (time.perf_counter() - start)
        ''', loses=("test_throughput",), why="skips the warm-up batches instead of running them untimed"),
    Mistake("zero-division", "throughput", '''
        def throughput(step_fn, batches, device, warmup=3) -> float:
            examples, start = 0, None
            for i, (x, y) in enumerate(batches):
                if i == warmup:
                    synchronize(device)
                    start = time.perf_counter()
                step_fn(x, y)
                if i >= warmup:
                    examples += len(x)
            synchronize(device)
            return examples / (time.perf_counter() - (start or time.perf_counter()))
        ''', loses=("test_throughput",), why="no ValueError when nothing is left to measure"),
    # -- speedup_table ------------------------------------------------------------------------------------
    Mistake("inverted", "speedup_table", '''
        def speedup_table(results, baseline):
            base = results[baseline]
            return [(name, float(eps), float(base / eps)) for name, eps in results.items()]
        ''', loses=("test_speedup_table",), why="baseline / configuration: a slowdown factor", sample=True),
    Mistake("sorted", "speedup_table", '''
        def speedup_table(results, baseline):
            base = results[baseline]
            rows = [(name, float(eps), float(eps / base)) for name, eps in results.items()]
            return sorted(rows, key=lambda row: row[1])
        ''', loses=("test_speedup_table",), why="sorts by speed instead of keeping the order of results"),
    Mistake("first-is-baseline", "speedup_table", '''
        def speedup_table(results, baseline):
            base = next(iter(results.values()))
            return [(name, float(eps), float(eps / base)) for name, eps in results.items()]
        ''', loses=("test_speedup_table",), why="ignores the baseline argument and uses the first entry"),
    Mistake("percent", "speedup_table", '''
        def speedup_table(results, baseline):
            base = results[baseline]
            return [(name, float(eps), 100.0 * eps / base) for name, eps in results.items()]
        ''', loses=("test_speedup_table",), why="speed-up as a percentage"),
    Mistake("drops-baseline", "speedup_table", '''
        def speedup_table(results, baseline):
            base = results[baseline]
            return [(name, float(eps), float(eps / base)) for name, eps in results.items() if name != baseline]
        ''', loses=("test_speedup_table",), why="leaves the baseline's own row out"),
    Mistake("missing-baseline-default", "speedup_table", '''
        def speedup_table(results, baseline):
            base = results.get(baseline, 1.0)
            return [(name, float(eps), float(eps / base)) for name, eps in results.items()]
        ''', loses=("test_speedup_table",), why="a missing baseline silently means 1 example/s"),
    Mistake("int-passthrough", "speedup_table", '''
        def speedup_table(results, baseline):
            base = results[baseline]
            return [(name, eps, eps / base) for name, eps in results.items()]
        ''', loses=("test_speedup_table",), why="integer examples per second come back as ints"),
    # -- gpu_resident_batches -------------------------------------------------------------------------------
    Mistake("no-shuffle", "gpu_resident_batches", '''
        def gpu_resident_batches(x, y, batch_size, generator=None, drop_last=True):
            n = len(x)
            for start in range(0, n, batch_size):
                if drop_last and start + batch_size > n:
                    break
                yield x[start:start + batch_size], y[start:start + batch_size]
        ''', loses=("test_gpu_resident_batches",), why="never shuffles", sample=True),
    Mistake("perm-on-cpu", "gpu_resident_batches", '''
        def gpu_resident_batches(x, y, batch_size, generator=None, drop_last=True):
            n = len(x)
            perm = torch.randperm(n, generator=generator).to(x.device)
            for start in range(0, n, batch_size):
                idx = perm[start:start + batch_size]
                if drop_last and len(idx) < batch_size:
                    break
                yield x[idx], y[idx]
        ''', loses=("test_gpu_resident_batches",), why="draws the permutation on the CPU, then moves it"),
    Mistake("keeps-last", "gpu_resident_batches", '''
        def gpu_resident_batches(x, y, batch_size, generator=None, drop_last=True):
            n = len(x)
            perm = torch.randperm(n, device=x.device, generator=generator)
            for start in range(0, n, batch_size):
                idx = perm[start:start + batch_size]
                yield x[idx], y[idx]
        ''', loses=("test_gpu_resident_batches",), why="ignores drop_last: always keeps the short batch"),
    Mistake("drops-always", "gpu_resident_batches", '''
        def gpu_resident_batches(x, y, batch_size, generator=None, drop_last=True):
            n = len(x)
            perm = torch.randperm(n, device=x.device, generator=generator)
            for start in range(0, n - batch_size + 1, batch_size):
                idx = perm[start:start + batch_size]
                yield x[idx], y[idx]
        ''', loses=("test_gpu_resident_batches",), why="drops the short batch even when drop_last is False"),
    Mistake("off-by-one", "gpu_resident_batches", '''
        def gpu_resident_batches(x, y, batch_size, generator=None, drop_last=True):
            n = len(x)
            perm = torch.randperm(n, device=x.device, generator=generator)
            stop = n - batch_size if drop_last else n
            for start in range(0, stop, batch_size):
                idx = perm[start:start + batch_size]
                yield x[idx], y[idx]
        ''', loses=("test_gpu_resident_batches",), why="drops a full last batch when batch_size divides n"),
    Mistake("two-permutations", "gpu_resident_batches", '''
        def gpu_resident_batches(x, y, batch_size, generator=None, drop_last=True):
            n = len(x)
            px = torch.randperm(n, device=x.device, generator=generator)
            py = torch.randperm(n, device=y.device, generator=generator)
            for start in range(0, n, batch_size):
                if drop_last and start + batch_size > n:
                    break
                yield x[px[start:start + batch_size]], y[py[start:start + batch_size]]
        ''', loses=("test_gpu_resident_batches",), why="shuffles x and y with different permutations"),
    Mistake("ignores-generator", "gpu_resident_batches", '''
        def gpu_resident_batches(x, y, batch_size, generator=None, drop_last=True):
            n = len(x)
            perm = torch.randperm(n, device=x.device)
            for start in range(0, n, batch_size):
                idx = perm[start:start + batch_size]
                if drop_last and len(idx) < batch_size:
                    break
                yield x[idx], y[idx]
        ''', loses=("test_gpu_resident_batches",), why="never passes the generator on: not reproducible"),
    Mistake("returns-list", "gpu_resident_batches", '''
        def gpu_resident_batches(x, y, batch_size, generator=None, drop_last=True):
            n = len(x)
            perm = torch.randperm(n, device=x.device, generator=generator)
            out = []
            for start in range(0, n, batch_size):
                idx = perm[start:start + batch_size]
                if drop_last and len(idx) < batch_size:
                    break
                out.append((x[idx], y[idx]))
            return out
        ''', loses=("test_gpu_resident_batches",), why="builds every batch up front instead of yielding"),
    Mistake("shuffles-in-place", "gpu_resident_batches", '''
        def gpu_resident_batches(x, y, batch_size, generator=None, drop_last=True):
            n = len(x)
            perm = torch.randperm(n, device=x.device, generator=generator)
            x[:] = x[perm]
            y[:] = y[perm]
            for start in range(0, n, batch_size):
                if drop_last and start + batch_size > n:
                    break
                yield x[start:start + batch_size], y[start:start + batch_size]
        ''', loses=("test_gpu_resident_batches",), why="shuffles the caller's tensors in place"),
]
