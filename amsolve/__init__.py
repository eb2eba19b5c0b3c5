"""amsolve: travelling salesman tours from an Attention Model trained with REINFORCE.

    >>> import amsolve
    >>> solution = amsolve.solve([[0, 0], [1, 0], [1, 1], [0, 1]])
    >>> solution.length, solution.tour

The public names are imported on first use, so `import amsolve` (and the CLI's `--help`) does
not pay for importing torch.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__version__ = "0.1.0"

_PUBLIC = {
    "solve": "amsolve.solver",
    "solve_instances": "amsolve.solver",
    "SolveOptions": "amsolve.solver",
    "Solution": "amsolve.solver",
    "DecodeOptions": "amsolve.decode.options",
    "decode": "amsolve.decode.strategies",
    "explain": "amsolve.explanation",
    "Explanation": "amsolve.explanation",
    "load_model": "amsolve.model.registry",
    "Instance": "amsolve.problem",
    "load_instances": "amsolve.io",
    "AmsolveError": "amsolve.errors",
}

__all__ = ["__version__", *_PUBLIC]


def __getattr__(name: str) -> Any:
    if name in _PUBLIC:
        return getattr(import_module(_PUBLIC[name]), name)
    raise AttributeError(f"module 'amsolve' has no attribute {name!r}")
