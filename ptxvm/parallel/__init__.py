"""CTA-parallel launches and sweeps: a launch's CTAs split over local processes or Ray tasks,
merged to the single process's result bit for bit (docs/parallel.md)."""
from .launcher import default_workers, min_work  # noqa: F401
