# breaks: "Starts from a fresh compile state (torch._dynamo.reset() first), so the same question asked twice gets the same answer."
# how: never resets dynamo; a second question about the same model reuses the first one's cache.
def count_compilations(model, batch_sizes, dynamic) -> int:
    counter = CompileCounter()
    compiled = torch.compile(model, backend=counter, dynamic=dynamic)
    device = next(model.parameters()).device
    for b in batch_sizes:
        compiled(torch.randn(b, 1, 28, 28, device=device))
    return len(counter.graphs)
