"""README's first command installs the CPU build of torch on an ordinary Linux machine.

PyPI's Linux build of torch 2.13.0 pulls several GB of CUDA packages; PyTorch's CPU index has "2.13.0+cpu".
README installs pre-requirements.txt (that index, torch only: --no-deps) before requirements.txt. This test checks
the command and the pins, and asks pip itself which build it takes when both builds are offered, with two local
folders standing in for PyPI and PyTorch's index (no network, pip's own configuration ignored).
"""

import json
import re
import sys
import zipfile
from pathlib import Path

import processes

ROOT = Path(__file__).resolve().parent.parent


def first_command() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.search(r"```bash\n(.+?)\n```", readme, re.S).group(1)


def pins(name: str) -> dict[str, str]:
    out = {}
    for line in (ROOT / name).read_text().splitlines():
        m = re.match(r"^([A-Za-z0-9_.-]+)==(\S+)$", line.strip())
        if m:
            out[m.group(1).lower()] = m.group(2)
    return out


def test_the_first_command_installs_torch_from_the_cpu_index_before_the_rest():
    cmd = first_command()
    pre, rest = cmd.index("pre-requirements.txt"), cmd.index("-r requirements.txt")
    assert pre < rest
    assert "--no-deps -r pre-requirements.txt" in cmd  # only torch is looked up on the extra index
    text = (ROOT / "pre-requirements.txt").read_text()
    assert "--extra-index-url https://download.pytorch.org/whl/cpu" in text
    assert pins("pre-requirements.txt") == {"torch": pins("requirements.txt")["torch"]} == {"torch": "2.13.0"}


def wheel(folder: Path, version: str, requires: list[str]) -> None:
    name = f"torch-{version}-py3-none-any.whl"
    info = f"torch-{version}.dist-info"
    with zipfile.ZipFile(folder / name, "w") as z:
        z.writestr(f"{info}/METADATA", "Metadata-Version: 2.1\nName: torch\nVersion: " + version + "\n"
                   + "".join(f"Requires-Dist: {r}\n" for r in requires))
        z.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        z.writestr(f"{info}/RECORD", "")


def test_pip_takes_the_cpu_build_when_both_builds_are_offered(tmp_path):
    pypi, cpu_index = tmp_path / "pypi", tmp_path / "cpu"
    pypi.mkdir()
    cpu_index.mkdir()
    wheel(pypi, "2.13.0", ["nvidia-cublas-cu12==12.8.4.1"])  # as PyPI's Linux build: CUDA packages
    wheel(cpu_index, "2.13.0+cpu", [])
    pin = pins("pre-requirements.txt")["torch"]
    out = processes.run([sys.executable, "-m", "pip", "install", "--isolated", "--dry-run", "--no-deps",
                         "--ignore-installed", "--no-index", "--find-links", str(pypi), "--find-links",
                         str(cpu_index), "--report", "-", "--quiet", f"torch=={pin}"],
                        capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    chosen = [item["metadata"]["version"] for item in json.loads(out.stdout)["install"]]
    assert chosen == ["2.13.0+cpu"]
