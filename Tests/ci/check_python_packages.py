#!/usr/bin/env python3
"""Every Python module the tests ask for is installed by .ci/run's pip line, pinned.

The tests call Python in two ways: `ExternalTool.pythonHas("module")` before they run a script, and the scripts
under Tests/ (*.py) with their imports. A module that is on the machine where a test is written passes there
whatever .ci/run installs; on a fresh machine the test fails. This check reads both and fails, in a second and
before anything is built, when one of their modules is not named by the pip line of .ci/run, or when a package
of that line has no exact version.

    python3 Tests/ci/check_python_packages.py        # from the repository, as .ci/run calls it first
"""
import pathlib
import re
import shlex
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]

# Modules whose PyPI distribution has another name than the module with '_' written '-'.
DISTRIBUTION_OF = {"PIL": "pillow"}


def pip_line(ci_script: str) -> list[str]:
    """The arguments of the `pip install` command in .ci/run, its continuation lines joined."""
    joined = re.sub(r"\\\n\s*", " ", ci_script)
    for line in joined.splitlines():
        if re.search(r"\bpip\b.*\binstall\b", line) and not line.lstrip().startswith("#"):
            words = shlex.split(line, comments=True)
            return words[words.index("install") + 1:]
    return []


def requested_modules() -> dict[str, set[str]]:
    """Each top-level module the tests need, with the files that ask for it."""
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / "Tests").rglob("*.swift")):
        for module in re.findall(r'pythonHas\("([A-Za-z0-9_]+)"\)', path.read_text(encoding="utf-8")):
            found.setdefault(module, set()).add(str(path.relative_to(ROOT)))
    local = {p.stem for p in (ROOT / "Tests").rglob("*.py")}
    for path in sorted((ROOT / "Tests").rglob("*.py")):
        for line in path.read_text(encoding="utf-8").splitlines():
            match = re.match(r"\s*(?:from\s+([A-Za-z_][A-Za-z0-9_]*)[\w.]*\s+import|import\s+([A-Za-z_][\w., ]*))", line)
            if not match:
                continue
            names = [match.group(1)] if match.group(1) else [n.strip().split(".")[0].split(" ")[0]
                                                            for n in match.group(2).split(",")]
            for module in names:
                if module and module not in sys.stdlib_module_names and module not in local:
                    found.setdefault(module, set()).add(str(path.relative_to(ROOT)))
    return found


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def main() -> int:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    arguments = pip_line(ci)
    if not arguments:
        print("check_python_packages: .ci/run has no pip install line", file=sys.stderr)
        return 1
    pinned, problems = {}, []
    for argument in arguments:
        if argument.startswith("-"):
            continue
        name, _, version = argument.partition("==")
        if not version:
            problems.append(f"'{argument}' in the pip line of .ci/run has no exact version (name==version)")
        pinned[normalized(name)] = version
    for module, files in sorted(requested_modules().items()):
        distribution = normalized(DISTRIBUTION_OF.get(module, module))
        if distribution not in pinned:
            problems.append(f"the tests need the Python module '{module}' ({', '.join(sorted(files))}), "
                            f"but the pip line of .ci/run does not install '{distribution}': add it, pinned "
                            f"(or, if its PyPI name differs, name it in DISTRIBUTION_OF of {pathlib.Path(__file__).name})")
    for problem in problems:
        print("check_python_packages: " + problem, file=sys.stderr)
    if not problems:
        print(f"check_python_packages: the {len(requested_modules())} modules the tests import are all in the "
              f"pip line of .ci/run ({len(pinned)} packages, all pinned)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
