"""Writing files atomically: a reader (or a crash) never sees a half-written file."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO


def atomic_write(path: Path, write: Callable[[BinaryIO], object]) -> None:
    """Writes `path` through `write(binary_file)` into a temporary file that then replaces it.

    The temporary file lives in the same directory (so the rename is atomic) and is synced to
    disk first; on any failure, including Ctrl-C, it is removed and `path` is left as it was.
    """
    handle, temp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as file:
            write(file)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temp_name, 0o644)  # mkstemp makes files private; these are meant to be shared
        os.replace(temp_name, path)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise
