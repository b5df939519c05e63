# reading: "a callable that runs gm unchanged" may be a wrapper that forwards to gm
# how: list built in __init__ via list(); += to append; returns a closure calling gm(*args)
class CompileCounter:
    def __init__(self):
        self.graphs = list()

    def __call__(self, gm, example_inputs):
        self.graphs += [gm]

        def run(*args, **kwargs):
            return gm(*args, **kwargs)

        return run
