# reading: subclasses (namedtuple, OrderedDict) are handled however pytree handles them (out of contract).
# how: torch.utils._pytree.tree_map rebuilds every container; non-tensor leaves come back as they are.
import torch.utils._pytree as pytree


def to_device(obj, device, non_blocking=False):
    def move(leaf):
        if isinstance(leaf, torch.Tensor):
            return leaf.to(device, non_blocking=non_blocking)
        return leaf
    return pytree.tree_map(move, obj)
