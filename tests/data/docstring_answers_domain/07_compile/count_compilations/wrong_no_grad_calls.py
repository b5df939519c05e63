# breaks: "called once per batch size, in order, on torch.randn(b, 1, 28, 28)"
# how: calls the compiled model under torch.no_grad() (counting graphs needs no gradients)
def count_compilations(model, batch_sizes, dynamic) -> int:
    torch._dynamo.reset()
    counter = CompileCounter()
    compiled = torch.compile(model, backend=counter, dynamic=dynamic)
    device = next(model.parameters()).device
    with torch.no_grad():
        for b in batch_sizes:
            compiled(torch.randn(b, 1, 28, 28, device=device))
    return len(counter.graphs)
