"""Errors that amsolve reports to users as one line, without a traceback."""


class AmsolveError(Exception):
    """Base class: anything the CLI turns into a one-line message and a non-zero exit."""


class InputError(AmsolveError):
    """A file or value given by the user cannot be used (missing, malformed, unsupported)."""


class TourError(AmsolveError):
    """A tour is not a permutation of the instance's cities."""


class WeightsError(AmsolveError):
    """A weights file or model directory is missing, corrupt or does not match its config."""
