"""Correct answers of 06_bf16 written differently from the reference."""

from graders.alternatives import Mistake

ALTERNATIVES = [
    Mistake("struct-bits", "bit_fields", '''
        import struct

        def bit_fields(x, dtype):
            _sign_bits, _exp_bits, _man_bits = LAYOUTS[dtype]
            if isinstance(x, torch.Tensor):
                _value = x.detach().to(dtype)
            else:
                _value = torch.tensor(float(x), dtype=dtype)
            if dtype == torch.float32:
                (_pattern,) = struct.unpack(">I", struct.pack(">f", float(_value)))
            else:
                _pattern = int(_value.view(torch.int16)) & 0xFFFF
            return (_pattern >> (_exp_bits + _man_bits),
                    (_pattern >> _man_bits) & ((1 << _exp_bits) - 1),
                    _pattern & ((1 << _man_bits) - 1))
        ''', loses=(), why="struct for float32, locals named _pattern/_value"),
    Mistake("numpy-view", "bit_fields", '''
        import numpy as np

        def bit_fields(x, dtype):
            sign_bits, exp_bits, man_bits = LAYOUTS[dtype]
            t = (x if isinstance(x, torch.Tensor) else torch.tensor(x, dtype=torch.float64)).detach().to(dtype).reshape(1)
            wide = {torch.float32: torch.int32}.get(dtype, torch.int16)
            bits = int(t.view(wide).numpy().astype(np.int64)[0]) % (1 << (sign_bits + exp_bits + man_bits))
            return bits >> (exp_bits + man_bits), (bits >> man_bits) % (1 << exp_bits), bits % (1 << man_bits)
        ''', loses=(), why="NumPy for the integer view, modulo instead of masks"),
    Mistake("bin-string", "bit_fields", '''
        def bit_fields(x, dtype):
            width = sum(LAYOUTS[dtype])
            value = torch.as_tensor(x, dtype=None if isinstance(x, torch.Tensor) else torch.float64).detach().to(dtype)
            view = torch.int32 if width == 32 else torch.int16
            text = format(int(value.view(view)) & ((1 << width) - 1), f"0{width}b")
            e = LAYOUTS[dtype][1]
            return int(text[0], 2), int(text[1:1 + e], 2), int(text[1 + e:], 2)
        ''', loses=(), why="splits a binary string"),
    Mistake("float64-ops", "roundtrip_rel_error", '''
        def roundtrip_rel_error(x, dtype):
            back = x.to(dtype).to(torch.float64)
            return torch.abs(x.to(torch.float64) - back) / torch.abs(x.to(torch.float64))
        ''', loses=(), why="torch.abs and .to(float64)"),
    Mistake("div-sub", "roundtrip_rel_error", '''
        def roundtrip_rel_error(x, dtype):
            _x = x.double()
            return (1 - x.to(dtype).double() / _x).abs()
        ''', loses=(), why="|1 - low / x|: the same number, one operation fewer"),
    Mistake("sub-ops", "roundtrip_rel_error", '''
        def roundtrip_rel_error(x, dtype):
            wide = x.detach().clone().double()
            err = torch.sub(wide, x.to(dtype).double()).abs_()
            return err.div_(wide.abs())
        ''', loses=(), why="torch.sub and in-place ops on a copy"),
    Mistake("capability-major", "choose_amp_dtype", '''
        def choose_amp_dtype(device):
            if torch.device(device).type != "cuda":
                return torch.bfloat16, False
            major, _minor = torch.cuda.get_device_capability(device)
            return (torch.bfloat16, False) if major >= 8 else (torch.float16, True)
        ''', loses=(), why="compares the major version only"),
    Mistake("string-device", "choose_amp_dtype", '''
        def choose_amp_dtype(device):
            _name = str(device)
            if _name.startswith("cuda") and torch.cuda.get_device_capability(device) < (8, 0):
                return (torch.float16, True)
            return (torch.bfloat16, False)
        ''', loses=(), why="reads the device as a string"),
    Mistake("warn-cpu", "choose_amp_dtype", '''
        import warnings

        def choose_amp_dtype(device):
            device = torch.device(device)
            if device.type == "cpu":
                warnings.warn("autocast on the CPU is slow for small models")
                return torch.bfloat16, False
            cap = torch.cuda.get_device_capability(device.index if device.index is not None else 0)
            use_bf16 = cap[0] * 10 + cap[1] >= 80
            return (torch.bfloat16 if use_bf16 else torch.float16), not use_bf16
        ''', loses=(), why="a warning on the CPU, the device index, capability as a number"),
    Mistake("amp-autocast", "bf16_train_step", '''
        def bf16_train_step(model, x, y, optimizer, criterion, device_type) -> float:
            optimizer.zero_grad()
            with torch.amp.autocast(device_type=device_type, dtype=torch.bfloat16):
                _loss = criterion(model(x), y)
            _loss.backward()
            optimizer.step()
            return float(_loss)
        ''', loses=(), why="torch.amp.autocast, zero_grad() to zeros, float(loss)"),
    Mistake("manual-zero", "bf16_train_step", '''
        def bf16_train_step(model, x, y, optimizer, criterion, device_type) -> float:
            for group in optimizer.param_groups:
                for p in group["params"]:
                    p.grad = None
            with torch.autocast(device_type, torch.bfloat16):
                out = model(x)
                loss = criterion(out, y)
            loss.backward()
            optimizer.step()
            print("step loss", loss.item())
            return loss.detach().item()
        ''', loses=(), why="clears the gradients through the optimizer's groups, a print"),
    Mistake("loss-outside", "bf16_train_step", '''
        def bf16_train_step(model, x, y, optimizer, criterion, device_type) -> float:
            optimizer.zero_grad(set_to_none=True)
            with torch.autocast(device_type=device_type, dtype=torch.bfloat16):
                logits = model(x)
            loss = criterion(logits.float(), y)
            loss.backward()
            optimizer.step()
            return loss.item()
        ''', loses=(), why="the loss in float32 after the block (what autocast does for cross-entropy)"),
]
