# reading: examples per second are converted with float() first, the speed-up divides the converted figures
# how: zip of keys and converted values, operator.truediv through map
import operator


def speedup_table(results, baseline):
    base = float(results[baseline])
    names = list(results.keys())
    speeds = [float(v) for v in results.values()]
    ratios = map(operator.truediv, speeds, [base] * len(speeds))
    return list(zip(names, speeds, ratios))
