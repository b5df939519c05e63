# reading: results is a dict (name -> examples per second); rows are tuples
# how: KeyError comes from operator.itemgetter on the baseline; floats made once with map(float, ...)
import operator


def speedup_table(results, baseline):
    reference = float(operator.itemgetter(baseline)(results))
    names = list(results)
    speeds = list(map(float, (results[n] for n in names)))
    return [(n, s, s / reference) for n, s in zip(names, speeds)]
