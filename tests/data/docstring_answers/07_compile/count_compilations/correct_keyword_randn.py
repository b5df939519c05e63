# reading: the inputs may be built with keyword arguments (same tensor shape/device); the model's outputs are discarded.
# how: list of inputs made lazily in a generator, torch.randn(size=...).
def count_compilations(model, batch_sizes, dynamic) -> int:
    import torch._dynamo as dynamo
    dynamo.reset()
    counter = CompileCounter()
    param_device = next(model.parameters()).device
    run = torch.compile(model, dynamic=dynamic, backend=counter)
    inputs = (torch.randn(size=(b, 1, 28, 28), device=param_device) for b in batch_sizes)
    for batch in inputs:
        _ = run(batch)
    return len(counter.graphs)
