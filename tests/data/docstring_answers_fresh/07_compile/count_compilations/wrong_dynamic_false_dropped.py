# breaks: "compiled with torch.compile(model, backend=counter, dynamic=dynamic)"
# how: passes dynamic only when it is truthy, so dynamic=False becomes the default None (automatic dynamic).
def count_compilations(model, batch_sizes, dynamic) -> int:
    torch._dynamo.reset()
    counter = CompileCounter()
    options = {"dynamic": dynamic} if dynamic else {}
    compiled = torch.compile(model, backend=counter, **options)
    device = next(model.parameters()).device
    for b in batch_sizes:
        compiled(torch.randn(b, 1, 28, 28, device=device))
    return len(counter.graphs)
