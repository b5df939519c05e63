# reading: the inputs may all be made before the first call, each on the parameters' device
# how: a list of inputs made with .to(device), the counter named backend, reset before and after
def count_compilations(model, batch_sizes, dynamic) -> int:
    torch._dynamo.reset()
    backend = CompileCounter()
    where = next(iter(model.parameters())).device
    images = [torch.randn(size, 1, 28, 28).to(where) for size in batch_sizes]
    runner = torch.compile(model, dynamic=dynamic, backend=backend)
    for image in images:
        runner(image)
    answer = int(len(backend.graphs))
    torch._dynamo.reset()
    return answer
