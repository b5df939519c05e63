# reading: the class may be a dataclass (CompileCounter() still takes no argument); a wrapper that calls gm.forward
#          counts as "a callable that runs gm unchanged".
from dataclasses import dataclass, field


@dataclass
class CompileCounter:
    graphs: list = field(default_factory=list)

    def __call__(self, gm, example_inputs):
        self.graphs.append(gm)

        def run(*args):
            return gm.forward(*args)
        return run
