# reading: torch.compile(backend=..., dynamic=...)(model) is the same compile; a model without parameters uses the CPU.
# how: decorator-factory spelling, device from the first parameter or the CPU.
def count_compilations(model, batch_sizes, dynamic) -> int:
    torch._dynamo.reset()
    graph_counter = CompileCounter()
    first = next(iter(model.parameters()), None)
    device = first.device if first is not None else torch.device("cpu")
    compiled_model = torch.compile(backend=graph_counter, dynamic=dynamic)(model)
    for size in batch_sizes:
        batch = torch.randn(size, 1, 28, 28, device=device)
        compiled_model(batch)
    return int(len(graph_counter.graphs))
