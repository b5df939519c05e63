# reading: torch.cuda.synchronize() without an index (waits for the current GPU), whatever index the spelling has.
# how: a dict from device type to the wait function; the CPU has no entry.
_WAITS = {
    "cuda": lambda: torch.cuda.synchronize(),
    "mps": lambda: torch.mps.synchronize(),
}


def synchronize(device) -> None:
    wait = _WAITS.get(torch.device(device).type)
    if wait is not None:
        wait()
