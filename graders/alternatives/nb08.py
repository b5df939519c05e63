"""Correct answers of 08_throughput written differently from the reference."""

from graders.alternatives import Mistake

ALTERNATIVES = [
    Mistake("iterator", "throughput", '''
        def throughput(step_fn, batches, device, warmup=3) -> float:
            it = iter(batches)
            for _ in range(warmup):
                try:
                    x, y = next(it)
                except StopIteration:
                    raise ValueError("no batch left after the warm-up") from None
                step_fn(x, y)
            synchronize(device)
            t0 = time.perf_counter()
            n = 0
            seen = False
            for x, y in it:
                step_fn(x, y)
                n += x.shape[0]
                seen = True
            if not seen:
                raise ValueError("no batch left after the warm-up")
            synchronize(device)
            return n / (time.perf_counter() - t0)
        ''', loses=(), why="an explicit iterator for the warm-up"),
    Mistake("list-float", "throughput", '''
        import time as _time

        def throughput(step_fn, batches, device, warmup=3) -> float:
            _batches = list(batches)
            if len(_batches) <= warmup:
                raise ValueError(f"only {len(_batches)} batches for {warmup} warm-up ones")
            for x, y in _batches[:warmup]:
                step_fn(x, y)
            synchronize(device)
            _start = _time.perf_counter()
            for x, y in _batches[warmup:]:
                step_fn(x, y)
            synchronize(device)
            _elapsed = _time.perf_counter() - _start
            return float(sum(len(x) for x, _ in _batches[warmup:]) / _elapsed)
        ''', loses=(), why="reads the batches into a list (one pass), time imported as _time"),
    Mistake("counter-print", "throughput", '''
        def throughput(step_fn, batches, device, warmup=3) -> float:
            measured = 0
            start = None
            for index, batch in enumerate(batches):
                x, y = batch
                if index == warmup:
                    synchronize(device)
                    start = time.perf_counter()
                step_fn(x, y)
                if start is not None:
                    measured += len(x)
            if start is None:
                raise ValueError("nothing measured")
            synchronize(device)
            seconds = time.perf_counter() - start
            print(f"{measured} examples in {seconds:.3f} s")
            return measured / seconds
        ''', loses=(), why="counts once the clock runs, prints"),
    Mistake("float32-division", "speedup_table", '''
        def speedup_table(results, baseline):
            names = list(results)
            speeds = torch.tensor([float(results[n]) for n in names], dtype=torch.float32)
            base = float(results[baseline])
            return [(n, float(results[n]), float(s)) for n, s in zip(names, speeds / base)]
        ''', loses=(), why="the speed-ups computed in float32"),
    Mistake("loop-append", "speedup_table", '''
        def speedup_table(results, baseline):
            if baseline not in results:
                raise KeyError(baseline)
            _rows = []
            for _name in results:
                _eps = float(results[_name])
                _rows.append((_name, _eps, _eps / results[baseline]))
            return _rows
        ''', loses=(), why="raises KeyError itself, locals named _rows/_eps"),
    Mistake("numpy", "speedup_table", '''
        import numpy as np

        def speedup_table(results, baseline):
            base = results[baseline]
            eps = np.array(list(results.values()), dtype=np.float64)
            return list(zip(results.keys(), map(float, eps), map(float, eps / base)))
        ''', loses=(), why="NumPy arithmetic"),
    Mistake("index-tensor", "gpu_resident_batches", '''
        def gpu_resident_batches(x, y, batch_size, generator=None, drop_last=True):
            order = torch.randperm(x.shape[0], device=x.device, generator=generator)
            stop = len(order) - len(order) % batch_size if drop_last else len(order)
            for i in range(0, stop, batch_size):
                idx = order[i:i + batch_size]
                yield x[idx], y[idx]
        ''', loses=(), why="x[idx] indexing, the stop computed first"),
    Mistake("split", "gpu_resident_batches", '''
        def gpu_resident_batches(x, y, batch_size, generator=None, drop_last=True):
            _perm = torch.randperm(len(x), device=x.device, generator=generator)
            for _idx in torch.split(_perm, batch_size):
                if drop_last and _idx.numel() != batch_size:
                    return
                yield torch.index_select(x, 0, _idx), torch.index_select(y, 0, _idx)
        ''', loses=(), why="torch.split of the permutation, locals named _perm/_idx"),
    Mistake("while", "gpu_resident_batches", '''
        def gpu_resident_batches(x, y, batch_size, generator=None, drop_last=True):
            n = x.size(0)
            perm = torch.randperm(n, generator=generator, device=x.device)
            start = 0
            while start < n:
                end = min(start + batch_size, n)
                if end - start < batch_size and drop_last:
                    break
                chunk = perm[start:end]
                yield x[chunk], y[chunk]
                start = end
        ''', loses=(), why="a while loop"),
]
