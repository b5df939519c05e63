# breaks: "returns a callable that runs gm unchanged (gm.forward, or gm)."
# how: runs the graph under torch.no_grad() (a counting backend only needs the outputs), so nothing it computes has gradients
class CompileCounter:
    def __init__(self):
        self.graphs = []

    def __call__(self, gm, example_inputs):
        self.graphs.append(gm)

        def run(*args):
            with torch.no_grad():
                return gm(*args)
        return run
