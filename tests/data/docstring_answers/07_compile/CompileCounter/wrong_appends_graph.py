# breaks: "appends gm itself (the torch.fx.GraphModule) to counter.graphs"
# how: appends gm.graph (the torch.fx.Graph) to look at its nodes later.
class CompileCounter:
    def __init__(self):
        self.graphs = []

    def __call__(self, gm, example_inputs):
        self.graphs.append(gm.graph)
        return gm.forward
