"""What the numbers mean: every metric's doc (doc.py), the report's health checks (flags.py), paired intervals (significance.py), TensorBoard and W&B (trackers.py). May import config, store."""
