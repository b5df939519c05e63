# breaks: "consecutive slices of batch_size of it index both x and y"
# how: yields each image batch as float32 (x[idx].float()), so uint8 images come back converted
def gpu_resident_batches(x, y, batch_size, generator=None, drop_last=True):
    n = len(x)
    perm = torch.randperm(n, device=x.device, generator=generator)
    for start in range(0, n, batch_size):
        idx = perm[start:start + batch_size]
        if drop_last and len(idx) < batch_size:
            break
        yield x[idx].float(), y[idx]
