# breaks: "one entry per call"
# how: records a graph only when it has example inputs (a graph of constants is not counted)
class CompileCounter:
    def __init__(self):
        self.graphs = []

    def __call__(self, gm, example_inputs):
        if len(example_inputs) > 0:
            self.graphs.append(gm)
        return gm.forward
