# reading: Python floats (float64); found_inf may be a bool or anything truthy (a 0-d tensor too).
# how: one expression per case, the counted step named explicitly.
def next_scale(scale, growth_tracker, found_inf, growth_factor=2.0, backoff_factor=0.5,
               growth_interval=2000):
    current = float(scale)
    if bool(found_inf):
        return current * float(backoff_factor), 0
    counted = int(growth_tracker) + 1
    if counted >= growth_interval:
        return current * float(growth_factor), 0
    return current, counted
