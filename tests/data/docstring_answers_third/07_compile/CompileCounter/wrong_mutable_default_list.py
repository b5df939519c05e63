# breaks: "counter.graphs == []  (a list of this instance's own, never shared)."
# how: takes the list as a default argument, so every CompileCounter() shares the same list
class CompileCounter:
    def __init__(self, graphs=[]):
        self.graphs = graphs

    def __call__(self, gm, example_inputs):
        self.graphs.append(gm)
        return gm.forward
