# breaks: "called once per batch size, in order"
# how: skips batch sizes below 2 (always specialized, so "not interesting")
def count_compilations(model, batch_sizes, dynamic) -> int:
    torch._dynamo.reset()
    counter = CompileCounter()
    compiled = torch.compile(model, backend=counter, dynamic=dynamic)
    device = next(model.parameters()).device
    for b in batch_sizes:
        if b < 2:
            continue
        compiled(torch.randn(b, 1, 28, 28, device=device))
    return len(counter.graphs)
