# breaks: "called once per batch size, in order"
# how: calls once per distinct batch size, sorted (a repeated size "cannot" compile again).
def count_compilations(model, batch_sizes, dynamic) -> int:
    torch._dynamo.reset()
    counter = CompileCounter()
    compiled = torch.compile(model, backend=counter, dynamic=dynamic)
    device = next(model.parameters()).device
    for b in sorted(set(batch_sizes)):
        compiled(torch.randn(b, 1, 28, 28, device=device))
    return len(counter.graphs)
