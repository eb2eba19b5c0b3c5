"""`python -m amsolve`."""

from amsolve.cli import app

app()
