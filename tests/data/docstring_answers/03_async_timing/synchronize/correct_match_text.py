# reading: the type is the text before ":" of the device's string form.
# how: str.partition and a match statement.
def synchronize(device) -> None:
    kind, _, _ = str(device).partition(":")
    match kind:
        case "cuda":
            torch.cuda.synchronize()
        case "mps":
            torch.mps.synchronize()
        case _:
            return None
