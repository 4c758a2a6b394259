"""walltime: measure, improve and replay users' runtime estimates from HPC job logs.

The stages are modules users can import: ``pipeline.ingest``, ``pipeline.warehouse``
(and, as they land, estimates, simulate, metrics, report). The ``walltime`` command
is a thin Typer layer over them (``pipeline.cli``).
"""

__version__ = "0.1.0"
