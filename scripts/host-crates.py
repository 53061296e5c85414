#!/usr/bin/env python3
"""Writes Cargo.toml's list of the crates only ever built for the host, at opt-level 0.

Every dependency builds at `opt-level = 2` (`[profile.dev.package."*"]`), and cargo gives
that setting precedence over `[profile.dev.build-override]`, so proc-macros and what build
scripts use compiled at opt-level 2 too: a third of a cold build's CPU, for code that runs
for moments during the build. A crate named in `[profile.dev.package.<name>]` takes its
own setting over both. Only crates nothing at run time links are listed (found from
`cargo metadata`: not reachable from a workspace member through normal or dev
dependencies without passing a proc-macro; by version where another version of the
crate is), so no crate the app or a test runs gets slower.

    python3 scripts/host-crates.py          # rewrite the list in Cargo.toml
    python3 scripts/host-crates.py --check  # exit 1 if it is out of date

Run it after a dependency change; a stale list only makes the build slower.
"""

import json
import pathlib
import subprocess
import sys

BEGIN = "# BEGIN host-only crates (scripts/host-crates.py)\n"
END = "# END host-only crates\n"


def host_only() -> list[str]:
    meta = json.loads(
        subprocess.run(
            ["cargo", "metadata", "--format-version", "1", "--locked", "--all-features"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    )
    packages = {p["id"]: p for p in meta["packages"]}
    nodes = {n["id"]: n for n in meta["resolve"]["nodes"]}

    def proc_macro(pid: str) -> bool:
        return any("proc-macro" in t["kind"] for t in packages[pid]["targets"])

    runtime: set[str] = set()
    todo = list(meta["workspace_members"])
    while todo:
        pid = todo.pop()
        if pid in runtime:
            continue
        runtime.add(pid)
        for dep in nodes[pid]["deps"]:
            kinds = {k["kind"] for k in dep["dep_kinds"]}
            if kinds & {None, "dev"} and not proc_macro(dep["pkg"]):
                todo.append(dep["pkg"])
    # A name is a spec for every version of it: where another version of the same crate
    # is linked at run time (toml, syn, winnow, ...), only the host's versions are named.
    linked = {packages[pid]["name"] for pid in runtime}
    specs = set()
    for pid in nodes.keys() - runtime:
        name, version = packages[pid]["name"], packages[pid]["version"]
        specs.add(f"{name}@{version}" if name in linked else name)
    return sorted(specs)


def block(names: list[str]) -> str:
    return BEGIN + "".join(f'[profile.dev.package."{n}"]\nopt-level = 0\n' for n in names) + END


def main() -> int:
    path = pathlib.Path(__file__).resolve().parent.parent / "Cargo.toml"
    text = path.read_text()
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        print(f"{path}: no '{BEGIN.strip()}' ... '{END.strip()}' block", file=sys.stderr)
        return 2
    fresh = text[:start] + block(host_only()) + text[end + len(END) :]
    if "--check" in sys.argv[1:]:
        if fresh != text:
            print("Cargo.toml's host-only crates are out of date: run scripts/host-crates.py", file=sys.stderr)
            return 1
        return 0
    path.write_text(fresh)
    return 0


if __name__ == "__main__":
    sys.exit(main())
