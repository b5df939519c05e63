# breaks: "counter.graphs == []  (a list of this instance's own, never shared)"
# how: graphs is a class attribute, so every CompileCounter appends to the same list.
class CompileCounter:
    graphs = []

    def __init__(self):
        pass

    def __call__(self, gm, example_inputs):
        self.graphs.append(gm)
        return gm.forward
