"""``python -m pipeline`` runs the walltime command."""

from .cli import main

main()
