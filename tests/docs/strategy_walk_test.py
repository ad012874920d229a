#!/usr/bin/env python3
"""docs/writing-a-strategy.md, replayed as a reader follows it.

dtbench is installed into a scratch prefix (standing for /opt/dtbench), then
the page's blocks run in order in a scratch folder: every ```sh block through
bash (a failing command fails the test, a query that returns no rows too);
every block marked <!-- file: PATH --> must be examples/PATH, byte for byte,
and is written to PATH as the reader would; a block marked <!-- output -->
must be what the ```sh block before it printed.

    strategy_walk_test.py BUILD_DIR SOURCE_DIR
"""
import difflib
import os
import re
import subprocess
import sys
import tempfile

BLOCK = re.compile(r"^(?:<!-- (file: \S+|output) -->\n)?```(\w*)\n(.*?)^```$", re.S | re.M)
PLUGIN_FILES = {"local_sgd/local_sgd.cpp", "local_sgd/local_sgd.toml", "local_sgd/compare.sql"}
MAX_PLUGIN_LINES = 150


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def main(build, source):
    doc = open(os.path.join(source, "docs", "writing-a-strategy.md")).read()
    lines = len(open(os.path.join(source, "examples", "local_sgd", "local_sgd.cpp")).read().splitlines())
    if lines >= MAX_PLUGIN_LINES:
        fail(f"examples/local_sgd/local_sgd.cpp has {lines} lines; the page promises under {MAX_PLUGIN_LINES}")
    with tempfile.TemporaryDirectory() as scratch:
        prefix = os.path.join(scratch, "prefix")
        subprocess.run(["cmake", "--install", build, "--prefix", prefix], check=True, stdout=subprocess.DEVNULL)
        env = dict(os.environ, PATH=os.path.join(prefix, "bin") + os.pathsep + os.environ["PATH"])
        work = os.path.join(scratch, "work")
        os.mkdir(work)
        shown, last_output = set(), None
        for match in BLOCK.finditer(doc):
            marker, language, text = match.group(1), match.group(2), match.group(3)
            where = f"docs/writing-a-strategy.md:{doc.count(chr(10), 0, match.start()) + 1}"
            if marker and marker.startswith("file: "):
                path = marker[len("file: "):]
                example = open(os.path.join(source, "examples", path)).read()
                if text != example:
                    diff = difflib.unified_diff(example.splitlines(), text.splitlines(), f"examples/{path}", where,
                                                lineterm="")
                    fail(f"{where}: the block differs from examples/{path}:\n" + "\n".join(diff))
                with open(os.path.join(work, path), "w") as out:
                    out.write(text)
                shown.add(path)
                print(f"ok {where}: {path} is examples/{path}")
            elif marker == "output":
                expected = (last_output or "").replace(prefix, "/opt/dtbench")
                if text != expected:
                    fail(f"{where}: the page shows\n{text}\nbut the command printed\n{expected}")
                print(f"ok {where}: the output shown is the output")
            elif language == "sh":
                commands = text.replace("/opt/dtbench", prefix)
                done = subprocess.run(["bash", "-euo", "pipefail", "-c", commands], cwd=work, env=env,
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                last_output = done.stdout
                if done.returncode != 0:
                    fail(f"{where}: exit code {done.returncode} from\n{text}\n--- output:\n{done.stdout}")
                if "(0 rows)" in done.stdout:
                    fail(f"{where}: a query returned no rows:\n{done.stdout}")
                print(f"ok {where}: {text.splitlines()[0]}")
        if shown != PLUGIN_FILES:
            fail(f"the page shows {sorted(shown)}, not all of {sorted(PLUGIN_FILES)}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
