"""Correct answers of 05_gradscaler written differently from the reference."""

from graders.alternatives import Mistake

ALTERNATIVES = [
    Mistake("float32-mean", "underflow_fraction", '''
        def underflow_fraction(t, dtype=torch.float16) -> float:
            mask = t != 0
            if not mask.any():
                return 0.0
            lost = (t.to(dtype) == 0) & mask
            return lost[mask].float().mean().item()
        ''', loses=(), why="the fraction computed in float32 (mean of a float mask)"),
    Mistake("count-ints", "underflow_fraction", '''
        def underflow_fraction(t, dtype=torch.float16) -> float:
            _nonzero = int(torch.count_nonzero(t))
            _survive = int(torch.count_nonzero(t.to(dtype)))
            return (_nonzero - _survive) / _nonzero if _nonzero else 0.0
        ''', loses=(), why="counts with count_nonzero; zeros stay zeros"),
    Mistake("python-loop", "underflow_fraction", '''
        def underflow_fraction(t, dtype=torch.float16) -> float:
            values = [v for v in t.flatten().tolist() if v != 0.0]
            if not values:
                return 0.0
            low = torch.tensor(values, dtype=t.dtype).to(dtype)
            return float((low == 0).sum()) / len(values)
        ''', loses=(), why="a Python list of the non-zero values"),
    Mistake("clip-if", "scaled_train_step", '''
        def scaled_train_step(model, x, y, optimizer, scaler, criterion, device_type,
                              dtype=torch.float16, max_norm=None) -> float:
            optimizer.zero_grad()
            with torch.autocast(device_type, dtype=dtype):
                output = model(x)
                loss = criterion(output, y)
            scaled = scaler.scale(loss)
            scaled.backward()
            if max_norm:
                scaler.unscale_(optimizer)
                torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=max_norm)
            scaler.step(optimizer)
            scaler.update()
            return float(loss.detach())
        ''', loses=(), why="zero_grad() keeps zeros, float(loss.detach())"),
    Mistake("param-list", "scaled_train_step", '''
        def scaled_train_step(model, x, y, optimizer, scaler, criterion, device_type,
                              dtype=torch.float16, max_norm=None) -> float:
            _params = [p for p in model.parameters() if p.requires_grad]
            for _p in _params:
                _p.grad = None
            with torch.autocast(device_type=device_type, dtype=dtype):
                _loss = criterion(model(x), y)
            scaler.scale(_loss).backward()
            if max_norm is not None:
                scaler.unscale_(optimizer)
                torch.nn.utils.clip_grad_norm_(_params, max_norm)
            scaler.step(optimizer)
            scaler.update()
            return _loss.item()
        ''', loses=(), why="clears the gradients by hand, a parameter list named _params"),
    Mistake("loss-after", "scaled_train_step", '''
        def scaled_train_step(model, x, y, optimizer, scaler, criterion, device_type,
                              dtype=torch.float16, max_norm=None) -> float:
            optimizer.zero_grad(set_to_none=True)
            with torch.autocast(device_type=device_type, dtype=dtype):
                logits = model(x)
            loss = criterion(logits.float(), y)
            scaler.scale(loss).backward()
            if max_norm is not None:
                scaler.unscale_(optimizer)
                torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
            scaler.step(optimizer)
            scaler.update()
            value = loss.item()
            print(f"loss {value:.4f}, scale {scaler.get_scale():g}")
            return value
        ''', loses=(), why="the loss in float32 outside the block (what autocast does for cross-entropy), a print"),
    Mistake("branches", "next_scale", '''
        def next_scale(scale, growth_tracker, found_inf, growth_factor=2.0, backoff_factor=0.5,
                       growth_interval=2000):
            if found_inf:
                scale, growth_tracker = scale * backoff_factor, 0
            elif growth_tracker + 1 >= growth_interval:
                scale, growth_tracker = scale * growth_factor, 0
            else:
                growth_tracker = growth_tracker + 1
            return float(scale), int(growth_tracker)
        ''', loses=(), why="one branch per case, >= for the interval"),
    Mistake("tensor-math", "next_scale", '''
        def next_scale(scale, growth_tracker, found_inf, growth_factor=2.0, backoff_factor=0.5,
                       growth_interval=2000):
            s = torch.tensor(float(scale), dtype=torch.float32)
            if bool(found_inf):
                return float(s * backoff_factor), 0
            if growth_tracker + 1 == growth_interval:
                return float(s * growth_factor), 0
            return float(s), growth_tracker + 1
        ''', loses=(), why="the scale as a float32 tensor, as GradScaler keeps it"),
    Mistake("helper", "next_scale", '''
        def _grow(scale, factor):
            return scale * factor

        def next_scale(scale, growth_tracker, found_inf, growth_factor=2.0, backoff_factor=0.5,
                       growth_interval=2000):
            tracker = 0 if found_inf else growth_tracker + 1
            if found_inf:
                return _grow(float(scale), backoff_factor), tracker
            if tracker == growth_interval:
                return _grow(float(scale), growth_factor), 0
            return float(scale), tracker
        ''', loses=(), why="an own _grow helper"),
]
