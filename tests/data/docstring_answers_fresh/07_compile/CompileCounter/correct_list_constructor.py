# reading: returning gm itself (a GraphModule is callable and runs its forward).
# how: list() in __init__, list.extend with a one-element tuple, returns gm.
class CompileCounter:
    def __init__(self):
        self.graphs = list()

    def __call__(self, gm, example_inputs):
        self.graphs.extend((gm,))
        return gm
