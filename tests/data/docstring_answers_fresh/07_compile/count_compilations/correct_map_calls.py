# reading: "called once per batch size" with the same generator of inputs, one after the other.
# how: a generator expression of inputs consumed by a for loop; torch.randn with dtype float32 spelled out.
def count_compilations(model, batch_sizes, dynamic) -> int:
    torch._dynamo.reset()
    counter = CompileCounter()
    compiled = torch.compile(model, backend=counter, dynamic=dynamic)
    where = next(iter(model.parameters())).device
    inputs = (torch.randn(b, 1, 28, 28, device=where, dtype=torch.float32) for b in batch_sizes)
    for batch in inputs:
        compiled(batch)
    return len(counter.graphs)
