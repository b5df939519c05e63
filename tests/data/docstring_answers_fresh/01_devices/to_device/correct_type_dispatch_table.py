# reading: exact built-in types only (type(obj) is list/tuple/dict); subclasses are returned as they are.
# how: a dispatch dict keyed by exact type, with a nested helper closing over device and non_blocking.
def to_device(obj, device, non_blocking=False):
    def go(o):
        if isinstance(o, torch.Tensor):
            return o.to(device=device, non_blocking=non_blocking)
        rebuild = _REBUILD.get(type(o))
        return rebuild(o, go) if rebuild else o
    return go(obj)


_REBUILD = {
    list: lambda o, go: list(map(go, o)),
    tuple: lambda o, go: tuple(map(go, o)),
    dict: lambda o, go: dict((k, go(v)) for k, v in o.items()),
}
