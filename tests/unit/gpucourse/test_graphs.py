"""gpucourse.graphs: a whole training step captured in one CUDA graph (notebook 08's cure for a host-bound step)."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from gpucourse.graphs import graphed_train_step
from gpucourse.model import make_mlp

NO_CUDA = "needs a CUDA GPU (torch.cuda.is_available() is False)"


def test_without_a_cuda_tensor_it_says_what_it_needs():
    model = make_mlp()
    optimizer = torch.optim.AdamW(model.parameters())
    with pytest.raises(RuntimeError, match="CUDA graphs need a CUDA GPU"):
        graphed_train_step(model, optimizer, torch.zeros(4, 1, 28, 28), torch.zeros(4, dtype=torch.long))


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason=NO_CUDA)
def test_a_graphed_step_trains_as_the_eager_step():
    """After the same warm-up, each replay makes the same update as an eager step on the same batch."""
    gen = torch.Generator(device="cuda").manual_seed(0)
    batches = [(torch.randn(64, 1, 28, 28, device="cuda", generator=gen),
                torch.randint(0, 10, (64,), device="cuda", generator=gen)) for _ in range(4)]
    eager_model, graph_model = make_mlp().cuda(), make_mlp().cuda()          # seeded: the same weights
    eager_opt = torch.optim.AdamW(eager_model.parameters(), lr=1e-3, capturable=True)
    graph_opt = torch.optim.AdamW(graph_model.parameters(), lr=1e-3, capturable=True)
    step = graphed_train_step(graph_model, graph_opt, *batches[0], warmup=3)

    def eager_step(x, y):
        eager_opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(eager_model(x), y)
        loss.backward()
        eager_opt.step()
        return loss

    for _ in range(3):                                   # the warm-up graphed_train_step ran
        eager_step(*batches[0])
    for x, y in batches:
        expected = eager_step(x, y).item()
        assert step(x, y).item() == pytest.approx(expected, rel=1e-4)
    for p_eager, p_graph in zip(eager_model.parameters(), graph_model.parameters(), strict=True):
        torch.testing.assert_close(p_graph, p_eager, rtol=1e-4, atol=1e-5)
