# breaks: "Starts from a fresh compile state (torch._dynamo.reset() first), so the same question asked twice gets the same answer."
# how: never resets dynamo, so caches and automatic-dynamic marks from earlier calls change the count
import torch


def count_compilations(model, batch_sizes, dynamic) -> int:
    counter = CompileCounter()
    compiled = torch.compile(model, backend=counter, dynamic=dynamic)
    device = next(model.parameters()).device
    for b in batch_sizes:
        compiled(torch.randn(b, 1, 28, 28, device=device))
    return len(counter.graphs)
