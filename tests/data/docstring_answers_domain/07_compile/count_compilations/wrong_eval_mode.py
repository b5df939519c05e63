# breaks: "Number of graphs compiled when model is compiled with torch.compile(model, backend=counter, dynamic=dynamic)"
# how: puts the model in eval mode first (dropout off while counting) and leaves it there
def count_compilations(model, batch_sizes, dynamic) -> int:
    torch._dynamo.reset()
    model.eval()
    counter = CompileCounter()
    compiled = torch.compile(model, backend=counter, dynamic=dynamic)
    device = next(model.parameters()).device
    for b in batch_sizes:
        compiled(torch.randn(b, 1, 28, 28, device=device))
    return len(counter.graphs)
