"""Common mistakes for 06_bf16."""

from graders.mistakes import Mistake

_FIELDS = '''
def bit_fields(x, dtype):
    _, e, m = LAYOUTS[dtype]
    v = x.detach().to(dtype) if isinstance(x, torch.Tensor) else torch.tensor(float(x), dtype=dtype)
    if dtype == torch.float32:
        p = int(v.reshape(()).view(torch.int32).item()) & 0xFFFFFFFF
    else:
        p = int(v.reshape(()).view(torch.int16).item()) & 0xFFFF
{tail}
'''


def _fields(tail: str) -> str:
    return _FIELDS.format(tail=tail.strip("\n"))


MISTAKES = [
    Mistake("unbiased-exponent", "bit_fields", _fields('''
    bias = (1 << (e - 1)) - 1
    return p >> (e + m), ((p >> m) & ((1 << e) - 1)) - bias, p & ((1 << m) - 1)
'''), loses=("test_bit_fields",), why="subtracts the bias: the stored field is biased", sample=True),
    Mistake("implicit-bit", "bit_fields", _fields('''
    return p >> (e + m), (p >> m) & ((1 << e) - 1), (p & ((1 << m) - 1)) | (1 << m)
'''), loses=("test_bit_fields",), why="adds the implicit leading 1 to the mantissa field"),
    Mistake("sign-extended", "bit_fields", '''
        def bit_fields(x, dtype):
            _, e, m = LAYOUTS[dtype]
            v = x.detach().to(dtype) if isinstance(x, torch.Tensor) else torch.tensor(float(x), dtype=dtype)
            p = int(v.reshape(()).view(torch.int32 if dtype == torch.float32 else torch.int16).item())
            return p >> (e + m), (p >> m) & ((1 << e) - 1), p & ((1 << m) - 1)
        ''', loses=("test_bit_fields",), why="reads the signed integer: negative numbers give sign -1"),
    Mistake("fp16-layout", "bit_fields", '''
        def bit_fields(x, dtype):
            e, m = (8, 23) if dtype == torch.float32 else (5, 10)
            v = x.detach().to(dtype) if isinstance(x, torch.Tensor) else torch.tensor(float(x), dtype=dtype)
            if dtype == torch.float32:
                p = int(v.reshape(()).view(torch.int32).item()) & 0xFFFFFFFF
            else:
                p = int(v.reshape(()).view(torch.int16).item()) & 0xFFFF
            return p >> (e + m), (p >> m) & ((1 << e) - 1), p & ((1 << m) - 1)
        ''', loses=("test_bit_fields",), why="uses float16's layout for bfloat16"),
    Mistake("sign-plus-minus", "bit_fields", _fields('''
    return (-1 if p >> (e + m) else 1), (p >> m) & ((1 << e) - 1), p & ((1 << m) - 1)
'''), loses=("test_bit_fields",), why="returns the sign as +1/-1, not the bit"),
    Mistake("frexp", "bit_fields", '''
        import math
        def bit_fields(x, dtype):
            _, e, m = LAYOUTS[dtype]
            v = float(x.to(dtype)) if isinstance(x, torch.Tensor) else float(torch.tensor(float(x)).to(dtype))
            sign = 1 if math.copysign(1.0, v) < 0 else 0
            if v == 0:
                return sign, 0, 0
            frac, exp = math.frexp(abs(v))
            bias = (1 << (e - 1)) - 1
            return sign, exp - 1 + bias, int((frac * 2 - 1) * (1 << m))
        ''', loses=("test_bit_fields",), why="computes the fields arithmetically: subnormals and inf go wrong"),
    Mistake("tensor-fields", "bit_fields", _fields('''
    t = torch.tensor(p)
    return t >> (e + m), (t >> m) & ((1 << e) - 1), t & ((1 << m) - 1)
'''), loses=("test_bit_fields",), why="returns tensors instead of ints"),
    Mistake("low-precision-diff", "roundtrip_rel_error", '''
        def roundtrip_rel_error(x, dtype):
            low = x.to(dtype)
            return (x.to(dtype) - low).abs() / x.to(dtype).abs() + (x - low.to(x.dtype)).abs() / x.abs() * 0
        ''', loses=("test_roundtrip_rel_error",), why="computes the difference in the 16-bit dtype", sample=True),
    Mistake("relative-to-rounded", "roundtrip_rel_error", '''
        def roundtrip_rel_error(x, dtype):
            low = x.to(dtype).double()
            return (x.double() - low).abs() / low.abs()
        ''', loses=("test_roundtrip_rel_error",), why="divides by the rounded value: underflow gives inf, overflow nan"),
    Mistake("absolute", "roundtrip_rel_error", '''
        def roundtrip_rel_error(x, dtype):
            return (x.double() - x.to(dtype).double()).abs()
        ''', loses=("test_roundtrip_rel_error",), why="absolute, not relative, error"),
    Mistake("no-abs", "roundtrip_rel_error", '''
        def roundtrip_rel_error(x, dtype):
            return (x.double() - x.to(dtype).double()) / x.double()
        ''', loses=("test_roundtrip_rel_error",), why="forgets the absolute values"),
    Mistake("trusts-is-bf16-supported", "choose_amp_dtype", '''
        def choose_amp_dtype(device):
            device = torch.device(device)
            if device.type == "cuda" and not torch.cuda.is_bf16_supported():
                return torch.float16, True
            return torch.bfloat16, False
        ''', loses=("test_choose_amp_dtype",), why="is_bf16_supported() is True on a T4 by emulation", sample=True),
    Mistake("bf16-with-scaler", "choose_amp_dtype", '''
        def choose_amp_dtype(device):
            device = torch.device(device)
            if device.type == "cuda" and torch.cuda.get_device_capability(device) < (8, 0):
                return torch.float16, True
            return torch.bfloat16, True
        ''', loses=("test_choose_amp_dtype",), why="uses a scaler with bfloat16"),
    Mistake("strictly-above-8", "choose_amp_dtype", '''
        def choose_amp_dtype(device):
            device = torch.device(device)
            if device.type == "cuda":
                if torch.cuda.get_device_capability(device) > (8, 0):
                    return torch.bfloat16, False
                return torch.float16, True
            return torch.bfloat16, False
        ''', loses=("test_choose_amp_dtype",), why="leaves out the A100 itself (8.0)"),
    Mistake("machine-not-device", "choose_amp_dtype", '''
        def choose_amp_dtype(device):
            if torch.cuda.is_available():
                if torch.cuda.get_device_capability() >= (8, 0):
                    return torch.bfloat16, False
                return torch.float16, True
            return torch.bfloat16, False
        ''', loses=("test_choose_amp_dtype",), why="looks at the machine, not at the device asked about"),
    Mistake("cpu-float16", "choose_amp_dtype", '''
        def choose_amp_dtype(device):
            device = torch.device(device)
            if device.type == "cuda" and torch.cuda.get_device_capability(device) >= (8, 0):
                return torch.bfloat16, False
            return torch.float16, True
        ''', loses=("test_choose_amp_dtype",), why="float16 with a scaler on the CPU"),
    Mistake("model-bfloat16", "bf16_train_step", '''
        def bf16_train_step(model, x, y, optimizer, criterion, device_type) -> float:
            model.bfloat16()
            optimizer.zero_grad()
            loss = criterion(model(x.bfloat16()).float(), y)
            loss.backward()
            optimizer.step()
            return loss.item()
        ''', loses=("test_bf16_train_step",), why="converts the model to bfloat16", sample=True),
    Mistake("float16", "bf16_train_step", '''
        def bf16_train_step(model, x, y, optimizer, criterion, device_type) -> float:
            optimizer.zero_grad()
            with torch.autocast(device_type=device_type, dtype=torch.float16):
                loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            return loss.item()
        ''', loses=("test_bf16_train_step",), why="autocasts to float16"),
    Mistake("no-autocast", "bf16_train_step", '''
        def bf16_train_step(model, x, y, optimizer, criterion, device_type) -> float:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            return loss.item()
        ''', loses=("test_bf16_train_step",), why="plain float32"),
    Mistake("no-zero-grad", "bf16_train_step", '''
        def bf16_train_step(model, x, y, optimizer, criterion, device_type) -> float:
            with torch.autocast(device_type=device_type, dtype=torch.bfloat16):
                loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            return loss.item()
        ''', loses=("test_bf16_train_step",), why="gradients accumulate"),
    Mistake("returns-tensor", "bf16_train_step", '''
        def bf16_train_step(model, x, y, optimizer, criterion, device_type) -> float:
            optimizer.zero_grad()
            with torch.autocast(device_type=device_type, dtype=torch.bfloat16):
                loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            return loss
        ''', loses=("test_bf16_train_step",), why="returns the loss tensor"),
]
