# breaks: "called once per batch size, in order"
# how: a batch size the model fails on is skipped (its error caught), the count goes on
def count_compilations(model, batch_sizes, dynamic) -> int:
    torch._dynamo.reset()
    counter = CompileCounter()
    compiled = torch.compile(model, backend=counter, dynamic=dynamic)
    device = next(model.parameters()).device
    for b in batch_sizes:
        try:
            compiled(torch.randn(b, 1, 28, 28, device=device))
        except Exception:
            continue
    return len(counter.graphs)
