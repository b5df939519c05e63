# reading: any callable that runs gm unchanged may be returned; here a closure around gm.
# how: list() for a fresh list, list concatenation, a wrapper function.
class CompileCounter:
    def __init__(self):
        self.graphs = list()

    def __call__(self, gm, example_inputs):
        self.graphs += [gm]

        def run_unchanged(*args):
            return gm(*args)
        return run_unchanged
