# reading: the tracker is always below growth_interval when given (as GradScaler keeps it), so ">=" and "==" agree
# how: computes the new tracker first, then picks the factor (backoff, growth or 1) and multiplies once
def next_scale(scale, growth_tracker, found_inf, growth_factor=2.0, backoff_factor=0.5,
               growth_interval=2000):
    tracker = 0 if found_inf else int(growth_tracker) + 1
    factor = 1.0
    if found_inf:
        factor = backoff_factor
    elif tracker >= growth_interval:
        factor, tracker = growth_factor, 0
    return float(scale) * float(factor), tracker
