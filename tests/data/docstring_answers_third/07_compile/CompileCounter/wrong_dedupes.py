# breaks: "one entry per call"
# how: skips a GraphModule it has already recorded (the same gm handed over twice counts once)
class CompileCounter:
    def __init__(self):
        self.graphs = []

    def __call__(self, gm, example_inputs):
        if not any(g is gm for g in self.graphs):
            self.graphs.append(gm)
        return gm
