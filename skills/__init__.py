"""Low-level skills ("claws"): IK/PID controllers and trained policies behind one protocol."""
