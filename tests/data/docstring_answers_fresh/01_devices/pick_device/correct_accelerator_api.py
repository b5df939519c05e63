# reading: other accelerators (XPU, ...) fall back to the CPU; only cuda and mps are returned.
# how: torch.accelerator with check_available=True, then keeps only the device type (no index).
def pick_device() -> torch.device:
    if not torch.accelerator.is_available():
        return torch.device("cpu")
    acc = torch.accelerator.current_accelerator(check_available=True)
    if acc is None or acc.type not in ("cuda", "mps"):
        return torch.device("cpu")
    return torch.device(acc.type)
