# reading: torch.cuda.synchronize() without an argument (the current device) for every CUDA spelling.
# how: a dict from device type to the waiting function, looked up at call time; the CPU maps to nothing.
def synchronize(device) -> None:
    kind = str(device).split(":", 1)[0]
    waits = {"cuda": lambda: torch.cuda.synchronize(), "mps": lambda: torch.mps.synchronize()}
    wait = waits.get(kind)
    if wait is not None:
        wait()
