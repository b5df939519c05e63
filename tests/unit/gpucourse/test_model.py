import itertools

import torch

from gpucourse.model import make_adamw_cosine, make_cnn, make_mlp


def test_mlp_is_module_5s():
    model = make_mlp()
    kinds = [type(m).__name__ for m in model]
    assert kinds == ["Flatten", "Linear", "ReLU", "Linear"]
    assert (model[1].in_features, model[1].out_features, model[3].out_features) == (784, 256, 10)
    assert model(torch.zeros(5, 1, 28, 28)).shape == (5, 10)


def test_mlp_is_seeded():
    a, b = make_mlp(seed=3), make_mlp(seed=3)
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters(), strict=True))


def test_adamw_cosine_schedule():
    model = make_mlp()
    optimizer, scheduler = make_adamw_cosine(model, total_steps=10, lr=1.0, warmup_steps=2)
    assert isinstance(optimizer, torch.optim.AdamW)
    lrs = []
    for _ in range(10):
        lrs.append(optimizer.param_groups[0]["lr"])
        optimizer.step()
        scheduler.step()
    assert lrs[0] == 0.5 and lrs[1] == 1.0          # linear warm-up
    assert all(a >= b for a, b in itertools.pairwise(lrs[1:]))  # then never increases
    assert optimizer.param_groups[0]["lr"] < 1e-9    # cosine ends at zero


def test_dropout_goes_after_the_relu_and_the_default_stays_module_5s():
    model = make_mlp(hidden=64, dropout=0.3)
    assert [type(m).__name__ for m in model] == ["Flatten", "Linear", "ReLU", "Dropout", "Linear"]
    assert model[3].p == 0.3 and model[1].out_features == 64
    assert not any(isinstance(m, torch.nn.Dropout) for m in make_mlp())


# -- gpucourse.training: notebook 08's final run, shared with benchmarks/final_run.py -------------------------------
from gpucourse import training  # noqa: E402


def simple_batches(x, y, batch_size, generator=None):
    """Shuffled, drop_last batches: what gpu_resident_batches yields (written here, not imported from the course)."""
    perm = torch.randperm(len(x), generator=generator)
    for i in range(len(x) // batch_size):
        idx = perm[i * batch_size:(i + 1) * batch_size]
        yield x[idx], y[idx]


def separable_data(n, seed):
    """uint8 images whose class is the bright row: learnable to near 100 % in a few epochs."""
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, 10, (n,), generator=g)
    x = torch.randint(0, 60, (n, 1, 28, 28), generator=g, dtype=torch.uint8)
    x[torch.arange(n), 0, 2 * y + 4] = 250
    return x, y


def test_final_configuration_is_the_small_cnn():
    cfg = training.FINAL
    model = cfg.model()
    kinds = [type(m).__name__ for m in model]
    assert kinds[:3] == ["Conv2d", "ReLU", "MaxPool2d"] and kinds.count("Conv2d") == 2 and kinds[-1] == "Linear"
    assert [m.out_channels for m in model if isinstance(m, torch.nn.Conv2d)] == list(cfg.channels)
    assert (cfg.dropout > 0) == ("Dropout" in kinds)
    assert model(torch.zeros(3, 1, 28, 28)).shape == (3, 10)


def test_best_mlp_is_module_5s_mlp_wider_and_regularized():
    cfg = training.BEST_MLP
    model = cfg.model()
    kinds = [type(m).__name__ for m in model]
    assert kinds == ["Flatten", "Linear", "ReLU", "Dropout", "Linear"]
    assert model[1].out_features == cfg.hidden > 256 and model[3].p == cfg.dropout > 0


def test_cnn_shapes_and_seed():
    model = make_cnn(channels=(4, 8), hidden=16, dropout=0.1, seed=5)
    convs = [m for m in model if isinstance(m, torch.nn.Conv2d)]
    assert [(c.in_channels, c.out_channels, c.kernel_size) for c in convs] == [(1, 4, (3, 3)), (4, 8, (3, 3))]
    linear = [m for m in model if isinstance(m, torch.nn.Linear)]
    assert (linear[0].in_features, linear[0].out_features, linear[1].out_features) == (8 * 7 * 7, 16, 10)
    again = make_cnn(channels=(4, 8), hidden=16, dropout=0.1, seed=5)
    assert all(torch.equal(p, q) for p, q in zip(model.parameters(), again.parameters(), strict=True))


def test_unknown_arch_is_refused():
    import pytest
    with pytest.raises(ValueError, match="unknown arch"):
        training.FinalRun(arch="resnet").model()


def test_train_step_uses_label_smoothing():
    x, y = torch.randn(16, 1, 28, 28), torch.randint(0, 10, (16,))
    losses = {}
    for smoothing in (0.0, 0.2):
        m = make_mlp(hidden=8, seed=0)     # lr 0: the step leaves the weights as they are
        step = training.make_train_step(m, torch.optim.SGD(m.parameters(), lr=0.0), label_smoothing=smoothing)
        losses[smoothing] = step(x, y).item()
    logits = make_mlp(hidden=8, seed=0)(x)
    assert abs(losses[0.0] - torch.nn.functional.cross_entropy(logits, y).item()) < 1e-5
    assert abs(losses[0.2] - torch.nn.functional.cross_entropy(logits, y, label_smoothing=0.2).item()) < 1e-5


def test_train_learns_and_records_what_it_measured():
    x, y = separable_data(1200, seed=1)
    xt, yt = separable_data(300, seed=2)
    cfg = training.FinalRun(arch="mlp", hidden=32, epochs=3, batch_size=100, warmup_epochs=1)
    result, model = training.train(simple_batches, x, y, training.normalize(xt), yt, cfg)
    assert len(result.accuracies) == len(result.losses) == 3
    assert result.examples == 3 * 1200 and result.seconds > 0
    assert result.accuracy > 0.9 and result.accuracy == result.accuracies[-1]
    assert result.examples_per_s == result.examples / result.seconds
    assert result.accuracy == training.accuracy(model, training.normalize(xt), yt)
    assert model.training   # evaluation switched dropout off and back on


def test_train_learns_with_the_cnn():
    x, y = separable_data(1200, seed=1)
    xt, yt = separable_data(300, seed=2)
    cfg = training.FinalRun(channels=(4, 8), hidden=16, epochs=3, batch_size=100, dropout=0.1, lr=1e-2)
    result, model = training.train(simple_batches, x, y, training.normalize(xt), yt, cfg)
    assert isinstance(model[0], torch.nn.Conv2d) and result.accuracy > 0.9


def test_train_is_reproducible_per_seed():
    x, y = separable_data(600, seed=3)
    xt, yt = training.normalize(x[:200]), y[:200]
    cfg = training.FinalRun(arch="mlp", hidden=16, epochs=2, batch_size=50, dropout=0.2)
    runs = [training.train(simple_batches, x, y, xt, yt, cfg, seed=s)[0] for s in (4, 4, 5)]
    assert runs[0].losses == runs[1].losses and runs[0].accuracies == runs[1].accuracies
    assert runs[0].losses != runs[2].losses


def test_no_exercise_answer_of_08_is_importable():
    import importlib
    import pkgutil

    import gpucourse
    names = set()
    for info in pkgutil.iter_modules(gpucourse.__path__):
        names |= set(vars(importlib.import_module(f"gpucourse.{info.name}")))
    assert not names & {"throughput", "gpu_resident_batches", "speedup_table"}



def test_describe_names_the_model_and_its_training():
    assert training.FINAL.describe().startswith("CNN (3x3 convolutions of 16 and 32 channels")
    assert f"{training.FINAL.epochs} epochs" in training.FINAL.describe()
    assert training.BEST_MLP.describe().startswith("MLP 1024, dropout 0.2")
