# breaks: "appends gm itself (the torch.fx.GraphModule) to counter.graphs"
# how: stores a deep copy as a snapshot, so the entry is not the object it received.
import copy


class CompileCounter:
    def __init__(self):
        self.graphs = []

    def __call__(self, gm, example_inputs):
        self.graphs.append(copy.deepcopy(gm))
        return gm.forward
