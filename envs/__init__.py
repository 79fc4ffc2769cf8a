"""The simulated world: a Gymnasium env over MuJoCo, scenes from a spec, ground-truth predicates."""
