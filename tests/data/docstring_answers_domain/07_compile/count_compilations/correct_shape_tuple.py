# reading: torch.randn with the shape as one tuple and the device as a keyword is the same input
# how: a while loop over an index, the shape built as a tuple, the device read from the first parameter found
def count_compilations(model, batch_sizes, dynamic) -> int:
    import torch._dynamo as dynamo
    dynamo.reset()
    counting = CompileCounter()
    fast = torch.compile(model, backend=counting, dynamic=dynamic)
    device = [p.device for p in model.parameters()][0]
    i = 0
    while i < len(batch_sizes):
        fast(torch.randn((batch_sizes[i], 1, 28, 28), device=device))
        i += 1
    return len(counting.graphs)
