"""``python -m benchmarks.load`` (from the repository's root): the load benchmark's command line."""

from __future__ import annotations

from .cli import main

# the generator processes are spawned, and import this package afresh: only the run itself starts one
if __name__ == "__main__":
    main()
