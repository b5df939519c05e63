# breaks: "Starts from a fresh compile state (torch._dynamo.reset() first), so the same question asked twice gets the same answer."
# how: no torch._dynamo.reset(): Dynamo's cache from an earlier call on the same model code can satisfy the calls.
def count_compilations(model, batch_sizes, dynamic) -> int:
    counter = CompileCounter()
    compiled = torch.compile(model, backend=counter, dynamic=dynamic)
    device = next(model.parameters()).device
    for b in batch_sizes:
        compiled(torch.randn(b, 1, 28, 28, device=device))
    return len(counter.graphs)
