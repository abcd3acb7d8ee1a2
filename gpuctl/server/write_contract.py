"""`make openapi`: write the document the server serves, as committed, to the file named.

python -m gpuctl.server.write_contract docs/openapi.json
"""

from __future__ import annotations

import sys
from pathlib import Path

from gpuctl.server.app import create_app
from gpuctl.server.contract import as_text


def served_text() -> str:
    """The document an app serves, as committed."""
    app = create_app(None, None)  # type: ignore[arg-type]  # an app for its document only
    return as_text(app.openapi())


if __name__ == "__main__":
    Path(sys.argv[1]).write_text(served_text(), encoding="utf-8")
