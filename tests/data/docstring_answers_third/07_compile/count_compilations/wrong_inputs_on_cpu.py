# breaks: "called once per batch size, in order, on torch.randn(b, 1, 28, 28) created on the device of the model's parameters."
# how: creates the inputs with plain torch.randn (CPU), wrong for a model on a GPU
import torch


def count_compilations(model, batch_sizes, dynamic) -> int:
    torch._dynamo.reset()
    counter = CompileCounter()
    compiled = torch.compile(model, backend=counter, dynamic=dynamic)
    for b in batch_sizes:
        compiled(torch.randn(b, 1, 28, 28))
    return len(counter.graphs)
