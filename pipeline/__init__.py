"""walltime: measure, improve and replay users' runtime estimates from HPC job logs.

The stages are modules users can import, in the order the work flows:
``pipeline.ingest`` -> ``estimates`` -> ``simulate`` -> ``report`` ->
``reproduce`` -> ``study``, over ``pipeline.warehouse``. The ``walltime`` command
is a thin Typer layer over them (``pipeline.cli``). docs/architecture.md
lists every module's layer; imports only point down (tests/test_layers.py).
"""

__version__ = "0.1.0"
