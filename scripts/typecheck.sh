#!/usr/bin/env bash
# Type-check every claw package with mypy (config: pyproject's [tool.mypy]).
#
# pyproject maps claw.envs -> envs/, claw.skills -> skills/ and so on, so the package cannot be
# seen as `claw` from the repository root. This builds a temporary tree whose claw/ holds links to
# claw/*.py and to every folder named in [tool.setuptools.package-dir], and runs `mypy -p claw`
# there; mypy names files by that tree (claw/envs/tabletop.py is envs/tabletop.py). Extra
# arguments go to mypy. The tree and the cache live in the repository's .mypy_cache (gitignored),
# at the same place on every run so that a rerun only checks what changed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tree="$root/.mypy_cache/layout"
mkdir -p "$root/.mypy_cache"
exec 9>"$root/.mypy_cache/typecheck.lock"  # one run at a time: they share the tree and cache
if command -v flock >/dev/null; then flock 9; fi
rm -rf "$tree"
mkdir -p "$tree"

python - "$root" "$tree" <<'PY'
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: mypy's own dependency
    import tomli as tomllib

root, tree = Path(sys.argv[1]), Path(sys.argv[2])
config = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
package_dir: dict[str, str] = config["tool"]["setuptools"]["package-dir"]
for package, folder in package_dir.items():
    target = tree.joinpath(*package.split("."))
    source = root / folder
    if package == "claw":
        target.mkdir(parents=True, exist_ok=True)
        for module in sorted(source.glob("*.py")):
            (target / module.name).symlink_to(module)
        if (source / "py.typed").exists():
            (target / "py.typed").symlink_to(source / "py.typed")
    elif source.is_dir():
        target.parent.mkdir(parents=True, exist_ok=True)
        target.symlink_to(source, target_is_directory=True)
    else:
        sys.exit(f"typecheck: {folder}/ (package-dir of {package}) does not exist")
PY

cd "$tree"
exec mypy --config-file "$root/pyproject.toml" --cache-dir "$root/.mypy_cache" -p claw "$@"
