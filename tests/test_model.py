import torch

from gpucourse.model import make_adamw_cosine, make_mlp


def test_mlp_is_module_5s():
    model = make_mlp()
    kinds = [type(m).__name__ for m in model]
    assert kinds == ["Flatten", "Linear", "ReLU", "Linear"]
    assert (model[1].in_features, model[1].out_features, model[3].out_features) == (784, 256, 10)
    assert model(torch.zeros(5, 1, 28, 28)).shape == (5, 10)


def test_mlp_is_seeded():
    a, b = make_mlp(seed=3), make_mlp(seed=3)
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))


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
    assert all(a >= b for a, b in zip(lrs[1:], lrs[2:]))  # then never increases
    assert optimizer.param_groups[0]["lr"] < 1e-9    # cosine ends at zero
