# reading: subclasses (namedtuple, OrderedDict) are outside the contract, so pytree's handling of them is fine.
# how: torch.utils._pytree.tree_map rebuilds every list/tuple/dict and maps the tensor leaves.
from torch.utils import _pytree as pytree


def to_device(obj, device, non_blocking=False):
    def move(leaf):
        if isinstance(leaf, torch.Tensor):
            return leaf.to(device, non_blocking=non_blocking)
        return leaf
    return pytree.tree_map(move, obj)
