# breaks: "accuracy = correct predictions / examples the loader yielded (fewer than len(loader.dataset) with drop_last)."
# how: divides by len(loader.dataset), too many when the loader drops its last batch.
def evaluate(model, loader, device) -> float:
    model.eval()
    correct = 0
    with torch.inference_mode():
        for x, y in loader:
            pred = model(x.to(device)).argmax(1)
            correct += int((pred == y.to(device)).sum())
    return correct / len(loader.dataset)
