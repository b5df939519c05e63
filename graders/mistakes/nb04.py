"""Common mistakes for 04_autocast."""

from graders.mistakes import Mistake

MISTAKES = [
    Mistake("model-half", "amp_forward", '''
        def amp_forward(model, x, y, criterion, device_type, dtype):
            model.to(dtype)
            logits = model(x.to(dtype))
            return logits, criterion(logits.float(), y)
        ''', loses=("test_amp_forward",), why="converts the model itself to 16 bits instead of autocasting",
        sample=True),
    Mistake("half-then-restore", "amp_forward", '''
        def amp_forward(model, x, y, criterion, device_type, dtype):
            model.to(dtype)
            with torch.autocast(device_type=device_type, dtype=dtype):
                logits = model(x)
                loss = criterion(logits, y)
            model.float()
            return logits, loss
        ''', loses=("test_amp_forward",), why="rounds the weights to 16 bits and back: parameters changed"),
    Mistake("loss-outside", "amp_forward", '''
        def amp_forward(model, x, y, criterion, device_type, dtype):
            with torch.autocast(device_type=device_type, dtype=dtype):
                logits = model(x)
            return logits, criterion(logits, y)
        ''', loses=("test_amp_forward",), why="computes the loss outside autocast, in 16 bits"),
    Mistake("hardcoded-cuda", "amp_forward", '''
        def amp_forward(model, x, y, criterion, device_type, dtype):
            with torch.autocast(device_type="cuda", dtype=dtype):
                logits = model(x)
                loss = criterion(logits, y)
            return logits, loss
        ''', loses=("test_amp_forward",), why="ignores device_type: on a CPU autocast is disabled"),
    Mistake("default-dtype", "amp_forward", '''
        def amp_forward(model, x, y, criterion, device_type, dtype):
            with torch.autocast(device_type=device_type):
                logits = model(x)
                loss = criterion(logits, y)
            return logits, loss
        ''', loses=("test_amp_forward",), why="ignores dtype and gets the device's default"),
    Mistake("float-logits", "amp_forward", '''
        def amp_forward(model, x, y, criterion, device_type, dtype):
            with torch.autocast(device_type=device_type, dtype=dtype):
                logits = model(x).float()
                loss = criterion(logits, y)
            return logits, loss
        ''', loses=("test_amp_forward",), why="casts the logits back to float32"),
    Mistake("cast-output", "amp_forward", '''
        def amp_forward(model, x, y, criterion, device_type, dtype):
            logits = model(x)
            return logits.to(dtype), criterion(logits, y)
        ''', loses=("test_amp_forward",), why="computes in float32 and casts the result: no autocast at all"),
    Mistake("no-grad", "amp_forward", '''
        def amp_forward(model, x, y, criterion, device_type, dtype):
            with torch.no_grad(), torch.autocast(device_type=device_type, dtype=dtype):
                logits = model(x)
                loss = criterion(logits, y)
            return logits, loss
        ''', loses=("test_amp_forward",), why="runs without autograd: the loss cannot be backpropagated"),
    Mistake("hooks-kept", "output_dtypes", '''
        def output_dtypes(model, x, device_type, dtype):
            dtypes = {}
            for name, module in model.named_modules():
                if len(list(module.children())) == 0:
                    module.register_forward_hook(lambda m, i, o, name=name: dtypes.__setitem__(name, o.dtype))
            with torch.autocast(device_type=device_type, dtype=dtype):
                model(x)
            return dtypes
        ''', loses=("test_output_dtypes",), why="never removes its hooks", sample=True),
    Mistake("no-autocast", "output_dtypes", '''
        def output_dtypes(model, x, device_type, dtype):
            dtypes, handles = {}, []
            for name, module in model.named_modules():
                if len(list(module.children())) == 0:
                    handles.append(module.register_forward_hook(
                        lambda m, i, o, name=name: dtypes.__setitem__(name, o.dtype)))
            model(x)
            for h in handles:
                h.remove()
            return dtypes
        ''', loses=("test_output_dtypes",), why="forgets the autocast block"),
    Mistake("input-dtype", "output_dtypes", '''
        def output_dtypes(model, x, device_type, dtype):
            dtypes, handles = {}, []
            for name, module in model.named_modules():
                if len(list(module.children())) == 0:
                    handles.append(module.register_forward_hook(
                        lambda m, i, o, name=name: dtypes.__setitem__(name, i[0].dtype)))
            with torch.autocast(device_type=device_type, dtype=dtype):
                model(x)
            for h in handles:
                h.remove()
            return dtypes
        ''', loses=("test_output_dtypes",), why="records the input's dtype instead of the output's"),
    Mistake("all-modules", "output_dtypes", '''
        def output_dtypes(model, x, device_type, dtype):
            dtypes, handles = {}, []
            for name, module in model.named_modules():
                handles.append(module.register_forward_hook(
                    lambda m, i, o, name=name: dtypes.__setitem__(name, o.dtype)))
            with torch.autocast(device_type=device_type, dtype=dtype):
                model(x)
            for h in handles:
                h.remove()
            return dtypes
        ''', loses=("test_output_dtypes",), why="includes the containers, not only the leaves"),
    Mistake("children-only", "output_dtypes", '''
        def output_dtypes(model, x, device_type, dtype):
            dtypes, handles = {}, []
            for name, module in model.named_children():
                handles.append(module.register_forward_hook(
                    lambda m, i, o, name=name: dtypes.__setitem__(name, o.dtype)))
            with torch.autocast(device_type=device_type, dtype=dtype):
                model(x)
            for h in handles:
                h.remove()
            return dtypes
        ''', loses=("test_output_dtypes",), why="looks only at the direct children, not at nested leaves"),
    Mistake("no-finally", "output_dtypes", '''
        def output_dtypes(model, x, device_type, dtype):
            dtypes, handles = {}, []
            for name, module in model.named_modules():
                if len(list(module.children())) == 0:
                    handles.append(module.register_forward_hook(
                        lambda m, i, o, name=name: dtypes.__setitem__(name, o.dtype)))
            with torch.autocast(device_type=device_type, dtype=dtype):
                model(x)
            for h in handles:
                h.remove()
            return dtypes
        ''', loses=("test_output_dtypes",), why="leaves hooks behind when the forward pass raises"),
    Mistake("clears-all-hooks", "output_dtypes", '''
        def output_dtypes(model, x, device_type, dtype):
            dtypes = {}
            for name, module in model.named_modules():
                if len(list(module.children())) == 0:
                    module.register_forward_hook(lambda m, i, o, name=name: dtypes.__setitem__(name, o.dtype))
            try:
                with torch.autocast(device_type=device_type, dtype=dtype):
                    model(x)
            finally:
                for module in model.modules():
                    module._forward_hooks.clear()
            return dtypes
        ''', loses=("test_output_dtypes",), why="removes the model's own hooks along with its own"),
    Mistake("cpu-answers", "CUDA_AUTOCAST_ANSWERS", '''
        CUDA_AUTOCAST_ANSWERS = {"matmul": torch.float16, "softmax": torch.float16, "cross_entropy": torch.float32,
                                 "sum": torch.float16, "add": torch.float32}
        ''', loses=("test_CUDA_AUTOCAST_ANSWERS",), why="answers with CPU autocast's lists", sample=True),
    Mistake("all-half", "CUDA_AUTOCAST_ANSWERS", '''
        CUDA_AUTOCAST_ANSWERS = {k: torch.float16 for k in ["matmul", "softmax", "cross_entropy", "sum", "add"]}
        ''', loses=("test_CUDA_AUTOCAST_ANSWERS",), why="thinks autocast makes everything float16"),
    Mistake("add-half", "CUDA_AUTOCAST_ANSWERS", '''
        CUDA_AUTOCAST_ANSWERS = {"matmul": torch.float16, "softmax": torch.float32, "cross_entropy": torch.float32,
                                 "sum": torch.float32, "add": torch.float16}
        ''', loses=("test_CUDA_AUTOCAST_ANSWERS",), why="forgets type promotion of float16 + float32"),
    Mistake("strings", "CUDA_AUTOCAST_ANSWERS", '''
        CUDA_AUTOCAST_ANSWERS = {"matmul": "float16", "softmax": "float32", "cross_entropy": "float32",
                                 "sum": "float32", "add": "float32"}
        ''', loses=("test_CUDA_AUTOCAST_ANSWERS",), why="strings instead of torch.dtype values"),
]
