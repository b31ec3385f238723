# conftest.py — the Python package's tests run from the repository root
# against its build: the CLI ($WEFT_CLI, else build/weft) gives the
# reference output; the package is python/ unless WEFT_TEST_INSTALLED=1
# (then the installed one). Prints "python: N passed, M failed" for
# tests/run.sh's tally.
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if os.environ.get("WEFT_TEST_INSTALLED") != "1":
    sys.path.insert(0, os.path.join(ROOT, "python"))
os.chdir(ROOT)  # the CLI and the package read the same relative paths


def pytest_terminal_summary(terminalreporter):
    st = terminalreporter.stats
    failed = len(st.get("failed", [])) + len(st.get("error", []))
    terminalreporter.write_line("python: %d passed, %d failed" % (len(st.get("passed", [])),
                                                                  failed))
