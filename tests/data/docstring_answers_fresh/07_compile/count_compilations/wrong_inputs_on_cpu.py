# breaks: "on torch.randn(b, 1, 28, 28) created on the device of the model's parameters."
# how: the inputs are created on the CPU (torch.randn's default), whatever device the model is on.
def count_compilations(model, batch_sizes, dynamic) -> int:
    torch._dynamo.reset()
    counter = CompileCounter()
    compiled = torch.compile(model, backend=counter, dynamic=dynamic)
    for b in batch_sizes:
        compiled(torch.randn(b, 1, 28, 28))
    return len(counter.graphs)
