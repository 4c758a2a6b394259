"""The Slurm-shaped replay: a model of a site's own Slurm (docs/slurm-replay.md)."""
