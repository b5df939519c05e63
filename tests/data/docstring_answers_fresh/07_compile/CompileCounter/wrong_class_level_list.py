# breaks: "counter = CompileCounter(); counter.graphs == []  (a list of this instance's own, never shared)"
# how: graphs is a class attribute, one list shared by every instance (a second counter starts non-empty).
class CompileCounter:
    graphs = []

    def __init__(self):
        pass

    def __call__(self, gm, example_inputs):
        self.graphs.append(gm)
        return gm.forward
