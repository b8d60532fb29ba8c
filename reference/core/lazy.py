"""Heavy libraries imported on first use, never at module import: `loopkit demo` must stay fast."""
from __future__ import annotations

import sys
import threading
from typing import Any

_IMPORTING = threading.Lock()


def load_jsonschema() -> Any:
    """The `jsonschema` package, imported on first use (never at module import: the demo must stay fast).

    With its format extras installed (Jupyter brings them), importing jsonschema also imports
    `rfc3987_syntax`, which builds an IRI grammar: about 1 s of the 1.1 s the import takes here
    (measured with `python -X importtime -c "import jsonschema"`). Tool schemas check no IRI
    formats, so unless something already loaded it, that one optional module is masked during the
    import (jsonschema skips the `iri` checkers when it is missing) and unmasked right after.

    Runs may start in many threads at once. The lock makes one of them import while the others wait:
    without it a second thread could take the half-built module from `sys.modules`, or unmask the
    optional module in the middle of the first thread's import.
    """
    with _IMPORTING:
        mask = "jsonschema" not in sys.modules and "rfc3987_syntax" not in sys.modules
        if mask:
            sys.modules["rfc3987_syntax"] = None  # type: ignore[assignment]  # import -> ImportError
        try:
            import jsonschema  # here, not at the top: about a second to import with the format extras
        finally:
            if mask:
                del sys.modules["rfc3987_syntax"]
    return jsonschema
