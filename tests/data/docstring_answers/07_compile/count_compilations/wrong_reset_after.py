# breaks: "Starts from a fresh compile state (torch._dynamo.reset() first)"
# how: resets after counting (to "clean up") instead of before, so a cache left by earlier code is used.
def count_compilations(model, batch_sizes, dynamic) -> int:
    counter = CompileCounter()
    compiled = torch.compile(model, backend=counter, dynamic=dynamic)
    device = next(model.parameters()).device
    for b in batch_sizes:
        compiled(torch.randn(b, 1, 28, 28, device=device))
    n = len(counter.graphs)
    torch._dynamo.reset()
    return n
