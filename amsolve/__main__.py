"""`python -m amsolve`."""

from amsolve.cli import main

main()
