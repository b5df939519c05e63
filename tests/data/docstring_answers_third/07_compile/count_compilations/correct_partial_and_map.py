# reading: the model's device is that of its first parameter; batch sizes consumed in order by a plain loop over map()
# how: torch.compile through functools.partial; inputs built by a helper; the count cast with int()
import functools

import torch


def _inputs(sizes, device):
    for b in sizes:
        yield torch.randn(b, 1, 28, 28, device=device)


def count_compilations(model, batch_sizes, dynamic) -> int:
    torch._dynamo.reset()
    recorder = CompileCounter()
    compile_with = functools.partial(torch.compile, backend=recorder, dynamic=dynamic)
    fast = compile_with(model)
    where = next(iter(model.parameters())).device
    for _ in map(fast, _inputs(list(batch_sizes), where)):
        pass
    return int(len(recorder.graphs))
