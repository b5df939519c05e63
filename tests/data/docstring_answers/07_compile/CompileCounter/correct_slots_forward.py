# reading: returning gm.forward (bound method) as the compiled callable.
# how: __slots__ and insert at the end by index.
class CompileCounter:
    __slots__ = ("graphs",)

    def __init__(self):
        self.graphs: list = []

    def __call__(self, gm, example_inputs):
        self.graphs.insert(len(self.graphs), gm)
        return gm.forward
