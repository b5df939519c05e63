# breaks: "counter a new CompileCounter"
# how: keeps one module-level counter across calls, so a second question adds to the first's graphs
import torch

_COUNTER = CompileCounter()


def count_compilations(model, batch_sizes, dynamic) -> int:
    torch._dynamo.reset()
    compiled = torch.compile(model, backend=_COUNTER, dynamic=dynamic)
    device = next(model.parameters()).device
    for b in batch_sizes:
        compiled(torch.randn(b, 1, 28, 28, device=device))
    return len(_COUNTER.graphs)
