"""Training learned claws with Stable-Baselines3: configs, the training script, tuning, export.

Importing this package imports nothing heavy; ``claw.learning.train`` pulls in SB3 and torch.
"""

from claw.learning.config import ALGORITHMS, TrainConfig, load_config
from claw.learning.exceptions import InvalidConfigError, TrackingUnavailableError

__all__ = [
    "ALGORITHMS",
    "InvalidConfigError",
    "TrackingUnavailableError",
    "TrainConfig",
    "load_config",
]
