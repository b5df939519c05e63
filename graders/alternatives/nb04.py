"""Correct answers of 04_autocast written differently from the reference."""

from graders.alternatives import Mistake

ALTERNATIVES = [
    Mistake("amp-autocast", "amp_forward", '''
        def amp_forward(model, x, y, criterion, device_type, dtype):
            with torch.amp.autocast(device_type, dtype=dtype, enabled=True):
                _logits = model(x)
                _loss = criterion(_logits, y)
            return (_logits, _loss)
        ''', loses=(), why="torch.amp.autocast, locals named _logits/_loss"),
    Mistake("context-object", "amp_forward", '''
        def amp_forward(model, x, y, criterion, device_type, dtype):
            ctx = torch.autocast(device_type=device_type, dtype=dtype)
            ctx.__enter__()
            try:
                out = model(x)
                loss = criterion(out, y)
            finally:
                ctx.__exit__(None, None, None)
            return out, loss
        ''', loses=(), why="enters and exits the context by hand"),
    Mistake("inner-return", "amp_forward", '''
        import warnings

        def amp_forward(model, x, y, criterion, device_type, dtype):
            if dtype not in (torch.float16, torch.bfloat16):
                warnings.warn(f"autocast to {dtype} is unusual")
            with torch.autocast(device_type, dtype):
                logits = model(x)
                return logits, criterion(logits, y)
        ''', loses=(), why="returns from inside the block, positional arguments, a warning"),
    Mistake("named-children-leaves", "output_dtypes", '''
        def output_dtypes(model, x, device_type, dtype):
            seen = {}
            leaves = [(n, m) for n, m in model.named_modules() if len(list(m.children())) == 0]
            handles = [m.register_forward_hook(lambda mod, inp, out, n=n: seen.__setitem__(n, out.dtype))
                       for n, m in leaves]
            try:
                with torch.autocast(device_type=device_type, dtype=dtype), torch.inference_mode():
                    model(x)
            finally:
                for h in handles:
                    h.remove()
            return seen
        ''', loses=(), why="lambdas as hooks, inference_mode"),
    Mistake("hook-class", "output_dtypes", '''
        class _Recorder:
            def __init__(self):
                self.dtypes = {}
                self.handles = []
            def attach(self, name, module):
                def _hook(_mod, _inputs, _output):
                    self.dtypes[name] = _output.dtype
                self.handles.append(module.register_forward_hook(_hook))
            def detach(self):
                while self.handles:
                    self.handles.pop().remove()

        def output_dtypes(model, x, device_type, dtype):
            rec = _Recorder()
            for name, module in model.named_modules():
                if not any(True for _ in module.children()):
                    rec.attach(name, module)
            try:
                with torch.autocast(device_type=device_type, dtype=dtype):
                    with torch.no_grad():
                        model(x)
            finally:
                rec.detach()
            return dict(rec.dtypes)
        ''', loses=(), why="an own _Recorder class"),
    Mistake("grad-on", "output_dtypes", '''
        def output_dtypes(model, x, device_type, dtype):
            result, handles = {}, []
            for name, module in model.named_modules():
                if list(module.children()):
                    continue
                handles.append(module.register_forward_hook(
                    lambda m, i, o, key=name: result.update({key: o.dtype})))
            try:
                with torch.autocast(device_type=device_type, dtype=dtype):
                    model(x)
            finally:
                [h.remove() for h in handles]
            print(result)
            return result
        ''', loses=(), why="keeps autograd on (the docstring does not ask for no_grad), prints"),
    Mistake("dict-call", "CUDA_AUTOCAST_ANSWERS", '''
        CUDA_AUTOCAST_ANSWERS = dict(matmul=torch.half, softmax=torch.float, cross_entropy=torch.float32,
                                     sum=torch.float32, add=torch.float32)
        ''', loses=(), why="dict(...) and the dtype aliases torch.half / torch.float"),
    Mistake("built-up", "CUDA_AUTOCAST_ANSWERS", '''
        CUDA_AUTOCAST_ANSWERS = {}
        for _op in ("softmax", "cross_entropy", "sum", "add"):
            CUDA_AUTOCAST_ANSWERS[_op] = torch.float32
        CUDA_AUTOCAST_ANSWERS["matmul"] = torch.float16
        print(CUDA_AUTOCAST_ANSWERS)
        ''', loses=(), why="built in a loop, in another order"),
    Mistake("measured", "CUDA_AUTOCAST_ANSWERS", '''
        _low = torch.float16
        CUDA_AUTOCAST_ANSWERS = {
            "add": torch.promote_types(_low, torch.float32),
            "sum": torch.float32,
            "cross_entropy": torch.float32,
            "softmax": torch.float32,
            "matmul": _low,
        }
        ''', loses=(), why="type promotion computed with torch.promote_types"),
]
