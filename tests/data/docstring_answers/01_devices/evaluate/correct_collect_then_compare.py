# reading: predictions collected on the CPU and compared once at the end; set_grad_enabled(False) turns autograd off.
# how: concatenates all predictions and labels, then one comparison.
def evaluate(model, loader, device) -> float:
    model.eval()
    preds, labels = [], []
    with torch.set_grad_enabled(False):
        for x, y in loader:
            model.eval()
            preds.append(torch.argmax(model(x.to(device)), dim=1).cpu())
            labels.append(y.cpu())
    predicted = torch.cat(preds)
    truth = torch.cat(labels)
    return float((predicted == truth).double().mean().item())
