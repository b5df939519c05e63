# breaks: "one entry per call"
# how: keeps only graphs whose code is new ("count distinct graphs"), so a recompile that yields the same code is not recorded.
class CompileCounter:
    def __init__(self):
        self.graphs = []

    def __call__(self, gm, example_inputs):
        if all(g.code != gm.code for g in self.graphs):
            self.graphs.append(gm)
        return gm
