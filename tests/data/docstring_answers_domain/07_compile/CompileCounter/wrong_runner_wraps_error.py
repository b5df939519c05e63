# breaks: "returns a callable that runs gm unchanged (gm.forward, or gm)."
# how: the runner catches what the graph raises and raises a RuntimeError naming the graph instead
class CompileCounter:
    def __init__(self):
        self.graphs = []

    def __call__(self, gm, example_inputs):
        self.graphs.append(gm)
        number = len(self.graphs)

        def run(*args):
            try:
                return gm(*args)
            except Exception as error:
                raise RuntimeError(f"graph {number} failed") from error
        return run
