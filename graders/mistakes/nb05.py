"""Common mistakes for 05_gradscaler."""

from graders.mistakes import Mistake

_STEP = '''
def scaled_train_step(model, x, y, optimizer, scaler, criterion, device_type,
                      dtype=torch.float16, max_norm=None) -> float:
{body}
'''


def _step(body: str) -> str:
    return _STEP.format(body=body.strip("\n"))


MISTAKES = [
    Mistake("counts-zeros", "underflow_fraction", '''
        def underflow_fraction(t, dtype=torch.float16) -> float:
            return (t.to(dtype) == 0).float().mean().item()
        ''', loses=("test_underflow_fraction",), why="counts entries that were zero already", sample=True),
    Mistake("denominator-all", "underflow_fraction", '''
        def underflow_fraction(t, dtype=torch.float16) -> float:
            lost = ((t != 0) & (t.to(dtype) == 0)).sum().item()
            return lost / t.numel()
        ''', loses=("test_underflow_fraction",), why="divides by every entry, not the non-zero ones"),
    Mistake("below-normal", "underflow_fraction", '''
        def underflow_fraction(t, dtype=torch.float16) -> float:
            nz = t[t != 0]
            if nz.numel() == 0:
                return 0.0
            return (nz.abs() < torch.finfo(dtype).tiny).float().mean().item()
        ''', loses=("test_underflow_fraction",), why="counts subnormals as lost: they are kept"),
    Mistake("fp16-only", "underflow_fraction", '''
        def underflow_fraction(t, dtype=torch.float16) -> float:
            nz = t[t != 0]
            if nz.numel() == 0:
                return 0.0
            return (nz.half() == 0).float().mean().item()
        ''', loses=("test_underflow_fraction",), why="ignores dtype"),
    Mistake("positive-only", "underflow_fraction", '''
        def underflow_fraction(t, dtype=torch.float16) -> float:
            nz = t[t != 0]
            if nz.numel() == 0:
                return 0.0
            return ((nz.to(dtype) == 0) & (nz > 0)).float().mean().item()
        ''', loses=("test_underflow_fraction",), why="forgets that negative values underflow too"),
    Mistake("nan-on-empty", "underflow_fraction", '''
        def underflow_fraction(t, dtype=torch.float16) -> float:
            nz = t[t != 0]
            return (nz.to(dtype) == 0).float().mean().item()
        ''', loses=("test_underflow_fraction",), why="returns nan for a tensor of zeros"),
    Mistake("optimizer-step", "scaled_train_step", _step('''
    optimizer.zero_grad()
    with torch.autocast(device_type=device_type, dtype=dtype):
        loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    if max_norm is not None:
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    optimizer.step()
    scaler.update()
    return loss.item()
'''), loses=("test_scaled_train_step",), why="optimizer.step() instead of scaler.step(optimizer)", sample=True),
    Mistake("optimizer-step-no-update", "scaled_train_step", _step('''
    optimizer.zero_grad()
    with torch.autocast(device_type=device_type, dtype=dtype):
        loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    optimizer.step()
    return loss.item()
'''), loses=("test_scaled_train_step",), why="steps with the scaled gradients, never updates the scale"),
    Mistake("no-update", "scaled_train_step", _step('''
    optimizer.zero_grad()
    with torch.autocast(device_type=device_type, dtype=dtype):
        loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    if max_norm is not None:
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    return loss.item()
'''), loses=("test_scaled_train_step",), why="forgets scaler.update()"),
    Mistake("clip-scaled", "scaled_train_step", _step('''
    optimizer.zero_grad()
    with torch.autocast(device_type=device_type, dtype=dtype):
        loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    if max_norm is not None:
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    return loss.item()
'''), loses=("test_scaled_train_step",), why="clips the scaled gradients"),
    Mistake("clip-then-unscale", "scaled_train_step", _step('''
    optimizer.zero_grad()
    with torch.autocast(device_type=device_type, dtype=dtype):
        loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    if max_norm is not None:
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        scaler.unscale_(optimizer)
    scaler.step(optimizer)
    scaler.update()
    return loss.item()
'''), loses=("test_scaled_train_step",), why="unscale_ after clipping"),
    Mistake("unscaled-backward", "scaled_train_step", _step('''
    optimizer.zero_grad()
    with torch.autocast(device_type=device_type, dtype=dtype):
        loss = criterion(model(x), y)
    loss.backward()
    if max_norm is not None:
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    return loss.item()
'''), loses=("test_scaled_train_step",), why="backward on the unscaled loss: step divides by the scale anyway"),
    Mistake("scaled-loss-returned", "scaled_train_step", _step('''
    optimizer.zero_grad()
    with torch.autocast(device_type=device_type, dtype=dtype):
        loss = criterion(model(x), y)
    scaled = scaler.scale(loss)
    scaled.backward()
    if max_norm is not None:
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    return scaled.item()
'''), loses=("test_scaled_train_step",), why="returns the scaled loss"),
    Mistake("no-zero-grad", "scaled_train_step", _step('''
    with torch.autocast(device_type=device_type, dtype=dtype):
        loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    if max_norm is not None:
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    return loss.item()
'''), loses=("test_scaled_train_step",), why="gradients accumulate across steps"),
    Mistake("ignores-dtype", "scaled_train_step", _step('''
    optimizer.zero_grad()
    with torch.autocast(device_type=device_type, dtype=torch.bfloat16):
        loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    if max_norm is not None:
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    return loss.item()
'''), loses=("test_scaled_train_step",), why="autocasts to a fixed dtype instead of dtype"),
    Mistake("tracker-not-reset", "next_scale", '''
        def next_scale(scale, growth_tracker, found_inf, growth_factor=2.0, backoff_factor=0.5,
                       growth_interval=2000):
            if found_inf:
                return scale * backoff_factor, growth_tracker
            growth_tracker += 1
            if growth_tracker == growth_interval:
                return scale * growth_factor, 0
            return scale, growth_tracker
        ''', loses=("test_next_scale",), why="keeps the growth tracker on inf", sample=True),
    Mistake("off-by-one", "next_scale", '''
        def next_scale(scale, growth_tracker, found_inf, growth_factor=2.0, backoff_factor=0.5,
                       growth_interval=2000):
            if found_inf:
                return scale * backoff_factor, 0
            if growth_tracker == growth_interval:
                return scale * growth_factor, 0
            return scale, growth_tracker + 1
        ''', loses=("test_next_scale",), why="grows one step late"),
    Mistake("no-reset-after-growth", "next_scale", '''
        def next_scale(scale, growth_tracker, found_inf, growth_factor=2.0, backoff_factor=0.5,
                       growth_interval=2000):
            if found_inf:
                return scale * backoff_factor, 0
            growth_tracker += 1
            if growth_tracker % growth_interval == 0:
                return scale * growth_factor, growth_tracker
            return scale, growth_tracker
        ''', loses=("test_next_scale",), why="never resets the tracker after growing"),
    Mistake("divide-by-growth", "next_scale", '''
        def next_scale(scale, growth_tracker, found_inf, growth_factor=2.0, backoff_factor=0.5,
                       growth_interval=2000):
            if found_inf:
                return scale / growth_factor, 0
            growth_tracker += 1
            if growth_tracker == growth_interval:
                return scale * growth_factor, 0
            return scale, growth_tracker
        ''', loses=("test_next_scale",), why="backs off by 1/growth_factor instead of backoff_factor"),
    Mistake("grow-every-step", "next_scale", '''
        def next_scale(scale, growth_tracker, found_inf, growth_factor=2.0, backoff_factor=0.5,
                       growth_interval=2000):
            if found_inf:
                return scale * backoff_factor, 0
            return scale * growth_factor, growth_tracker + 1
        ''', loses=("test_next_scale",), why="grows on every clean step"),
]
