"""Correct answers of 01_devices written differently from the reference."""

from graders.alternatives import Mistake

ALTERNATIVES = [
    Mistake("ternary", "pick_device", '''
        def pick_device() -> torch.device:
            name = "cuda" if torch.cuda.is_available() else "mps" if torch.backends.mps.is_available() else "cpu"
            return torch.device(name)
        ''', loses=(), why="one conditional expression"),
    Mistake("helper-loop", "pick_device", '''
        def _available(kind):
            return {"cuda": torch.cuda.is_available, "mps": torch.backends.mps.is_available}[kind]()

        def pick_device() -> torch.device:
            for _kind in ("cuda", "mps"):
                if _available(_kind):
                    return torch.device(_kind)
            return torch.device("cpu")
        ''', loses=(), why="an own helper whose name starts with _, and a loop"),
    Mistake("debug-print", "pick_device", '''
        import warnings

        def pick_device() -> torch.device:
            if torch.cuda.is_available():
                device = torch.device("cuda", 0).type
            elif torch.backends.mps.is_available():
                device = "mps"
            else:
                warnings.warn("no accelerator found, using the CPU")
                device = "cpu"
            print("picked", device)
            return torch.device(device)
        ''', loses=(), why="a debug print and a warning"),
    Mistake("match-type", "to_device", '''
        def to_device(obj, device, non_blocking=False):
            match obj:
                case torch.Tensor():
                    return obj.to(device=device, non_blocking=non_blocking)
                case dict():
                    return type(obj)({k: to_device(v, device, non_blocking) for k, v in obj.items()})
                case list() | tuple():
                    return type(obj)([to_device(v, device, non_blocking) for v in obj])
                case _:
                    return obj
        ''', loses=(), why="a match statement, keyword arguments"),
    Mistake("helper-underscore", "to_device", '''
        def _move(_x, _device, _nb):
            return _x.to(_device, non_blocking=_nb) if torch.is_tensor(_x) else to_device(_x, _device, _nb)

        def to_device(obj, device, non_blocking=False):
            if isinstance(obj, dict):
                _out = {}
                for _key, _value in obj.items():
                    _out[_key] = _move(_value, device, non_blocking)
                return _out
            if isinstance(obj, tuple):
                return tuple(_move(_item, device, non_blocking) for _item in obj)
            if isinstance(obj, list):
                return [_move(_item, device, non_blocking) for _item in obj]
            if torch.is_tensor(obj):
                return _move(obj, device, non_blocking)
            return obj
        ''', loses=(), why="own helpers and locals named _out, _key, _item"),
    Mistake("scratch-globals", "to_device", '''
        if "model" not in globals():
            print("no model yet, that is fine")

        def to_device(obj, device, non_blocking=False):
            if isinstance(obj, torch.Tensor):
                return obj.to(device, non_blocking=non_blocking)
            if isinstance(obj, (list, tuple)):
                return type(obj)(map(lambda o: to_device(o, device, non_blocking), obj))
            if isinstance(obj, dict):
                return dict((k, to_device(v, device, non_blocking)) for k, v in obj.items())
            return obj
        ''', loses=(), why="an innocent globals() check in a scratch line, map and a lambda"),
    Mistake("model-to-device", "train_one_epoch", '''
        def train_one_epoch(model, loader, optimizer, criterion, device) -> float:
            model.to(device)
            model.train()
            _total, _count = 0.0, 0
            for _x, _y in loader:
                _x, _y = _x.to(device, non_blocking=True), _y.to(device, non_blocking=True)
                optimizer.zero_grad()
                _loss = criterion(model(_x), _y)
                _loss.backward()
                optimizer.step()
                _total += _loss.item() * len(_y)
                _count += len(_y)
            return _total / _count
        ''', loses=(), why="moves the model to the device inside the function; locals named _x, _loss"),
    Mistake("float64-sum", "train_one_epoch", '''
        def train_one_epoch(model, loader, optimizer, criterion, device) -> float:
            model.train()
            total = torch.zeros((), dtype=torch.float64)
            for x, y in loader:
                x = x.to(device, non_blocking=True)
                y = y.to(device, non_blocking=True)
                optimizer.zero_grad(set_to_none=False)
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                total += loss.detach().double() * x.shape[0]
            return float(total / len(loader.dataset))
        ''', loses=(), why="accumulates in float64, divides by the dataset's length"),
    Mistake("sum-reduction", "train_one_epoch", '''
        def train_one_epoch(model, loader, optimizer, criterion, device) -> float:
            model.train(True)
            losses, sizes = [], []
            for batch in loader:
                x, y = (t.to(device, non_blocking=True) for t in batch)
                for p in model.parameters():
                    p.grad = None
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
                sizes.append(len(x))
            print(f"epoch done: {len(losses)} batches")
            return sum(l * n for l, n in zip(losses, sizes)) / sum(sizes)
        ''', loses=(), why="zeroes the gradients by hand, keeps lists, prints"),
    Mistake("float32-fraction", "evaluate", '''
        def evaluate(model, loader, device) -> float:
            model.eval()
            hits = []
            with torch.inference_mode():
                for x, y in loader:
                    hits.append(model(x.to(device)).argmax(-1).eq(y.to(device)))
            return torch.cat(hits).float().mean().item()
        ''', loses=(), why="inference_mode, the fraction computed in float32"),
    Mistake("no-grad-decorator", "evaluate", '''
        @torch.no_grad()
        def _count_correct(model, x, y):
            return int((model(x).argmax(dim=1) == y).sum())

        def evaluate(model, loader, device) -> float:
            model.train(False)
            _correct = sum(_count_correct(model, x.to(device), y.to(device)) for x, y in loader)
            return _correct / len(loader.dataset)
        ''', loses=(), why="torch.no_grad as a decorator on an own _helper, train(False)"),
    Mistake("constant-on-device", "evaluate", '''
        def evaluate(model, loader, device) -> float:
            model.eval()
            correct = torch.tensor(0, device=device)
            seen = 0
            with torch.no_grad():
                for x, y in loader:
                    x, y = x.to(device), y.to(device)
                    correct += (model(x).argmax(1) == y).sum()
                    seen += y.size(0)
            return correct.item() / seen
        ''', loses=(), why="a counter tensor created on the device"),
]
