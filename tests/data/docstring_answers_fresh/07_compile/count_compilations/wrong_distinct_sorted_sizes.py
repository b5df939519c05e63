# breaks: "called once per batch size, in order"
# how: calls once per DISTINCT size, sorted ("a size seen before cannot compile again"): order and repeats change
#      what automatic dynamic shapes and the 0/1 specialisation do.
def count_compilations(model, batch_sizes, dynamic) -> int:
    torch._dynamo.reset()
    counter = CompileCounter()
    compiled = torch.compile(model, backend=counter, dynamic=dynamic)
    device = next(model.parameters()).device
    for b in sorted(set(batch_sizes)):
        compiled(torch.randn(b, 1, 28, 28, device=device))
    return len(counter.graphs)
