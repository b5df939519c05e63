# reading: the device is that of the parameters (a model with parameters on one device); outputs are discarded.
# how: the device from a set of parameter devices; the compiled callable named and deleted at the end.
def count_compilations(model, batch_sizes, dynamic) -> int:
    torch._dynamo.reset()
    (device,) = {p.device for p in model.parameters()}
    backend = CompileCounter()
    run = torch.compile(model, backend=backend, dynamic=dynamic)
    for size in list(batch_sizes):
        _ = run(torch.randn(size, 1, 28, 28, device=device))
    del run
    return int(len(backend.graphs))
