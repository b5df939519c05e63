# breaks: "counter.graphs == []  (a list of this instance's own, never shared)"
# how: a mutable default argument in __init__ is shared by every instance built without arguments.
class CompileCounter:
    def __init__(self, graphs=[]):
        self.graphs = graphs

    def __call__(self, gm, example_inputs):
        self.graphs.append(gm)
        return gm
