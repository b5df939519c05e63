"""Common mistakes for 01_devices."""

from graders.mistakes import Mistake

MISTAKES = [
    Mistake("device-string", "pick_device", '''
        def pick_device() -> torch.device:
            if torch.cuda.is_available():
                return "cuda"
            if torch.backends.mps.is_available():
                return "mps"
            return "cpu"
        ''', loses=("test_pick_device",), why="returns a string, not a torch.device", sample=True),
    Mistake("no-mps", "pick_device", '''
        def pick_device() -> torch.device:
            return torch.device("cuda" if torch.cuda.is_available() else "cpu")
        ''', loses=("test_pick_device",), why="forgets Apple's MPS"),
    Mistake("mps-first", "pick_device", '''
        def pick_device() -> torch.device:
            if torch.backends.mps.is_available():
                return torch.device("mps")
            if torch.cuda.is_available():
                return torch.device("cuda")
            return torch.device("cpu")
        ''', loses=("test_pick_device",), why="prefers MPS over CUDA"),
    Mistake("dict-ignored", "to_device", '''
        def to_device(obj, device, non_blocking=False):
            if isinstance(obj, torch.Tensor):
                return obj.to(device, non_blocking=non_blocking)
            if isinstance(obj, (list, tuple)):
                return type(obj)(to_device(o, device, non_blocking) for o in obj)
            return obj
        ''', loses=("test_to_device",), why="dicts are returned as they are"),
    Mistake("non-blocking-dropped", "to_device", '''
        def to_device(obj, device, non_blocking=False):
            if isinstance(obj, torch.Tensor):
                return obj.to(device)
            if isinstance(obj, dict):
                return {k: to_device(v, device, non_blocking) for k, v in obj.items()}
            if isinstance(obj, (list, tuple)):
                return type(obj)(to_device(o, device, non_blocking) for o in obj)
            return obj
        ''', loses=("test_to_device",), why="non_blocking never reaches Tensor.to"),
    Mistake("mutates-input", "to_device", '''
        def to_device(obj, device, non_blocking=False):
            if isinstance(obj, torch.Tensor):
                return obj.to(device, non_blocking=non_blocking)
            if isinstance(obj, dict):
                for k in obj:
                    obj[k] = to_device(obj[k], device, non_blocking)
                return obj
            if isinstance(obj, list):
                for i, o in enumerate(obj):
                    obj[i] = to_device(o, device, non_blocking)
                return obj
            if isinstance(obj, tuple):
                return tuple(to_device(o, device, non_blocking) for o in obj)
            return obj
        ''', loses=("test_to_device",), why="moves in place, changing the caller's batch"),
    Mistake("tuple-to-list", "to_device", '''
        def to_device(obj, device, non_blocking=False):
            if isinstance(obj, torch.Tensor):
                return obj.to(device, non_blocking=non_blocking)
            if isinstance(obj, dict):
                return {k: to_device(v, device, non_blocking) for k, v in obj.items()}
            if isinstance(obj, (list, tuple)):
                return [to_device(o, device, non_blocking) for o in obj]
            return obj
        ''', loses=("test_to_device",), why="tuples come back as lists"),
    Mistake("mean-of-batch-means", "train_one_epoch", '''
        def train_one_epoch(model, loader, optimizer, criterion, device) -> float:
            model.train()
            losses = []
            for x, y in loader:
                x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
            return sum(losses) / len(losses)
        ''', loses=("test_train_one_epoch",), why="averages batch means; the short last batch weighs too much",
        sample=True),
    Mistake("no-train-mode", "train_one_epoch", '''
        def train_one_epoch(model, loader, optimizer, criterion, device) -> float:
            total, count = 0.0, 0
            for x, y in loader:
                x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                total += loss.item() * len(x)
                count += len(x)
            return total / count
        ''', loses=("test_train_one_epoch",), why="never calls model.train()"),
    Mistake("blocking-transfer", "train_one_epoch", '''
        def train_one_epoch(model, loader, optimizer, criterion, device) -> float:
            model.train()
            total, count = 0.0, 0
            for x, y in loader:
                x, y = x.to(device), y.to(device)
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                total += loss.item() * len(x)
                count += len(x)
            return total / count
        ''', loses=("test_train_one_epoch",), why="moves batches without non_blocking=True"),
    Mistake("no-zero-grad", "train_one_epoch", '''
        def train_one_epoch(model, loader, optimizer, criterion, device) -> float:
            model.train()
            total, count = 0.0, 0
            for x, y in loader:
                x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                total += loss.item() * len(x)
                count += len(x)
            return total / count
        ''', loses=("test_train_one_epoch",), why="gradients accumulate across batches"),
    Mistake("returns-tensor", "train_one_epoch", '''
        def train_one_epoch(model, loader, optimizer, criterion, device) -> float:
            model.train()
            total, count = 0.0, 0
            for x, y in loader:
                x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                total = total + loss.detach() * len(x)
                count += len(x)
            return total / count
        ''', loses=("test_train_one_epoch",), why="returns a tensor instead of a float"),
    Mistake("no-eval-mode", "evaluate", '''
        def evaluate(model, loader, device) -> float:
            correct = total = 0
            with torch.no_grad():
                for x, y in loader:
                    x, y = x.to(device), y.to(device)
                    correct += (model(x).argmax(1) == y).sum().item()
                    total += len(y)
            return correct / total
        ''', loses=("test_evaluate",), why="forgets model.eval()"),
    Mistake("with-autograd", "evaluate", '''
        def evaluate(model, loader, device) -> float:
            model.eval()
            correct = total = 0
            for x, y in loader:
                x, y = x.to(device), y.to(device)
                correct += (model(x).argmax(1) == y).sum().item()
                total += len(y)
            return correct / total
        ''', loses=("test_evaluate",), why="builds autograd graphs while evaluating"),
    Mistake("percent", "evaluate", '''
        def evaluate(model, loader, device) -> float:
            model.eval()
            correct = total = 0
            with torch.no_grad():
                for x, y in loader:
                    correct += (model(x.to(device)).argmax(1) == y.to(device)).sum().item()
                    total += len(y)
            return 100.0 * correct / total
        ''', loses=("test_evaluate",), why="returns a percentage"),
    Mistake("mean-of-batch-accuracies", "evaluate", '''
        def evaluate(model, loader, device) -> float:
            model.eval()
            accs = []
            with torch.no_grad():
                for x, y in loader:
                    accs.append((model(x.to(device)).argmax(1) == y.to(device)).float().mean().item())
            return sum(accs) / len(accs)
        ''', loses=("test_evaluate",), why="averages batch accuracies; the short last batch weighs too much"),
]
