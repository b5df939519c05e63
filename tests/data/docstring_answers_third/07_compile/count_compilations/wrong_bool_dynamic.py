# breaks: "compiled with torch.compile(model, backend=counter, dynamic=dynamic)"
# how: passes bool(dynamic), turning dynamic=None (automatic: recompile once as dynamic) into dynamic=False
import torch


def count_compilations(model, batch_sizes, dynamic) -> int:
    torch._dynamo.reset()
    counter = CompileCounter()
    compiled = torch.compile(model, backend=counter, dynamic=bool(dynamic))
    device = next(model.parameters()).device
    for b in batch_sizes:
        compiled(torch.randn(b, 1, 28, 28, device=device))
    return len(counter.graphs)
