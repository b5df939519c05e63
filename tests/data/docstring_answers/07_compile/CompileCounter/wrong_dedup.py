# breaks: "Every call counter(gm, example_inputs) appends gm ... one entry per call"
# how: records a graph module only the first time it is seen ("count distinct graphs").
class CompileCounter:
    def __init__(self):
        self.graphs = []

    def __call__(self, gm, example_inputs):
        if not any(g is gm for g in self.graphs):
            self.graphs.append(gm)
        return gm.forward
