# reading: the mode is left as eval (free); a caller-visible eval mode is fine.
# how: a no_grad-decorated inner function per batch, argmax(dim=-1).eq, counts as Python ints.
def evaluate(model, loader, device) -> float:
    @torch.no_grad()
    def batch_hits(x, y):
        return int(model(x).argmax(dim=-1).eq(y).sum())

    model.eval()
    hits = seen = 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        hits += batch_hits(x, y)
        seen += int(y.shape[0])
    return hits / seen
